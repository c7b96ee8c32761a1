package ccs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"rankd"
)

const (
	// MaxLineSize is the longest feed line the Reader accepts; a longer one is an ETOOLARGE error.
	MaxLineSize = 64 << 20

	// maxInterned bounds the table that shares the strings of low-cardinality ids (teams, problems, verdicts,
	// languages, entry points) between events, so that a hostile feed cannot grow it without end.
	maxInterned = 1 << 16
)

// Reader reads a CCS event feed (NDJSON) and hands out its events one at a time, converted to rankd's domain.
// It reads both the 2022-07/2023-06 style {"type","id","data","token"} and the 2020-03 style
// {"id","type","op","data"}; see docs/ccs.md for what it reads of each object.
//
// To keep up with a million events a second, a Reader reuses what it hands out: the *rankd.Submission and
// *rankd.Judgement of an Event point into the Reader and are overwritten by the next call to Next. Copy what
// you keep (the strings, and SubtaskScores, are never overwritten). A Reader is not safe for concurrent use.
type Reader struct {
	br   *bufio.Reader
	p    fastjson.Parser
	long []byte // a line longer than br's buffer, assembled

	line    int // lines read so far
	evLine  int // line of the event or error last returned
	skipped map[string]int
	names   map[string]string // interned ids; see maxInterned
	seen    [4096]string      // recent submission and judgement ids; see recent
	seed    maphash.Seed

	// The contest start as last given by the contest's start_time and by the state's started: what an
	// absolute time is relative to when an object gives no contest time.
	contestStart, started time.Time

	// The elements of a whole-collection event ("id": null, "data": [...]) not yet handed out.
	coll      []*fastjson.Value
	collType  rankd.EventType
	collToken string

	sub rankd.Submission
	jud rankd.Judgement

	// scratch of the fast path (readfast.go)
	fastEnv, fastData []fastMember
	// scratch of a submission's files (files.go)
	scratch []byte
}

// NewReader returns a Reader of the feed r. It buffers r itself.
func NewReader(r io.Reader) *Reader {
	return &Reader{
		br:      bufio.NewReaderSize(r, 64<<10),
		skipped: map[string]int{},
		names:   map[string]string{},
		seed:    maphash.MakeSeed(),
	}
}

// Line returns the 1-based line number of the event (or error) last returned by Next.
func (r *Reader) Line() int { return r.evLine }

// NumberFrom numbers the lines still to read from first on (1 at the start), in Line and in errors: a caller
// that puts lines of its own before a feed numbers the feed's from 1 by giving 1 minus their count.
func (r *Reader) NumberFrom(first int) { r.line = first - 1 }

// Skipped returns how many lines of each type were skipped: the types a scoreboard ignores (languages,
// clarifications, accounts, ...) and unknown ones, keyed by the type as the feed spells it.
func (r *Reader) Skipped() map[string]int { return maps.Clone(r.skipped) }

// Next returns the next event of the feed, or io.EOF at its end. Blank lines and skipped types are passed
// over. A malformed line gives an EINVALID *rankd.Error naming the line and the field, and a line over
// MaxLineSize an ETOOLARGE one; either way the next call goes on with the following line, so the caller
// decides whether to stop. Errors of the underlying reader are returned as they are.
//
// The event's Submission and Judgement are valid only until the next call (see Reader).
func (r *Reader) Next() (rankd.Event, error) {
	if len(r.coll) > 0 {
		v := r.coll[0]
		r.coll = r.coll[1:]
		token := ""
		if len(r.coll) == 0 {
			token = r.collToken
		}
		ev, err := r.object(r.collType, v, nil, false, token)
		if err != nil {
			return rankd.Event{}, err
		}
		return ev, nil
	}
	for {
		line, err := r.readLine()
		r.evLine = r.line
		if err != nil {
			return rankd.Event{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if ev, ok := r.readFast(line); ok {
			return ev, nil
		}
		ev, skip, err := r.parseLine(line)
		switch {
		case skip:
			continue
		case err != nil:
			return rankd.Event{}, err
		}
		return ev, nil
	}
}

var utf8BOM = []byte("\ufeff")

// SkipBOM returns r without the byte order mark it may start with, for readers of a feed that comes after
// lines of their own.
func SkipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	return br
}

// readLine returns the next line, valid until the next call. A line over MaxLineSize is read to its end,
// dropped and reported as an ETOOLARGE error.
func (r *Reader) readLine() ([]byte, error) {
	if cap(r.long) > 1<<20 {
		r.long = nil // do not hold on to the memory of a one-off huge line
	}
	line, err := r.br.ReadSlice('\n')
	switch {
	case err == nil || (err == io.EOF && len(line) > 0):
		r.line++
		// A byte order mark, which some editors write at the start of a UTF-8 file, and two such files
		// joined (cat) leave at the start of a line within.
		return bytes.TrimPrefix(line, utf8BOM), nil
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	r.long = append(r.long[:0], line...)
	tooLong := false
	for err == bufio.ErrBufferFull {
		line, err = r.br.ReadSlice('\n')
		if len(r.long)+len(line) > MaxLineSize {
			tooLong, r.long = true, r.long[:0]
		}
		if !tooLong {
			r.long = append(r.long, line...)
		}
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	r.line++
	if tooLong {
		return nil, rankd.Errorf(rankd.ETOOLARGE, "line %d: longer than %d bytes", r.line, MaxLineSize)
	}
	return bytes.TrimPrefix(r.long, utf8BOM), nil
}

// JSONProblem says where and how data, which a JSON parser refused with err, is not JSON, in the words of
// Go's standard decoder ("line 2, column 7: invalid character '}' looking for beginning of value"), which
// names what it expected; the fast parser's own words ("cannot parse object: ... unparsed tail: ...") are
// its internals. Should the standard decoder take data, the cause in err is given.
func JSONProblem(data []byte, err error) string {
	var syntax *json.SyntaxError
	// Into an empty struct: the decoder checks the whole input first, and keeps nothing of what it accepts.
	switch uerr := json.Unmarshal(data, new(struct{})); {
	case errors.As(uerr, &syntax):
		before := data[:min(max(syntax.Offset-1, 0), int64(len(data)))] // the offset is past the faulty byte
		line := 1 + bytes.Count(before, []byte{'\n'})
		where := fmt.Sprintf("column %d", len(before)-bytes.LastIndexByte(before, '\n'))
		if line > 1 || bytes.IndexByte(data, '\n') >= 0 {
			where = fmt.Sprintf("line %d, %s", line, where)
		}
		return where + ": " + syntax.Error()
	}
	return jsonCause(err) // JSON to the standard decoder (a depth beyond the fast parser's)
}

// jsonCause returns the cause in a JSON parser's error, without the "cannot parse ...: " the parser puts
// before it for every value that encloses the fault: kilobytes for a deeply nested line.
func jsonCause(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "cannot parse ")
		i := strings.Index(rest, ": ")
		if !ok || i < 0 {
			return msg
		}
		msg = rest[i+2:]
	}
}

// parseLine turns one line into an event; skip reports a type rankd ignores.
func (r *Reader) parseLine(line []byte) (ev rankd.Event, skip bool, err error) {
	v, err := r.p.ParseBytes(line)
	if err != nil {
		return ev, false, r.errorf("bad JSON: %s", JSONProblem(line, err))
	}
	env, err := v.Object()
	if err != nil {
		return ev, false, r.errorf("not a JSON object")
	}
	f := fields{r: r, o: env}
	typB, err := f.reqString("type")
	if err != nil {
		return ev, false, err
	}
	typ := rankd.ParseEventType(string(typB))
	if typ == rankd.EventUnknown && string(typB) == "contests" {
		typ = rankd.EventContest
	}
	if typ == rankd.EventUnknown {
		r.skipped[string(typB)]++
		return ev, true, nil
	}
	f.typ = typ
	if f.get("op") != nil {
		return r.parse2020(f)
	}
	return r.parse2023(f)
}

// parse2023 reads {"type","id","data","token"}: data null deletes id, data an array replaces a collection.
func (r *Reader) parse2023(f fields) (rankd.Event, bool, error) {
	idB, hasID, err := f.string("id")
	if err != nil {
		return rankd.Event{}, false, err
	}
	token, err := f.token("token")
	if err != nil {
		return rankd.Event{}, false, err
	}
	data := f.o.Get("data")
	switch {
	case data == nil:
		return rankd.Event{}, false, f.fail("data", "required")
	case data.Type() == fastjson.TypeNull:
		if !hasID && !singleton(f.typ) {
			return rankd.Event{}, false, f.fail("id", "required for a delete")
		}
		return r.deleted(f.typ, string(idB), token), false, nil
	case data.Type() == fastjson.TypeArray:
		switch {
		case singleton(f.typ):
			return rankd.Event{}, false, f.fail("data", "an array replaces a whole collection: %s is one object, not a collection", f.typ)
		case hasID:
			return rankd.Event{}, false, f.fail("data", "an array replaces a whole collection: its id must be null, not %q", idB)
		}
		elems, _ := data.Array()
		if len(elems) == 0 {
			return rankd.Event{}, true, nil // an empty collection carries no object
		}
		// A token names one event of the log: the last element carries the line's, so that a source resumed
		// after it has every element stored (a log refused the second element with the first's token).
		r.coll, r.collType, r.collToken = elems[1:], f.typ, token
		if len(elems) > 1 {
			token = ""
		}
		ev, err := r.object(f.typ, elems[0], nil, false, token)
		return ev, false, err
	}
	ev, err := r.object(f.typ, data, idB, hasID, token)
	return ev, false, err
}

// parse2020 reads {"id","type","op","data"}: the event id becomes the token, the object id is data.id.
func (r *Reader) parse2020(f fields) (rankd.Event, bool, error) {
	op, err := f.reqString("op")
	if err != nil {
		return rankd.Event{}, false, err
	}
	token, err := f.token("id")
	if err != nil {
		return rankd.Event{}, false, err
	}
	data := f.o.Get("data")
	if data == nil || data.Type() != fastjson.TypeObject {
		return rankd.Event{}, false, f.fail("data", "want an object")
	}
	switch string(op) {
	case "create", "update":
		ev, err := r.object(f.typ, data, nil, false, token)
		return ev, false, err
	case "delete":
		d := fields{r: r, o: data.GetObject(), typ: f.typ}
		id, hasID, err := d.string("id")
		if err != nil {
			return rankd.Event{}, false, err
		}
		if !hasID && !singleton(f.typ) {
			return rankd.Event{}, false, d.fail("id", "required for a delete")
		}
		return r.deleted(f.typ, string(id), token), false, nil
	}
	return rankd.Event{}, false, f.fail("op", "want create, update or delete, got %q", clip(op))
}

// singleton reports the types that have no id in the event envelope.
func singleton(t rankd.EventType) bool { return t == rankd.EventContest || t == rankd.EventState }

// deleted returns the deletion of id. A ban's deletion lifts it, and carries the Ban so that callers treat
// both alike.
func (r *Reader) deleted(t rankd.EventType, id, token string) rankd.Event {
	ev := rankd.Event{Type: t, ID: id, Delete: true, Token: token}
	switch t {
	case rankd.EventBan:
		ev.Ban = &rankd.Ban{TeamID: id}
	case rankd.EventContest:
		r.contestStart = time.Time{}
	case rankd.EventState:
		r.started = time.Time{}
	}
	return ev
}

// object converts the object data of type t. envID is the id of the envelope, if it has one.
func (r *Reader) object(t rankd.EventType, data *fastjson.Value, envID []byte, hasEnvID bool, token string) (rankd.Event, error) {
	o, err := data.Object()
	if err != nil {
		return rankd.Event{}, fields{r: r, typ: t}.fail("data", "want an object, got %s", data.Type())
	}
	f := fields{r: r, o: o, typ: t}
	ev := rankd.Event{Type: t, Token: token}
	switch t {
	case rankd.EventState:
		ev.State, err = r.state(f)
		return ev, err
	case rankd.EventBan:
		ev.Ban, err = r.ban(f, envID, hasEnvID)
		if err == nil {
			ev.ID = ev.Ban.TeamID
		}
		return ev, err
	}
	idB, hasID, err := f.string("id")
	switch {
	case err != nil:
		return ev, err
	case !hasID && !hasEnvID:
		return ev, f.fail("id", "required")
	case !hasID:
		ev.ID = r.idString(t, envID)
	case hasEnvID && !bytes.Equal(envID, idB) && t != rankd.EventContest:
		// The contest's envelope id may be anything (2023-06 wants null); every other object must match.
		return ev, f.fail("id", "%s differs from the event's id %s", quoteApart(idB, envID), quoteApart(envID, idB))
	default:
		ev.ID = r.idString(t, idB)
	}
	switch t {
	case rankd.EventContest:
		ev.Contest, err = r.contest(f, ev.ID)
	case rankd.EventJudgementType:
		ev.JudgementType, err = r.judgementType(f, ev.ID)
	case rankd.EventProblem:
		ev.Problem, err = r.problem(f, ev.ID)
	case rankd.EventGroup:
		ev.Group, err = r.group(f, ev.ID)
	case rankd.EventOrganization:
		ev.Organization, err = r.organization(f, ev.ID)
	case rankd.EventTeam:
		ev.Team, err = r.team(f, ev.ID)
	case rankd.EventSubmission:
		ev.Submission, err = r.submission(f, ev.ID)
	case rankd.EventJudgement:
		ev.Judgement, err = r.judgement(f, ev.ID)
	case rankd.EventAward:
		ev.Award, err = r.award(f, ev.ID)
	case rankd.EventReveal:
		ev.Reveal, err = r.reveal(f, ev.ID)
	}
	return ev, err
}

// idString converts an object's own id: interned for the types whose ids recur in every submission or
// judgement, cached for the submissions and judgements that recur for a while, a fresh string for others.
func (r *Reader) idString(t rankd.EventType, b []byte) string {
	switch t {
	case rankd.EventTeam, rankd.EventProblem, rankd.EventJudgementType:
		return r.intern(b)
	case rankd.EventSubmission, rankd.EventJudgement:
		return r.recent(b)
	}
	return string(b)
}

// recent returns a string equal to b, reusing the one of an earlier call when it is still in the cache.
func (r *Reader) recent(b []byte) string {
	i := maphash.Bytes(r.seed, b) % uint64(len(r.seen))
	if s := r.seen[i]; s == string(b) {
		return s
	}
	s := string(b)
	r.seen[i] = s
	return s
}

// intern returns a string equal to b, shared with earlier calls while the table has room.
func (r *Reader) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := r.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.names) < maxInterned {
		r.names[s] = s
	}
	return s
}

// start returns what absolute times are relative to: the state's started, else the contest's start_time.
func (r *Reader) start() time.Time {
	if !r.started.IsZero() {
		return r.started
	}
	return r.contestStart
}

func (r *Reader) contest(f fields, id string) (*rankd.Contest, error) {
	c := &rankd.Contest{ID: id, PenaltyTime: rankd.DefaultPenaltyTime}
	var err error
	if c.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	if c.FormalName, err = f.str("formal_name"); err != nil {
		return nil, err
	}
	if c.FormalName == "" {
		c.FormalName = c.Name // the CCS default
	}
	if c.Start, _, err = f.abs("start_time"); err != nil {
		return nil, err
	}
	var ok bool
	if c.Duration, ok, err = f.rel("duration"); err != nil {
		return nil, err
	} else if !ok {
		return nil, f.fail("duration", "required")
	}
	if c.FreezeDuration, _, err = f.rel("scoreboard_freeze_duration"); err != nil {
		return nil, err
	}
	if pen := f.o.Get("penalty_time"); pen != nil {
		// Integer minutes in 2023-06, a relative time in 2020-03 and in later drafts.
		switch pen.Type() {
		case fastjson.TypeNumber:
			n, ok := wholeNumber(pen)
			if !ok || n < math.MinInt64/int64(time.Minute) || n > math.MaxInt64/int64(time.Minute) {
				return nil, f.fail("penalty_time", "want whole minutes, got %s", clip(pen.MarshalTo(nil)))
			}
			c.PenaltyTime = time.Duration(n) * time.Minute
		case fastjson.TypeString:
			b, _ := pen.StringBytes()
			d, ok := parseRel(b)
			if !ok {
				return nil, f.fail("penalty_time", "bad relative time %q", clip(b))
			}
			c.PenaltyTime = d
		case fastjson.TypeNull:
		default:
			return nil, f.fail("penalty_time", "want minutes or a relative time, got %s", pen.Type())
		}
	}
	st, ok, err := f.string("scoreboard_type")
	switch {
	case err != nil:
		return nil, err
	case !ok, string(st) == "pass-fail":
		c.Rules = rankd.ICPC
	case string(st) == "score":
		c.Rules = rankd.OI
	default:
		return nil, f.fail("scoreboard_type", "want pass-fail or score, got %q", clip(st))
	}
	if err := r.contestExt(f, c); err != nil {
		return nil, err
	}
	r.contestStart = c.Start
	return c, nil
}

// contestExt reads the contest's rankd extension into c.
func (r *Reader) contestExt(f fields, c *rankd.Contest) error {
	ext, err := f.ext()
	if err != nil {
		return err
	}
	if ext.o == nil {
		c.NoExtension = true
		return nil
	}
	if rules, ok, err := ext.string("rules"); err != nil {
		return err
	} else if ok {
		if c.Rules, err = rankd.ParseRules(string(rules)); err != nil {
			return ext.failErr("rules", err)
		}
	}
	if mode, ok, err := ext.string("oi_mode"); err != nil {
		return err
	} else if ok {
		switch string(mode) {
		case "best":
			c.OIMode = rankd.OIBest
		case "last":
			c.OIMode = rankd.OILast
		default:
			return ext.fail("oi_mode", "want best or last, got %q", clip(mode))
		}
	}
	if c.HideUntilEnd, _, err = ext.bool("hide_until_end"); err != nil {
		return err
	}
	if c.TieByTime, _, err = ext.bool("tie_by_time"); err != nil {
		return err
	}
	if c.FirstBlood, err = ext.ints("first_blood"); err != nil {
		return err
	}
	medals, err := ext.object("medals", "rankd.medals.")
	if err != nil {
		return err
	}
	if medals.o != nil {
		for _, m := range []struct {
			key string
			n   *int
		}{{"gold", &c.Medals.Gold}, {"silver", &c.Medals.Silver}, {"bronze", &c.Medals.Bronze}} {
			n, _, err := medals.int(m.key)
			if err != nil {
				return err
			}
			*m.n = int(n)
		}
	}
	return nil
}

func (r *Reader) judgementType(f fields, id string) (*rankd.JudgementType, error) {
	jt := &rankd.JudgementType{ID: id}
	var err error
	if jt.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	solved, ok, err := f.bool("solved")
	if err != nil {
		return nil, err
	} else if !ok {
		return nil, f.fail("solved", "required")
	}
	jt.Solved = solved
	// A feed without penalty flags (a score contest's; the CCS asks for them only with a penalty_time) gets
	// the ICPC habit: every rejection costs, but a compile error.
	if jt.Penalty, ok, err = f.bool("penalty"); err != nil {
		return nil, err
	} else if !ok {
		jt.Penalty = !solved && !compileError(id, jt.Name)
	}
	return jt, nil
}

// compileError reports whether a judgement type is the compile error: the CCS's CE, or one its name says is.
func compileError(id, name string) bool {
	name = strings.ToLower(name)
	return strings.EqualFold(id, "CE") || strings.Contains(name, "compil")
}

func (r *Reader) problem(f fields, id string) (*rankd.Problem, error) {
	p := &rankd.Problem{ID: id}
	var err error
	if p.Label, err = f.str("label"); err != nil {
		return nil, err
	}
	if p.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	ord, _, err := f.int("ordinal")
	if err != nil {
		return nil, err
	}
	p.Ordinal = int(ord)
	if p.RGB, err = f.str("rgb"); err != nil {
		return nil, err
	}
	if p.Color, err = f.str("color"); err != nil {
		return nil, err
	}
	if p.MaxScore, _, err = f.num("max_score"); err != nil {
		return nil, err
	}
	// Only shown again, never used: a count that is not one is left out (unknown), not a problem refused,
	// and with it every submission to the problem (it was ignored before rankd kept it).
	if tests, _, err := f.int("test_data_count"); err == nil && tests >= 0 && tests <= math.MaxInt32 {
		p.TestDataCount = int(tests)
	}
	ext, err := f.ext()
	if err != nil || ext.o == nil {
		return p, err
	}
	if p.Value, _, err = ext.int("value"); err != nil {
		return nil, err
	}
	if p.Minimum, _, err = ext.int("minimum"); err != nil {
		return nil, err
	}
	if p.Decay, _, err = ext.int("decay"); err != nil {
		return nil, err
	}
	if fn, ok, err := ext.string("function"); err != nil {
		return nil, err
	} else if ok {
		if p.Function, err = rankd.ParseValueFunc(string(fn)); err != nil {
			return nil, ext.failErr("function", err)
		}
	}
	if p.Subtasks, err = ext.nums("subtasks"); err != nil {
		return nil, err
	}
	return p, nil
}

func (r *Reader) group(f fields, id string) (*rankd.Group, error) {
	g := &rankd.Group{ID: id}
	var err error
	if g.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	if g.Hidden, _, err = f.bool("hidden"); err != nil {
		return nil, err
	}
	return g, nil
}

func (r *Reader) organization(f fields, id string) (*rankd.Organization, error) {
	o := &rankd.Organization{ID: id}
	var err error
	if o.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	if o.FormalName, err = f.str("formal_name"); err != nil {
		return nil, err
	}
	if o.Country, err = f.str("country"); err != nil {
		return nil, err
	}
	return o, nil
}

func (r *Reader) team(f fields, id string) (*rankd.Team, error) {
	t := &rankd.Team{ID: id}
	var err error
	if t.Label, err = f.str("label"); err != nil {
		return nil, err
	}
	if t.Name, err = f.str("name"); err != nil {
		return nil, err
	}
	if t.DisplayName, err = f.str("display_name"); err != nil {
		return nil, err
	}
	org, _, err := f.string("organization_id")
	if err != nil {
		return nil, err
	}
	t.OrganizationID = r.intern(org)
	if t.GroupIDs, err = f.strs("group_ids"); err != nil {
		return nil, err
	}
	if t.Hidden, _, err = f.bool("hidden"); err != nil {
		return nil, err
	}
	return t, nil
}

// submission fills the Reader's reused Submission.
func (r *Reader) submission(f fields, id string) (*rankd.Submission, error) {
	team, err := f.reqString("team_id")
	if err != nil {
		return nil, err
	}
	prob, err := f.reqString("problem_id")
	if err != nil {
		return nil, err
	}
	t, err := f.contestTime("contest_time", "time", true)
	if err != nil {
		return nil, err
	}
	lang, _, err := f.string("language_id")
	if err != nil {
		return nil, err
	}
	entry, _, err := f.string("entry_point")
	if err != nil {
		return nil, err
	}
	files, err := f.files("files")
	if err != nil {
		return nil, err
	}
	r.sub = rankd.Submission{ID: id, TeamID: r.intern(team), ProblemID: r.intern(prob), Time: t,
		LanguageID: r.intern(lang), EntryPoint: r.intern(entry), Files: files}
	return &r.sub, nil
}

// judgement fills the Reader's reused Judgement.
func (r *Reader) judgement(f fields, id string) (*rankd.Judgement, error) {
	sub, err := f.reqString("submission_id")
	if err != nil {
		return nil, err
	}
	typ, _, err := f.string("judgement_type_id")
	if err != nil {
		return nil, err
	}
	start, err := f.contestTime("start_contest_time", "start_time", true)
	if err != nil {
		return nil, err
	}
	end, err := f.contestTime("end_contest_time", "end_time", false)
	if err != nil {
		return nil, err
	}
	score, _, err := f.num("score")
	if err != nil {
		return nil, err
	}
	var subtasks []float64
	if ext, err := f.ext(); err != nil {
		return nil, err
	} else if ext.o != nil {
		if subtasks, err = ext.nums("subtask_scores"); err != nil {
			return nil, err
		}
	}
	r.jud = rankd.Judgement{ID: id, SubmissionID: r.recent(sub), TypeID: r.intern(typ), StartTime: start,
		EndTime: end, Score: score, SubtaskScores: subtasks}
	return &r.jud, nil
}

func (r *Reader) state(f fields) (*rankd.State, error) {
	s := &rankd.State{}
	for _, t := range []struct {
		key string
		dst **time.Time
	}{
		{"started", &s.Started}, {"frozen", &s.Frozen}, {"ended", &s.Ended},
		{"thawed", &s.Thawed}, {"finalized", &s.Finalized}, {"end_of_updates", &s.EndOfUpdates},
	} {
		v, ok, err := f.abs(t.key)
		if err != nil {
			return nil, err
		}
		if ok {
			*t.dst = &v
		}
	}
	r.started = time.Time{}
	if s.Started != nil {
		r.started = *s.Started
	}
	return s, nil
}

func (r *Reader) award(f fields, id string) (*rankd.Award, error) {
	a := &rankd.Award{ID: id}
	var err error
	if a.Citation, err = f.str("citation"); err != nil {
		return nil, err
	}
	if a.TeamIDs, err = f.strs("team_ids"); err != nil {
		return nil, err
	}
	return a, nil
}

// ban reads rankd's own "bans" object {"team_id","banned"}; the team id may also come from the envelope, and
// a ban without "banned" bans.
func (r *Reader) ban(f fields, envID []byte, hasEnvID bool) (*rankd.Ban, error) {
	team, ok, err := f.string("team_id")
	switch {
	case err != nil:
		return nil, err
	case !ok && !hasEnvID:
		return nil, f.fail("team_id", "required")
	case ok && hasEnvID && !bytes.Equal(team, envID):
		return nil, f.fail("team_id", "%s differs from the event's id %s", quoteApart(team, envID), quoteApart(envID, team))
	case !ok:
		team = envID
	}
	b := &rankd.Ban{TeamID: r.intern(team), Banned: true}
	if banned, ok, err := f.bool("banned"); err != nil {
		return nil, err
	} else if ok {
		b.Banned = banned
	}
	return b, nil
}

// errorf returns an EINVALID error about the current line.
func (r *Reader) errorf(format string, args ...any) error {
	return rankd.Errorf(rankd.EINVALID, "line %d: %s", r.evLine, fmt.Sprintf(format, args...))
}

// clip shortens a value quoted in an error message: a feed line can be megabytes long.
// quoteApart quotes b (clipped) for a message that says it differs from other: with non-ASCII characters
// escaped when either holds any, since "é" and "e\u0301" differ but print alike.
func quoteApart(b, other []byte) string {
	if isASCII(b) && isASCII(other) {
		return strconv.Quote(clip(b))
	}
	return strconv.QuoteToASCII(clip(b))
}

func clip(b []byte) string {
	const max = 64
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// fields reads the members of one JSON object of a line, naming the line, the type and the member in errors.
// Absent and null members are alike (as the CCS says), and a member of the wrong type is an error.
type fields struct {
	r      *Reader
	o      *fastjson.Object
	typ    rankd.EventType // EventUnknown for the envelope
	prefix string          // of member names in errors: "rankd." inside the extension object
}

// fail returns the EINVALID error "line N: type: "key": message".
func (f fields) fail(key, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if f.typ == rankd.EventUnknown {
		return f.r.errorf("%q: %s", f.prefix+key, msg)
	}
	return f.r.errorf("%s: %q: %s", f.typ, f.prefix+key, msg)
}

// failErr is fail with the message of a domain error.
func (f fields) failErr(key string, err error) error {
	return f.fail(key, "%s", rankd.ErrorMessage(err))
}

// get returns the member key, or nil when it is absent or null.
func (f fields) get(key string) *fastjson.Value {
	v := f.o.Get(key)
	if v == nil || v.Type() == fastjson.TypeNull {
		return nil
	}
	return v
}

// string returns a string member as bytes valid until the next line.
func (f fields) string(key string) ([]byte, bool, error) {
	v := f.get(key)
	if v == nil {
		return nil, false, nil
	}
	b, err := v.StringBytes()
	if err != nil {
		return nil, false, f.fail(key, "want a string, got %s", v.Type())
	}
	return b, true, nil
}

// reqString is string for a required member.
func (f fields) reqString(key string) ([]byte, error) {
	b, ok, err := f.string(key)
	if err == nil && !ok {
		err = f.fail(key, "required")
	}
	return b, err
}

// str returns a string member as a string ("" when absent).
func (f fields) str(key string) (string, error) {
	b, _, err := f.string(key)
	return string(b), err
}

// token returns an event token or 2020-03 event id, which may be a string or (leniently) a number.
func (f fields) token(key string) (string, error) {
	v := f.get(key)
	if v == nil {
		return "", nil
	}
	switch v.Type() {
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b), nil
	case fastjson.TypeNumber:
		return string(v.MarshalTo(nil)), nil
	}
	return "", f.fail(key, "want a string, got %s", v.Type())
}

func (f fields) bool(key string) (bool, bool, error) {
	v := f.get(key)
	if v == nil {
		return false, false, nil
	}
	b, err := v.Bool()
	if err != nil {
		return false, false, f.fail(key, "want a boolean, got %s", v.Type())
	}
	return b, true, nil
}

func (f fields) int(key string) (int64, bool, error) {
	v := f.get(key)
	if v == nil {
		return 0, false, nil
	}
	n, err := f.intValue(key, v)
	return n, err == nil, err
}

func (f fields) intValue(key string, v *fastjson.Value) (int64, error) {
	if v.Type() != fastjson.TypeNumber {
		return 0, f.fail(key, "want an integer, got %s", v.Type())
	}
	n, ok := wholeNumber(v)
	if !ok {
		return 0, f.fail(key, "want an integer, got %s", clip(v.MarshalTo(nil)))
	}
	return n, nil
}

// wholeNumber returns the integer a JSON number stands for, written 20 or, as JSON Schema's "integer" also
// allows, 20.0 or 2e1; ok is false for a fraction or a magnitude beyond 2⁵³, where a float64 is no longer exact.
func wholeNumber(v *fastjson.Value) (int64, bool) {
	if n, err := v.Int64(); err == nil {
		return n, true
	}
	x, err := v.Float64()
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, false
	}
	return int64(x), true
}

func (f fields) num(key string) (float64, bool, error) {
	v := f.get(key)
	if v == nil {
		return 0, false, nil
	}
	x, err := f.numValue(key, v)
	return x, err == nil, err
}

func (f fields) numValue(key string, v *fastjson.Value) (float64, error) {
	if v.Type() != fastjson.TypeNumber {
		return 0, f.fail(key, "want a number, got %s", v.Type())
	}
	x, err := v.Float64()
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, f.fail(key, "want a finite number, got %s", clip(v.MarshalTo(nil)))
	}
	return x, nil
}

// array returns an array member (nil when absent, null or empty).
func (f fields) array(key string) ([]*fastjson.Value, error) {
	v := f.get(key)
	if v == nil {
		return nil, nil
	}
	a, err := v.Array()
	if err != nil {
		return nil, f.fail(key, "want an array, got %s", v.Type())
	}
	return a, nil
}

// strs returns an array of ids, interned: group and team ids recur.
func (f fields) strs(key string) ([]string, error) {
	a, err := f.array(key)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	out := make([]string, len(a))
	for i, v := range a {
		b, err := v.StringBytes()
		if err != nil {
			return nil, f.fail(key, "want strings, got %s", v.Type())
		}
		out[i] = f.r.intern(b)
	}
	return out, nil
}

func (f fields) ints(key string) ([]int64, error) {
	a, err := f.array(key)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	out := make([]int64, len(a))
	for i, v := range a {
		if out[i], err = f.intValue(key, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (f fields) nums(key string) ([]float64, error) {
	a, err := f.array(key)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	out := make([]float64, len(a))
	for i, v := range a {
		if out[i], err = f.numValue(key, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// object returns the fields of an object member; their o is nil when it is absent or null. prefix is
// f.prefix+key+"." given as a constant, as building it would cost an allocation per object.
func (f fields) object(key, prefix string) (fields, error) {
	sub := fields{r: f.r, typ: f.typ, prefix: prefix}
	v := f.get(key)
	if v == nil {
		return sub, nil
	}
	o, err := v.Object()
	if err != nil {
		return sub, f.fail(key, "want an object, got %s", v.Type())
	}
	sub.o = o
	return sub, nil
}

// ext returns the rankd extension object of an object.
func (f fields) ext() (fields, error) { return f.object("rankd", "rankd.") }

func (f fields) rel(key string) (time.Duration, bool, error) {
	b, ok, err := f.string(key)
	if err != nil || !ok {
		return 0, false, err
	}
	d, ok := parseRel(b)
	if !ok {
		return 0, false, f.fail(key, "bad relative time %q", clip(b))
	}
	return d, true, nil
}

func (f fields) abs(key string) (time.Time, bool, error) {
	b, ok, err := f.string(key)
	if err != nil || !ok {
		return time.Time{}, false, err
	}
	t, ok := parseAbs(b)
	if !ok {
		return time.Time{}, false, f.fail(key, "bad absolute time %q: %s", clip(b), absWant(b))
	}
	return t, true, nil
}

// contestTime returns the contest time of an object: relKey (a relative time) when present, else absKey (an
// absolute time) minus the contest start. required makes the absence of both an error.
func (f fields) contestTime(relKey, absKey string, required bool) (time.Duration, error) {
	d, ok, err := f.rel(relKey)
	if err != nil || ok {
		return d, err
	}
	t, ok, err := f.abs(absKey)
	switch {
	case err != nil:
		return 0, err
	case !ok && required:
		return 0, f.fail(relKey, "required")
	case !ok:
		return 0, nil
	}
	start := f.r.start()
	if start.IsZero() {
		return 0, f.fail(absKey, "no %q and no contest start (contest start_time or state started) to measure it from", relKey)
	}
	// Keep contest times within what a relative time can say, so that what is read can be written back.
	d = t.Sub(start)
	if d > maxRelHours*time.Hour || d < -maxRelHours*time.Hour {
		return 0, f.fail(absKey, "%s is too far from the contest start", t.Format(absLayout))
	}
	return d, nil
}
