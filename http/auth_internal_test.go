package http

import (
	"context"
	"net/http/httptest"
	"testing"

	"rankd"
)

// downStore is a token store that can be down, as a database is.
type downStore struct {
	tokens map[string]rankd.Token
	down   bool
}

func (s *downStore) SaveToken(_ context.Context, t rankd.Token) error {
	s.tokens[t.Secret] = t
	return nil
}

func (s *downStore) LookupToken(_ context.Context, secret string) (rankd.Token, error) {
	if s.down {
		return rankd.Token{}, rankd.Errorf(rankd.EUNAVAILABLE, "the database is unavailable")
	}
	t, ok := s.tokens[secret]
	if !ok {
		return rankd.Token{}, rankd.Errorf(rankd.ENOTFOUND, "no such token")
	}
	return t, nil
}

func (s *downStore) DeleteTeamTokens(_ context.Context, contestID, teamID string) (int, error) {
	n := 0
	for k, t := range s.tokens {
		if t.ContestID == contestID && t.TeamID == teamID {
			delete(s.tokens, k)
			n++
		}
	}
	return n, nil
}

// A team whose token the store gave is still known while the store is down (a team's board and stream went
// dark for the whole of a database's outage); a token the store never gave, or revoked since it was last
// used, is not: 503 for what cannot be told, 401 once the store says.
func TestTokensKnownWhileTheStoreIsDown(t *testing.T) {
	store := &downStore{tokens: map[string]rankd.Token{}}
	a, err := NewAuth(Config{}, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	team := rankd.Token{Secret: "team-secret-0123456789", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t1"}
	revoked := rankd.Token{Secret: "team-secret-revoked-0123", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t2"}
	for _, tok := range []rankd.Token{team, revoked} {
		if err := store.SaveToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	identify := func(secret string) (rankd.Token, string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer "+secret)
		got, err := a.identify(r)
		return got, rankd.ErrorCode(err)
	}
	for _, secret := range []string{team.Secret, revoked.Secret} {
		if _, code := identify(secret); code != "" {
			t.Fatalf("the store up: got %s, want the token known", code)
		}
	}
	if _, err := store.DeleteTeamTokens(context.Background(), "c1", "t2"); err != nil {
		t.Fatal(err)
	}
	if _, code := identify(revoked.Secret); code != rankd.EUNAUTHORIZED {
		t.Fatalf("revoked: got %q, want %s", code, rankd.EUNAUTHORIZED)
	}
	store.down = true
	for _, tc := range []struct {
		name, secret, code string
		want               rankd.Token
	}{
		{"a token used before", team.Secret, "", rankd.Token{Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t1"}},
		{"a token revoked before", revoked.Secret, rankd.EUNAVAILABLE, rankd.Token{}},
		{"a token never seen", "never-seen-token-0123456", rankd.EUNAVAILABLE, rankd.Token{}},
	} {
		got, code := identify(tc.secret)
		got.Secret = ""
		if code != tc.code || got != tc.want {
			t.Errorf("the store down, %s: got %+v, %q; want %+v, %q", tc.name, got, code, tc.want, tc.code)
		}
	}
}

// A token revoked, or of a contest deleted, on this server is forgotten at once: the store down, it is not
// taken from memory (for a contest created again with the id, neither).
func TestTokensForgottenWhenRevoked(t *testing.T) {
	store := &downStore{tokens: map[string]rankd.Token{}}
	a, err := NewAuth(Config{}, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	tokens := []rankd.Token{
		{Secret: "team-secret-c1-t1-012345", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t1"},
		{Secret: "team-secret-c1-t2-012345", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t2"},
		{Secret: "team-secret-c2-t1-012345", Role: rankd.RoleTeam, ContestID: "c2", TeamID: "t1"},
	}
	code := func(secret string) string {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer "+secret)
		_, err := a.identify(r)
		return rankd.ErrorCode(err)
	}
	for _, tok := range tokens {
		if err := store.SaveToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
		if c := code(tok.Secret); c != "" {
			t.Fatalf("the store up: got %q, want the token known", c)
		}
	}
	a.forget("c1", "t1") // revoked
	a.forget("c2", "")   // the contest deleted
	store.down = true
	for i, want := range []string{rankd.EUNAVAILABLE, "", rankd.EUNAVAILABLE} {
		if got := code(tokens[i].Secret); got != want {
			t.Errorf("the store down, token of %s %s: got %q, want %q", tokens[i].ContestID, tokens[i].TeamID, got, want)
		}
	}
}
