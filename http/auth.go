package http

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"rankd"
)

// Auth tells who holds a bearer token: from the configuration file and the environment (fixed for the
// server's life), or issued through the API (kept in the store as digests).
type Auth struct {
	static []rankd.Token
	store  rankd.TokenStore
	// known holds the tokens the store gave, by their secret's digest: while the store cannot be reached (a
	// database down), their holders are still known, and a team still reads its board. Each is looked up
	// again at every request the store answers, so a revoked one goes at its next request.
	knownMu sync.Mutex
	known   map[[sha256.Size]byte]rankd.Token
}

// Config is the server's configuration file (JSON).
type Config struct {
	Tokens []ConfigToken `json:"tokens"`
}

// ConfigToken is one token of the configuration file.
type ConfigToken struct {
	Token   string `json:"token"`
	Role    string `json:"role"`
	Contest string `json:"contest,omitempty"`
	Team    string `json:"team,omitempty"`
	Name    string `json:"name,omitempty"`
}

// MinTokenLength is the shortest secret accepted from a configuration, so a guessable token is refused.
const MinTokenLength = 16

// LoadConfig reads a configuration file.
func LoadConfig(path string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return c, fmt.Errorf("config %s: the file is empty: want a JSON object such as {\"tokens\": []}", path)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := lineColumn(data, syntax.Offset)
			return c, fmt.Errorf("config %s: line %d, column %d: %w", path, line, col, err)
		}
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	// Anything after the object (a second one pasted in, a stray character) would be ignored, its tokens
	// with it: refused instead.
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, fmt.Errorf("config %s: data after the configuration object", path)
	}
	return c, nil
}

// lineColumn returns the line and column (from 1) of the byte at offset in data, or just before it (a
// json.SyntaxError's offset is past the byte that made it).
func lineColumn(data []byte, offset int64) (line, col int) {
	before := data[:max(min(offset, int64(len(data)))-1, 0)]
	line = 1 + strings.Count(string(before), "\n")
	return line, len(before) - strings.LastIndexByte(string(before), '\n')
}

// NewAuth returns the authority of the tokens of cfg, the admin and judge tokens given (from the environment;
// "" for none) and the tokens of store.
func NewAuth(cfg Config, adminToken, judgeToken string, store rankd.TokenStore) (*Auth, error) {
	a := &Auth{store: store}
	var from []string // where each static token comes from, for messages
	add := func(t rankd.Token, where string) error {
		if len(t.Secret) < MinTokenLength {
			return fmt.Errorf("%s tokens must have at least %d characters", t.Role, MinTokenLength)
		}
		if strings.IndexFunc(t.Secret, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			// A client's Authorization header loses a space at the end: such a token would never match.
			return errors.New("a token has no spaces or control characters")
		}
		for i, o := range a.static {
			if o.Secret == t.Secret {
				// Only the first would count: the other's holder would get its rights, or lose them.
				return fmt.Errorf("the same secret as %s: give each token a secret of its own", from[i])
			}
		}
		if err := t.Validate(); err != nil {
			return errors.New(rankd.ErrorMessage(err))
		}
		switch {
		case t.Role == rankd.RoleJudge && t.TeamID != "":
			return errors.New("a judge token is not bound to a team (only to a contest)")
		case t.Role != rankd.RoleTeam && t.Role != rankd.RoleJudge && (t.ContestID != "" || t.TeamID != ""):
			return fmt.Errorf("a %s token is not bound to a contest or team", t.Role)
		}
		a.static, from = append(a.static, t), append(from, where)
		return nil
	}
	for i, ct := range cfg.Tokens {
		t := rankd.Token{Secret: ct.Token, Role: rankd.Role(ct.Role), ContestID: ct.Contest, TeamID: ct.Team, Name: ct.Name}
		where := fmt.Sprintf("config token %d", i+1)
		if err := add(t, where); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	for _, env := range []struct {
		secret, name string
		role         rankd.Role
	}{{adminToken, "RANKD_ADMIN_TOKEN", rankd.RoleAdmin}, {judgeToken, "RANKD_JUDGE_TOKEN", rankd.RoleJudge}} {
		if env.secret == "" {
			continue
		}
		if err := add(rankd.Token{Secret: env.secret, Role: env.role, Name: env.name}, env.name); err != nil {
			return nil, fmt.Errorf("%s: %w", env.name, err)
		}
	}
	return a, nil
}

// anonymous is who sends no token.
var anonymous = rankd.Token{Role: rankd.RolePublic}

// credentials reports whether r carries a token: a request without one is refused 401 (authenticate), one
// whose token lacks the right 403, a configured public token included (it is known, like any other).
func credentials(r *http.Request) bool { return r.Header.Get("Authorization") != "" }

// identify returns the holder of the request's bearer token, anonymous without one.
func (a *Auth) identify(r *http.Request) (rankd.Token, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return anonymous, nil
	}
	scheme, secret, _ := strings.Cut(h, " ")
	if strings.EqualFold(scheme, "Basic") {
		// What the CCS Contest API's clients send (ICPC tools, a CDS, DOMjudge's): the token as the password,
		// or as the user name without one.
		user, password, _ := r.BasicAuth()
		secret = cmp.Or(password, user)
	} else if !strings.EqualFold(scheme, "Bearer") {
		secret = ""
	}
	if secret == "" {
		return rankd.Token{}, rankd.Errorf(rankd.EUNAUTHORIZED, "the Authorization header must be \"Bearer <token>\" (or Basic, the token as the password)")
	}
	// Compare with every fixed token, without stopping at a match, so the time says nothing of the secret.
	var found rankd.Token
	match := 0
	for _, t := range a.static {
		eq := subtle.ConstantTimeCompare([]byte(secret), []byte(t.Secret))
		if eq == 1 && match == 0 {
			found = t
		}
		match |= eq
	}
	if match == 1 {
		found.Secret = ""
		if found.Role == rankd.RoleJudge && found.ContestID != "" && r.PathValue("cid") != found.ContestID {
			// A judge of one contest is the public anywhere else (withRole says whose it is).
			found.Role = rankd.RolePublic
		}
		return found, nil
	}
	if a.store != nil {
		// The store looks tokens up by a digest, which says nothing of how close a guess was.
		t, err := a.store.LookupToken(r.Context(), secret)
		digest := sha256.Sum256([]byte(secret))
		a.knownMu.Lock()
		defer a.knownMu.Unlock()
		switch rankd.ErrorCode(err) {
		case "":
			if a.known == nil {
				a.known = map[[sha256.Size]byte]rankd.Token{}
			}
			a.known[digest] = t
			return t, nil
		case rankd.ENOTFOUND:
			delete(a.known, digest)
		default:
			if t, ok := a.known[digest]; ok && rankd.ErrorCode(err) == rankd.EUNAVAILABLE {
				return t, nil
			}
			return rankd.Token{}, err
		}
	}
	return rankd.Token{}, rankd.Errorf(rankd.EUNAUTHORIZED, "unknown token")
}

// forget drops the remembered tokens of a contest's team (teamID ""; every team of the contest): revoked, or
// the contest deleted. A token is never taken from memory for a contest created again with the id.
func (a *Auth) forget(contestID, teamID string) {
	a.knownMu.Lock()
	defer a.knownMu.Unlock()
	for k, t := range a.known {
		if t.ContestID == contestID && (teamID == "" || t.TeamID == teamID) {
			delete(a.known, k)
		}
	}
}

// NewSecret returns a fresh random token secret.
func NewSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// withRole wraps h so that it runs only for a holder with one of the roles.
func (s *Server) withRole(h handlerFunc, roles ...rankd.Role) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := s.Auth.identify(r)
		if err != nil {
			return err
		}
		for _, role := range roles {
			if t.Role == role {
				return h(w, r)
			}
		}
		need := "an admin token"
		if len(roles) > 1 {
			need = "a judge or admin token"
		}
		switch {
		case !credentials(r):
			return rankd.Errorf(rankd.EUNAUTHORIZED, "this needs %s", need)
		case t.Role == rankd.RolePublic && t.ContestID != "":
			return rankd.Errorf(rankd.EFORBIDDEN, "this needs %s: this token is a judge's of contest %q only", need, t.ContestID)
		}
		return rankd.Errorf(rankd.EFORBIDDEN, "this needs %s", need)
	}
}

func (s *Server) admin(h handlerFunc) handlerFunc { return s.withRole(h, rankd.RoleAdmin) }
func (s *Server) judge(h handlerFunc) handlerFunc {
	return s.withRole(h, rankd.RoleJudge, rankd.RoleAdmin)
}

// viewFor returns the view a request asks for (?view=public|jury|team or team:ID), checked against its
// token: jury needs a judge or admin token, a team view the team's own token (or a jury token). A team
// token asks for its own team view by default.
func (s *Server) viewFor(r *http.Request, contestID string) (rankd.View, error) {
	return s.viewOf(r, contestID, false)
}

// ccsViewFor is viewFor for the CCS Contest API, whose clients (a CDS, the ICPC tools) read what their
// credentials let them see without naming a view: a judge or admin token asks for the jury view by
// default, as its event feed does.
func (s *Server) ccsViewFor(r *http.Request, contestID string) (rankd.View, error) {
	return s.viewOf(r, contestID, true)
}

func (s *Server) viewOf(r *http.Request, contestID string, juryByDefault bool) (rankd.View, error) {
	t, err := s.Auth.identify(r)
	if err != nil {
		return rankd.View{}, err
	}
	q := param(r, "view")
	own := t.Role == rankd.RoleTeam && t.ContestID == contestID
	if q == "" {
		switch {
		case own:
			return rankd.TeamView(t.TeamID), nil
		case juryByDefault && t.Jury():
			return rankd.JuryView, nil
		}
		return rankd.PublicView, nil
	}
	if q == "team" {
		if !credentials(r) {
			return rankd.View{}, rankd.Errorf(rankd.EUNAUTHORIZED, "view team needs a team token of this contest")
		}
		if !own {
			return rankd.View{}, rankd.Errorf(rankd.EFORBIDDEN, "view team needs a team token of this contest")
		}
		return rankd.TeamView(t.TeamID), nil
	}
	v, err := rankd.ParseView(q)
	if err != nil {
		return v, err
	}
	jury := t.Jury()
	switch {
	case v.Kind == rankd.ViewPublic, jury:
		return v, nil
	case v.Kind == rankd.ViewTeam && own && v.TeamID == t.TeamID:
		return v, nil
	case !credentials(r):
		return rankd.View{}, rankd.Errorf(rankd.EUNAUTHORIZED, "view %s needs a token", q)
	case t.Role == rankd.RolePublic && t.ContestID != "":
		return rankd.View{}, rankd.Errorf(rankd.EFORBIDDEN, "this token may not see view %s: it is a judge's of contest %q only", q, t.ContestID)
	}
	return rankd.View{}, rankd.Errorf(rankd.EFORBIDDEN, "this token may not see view %s", q)
}
