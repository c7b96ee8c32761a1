package http_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"rankd/ccs/ccstest"
)

// fuzzRoute is an endpoint the API fuzzers call; stream marks one that stays open.
type fuzzRoute struct {
	method, path string
	stream       bool
}

// Endpoints that read query parameters or headers.
var queryRoutes = []fuzzRoute{
	{"GET", "/api/v1/contests", false},
	{"GET", "/api/v1/contests/c1", false},
	{"GET", "/api/v1/contests/c1/scoreboard", false},
	{"GET", "/api/v1/contests/c1/scoreboard/stream", true},
	{"GET", "/api/v1/contests/c1/scoreboard/teams/t1", false},
	{"GET", "/api/v1/contests/c1/problems", false},
	{"GET", "/api/v1/contests/c1/teams", false},
	{"GET", "/api/v1/contests/c1/submissions", false},
	{"GET", "/api/v1/contests/c1/awards", false},
	{"GET", "/api/v1/contests/c1/history", false},
	{"GET", "/api/v1/contests/c1/reveal", false},
	{"GET", "/api/v1/contests/c1/final", false},
	{"GET", "/api/v1/contests/c1/export", false},
	{"GET", "/api/v1/contests/c1/finalize", false},
	{"GET", "/api/contests/c1/scoreboard", false},
	{"GET", "/api/contests/c1/state", false},
	{"GET", "/api/contests/c1/teams", false},
	{"GET", "/api/contests/c1/event-feed", true},
	{"GET", "/contests/c1", false},
}

// Endpoints that read a body.
var bodyRoutes = []fuzzRoute{
	{"POST", "/api/v1/contests", false},
	{"PATCH", "/api/v1/contests/c1", false},
	{"POST", "/api/v1/contests/c1/events", false},
	{"POST", "/api/v1/contests/c1/submissions", false},
	{"POST", "/api/v1/contests/c1/judgements", false},
	{"POST", "/api/v1/contests/c1/teams", false},
	{"POST", "/api/v1/contests/c1/problems", false},
	{"POST", "/api/v1/contests/c2/events", false}, // a contest that does not exist (yet)
}

// Tokens a fuzzed request may carry.
func fuzzTokens(team string) []string {
	return []string{"", "Bearer " + adminToken, "Bearer " + judgeToken, "Bearer " + team, "Bearer nope", "Basic eDp5"}
}

// mustServe serves one request in process and checks what every request must get: an answer within a few
// seconds, never a 5xx but a 503 that says so, and for every error the JSON {"code","message"}.
func mustServe(t *testing.T, e *env, req *http.Request, stream bool) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	var w http.ResponseWriter = rec
	if stream {
		// A stream that starts stays open until its client goes: this one goes once it started, so that what
		// the server checks first is answered.
		ctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		req = req.WithContext(ctx)
		w = &leaveOnStart{rec, cancel}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.server.ServeHTTP(w, req)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s %s: no answer after 10s", req.Method, req.URL)
	}
	if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("%s %s: got status %d: %s", req.Method, req.URL, rec.Code, rec.Body)
	}
	if rec.Code >= 400 {
		var body struct{ Code, Message string }
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Code == "" || body.Message == "" {
			t.Fatalf("%s %s: status %d with body %q, want {\"code\",\"message\"}", req.Method, req.URL, rec.Code, rec.Body)
		}
	}
	return rec
}

// leaveOnStart is a client that goes away as soon as its answer starts.
type leaveOnStart struct {
	*httptest.ResponseRecorder
	cancel context.CancelFunc
}

func (w *leaveOnStart) WriteHeader(code int) {
	w.ResponseRecorder.WriteHeader(code)
	w.cancel()
}

// headerValue reports whether s can be a header's value as it comes on the wire.
func headerValue(s string) bool { return !strings.ContainsAny(s, "\r\n\x00") }

// FuzzAPIQuery sends every read endpoint arbitrary query strings, Last-Event-ID and If-None-Match headers
// and tokens: bad ones are refused with a 4xx, none fails the server.
func FuzzAPIQuery(f *testing.F) {
	e := MustOpen(f)
	e.MustContest(f)
	team := e.MustTeamToken(f, "t1")
	for _, seed := range []struct {
		route uint8
		query string
		hdr   string
		token uint8
	}{
		{2, "view=public&offset=1&limit=2", "", 0},
		{2, "view=jury&group=g1&at=4:00:00", "", 2},
		{2, "view=team:t1&at=2026-03-01T12:00:00Z", `"public.3.true"`, 3},
		{2, "offset=-1&limit=99999999999999999999", "", 0},
		{2, "at=-1:00:00&limit=1", "", 1},
		{3, "view=public", "7", 0},
		{3, "top=10&throttle=5s", "", 0},
		{3, "top=10&throttle=1ns&last_event_id=x", "", 0},
		{3, "view=team", "18446744073709551616", 3},
		{7, "team_id=t1&problem_id=A&since=0:30:00", "", 2},
		{9, "teams=t1,t2&view=jury", "", 1},
		{12, "format=csv&view=public", "", 0},
		{12, "format=xlsx", "", 1},
		{15, "", "", 0},
		{17, "since_token=p3&stream=false&view=jury", "", 2},
		{17, "since_token=12&stream=no", "", 0},
		{18, "view=jury", "", 0},
	} {
		f.Add(seed.route, seed.query, seed.hdr, seed.token)
	}
	f.Fuzz(func(t *testing.T, route uint8, query, hdr string, token uint8) {
		rt := queryRoutes[int(route)%len(queryRoutes)]
		if !headerValue(hdr) {
			return
		}
		req := httptest.NewRequest(rt.method, rt.path, nil)
		req.URL.RawQuery = query
		if hdr != "" {
			req.Header.Set("Last-Event-ID", hdr)
			req.Header.Set("If-None-Match", hdr)
		}
		if tok := fuzzTokens(team)[int(token)%len(fuzzTokens(team))]; tok != "" {
			req.Header.Set("Authorization", tok)
		}
		mustServe(t, e, req, rt.stream)
	})
}

// FuzzAPIBody posts arbitrary bodies, as JSON or NDJSON, to every endpoint that reads one: contest
// bundles, objects and events. Bad ones are refused with a 4xx (or accepted item by item, with a result
// per item), none fails the server.
func FuzzAPIBody(f *testing.F) {
	e := MustOpen(f)
	e.MustContest(f)
	bundle, err := json.Marshal(testContest())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(0), false, bytes.Replace(bundle, []byte(`"c1"`), []byte(`"c3"`), 1))
	f.Add(uint8(1), false, bundle)
	f.Add(uint8(1), false, []byte(`{"contest":{"id":"c1","duration":"6:00:00","scoreboard_type":"pass-fail"},"teams":[{"id":"t4","name":"Delta"}]}`))
	f.Add(uint8(1), false, []byte(`{"contest":{"id":"c1"}} {"teams":[{"id":"t5"}]}`))
	f.Add(uint8(3), false, []byte(`{"id":"s9","team_id":"t1","problem_id":"B","contest_time":"4:00:00"}`))
	f.Add(uint8(3), false, []byte(`[{"id":"s10","team_id":"t2","problem_id":"A","time":"2026-03-01T11:00:00.000Z"},{"id":"s11"}]`))
	f.Add(uint8(4), false, []byte(`{"id":"j9","submission_id":"s9","judgement_type_id":"WA","start_contest_time":"4:01:00"}`))
	f.Add(uint8(5), false, []byte(`{"id":"t9","name":"Team \u0000","group_ids":["g1","g9"],"hidden":true}`))
	f.Add(uint8(6), false, []byte(`{"id":"C","label":"C","name":"C","ordinal":2,"rankd":{"value":100}}`))
	f.Add(uint8(2), false, []byte(`{"type":"submissions","data":{"id":"s12","team_id":"t3","problem_id":"A","contest_time":"4:20:00"}}`))
	f.Add(uint8(7), false, []byte(`{"type":"contest","data":{"id":"c2","start_time":"2026-03-01T10:00:00Z","duration":"5:00:00"}}`))
	data, err := os.ReadFile(ccstest.SharedPath(f, "data", "euc2025", "event-feed.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	var lines [][]byte
	for i := 0; i < 200 && sc.Scan(); i++ {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	f.Add(uint8(7), true, bytes.Join(lines[:20], []byte("\n")))
	f.Add(uint8(7), true, bytes.Join(lines[100:200], []byte("\n")))
	f.Fuzz(func(t *testing.T, route uint8, ndjson bool, body []byte) {
		rt := bodyRoutes[int(route)%len(bodyRoutes)]
		req := httptest.NewRequest(rt.method, rt.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		if ndjson {
			req.Header.Set("Content-Type", "application/x-ndjson")
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := mustServe(t, e, req, rt.stream)
		if rec.Code == http.StatusOK || rec.Code == http.StatusCreated {
			var res struct {
				Accepted, Duplicates, Rejected int
				Results                        []json.RawMessage
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
				t.Fatalf("%s %s: an answer that is not JSON: %v: %q", rt.method, rt.path, err, rec.Body)
			}
			if n := res.Accepted + res.Duplicates + res.Rejected; n != len(res.Results) {
				t.Fatalf("%s %s: %d counted, %d results: %s", rt.method, rt.path, n, len(res.Results), rec.Body)
			}
		}
	})
}

// FuzzRevealBody posts arbitrary bodies to the next step of a reveal, after the contest's end: a step is
// made, answered as a duplicate, or refused with a 4xx, and the server never fails.
func FuzzRevealBody(f *testing.F) {
	e := MustOpen(f)
	e.MustContest(f)
	e.SetNow(contestStart.Add(6 * time.Hour))
	for _, seed := range []string{``, `{}`, `{"step":1}`, `{"step":2}`, `{"step":99}`, `{"step":-1}`, `{"step":1.5}`,
		`{"step":"1"}`, `{"step":1,"x":2}`, `{"step":9223372036854775807}`, `[]`, `null`, `{"step":1} {"step":2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/v1/contests/c1/reveal/next", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		mustServe(t, e, req, false)
	})
}
