package http_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd"
	"rankd/engine"
	rankdhttp "rankd/http"
	"rankd/sqlite"
)

const (
	adminToken = "admin-token-0123456789"
	judgeToken = "judge-token-0123456789"
)

// contestStart is when the test contest starts; it runs 5 h and freezes for the last hour.
var contestStart = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// env is a server over a fresh store, with a clock the test sets.
type env struct {
	URL    string
	clock  sync.Mutex // guards now against a browser's requests while SetNow moves it
	now    time.Time
	engine *engine.Engine
	server *rankdhttp.Server
}

// Now reads the server's clock.
func (e *env) Now() time.Time {
	e.clock.Lock()
	defer e.clock.Unlock()
	return e.now
}

// SetNow moves the server's clock while requests may be running (a browser's page polling).
func (e *env) SetNow(t time.Time) {
	e.clock.Lock()
	defer e.clock.Unlock()
	e.now = t
}

// MustOpen starts a server over a store in a temporary directory; the clock reads 4:30 into the contest.
func MustOpen(tb testing.TB) *env { return MustOpenWith(tb, options{}) }

// options vary the server MustOpenWith starts.
type options struct {
	config rankdhttp.Config
	// wrap, when set, puts something between the engine and the store (a store that fails or waits).
	wrap func(*sqlite.DB) engine.Store
	// unrestored leaves the engine to be opened by the test.
	unrestored bool
	// tick is the push's tick; 5 ms when zero.
	tick time.Duration
	// maxStreams bounds the live streams (the default when zero).
	maxStreams int
	// heartbeat is the streams' heartbeat; 50 ms when zero.
	heartbeat time.Duration
	// bodyTimeout is how long a request body may send nothing; the server's default when zero.
	bodyTimeout time.Duration
	// maxBody bounds request bodies; a megabyte when zero.
	maxBody int64
	// sendBuffer, when set, is the size of the socket send buffer of the server's connections: a client
	// that reads slowly fills a small one soon.
	sendBuffer int
}

// sendBufferListener sets the send buffer of the connections it accepts.
type sendBufferListener struct {
	net.Listener
	size int
}

func (l sendBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && l.size > 0 {
		_ = tc.SetWriteBuffer(l.size)
	}
	return c, err
}

// MustOpenWith is MustOpen with options.
func MustOpenWith(tb testing.TB, o options) *env {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	e := &env{now: contestStart.Add(4*time.Hour + 30*time.Minute)}
	auth, err := rankdhttp.NewAuth(o.config, adminToken, judgeToken, db)
	if err != nil {
		tb.Fatal(err)
	}
	var store engine.Store = db
	if o.wrap != nil {
		store = o.wrap(db)
	}
	reg := prometheus.NewRegistry()
	e.engine = engine.New(store, engine.NewMetrics(reg))
	e.engine.Now = e.Now
	if !o.unrestored {
		if err := e.engine.Open(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	var direct rankdhttp.Store = db
	if ds, ok := store.(rankdhttp.Store); ok {
		direct = ds // the wrapper stands for the store in the server's own reads too
	}
	s := rankdhttp.NewServer(e.engine, direct, auth, reg, reg)
	e.server = s
	s.Now = e.Now
	s.MaxBody = cmp.Or(o.maxBody, 1<<20)
	s.Heartbeat = cmp.Or(o.heartbeat, 50*time.Millisecond)
	s.BodyTimeout = o.bodyTimeout
	s.MaxStreams = o.maxStreams
	s.StartPush(cmp.Or(o.tick, 5*time.Millisecond))
	// Served as rankd serve serves: over the server's own listener, whose connections streams write to
	// directly (see direct.go).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.Serve(sendBufferListener{ln, o.sendBuffer})
	e.URL = "http://" + ln.Addr().String()
	tb.Cleanup(func() {
		if err := s.Shutdown(ctx); err != nil {
			tb.Error(err)
		}
		if err := e.engine.Close(ctx); err != nil {
			tb.Error(err)
		}
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return e
}

// chunked is a request body sent without its length.
type chunked string

// ndjson is a body sent as NDJSON whatever it holds (one line, or nothing).
type ndjson string

// response is an HTTP answer, read whole.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request with a bearer token ("" for none) and a body (nil for none).
func (e *env) Do(tb testing.TB, method, path, token string, body any) response {
	tb.Helper()
	var rd io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
		if strings.Contains(b, "\n{") {
			ctype = "application/x-ndjson"
		}
	case ndjson:
		rd, ctype = strings.NewReader(string(b)), "application/x-ndjson"
	case chunked:
		// A reader of unknown length: the body goes without Content-Length, as a stream does.
		rd = io.MultiReader(strings.NewReader(string(b)))
		ctype = "application/x-ndjson"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// MustDo is Do that fails unless the status is want, and decodes the body into v (when not nil).
func (e *env) MustDo(tb testing.TB, want int, method, path, token string, body, v any) {
	tb.Helper()
	r := e.Do(tb, method, path, token, body)
	if r.Status != want {
		tb.Fatalf("%s %s: got status %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	if v != nil {
		if err := json.Unmarshal(r.Body, v); err != nil {
			tb.Fatalf("%s %s: %v: %s", method, path, err, r.Body)
		}
	}
}

// testContest is a 5-hour ICPC contest with a 1-hour freeze, three teams and two problems.
func testContest() map[string]any {
	return map[string]any{
		"contest": map[string]any{"id": "c1", "name": "Test Contest", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_freeze_duration": "1:00:00", "penalty_time": 20},
		"groups": []any{map[string]any{"id": "g1", "name": "Universities"}},
		"problems": []any{
			map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0},
			map[string]any{"id": "B", "label": "B", "name": "Bananas", "ordinal": 1},
		},
		"teams": []any{
			map[string]any{"id": "t1", "name": "Alpha", "group_ids": []string{"g1"}},
			map[string]any{"id": "t2", "name": "Bravo", "group_ids": []string{"g1"}},
			map[string]any{"id": "t3", "name": "Charlie", "group_ids": []string{"g1"}},
		},
	}
}

// MustContest creates the test contest with submissions before the freeze (judged) and after it.
func (e *env) MustContest(tb testing.TB) {
	tb.Helper()
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	feed := strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"0:31:00"}}`,
		`{"type":"submissions","data":{"id":"s2","team_id":"t2","problem_id":"A","contest_time":"1:00:00"}}`,
		`{"type":"judgements","data":{"id":"j2","submission_id":"s2","judgement_type_id":"WA","start_contest_time":"1:01:00"}}`,
		`{"type":"submissions","data":{"id":"s3","team_id":"t2","problem_id":"B","contest_time":"4:10:00"}}`,
		`{"type":"submissions","data":{"id":"s4","team_id":"t3","problem_id":"B","contest_time":"4:20:00"}}`,
	}, "\n") + "\n"
	var res struct{ Accepted, Rejected int }
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, feed, &res)
	if res.Accepted != 6 || res.Rejected != 0 {
		tb.Fatalf("got %+v, want 6 accepted", res)
	}
}

// MustTeamToken issues a token for a team.
func (e *env) MustTeamToken(tb testing.TB, team string) string {
	tb.Helper()
	var out struct{ Token string }
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests/c1/teams/"+team+"/tokens", adminToken, nil, &out)
	return out.Token
}

// brokenStore fails the reads of the submissions list as a damaged store would, its error naming internals.
type brokenStore struct{ *sqlite.DB }

func (brokenStore) Submissions(context.Context, string, rankd.SubmissionFilter) ([]rankd.SubmissionRecord, error) {
	return nil, rankd.Errorf(rankd.EINTERNAL, "segment 7: checksum mismatch (disk I/O error)")
}

// An internal error is answered 500 with a generic message: what went wrong is for the server's log.
func TestInternalErrorsSayNothing(t *testing.T) {
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store { return brokenStore{db} }})
	e.MustContest(t)
	var body struct{ Code, Message string }
	e.MustDo(t, http.StatusInternalServerError, "GET", "/api/v1/contests/c1/submissions", adminToken, nil, &body)
	if body.Code != rankd.EINTERNAL || body.Message != "internal error" {
		t.Errorf("got %+v, want code %s and the message \"internal error\"", body, rankd.EINTERNAL)
	}
}

// hangingProjection is a shared projection that does not answer, as a Redis behind a network that drops
// packets: each read waits until its context ends.
type hangingProjection struct{ reads atomic.Int64 }

func (*hangingProjection) Project(context.Context, rankd.ProjectionUpdate) (bool, error) {
	return false, nil
}
func (*hangingProjection) Rebuild(context.Context, rankd.ProjectionUpdate) error { return nil }
func (*hangingProjection) Position(context.Context, string) (int64, error)       { return 0, nil }
func (p *hangingProjection) Standings(ctx context.Context, _ rankd.ProjectionQuery) (rankd.Standings, error) {
	p.reads.Add(1)
	select {
	case <-ctx.Done():
		return rankd.Standings{}, ctx.Err()
	case <-time.After(10 * time.Second): // a test of a server that waits on it fails rather than hangs
		return rankd.Standings{}, errors.New("no answer")
	}
}

// A projection that does not answer holds up neither the page (read from the board after a short wait) nor
// the commits that wait for the board's lock, and is left alone for a while after.
func TestProjectionHanging(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	proj := &hangingProjection{}
	e.server.Projection = proj
	begin := time.Now()
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?limit=2", "", nil, &p)
	if took := time.Since(begin); took > 2*time.Second || len(p.Rows) != 2 {
		t.Errorf("a page while the projection hangs: %d rows after %v, want 2 at once", len(p.Rows), took)
	}
	begin = time.Now()
	for i := range 5 {
		e.MustDo(t, http.StatusOK, "GET", fmt.Sprintf("/api/v1/contests/c1/scoreboard?limit=%d", 3+i), "", nil, &p)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"submissions","data":{"id":"s9","team_id":"t3","problem_id":"A","contest_time":"1:20:00"}}`+"\n", nil)
	if took := time.Since(begin); took > time.Second {
		t.Errorf("5 pages and a commit took %v while the projection hangs, want them at once", took)
	}
	if n := proj.reads.Load(); n != 1 {
		t.Errorf("the projection was asked %d times, want once: left alone after it failed", n)
	}
}

// MustCounter returns the value of a counter series of /metrics (its name and labels as /metrics writes
// them); 0 when it is not there yet (a series with labels appears once counted).
func (e *env) MustCounter(tb testing.TB, series string) int {
	tb.Helper()
	r := e.Do(tb, "GET", "/metrics", judgeToken, nil)
	for line := range strings.SplitSeq(string(r.Body), "\n") {
		if n, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.Atoi(n)
			if err != nil {
				tb.Fatalf("%s: %v", series, err)
			}
			return v
		}
	}
	return 0
}

// A known endpoint asked with a method it does not take answers 405 with what it takes; an unknown one 404.
func TestWrongMethod(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/api/v1/contests/c1/scoreboard", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"PUT", "/api/v1/contests/c1", http.StatusMethodNotAllowed, "GET, HEAD, PATCH, DELETE"},
		{"GET", "/api/v1/contests/c1/freeze", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/api/v1/contests/c1/teams/t1/ban", http.StatusMethodNotAllowed, "POST, DELETE"},
		{"DELETE", "/api/contests/c1/scoreboard", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"OPTIONS", "/api/v1/contests/c1/freeze", http.StatusNoContent, "POST"},
		{"POST", "/api/v1/contests/c1/nothing", http.StatusNotFound, ""},
		{"GET", "/api/v1/contests/c1/scoreboard/", http.StatusNotFound, ""},
	} {
		if tc.status == http.StatusNotFound && strings.HasSuffix(tc.path, "/") {
			// A final slash too many: the message says where the endpoint is.
			var body struct{ Message string }
			_ = json.Unmarshal(e.Do(t, tc.method, tc.path, adminToken, nil).Body, &body)
			if want := "(without the final slash: " + strings.TrimSuffix(tc.path, "/") + ")"; !strings.Contains(body.Message, want) {
				t.Errorf("%s %s: got %q, want it to say %q", tc.method, tc.path, body.Message, want)
			}
		}
		resp := e.Do(t, tc.method, tc.path, adminToken, nil)
		var body struct{ Code, Message string }
		_ = json.Unmarshal(resp.Body, &body)
		if resp.Status != tc.status || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: got %d, Allow %q (%s), want %d, Allow %q", tc.method, tc.path, resp.Status,
				resp.Header.Get("Allow"), resp.Body, tc.status, tc.allow)
		}
		if tc.status == http.StatusMethodNotAllowed && (body.Code != "method_not_allowed" || !strings.Contains(body.Message, tc.allow)) {
			t.Errorf("%s %s: got %+v, want code method_not_allowed and a message naming %s", tc.method, tc.path, body, tc.allow)
		}
	}
}

// Pages of other origins may use the API with a token of their own (CORS): every /api answer, errors included,
// lets any origin read it, and a preflight names the methods the path takes. The web pages do not.
func TestCrossOrigin(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct {
		method, path, token string
		status              int
		origin              string
	}{
		{"GET", "/api/v1/contests/c1/scoreboard", "", http.StatusOK, "*"},
		{"GET", "/api/contests/c1/scoreboard", "", http.StatusOK, "*"},
		{"POST", "/api/v1/contests/c1/freeze", "", http.StatusUnauthorized, "*"},
		{"GET", "/api/v1/contests/nothing", "", http.StatusNotFound, "*"},
		{"GET", "/contests/c1", "", http.StatusOK, ""},
		{"GET", "/apifoo", "", http.StatusNotFound, ""},
	} {
		resp := e.Do(t, tc.method, tc.path, tc.token, nil)
		if resp.Status != tc.status || resp.Header.Get("Access-Control-Allow-Origin") != tc.origin {
			t.Errorf("%s %s: got %d, Access-Control-Allow-Origin %q, want %d, %q", tc.method, tc.path, resp.Status,
				resp.Header.Get("Access-Control-Allow-Origin"), tc.status, tc.origin)
		}
	}
	for _, tc := range []struct {
		path    string
		status  int
		methods string
	}{
		{"/api/v1/contests/c1/scoreboard", http.StatusNoContent, "GET, HEAD"},
		{"/api/v1/contests/c1/events", http.StatusNoContent, "POST"},
		{"/api/v1/contests/c1/teams/t1/ban", http.StatusNoContent, "POST, DELETE"},
		{"/api/v1/nothing", http.StatusNotFound, ""},
	} {
		req, err := http.NewRequest("OPTIONS", e.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://judge.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != tc.status || h.Get("Access-Control-Allow-Methods") != tc.methods || h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("OPTIONS %s: got %d, methods %q, origin %q, want %d, %q, *", tc.path, resp.StatusCode,
				h.Get("Access-Control-Allow-Methods"), h.Get("Access-Control-Allow-Origin"), tc.status, tc.methods)
		}
		if tc.status == http.StatusNoContent && !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Errorf("OPTIONS %s: got Access-Control-Allow-Headers %q, want Authorization among them", tc.path, h.Get("Access-Control-Allow-Headers"))
		}
	}
}
