package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/engine"
	rankdhttp "rankd/http"
	"rankd/sqlite"
)

// Until the engine has restored every contest, /readyz says 503 while /healthz says 200.
func TestReadyOnlyWhenRestored(t *testing.T) {
	e := MustOpenWith(t, options{unrestored: true})
	get := func(path string) int { return e.Do(t, "GET", path, "", nil).Status }
	if got := get("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("readyz before Open: got %d, want 503", got)
	}
	if got := get("/healthz"); got != http.StatusOK {
		t.Errorf("healthz before Open: got %d, want 200", got)
	}
	if err := e.engine.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := get("/readyz"); got != http.StatusOK {
		t.Errorf("readyz after Open: got %d, want 200", got)
	}
}

func TestMetrics(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.Do(t, "GET", "/api/v1/contests/c1/scoreboard", "", nil)
	if r := e.Do(t, "GET", "/metrics", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("metrics without a token: got %d, want 401 (they count frozen judgements)", r.Status)
	}
	r := e.Do(t, "GET", "/metrics", judgeToken, nil)
	for _, want := range []string{
		`rankd_ingest_events_total{status="accepted"}`,
		`rankd_ingest_events_total{status="unavailable"} 0`, // from 0, for increase() to see the first failures
		`rankd_board_teams{contest="c1"} 3`,
		`rankd_board_submissions{contest="c1"} 4`,
		`rankd_board_sequence{contest="c1",view="public"}`,
		`rankd_commit_seconds_count`,
		`rankd_apply_seconds_count`,
		`rankd_http_request_seconds_count{code="200",route="GET /api/v1/contests/{cid}/scoreboard"} 1`,
	} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestConfigTokens(t *testing.T) {
	tests := []struct {
		name, config string
		err          string // part of the error; "" for none
	}{
		{"good", `{"tokens":[{"token":"0123456789abcdef","role":"admin"},{"token":"team-token-0123456789","role":"team","contest":"c1","team":"t1"}]}`, ""},
		{"short", `{"tokens":[{"token":"short","role":"admin"}]}`, "at least 16"},
		{"unknown role", `{"tokens":[{"token":"0123456789abcdef","role":"root"}]}`, "unknown role"},
		{"team without team", `{"tokens":[{"token":"0123456789abcdef","role":"team","contest":"c1"}]}`, "contest and team"},
		{"admin bound", `{"tokens":[{"token":"0123456789abcdef","role":"admin","team":"t1"}]}`, "not bound"},
		{"unknown field", `{"tokens":[],"tokenz":[]}`, "unknown field"},
		{"not JSON", `tokens: []`, "invalid character"},
		{"syntax error, where", "{\"tokens\":[\n  {\"token\":\"0123456789abcdef\",}\n]}", "line 2, column"},
		{"empty", ``, "empty"},
		{"the same secret twice", `{"tokens":[{"token":"0123456789abcdef","role":"admin"},{"token":"0123456789abcdef","role":"judge"}]}`, "config token 2: the same secret as config token 1"},
		{"a space at the end", `{"tokens":[{"token":"0123456789abcdef ","role":"judge"}]}`, "no spaces"},
		{"a control character", `{"tokens":[{"token":"0123456789abcdef\t","role":"judge"}]}`, "no spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rankd.json")
			if err := os.WriteFile(path, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := rankdhttp.LoadConfig(path)
			if err == nil {
				_, err = rankdhttp.NewAuth(cfg, "", "", nil)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("got %v, want an error about %q", err, tt.err)
			}
		})
	}
	if _, err := rankdhttp.NewAuth(rankdhttp.Config{}, "short", "", nil); err == nil {
		t.Error("a short RANKD_ADMIN_TOKEN was accepted")
	}
	// The admin's secret given to a judge too: whichever came first, one of them would lose its rights.
	cfg := rankdhttp.Config{Tokens: []rankdhttp.ConfigToken{{Token: "admin-token-0123456789", Role: "judge"}}}
	if _, err := rankdhttp.NewAuth(cfg, "admin-token-0123456789", "", nil); err == nil || !strings.Contains(err.Error(), "RANKD_ADMIN_TOKEN: the same secret as config token 1") {
		t.Errorf("RANKD_ADMIN_TOKEN the secret of a configured judge: got %v, want refused", err)
	}
	if _, err := rankdhttp.NewAuth(rankdhttp.Config{}, "admin-token-0123456789", "admin-token-0123456789", nil); err == nil {
		t.Error("RANKD_JUDGE_TOKEN the same as RANKD_ADMIN_TOKEN: accepted")
	}
}

// A configured team token reads its own team view.
func TestConfiguredTeamToken(t *testing.T) {
	cfg := rankdhttp.Config{Tokens: []rankdhttp.ConfigToken{{Token: "team-token-0123456789", Role: "team", Contest: "c1", Team: "t2"}}}
	e := MustOpenWith(t, options{config: cfg})
	e.MustContest(t)
	var sb struct{ View string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "team-token-0123456789", nil, &sb)
	if sb.View != "team:t2" {
		t.Errorf("got view %q, want team:t2", sb.View)
	}
}

// A judge token of the configuration bound to a contest is a judge of that contest only: an organiser running
// several contests on one server gives each judge system its own. Elsewhere it is refused what needs a judge,
// and reads as the public.
func TestConfiguredJudgeTokenOfOneContest(t *testing.T) {
	const judge = "judge-of-c1-0123456789"
	cfg := rankdhttp.Config{Tokens: []rankdhttp.ConfigToken{{Token: judge, Role: "judge", Contest: "c1"}}}
	e := MustOpenWith(t, options{config: cfg})
	e.MustContest(t)
	c2 := testContest()
	c2["contest"].(map[string]any)["id"] = "c2"
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c2, nil)
	line := `{"type":"submissions","data":{"id":"x1","team_id":"t1","problem_id":"A","contest_time":"0:40:00"}}` + "\n"
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judge, line, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judge, nil, nil)
	for _, tc := range []struct{ method, path string }{
		{"POST", "/api/v1/contests/c2/events"},
		{"GET", "/api/v1/contests/c2/scoreboard?view=jury"},
		{"GET", "/api/contests/c2/event-feed?view=jury&stream=false"},
	} {
		if r := e.Do(t, tc.method, tc.path, judge, line); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), `contest \"c1\"`) {
			t.Errorf("%s %s with c1's judge token: got %d %s, want 403 saying it is c1's", tc.method, tc.path, r.Status, r.Body)
		}
	}
	var list []struct {
		ID    string
		Teams int
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", judge, nil, &list)
	var public []struct {
		ID    string
		Teams int
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", "", nil, &public)
	if !reflect.DeepEqual(list, public) {
		t.Errorf("the contests for c1's judge token: got %+v, want the public's %+v", list, public)
	}
	if _, err := rankdhttp.NewAuth(rankdhttp.Config{Tokens: []rankdhttp.ConfigToken{{Token: "admin-of-c1-0123456789", Role: "admin", Contest: "c1"}}}, "", "", nil); err == nil {
		t.Error("an admin token bound to a contest was accepted")
	}
}

// blockingStore holds every Append until released, as a slow disk would: before it starts, or, with
// syncing set, once it has decided about its entries (applied to the board) and before they are durable.
type blockingStore struct {
	*sqlite.DB
	hold    chan struct{}
	holding chan struct{}
	syncing bool
	// always holds every append until the test takes it; armed the next one; else only while the test waits
	// for one.
	always bool
	armed  atomic.Bool
}

// arm holds the next append until the test takes it from holding: an append that came before the test
// waited on holding went through unheld, and the test waited for ever.
func (s *blockingStore) arm() { s.armed.Store(true) }

func (s *blockingStore) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	wait := func() {
		if s.always || s.armed.CompareAndSwap(true, false) {
			s.holding <- struct{}{}
			<-s.hold
			return
		}
		select {
		case s.holding <- struct{}{}:
			<-s.hold
		default:
		}
	}
	if !s.syncing {
		wait()
	} else {
		outer := ctx
		ctx = rankd.WithDecided(ctx, func() {
			rankd.Decided(outer) // the engine's
			wait()
		})
	}
	return s.DB.Append(ctx, contestID, entries, accept)
}

// getWithin GETs url and returns its status (0 when the request failed), or false when no answer came
// within d.
func getWithin(url string, d time.Duration) (int, bool) {
	read := make(chan int, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			read <- 0
			return
		}
		resp.Body.Close()
		read <- resp.StatusCode
	}()
	select {
	case code := <-read:
		return code, true
	case <-time.After(d):
		return 0, false
	}
}

// MustOpenHolding opens a server over a store that holds each append until the test lets it go, with the
// test contest defined (its own appends pass: an append holds only while the test waits for one, or always
// once the test sets it).
func MustOpenHolding(tb testing.TB) (*env, *blockingStore) {
	tb.Helper()
	return mustOpenHoldingTick(tb, 0)
}

// mustOpenHoldingTick is MustOpenHolding with the push's tick.
func mustOpenHoldingTick(tb testing.TB, tick time.Duration) (*env, *blockingStore) {
	tb.Helper()
	var store *blockingStore
	env := MustOpenWith(tb, options{tick: tick, wrap: func(db *sqlite.DB) engine.Store {
		store = &blockingStore{DB: db, hold: make(chan struct{}), holding: make(chan struct{})}
		return store
	}})
	env.MustContest(tb) // its appends pass: nobody waits for one
	return env, store
}

// A public page already rendered is served while a commit is in progress: a public reader never waits
// for the board, so the time of its answer says nothing of frozen judgements being committed.
func TestPublicPagesDoNotWaitForCommits(t *testing.T) {
	env, store := MustOpenHolding(t)
	env.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, nil) // rendered, cached

	store.arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`)
	}()
	<-store.holding // the frozen judgement's commit is under way, holding the board
	if code, ok := getWithin(env.URL+"/api/v1/contests/c1/scoreboard", 2*time.Second); !ok {
		t.Error("the public page waited for the commit")
	} else if code != http.StatusOK {
		t.Errorf("public page during a commit: got %d, want 200", code)
	}
	store.hold <- struct{}{}
	<-done
}

// unreachableStore is a store that can be cut off: appends and the reads that rebuild a board fail.
type unreachableStore struct {
	*sqlite.DB
	down atomic.Bool
}

var errUnreachable = errors.New("connection refused")

func (s *unreachableStore) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if s.down.Load() {
		return nil, errUnreachable
	}
	return s.DB.Append(ctx, contestID, entries, accept)
}

func (s *unreachableStore) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	if s.down.Load() {
		return errUnreachable
	}
	return s.DB.Replay(ctx, contestID, after, fn)
}

func (s *unreachableStore) LatestCheckpoint(ctx context.Context, contestID string) (rankd.Checkpoint, error) {
	if s.down.Load() {
		return rankd.Checkpoint{}, errUnreachable
	}
	return s.DB.LatestCheckpoint(ctx, contestID)
}

// A contest whose board waits to be rebuilt from the log (a commit failed while the store was unreachable)
// answers 503 itself, but the list of contests still lists the others.
func TestContestListWithAContestBeingRebuilt(t *testing.T) {
	var store *unreachableStore
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store {
		store = &unreachableStore{DB: db}
		return store
	}})
	e.MustContest(t)
	second := testContest()
	second["contest"].(map[string]any)["id"] = "c2"
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, second, nil)

	store.down.Store(true)
	sub := `{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"0:40:00"}`
	e.MustDo(t, http.StatusServiceUnavailable, "POST", "/api/v1/contests/c2/submissions", judgeToken, sub, nil)
	e.MustDo(t, http.StatusServiceUnavailable, "GET", "/api/v1/contests/c2", "", nil, nil)
	ids := func() []string {
		var list []struct{ ID string }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", "", nil, &list)
		var ids []string
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		return ids
	}
	if got := ids(); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("contests while c2 is rebuilt: got %v, want [c1]", got)
	}

	store.down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(ids(), []string{"c1", "c2"}) {
		if time.Now().After(deadline) {
			t.Fatalf("contests once the store is back: got %v, want [c1 c2]", ids())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The list of contests leaves out a contest whose commit waits for a store that does not answer, rather
// than wait with it (it took 30 s, the front page with it).
func TestContestListDoesNotWaitForAStuckCommit(t *testing.T) {
	env, store := MustOpenHolding(t)
	store.syncing = true
	store.arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A verdict the public sees: its commit holds the public's readers until it is durable.
		env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j2c","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`)
	}()
	<-store.holding
	var list []struct{ ID string }
	start := time.Now()
	env.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", "", nil, &list)
	if took := time.Since(start); took > 3*time.Second || len(list) != 0 {
		t.Errorf("list during a stuck commit: got %+v in %v, want it without c1 within about a second", list, took)
	}
	store.hold <- struct{}{}
	<-done
	env.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", "", nil, &list)
	if len(list) != 1 || list[0].ID != "c1" {
		t.Errorf("list once committed: got %+v, want c1", list)
	}
}

// secondFails is a store whose appends fail once armed, but the first.
type secondFails struct {
	*sqlite.DB
	armed   atomic.Bool
	appends atomic.Int32
}

func (s *secondFails) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if !s.armed.Load() || s.appends.Add(1) == 1 {
		return s.DB.Append(ctx, contestID, entries, accept)
	}
	return nil, errUnreachable
}

// A request committed in parts whose later part cannot be stored says which of its events are stored: those
// before the part (it said "could not be stored; retry", thousands of events stored). The body comes in two
// writes, the first part committed before the second arrives.
func TestIngestPartlyStoredSaysSo(t *testing.T) {
	store := &secondFails{}
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store { store.DB = db; return store }})
	e.MustContest(t)
	store.armed.Store(true)
	lines := submissionLines(100, 2000)
	pr, pw := io.Pipe()
	go func() {
		_, _ = io.WriteString(pw, strings.Join(lines[:1000], "\n")+"\n")
		for deadline := time.Now().Add(10 * time.Second); store.appends.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the first part's commit done
		_, _ = io.WriteString(pw, strings.Join(lines[1000:], "\n")+"\n")
		pw.Close()
	}()
	req, err := http.NewRequest("POST", e.URL+"/api/v1/contests/c1/events", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+judgeToken)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct{ Code, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusServiceUnavailable ||
		!strings.Contains(res.Message, "the events before line 1001 are stored") {
		t.Errorf("got %d %+v (%v), want 503 saying the events before line 1001 are stored", resp.StatusCode, res, err)
	}
}
