package http_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/ccs/ccstest"
	"rankd/engine"
	"rankd/gen"
	"rankd/sqlite"
	"rankd/stream"
)

// The past of a contest: the scoreboard at a moment (?at=) and the standings of teams over time (/history).

// atPage is a scoreboard page of a past moment.
type atPage struct {
	View   string
	Seq    uint64
	Total  int
	Frozen bool
	At     string
	Rows   []stream.Row
}

// MustAt reads the scoreboard at a moment; query holds at and the other parameters.
func (e *env) MustAt(tb testing.TB, cid, query, token string) (atPage, response) {
	tb.Helper()
	r := e.Do(tb, "GET", "/api/v1/contests/"+cid+"/scoreboard?"+query, token, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("scoreboard?%s: got status %d, want 200: %s", query, r.Status, r.Body)
	}
	var p atPage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		tb.Fatalf("scoreboard?%s: %v", query, err)
	}
	return p, r
}

// briefRows summarizes rows as "rank team solved penalty cells", each cell "+n" (solved in n tries), "-n"
// (n rejected), "?n" (n pending) or "." (nothing).
func briefRows(rows []stream.Row) []string {
	var out []string
	for _, r := range rows {
		line := fmt.Sprintf("%d %s %d %d", r.Rank, r.TeamID, r.Solved, r.Penalty)
		for _, c := range r.Cells {
			cell := ""
			switch {
			case c.Solved:
				cell = fmt.Sprintf("+%d", c.Judged)
			case c.Judged > 0:
				cell = fmt.Sprintf("-%d", c.Judged)
			}
			if c.Pending > 0 {
				cell += fmt.Sprintf("?%d", c.Pending)
			}
			line += " " + c.ProblemID + ":" + cmp.Or(cell, ".")
		}
		out = append(out, line)
	}
	return out
}

// The scoreboard at a moment of the test contest, in each view, against what was known then: the
// public frozen from 4:00, the jury live, a team with its own verdicts.
func TestScoreboardAt(t *testing.T) {
	e := MustOpen(t) // the clock reads 4:30
	e.MustContest(t)
	// Verdicts of the submissions of the freeze: Charlie's accepted at 4:21, Bravo's rejected at 4:22.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`[{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"},
		  {"id":"j3","submission_id":"s3","judgement_type_id":"WA","start_contest_time":"4:22:00"}]`, nil)
	team := e.MustTeamToken(t, "t3")
	nothing := []string{"1 t1 0 0 A:. B:.", "1 t2 0 0 A:. B:.", "1 t3 0 0 A:. B:."}
	tests := []struct {
		name, query, token string
		wantAt             string
		wantFrozen         bool
		want               []string
	}{
		{"before any submission", "at=0:20:00", "", "0:20:00.000", false, nothing},
		{"before the start: the start", "at=-1:00:00", "", "0:00:00.000", false, nothing},
		{"a submission pending", "at=0:30:30", "", "0:30:30.000", false,
			[]string{"1 t1 0 0 A:?1 B:.", "1 t2 0 0 A:. B:.", "1 t3 0 0 A:. B:."}},
		{"its verdict known", "at=0:31:00", "", "0:31:00.000", false,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t2 0 0 A:. B:.", "2 t3 0 0 A:. B:."}},
		{"an absolute time", "at=" + url.QueryEscape(contestStart.Add(31*time.Minute).Format(time.RFC3339)), "", "0:31:00.000", false,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t2 0 0 A:. B:.", "2 t3 0 0 A:. B:."}},
		{"minutes, at the freeze", "at=240m", "", "4:00:00.000", true,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t2 0 0 A:-1 B:.", "2 t3 0 0 A:. B:."}},
		{"public during the freeze", "at=4:25:00", "", "4:25:00.000", true,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t2 0 0 A:-1 B:?1", "2 t3 0 0 A:. B:?1"}},
		{"jury during the freeze", "at=4:25:00&view=jury", judgeToken, "4:25:00.000", false,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t3 1 260 A:. B:+1", "3 t2 0 0 A:-1 B:-1"}},
		{"jury between two verdicts", "at=4:21:30&view=jury", judgeToken, "4:21:30.000", false,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t3 1 260 A:. B:+1", "3 t2 0 0 A:-1 B:?1"}},
		{"a team during the freeze", "at=4:25:00&view=team", team, "4:25:00.000", true,
			[]string{"1 t1 1 30 A:+1 B:.", "2 t3 1 260 A:. B:+1", "3 t2 0 0 A:-1 B:?1"}},
		{"a page of a group", "at=4:25:00&group=g1&offset=1&limit=1", "", "4:25:00.000", true,
			[]string{"2 t2 0 0 A:-1 B:?1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := e.MustAt(t, "c1", tt.query, tt.token)
			if got := briefRows(p.Rows); !slices.Equal(got, tt.want) {
				t.Errorf("got rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if p.At != tt.wantAt || p.Frozen != tt.wantFrozen {
				t.Errorf("got at %q, frozen %t; want %q, %t", p.At, p.Frozen, tt.wantAt, tt.wantFrozen)
			}
		})
	}
}

// A moment that cannot be read is refused, saying why.
func TestScoreboardAtErrors(t *testing.T) {
	e := MustOpen(t) // the clock reads 4:30
	e.MustContest(t)
	tests := []struct {
		name, path, token string
		wantStatus        int
		wantMessage       string
	}{
		{"not a time", "/api/v1/contests/c1/scoreboard?at=noon", "", http.StatusBadRequest, `at: "noon" is not a moment`},
		{"a bare + in the query", "/api/v1/contests/c1/scoreboard?at=2026-03-01T14:00:00+01:00", "", http.StatusBadRequest, `written %2B`},
		{"the future", "/api/v1/contests/c1/scoreboard?at=4:40:00", "", http.StatusBadRequest, "at 4:40:00.000 is in the future: the contest time is now 4:30:00.000"},
		{"after the end, still the future", "/api/v1/contests/c1/scoreboard?at=" + url.QueryEscape(contestStart.Add(6*time.Hour).Format(time.RFC3339)), "",
			http.StatusBadRequest, "in the future"},
		{"a bad page", "/api/v1/contests/c1/scoreboard?at=1:00:00&offset=-1", "", http.StatusBadRequest, "offset"},
		{"an unknown group", "/api/v1/contests/c1/scoreboard?at=1:00:00&group=nope", "", http.StatusNotFound, "unknown group"},
		{"the jury's without a token", "/api/v1/contests/c1/scoreboard?at=1:00:00&view=jury", "", http.StatusUnauthorized, "needs a token"},
		{"an unknown contest", "/api/v1/contests/nope/scoreboard?at=1:00:00", "", http.StatusNotFound, "no contest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do(t, "GET", tt.path, tt.token, nil)
			var body struct{ Code, Message string }
			_ = json.Unmarshal(r.Body, &body)
			if r.Status != tt.wantStatus || !strings.Contains(body.Message, tt.wantMessage) {
				t.Errorf("got %d %q, want %d with %q", r.Status, body.Message, tt.wantStatus, tt.wantMessage)
			}
		})
	}
}

// getWith sends a GET with an If-None-Match.
func (e *env) getWith(tb testing.TB, path, token, etag string) response {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: body.Bytes()}
}

// A past moment keeps its ETag while nothing known then comes in; a late event that was known then (a late
// import) changes it.
func TestScoreboardAtETag(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	const path = "/api/v1/contests/c1/scoreboard?at=2:00:00"
	first, r := e.MustAt(t, "c1", "at=2:00:00", "")
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") != "public, no-cache" {
		t.Fatalf("got ETag %q, Cache-Control %q", etag, r.Header.Get("Cache-Control"))
	}
	if got := e.getWith(t, path, "", etag); got.Status != http.StatusNotModified {
		t.Fatalf("the same moment again: got %d, want 304", got.Status)
	}
	// Later than the moment: it does not change.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"submissions","data":{"id":"s7","team_id":"t1","problem_id":"B","contest_time":"3:00:00"}}`+"\n"+
			`{"type":"judgements","data":{"id":"j7","submission_id":"s7","judgement_type_id":"AC","start_contest_time":"3:01:00"}}`+"\n", nil)
	if got := e.getWith(t, path, "", etag); got.Status != http.StatusNotModified {
		t.Errorf("after events later than the moment: got %d, want 304", got.Status)
	}
	// Known then, stored now: the moment changes.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"submissions","data":{"id":"s6","team_id":"t3","problem_id":"A","contest_time":"1:30:00"}}`+"\n"+
			`{"type":"judgements","data":{"id":"j6","submission_id":"s6","judgement_type_id":"AC","start_contest_time":"1:31:00"}}`+"\n", nil)
	got := e.getWith(t, path, "", etag)
	if got.Status != http.StatusOK || got.Header.Get("ETag") == etag {
		t.Fatalf("after a late event known then: got %d with ETag %q, want 200 and a new ETag", got.Status, got.Header.Get("ETag"))
	}
	var p atPage
	if err := json.Unmarshal(got.Body, &p); err != nil {
		t.Fatal(err)
	}
	want := []string{"1 t1 1 30 A:+1 B:.", "2 t3 1 90 A:+1 B:.", "3 t2 0 0 A:-1 B:."}
	if b := briefRows(p.Rows); !slices.Equal(b, want) || p.Seq == first.Seq {
		t.Errorf("got seq %d (was %d), rows\n%s\nwant\n%s", p.Seq, first.Seq, strings.Join(b, "\n"), strings.Join(want, "\n"))
	}
	// Each view has its own ETag.
	_, jr := e.MustAt(t, "c1", "at=2:00:00&view=jury", judgeToken)
	if jr.Header.Get("ETag") == got.Header.Get("ETag") || jr.Header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("jury: got ETag %q and Cache-Control %q, want its own ETag, private", jr.Header.Get("ETag"), jr.Header.Get("Cache-Control"))
	}
}

// genFeed is a generated contest, as feed lines and as events.
func genFeed(tb testing.TB, cfg gen.Config) ([][]byte, []rankd.Event) {
	tb.Helper()
	var lines [][]byte
	var evs []rankd.Event
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		line, err := ccs.AppendEvent(nil, ev)
		lines = append(lines, line)
		evs = append(evs, ev.Clone())
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return lines, evs
}

// MustPost posts feed lines to a contest's events endpoint, in batches.
func (e *env) MustPost(tb testing.TB, cid string, lines [][]byte) {
	tb.Helper()
	for len(lines) > 0 {
		n := min(len(lines), 2000)
		e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/"+cid+"/events?results=problems", judgeToken,
			string(bytes.Join(lines[:n], nil)), nil)
		lines = lines[n:]
	}
}

// offlineAt is the board of the events as known at contest time at, built the way `rankd standings --at`
// builds it from a feed.
func offlineAt(evs []rankd.Event, at time.Duration) *board.Board {
	b := board.New()
	for i := range evs {
		_, _, _ = b.ApplyAsOf(&evs[i], at, b.Start())
	}
	return b
}

// stateTimes returns the contest times of the steps of the latest state event.
func stateTimes(evs []rankd.Event) []time.Duration {
	var start time.Time
	var st *rankd.State
	for i := range evs {
		switch {
		case evs[i].Contest != nil:
			start = evs[i].Contest.Start
		case evs[i].State != nil:
			st = evs[i].State
		}
	}
	var out []time.Duration
	if st != nil {
		for _, f := range []*time.Time{st.Started, st.Frozen, st.Ended, st.Thawed, st.Finalized} {
			if f != nil {
				out = append(out, f.Sub(start))
			}
		}
	}
	return out
}

// The scoreboard at a moment equals the standings the offline tool computes from the feed at that moment,
// in the public, jury and a team view: before, at and during the freeze, at the end, the thaw and after.
func TestScoreboardAtEqualsOffline(t *testing.T) {
	e := MustOpen(t) // the clock reads 2026-03-01, months after the generated contest
	lines, evs := genFeed(t, gen.Config{Seed: 21, ContestID: "c1", Teams: 30, Problems: 6, Submissions: 700, HiddenTeams: 2, Thaw: true})
	e.MustPost(t, "c1", lines)
	team := e.MustTeamToken(t, "3")
	moments := []time.Duration{0, time.Second, time.Hour, 4*time.Hour - time.Millisecond, 4 * time.Hour, 4*time.Hour + 30*time.Minute,
		5*time.Hour - time.Millisecond, 5 * time.Hour}
	for _, st := range stateTimes(evs) {
		moments = append(moments, max(st-time.Millisecond, 0), st, st+time.Hour)
	}
	views := []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}, {"team:3", team}}
	for _, at := range moments {
		offline := offlineAt(evs, at)
		for _, v := range views {
			t.Run(fmt.Sprintf("%s/%s", ccs.FormatRelTime(at), v.view), func(t *testing.T) {
				view, err := rankd.ParseView(v.view)
				if err != nil {
					t.Fatal(err)
				}
				want, err := offline.Standings(view, 0, -1)
				if err != nil {
					t.Fatal(err)
				}
				p, _ := e.MustAt(t, "c1", "at="+url.QueryEscape(ccs.FormatRelTime(at))+"&view="+v.view, v.token)
				got := followedRows(stream.Board{Rows: p.Rows})
				if w := standingsRows(want); !slices.Equal(got, w) || p.Total != want.Total {
					t.Errorf("got %d rows\n%s\nwant %d\n%s", p.Total, strings.Join(got, "\n"), want.Total, strings.Join(w, "\n"))
				}
			})
		}
	}
}

// The scoreboard at a moment built from a checkpoint of an earlier board equals the offline board of that
// moment, in the public and jury views, for a CTF with dynamic values (as they were then): after a board
// of a later moment was built, and after events were appended, some known long before. Such moments are
// built without reading the log from its start.
func TestScoreboardAtFromCheckpoints(t *testing.T) {
	var store *countingStore
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store {
		store = &countingStore{DB: db}
		return store
	}})
	lines, evs := genFeed(t, gen.Config{Seed: 3, ContestID: "c1", Rules: rankd.CTF, Teams: 100, Problems: 8, Submissions: 21000})
	first := len(lines) * 8 / 10 // more than board.DefaultPastGap: a board of them all is worth a checkpoint
	if first <= board.DefaultPastGap {
		t.Fatalf("got %d events, want more", len(lines))
	}
	e.MustPost(t, "c1", lines[:first])
	views := []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}}
	check := func(at time.Duration, evs []rankd.Event, wantReplays int64) {
		t.Helper()
		offline := offlineAt(evs, at)
		for _, v := range views {
			view, err := rankd.ParseView(v.view)
			if err != nil {
				t.Fatal(err)
			}
			want, err := offline.Standings(view, 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := e.MustAt(t, "c1", "at="+url.QueryEscape(ccs.FormatRelTime(at))+"&view="+v.view, v.token)
			if got, w := followedRows(stream.Board{Rows: p.Rows}), standingsRows(want); !slices.Equal(got, w) || p.Total != want.Total {
				t.Errorf("at %s, %s view: got %d rows\n%s\nwant %d\n%s", ccs.FormatRelTime(at), v.view, p.Total,
					strings.Join(got, "\n"), want.Total, strings.Join(w, "\n"))
			}
		}
		if got := store.fromStart.Load(); got != wantReplays {
			t.Errorf("at %s: got %d replays of the log from its start in all, want %d", ccs.FormatRelTime(at), got, wantReplays)
		}
	}
	// After the end, every event posted is known: the board is kept as a checkpoint, which later moments
	// restore.
	check(5*time.Hour+30*time.Minute, evs[:first], 1)
	check(5*time.Hour+40*time.Minute, evs[:first], 1)
	check(7*time.Hour, evs[:first], 1)
	// The rest of the contest, and a solve of 0:30 of a challenge of dynamic value imported late.
	i := slices.IndexFunc(evs, func(ev rankd.Event) bool { return ev.Problem != nil && ev.Problem.Function == rankd.ValueLinear })
	late := []string{
		`{"type":"submissions","data":{"id":"late1","team_id":"7","problem_id":"` + evs[i].Problem.ID + `","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"jlate1","submission_id":"late1","judgement_type_id":"AC","start_contest_time":"0:30:10"}}`,
	}
	e.MustPost(t, "c1", lines[first:])
	var res struct{ Accepted int }
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(late, "\n")+"\n", &res)
	if res.Accepted != len(late) {
		t.Fatalf("the late solve: got %d events accepted, want %d", res.Accepted, len(late))
	}
	all := slices.Clone(evs)
	for _, l := range late {
		ev, err := ccs.NewReader(strings.NewReader(l)).Next()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ev.Clone())
	}
	check(5*time.Hour+30*time.Minute, all, 1) // the board kept, brought up to date
	check(6*time.Hour, all, 1)                // from the checkpoint, with the events appended since
	check(2*time.Hour, all, 2)                // before the checkpoint: from the log's start
}

// countingStore counts the replays of a contest's log from its start.
type countingStore struct {
	*sqlite.DB
	fromStart atomic.Int64
}

func (s *countingStore) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	if after == 0 {
		s.fromStart.Add(1)
	}
	return s.DB.Replay(ctx, contestID, after, fn)
}

// Many readers of one moment, in any view, cost one replay of the log; many readers of one history cost
// one history (two reads of the log: see board.History).
func TestAtConcurrentReadersReplayOnce(t *testing.T) {
	var store *countingStore
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store {
		store = &countingStore{DB: db}
		return store
	}})
	lines, _ := streamContest(t, 5)
	e.MustPost(t, "c1", lines)
	burst := func(path, token string) []string {
		t.Helper()
		bodies := make([]string, 32)
		var wg sync.WaitGroup
		for i := range bodies {
			wg.Go(func() {
				r := e.Do(t, "GET", path, token, nil)
				if r.Status != http.StatusOK {
					t.Errorf("%s: got %d: %s", path, r.Status, r.Body)
				}
				bodies[i] = string(r.Body)
			})
		}
		wg.Wait()
		return slices.Compact(bodies)
	}
	steps := []struct {
		path, token string
		wantReplays int64
	}{
		{"/api/v1/contests/c1/scoreboard?at=3:00:00", "", 1},
		{"/api/v1/contests/c1/scoreboard?at=3:00:00&view=jury", judgeToken, 1}, // the same board, another view
		{"/api/v1/contests/c1/scoreboard?at=3:00:00&limit=5", "", 1},
		{"/api/v1/contests/c1/scoreboard?at=3:00:01", "", 2},
		{"/api/v1/contests/c1/history", "", 4},
		{"/api/v1/contests/c1/history?view=jury", judgeToken, 6},
	}
	for _, s := range steps {
		if got := burst(s.path, s.token); len(got) != 1 {
			t.Errorf("%s: got %d different answers, want one", s.path, len(got))
		}
		if got := store.fromStart.Load(); got != s.wantReplays {
			t.Errorf("after readers of %s: got %d replays of the log in all, want %d", s.path, got, s.wantReplays)
		}
	}
}

// historyJSON is the answer of /history.
type historyJSON struct {
	View  string
	Rules string
	Teams []struct {
		TeamID   string `json:"team_id"`
		TeamName string `json:"team_name"`
		Points   []historyPoint
	}
}

// historyPoint is a team's standing from a moment on.
type historyPoint struct {
	Time    string
	TimeMS  int64 `json:"time_ms"`
	Rank    int
	Solved  int
	Penalty int64
	Score   float64
}

// MustHistory reads the history of a contest.
func (e *env) MustHistory(tb testing.TB, cid, query, token string) historyJSON {
	tb.Helper()
	var h historyJSON
	e.MustDo(tb, http.StatusOK, "GET", "/api/v1/contests/"+cid+"/history?"+query, token, nil, &h)
	return h
}

// standing is what a history point and a row share: rank and totals.
type standing struct {
	Rank    int
	Solved  int
	Penalty int64
	Score   float64
}

// A team's history is, at each of its points and at any moment between them, its row on the scoreboard
// of that moment (?at=): in the public view (frozen during the freeze, final once thawed) and the jury
// view, for each kind of rules, CTF values as they were then.
func TestHistoryEqualsScoreboardAt(t *testing.T) {
	configs := []gen.Config{
		{Seed: 31, Teams: 30, Problems: 6, Submissions: 700, HiddenTeams: 2, Thaw: true},
		{Seed: 32, Teams: 25, Problems: 5, Submissions: 500},
		{Seed: 33, Rules: rankd.CTF, Teams: 25, Problems: 8, Submissions: 600, Thaw: true},
		{Seed: 34, Rules: rankd.OI, Teams: 20, Problems: 4, Submissions: 400, Thaw: true},
		{Seed: 35, Rules: rankd.IOI, Teams: 20, Problems: 4, Submissions: 400, Freeze: gen.NoFreeze},
	}
	for _, cfg := range configs {
		cfg.ContestID = "c1"
		t.Run(fmt.Sprintf("%s-%d", cfg.Rules, cfg.Seed), func(t *testing.T) {
			e := MustOpen(t)
			lines, evs := genFeed(t, cfg)
			e.MustPost(t, "c1", lines)
			for _, v := range []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}} {
				t.Run(v.view, func(t *testing.T) {
					var live struct{ Rows []stream.Row }
					e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view="+v.view, v.token, nil, &live)
					var ids []string
					for _, r := range live.Rows {
						ids = append(ids, r.TeamID)
					}
					h := e.MustHistory(t, "c1", "view="+v.view+"&teams="+strings.Join(ids, ","), v.token)
					if len(h.Teams) != len(ids) {
						t.Fatalf("got %d series, want %d", len(h.Teams), len(ids))
					}
					checkHistory(t, e, "c1", v.view, v.token, h, stateTimes(evs), cfg.Seed, 30)
				})
			}
		})
	}
}

// checkHistory compares a history with the scoreboard at its points, just before them, between them, and
// at other moments (a sample of n of these, chosen by seed, and a moment after the last).
func checkHistory(t *testing.T, e *env, cid, view, token string, h historyJSON, others []time.Duration, seed uint64, n int) {
	t.Helper()
	set := map[time.Duration]bool{0: true}
	for _, at := range others {
		set[at], set[at-time.Millisecond] = true, true
	}
	for _, s := range h.Teams {
		if len(s.Points) == 0 || s.Points[0].TimeMS != 0 {
			t.Fatalf("team %s: the series does not start at 0: %+v", s.TeamID, s.Points)
		}
		for i, p := range s.Points {
			at := time.Duration(p.TimeMS) * time.Millisecond
			if p.Time != ccs.FormatRelTime(at) {
				t.Errorf("team %s: point at %d ms says %q", s.TeamID, p.TimeMS, p.Time)
			}
			set[at], set[at-time.Millisecond] = true, true
			if i > 0 {
				prev := time.Duration(s.Points[i-1].TimeMS) * time.Millisecond
				set[(prev+at)/2/time.Millisecond*time.Millisecond] = true
				if s.Points[i-1].TimeMS >= p.TimeMS {
					t.Errorf("team %s: points not in time order at %d", s.TeamID, i)
				}
			}
		}
	}
	var moments []time.Duration
	for at := range set {
		if at >= 0 {
			moments = append(moments, at)
		}
	}
	slices.Sort(moments)
	last := moments[len(moments)-1] + time.Minute
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(moments), func(i, j int) { moments[i], moments[j] = moments[j], moments[i] })
	moments = append(moments[:min(len(moments), n)], last)
	for _, at := range moments {
		p, _ := e.MustAt(t, cid, "at="+url.QueryEscape(ccs.FormatRelTime(at))+"&view="+view, token)
		rows := map[string]standing{}
		for _, r := range p.Rows {
			rows[r.TeamID] = standing{r.Rank, r.Solved, r.Penalty, r.Score}
		}
		for _, s := range h.Teams {
			// The last point at or before the moment.
			i, _ := slices.BinarySearchFunc(s.Points, at.Milliseconds()+1, func(p historyPoint, ms int64) int {
				return cmp.Compare(p.TimeMS, ms)
			})
			pt := s.Points[i-1]
			got := standing{pt.Rank, pt.Solved, pt.Penalty, pt.Score}
			if want := rows[s.TeamID]; got != want {
				t.Errorf("team %s at %s: the history says %+v (its point of %s), the scoreboard %+v",
					s.TeamID, ccs.FormatRelTime(at), got, pt.Time, want)
			}
		}
	}
}

// A history follows corrections as a replay does: a deleted submission never counted, nor a deleted
// judgement; of two versions of a judgement the later in the log counts once both are known, whichever
// started or ended first; a submission moved to an earlier time; and events stored later than they
// happened (a late import).
func TestHistoryFollowsCorrections(t *testing.T) {
	e := MustOpen(t) // the clock reads 4:30
	e.MustContest(t)
	lines := []string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t3","problem_id":"A","contest_time":"0:45:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"0:46:00"}}`,
		`{"type":"submissions","id":"s5","data":null}`,
		`{"type":"submissions","data":{"id":"s6","team_id":"t2","problem_id":"B","contest_time":"1:10:00"}}`,
		`{"type":"judgements","data":{"id":"j6","submission_id":"s6","judgement_type_id":"WA","start_contest_time":"1:20:00"}}`,
		`{"type":"judgements","data":{"id":"j6","submission_id":"s6","judgement_type_id":"AC","start_contest_time":"1:15:00"}}`,
		`{"type":"submissions","data":{"id":"s7","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"judgements","data":{"id":"j7","submission_id":"s7","judgement_type_id":"WA","start_contest_time":"2:00:00","end_contest_time":"2:10:00"}}`,
		`{"type":"judgements","data":{"id":"j7","submission_id":"s7","judgement_type_id":"AC","start_contest_time":"2:00:00","end_contest_time":"2:05:00"}}`,
		`{"type":"submissions","data":{"id":"s8","team_id":"t3","problem_id":"B","contest_time":"3:00:00"}}`,
		`{"type":"submissions","data":{"id":"s8","team_id":"t3","problem_id":"B","contest_time":"2:30:00"}}`,
		`{"type":"judgements","data":{"id":"j8","submission_id":"s8","judgement_type_id":"AC","start_contest_time":"3:01:00"}}`,
		`{"type":"submissions","data":{"id":"s9","team_id":"t2","problem_id":"A","contest_time":"0:20:00"}}`,
		`{"type":"judgements","data":{"id":"j9","submission_id":"s9","judgement_type_id":"AC","start_contest_time":"0:21:00"}}`,
		`{"type":"submissions","data":{"id":"s10","team_id":"t3","problem_id":"A","contest_time":"3:30:00"}}`,
		`{"type":"judgements","data":{"id":"j10","submission_id":"s10","judgement_type_id":"AC","start_contest_time":"3:20:00"}}`,
		`{"type":"submissions","data":{"id":"s11","team_id":"t3","problem_id":"A","contest_time":"1:00:00"}}`,
		`{"type":"judgements","data":{"id":"j11","submission_id":"s11","judgement_type_id":"AC","start_contest_time":"1:01:00"}}`,
		`{"type":"judgements","id":"j11","data":null}`,
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", nil)
	others := []time.Duration{46 * time.Minute, 75 * time.Minute, 80 * time.Minute, 125 * time.Minute, 130 * time.Minute,
		150 * time.Minute, 181 * time.Minute, 200 * time.Minute, 210 * time.Minute}
	for _, v := range []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}} {
		t.Run(v.view, func(t *testing.T) {
			h := e.MustHistory(t, "c1", "view="+v.view+"&teams=t1,t2,t3", v.token)
			checkHistory(t, e, "c1", v.view, v.token, h, others, 1, 100)
		})
	}
	// t2 solved A at 0:20 (imported late) and B from 1:15 (the version stored later counts, though the one
	// stored before started at 1:20); t1 solved B at 2:05 (the same, though the one stored before ended at
	// 2:10); t3 never A at 0:45 nor 1:00 (deleted), and B at 2:30 (moved from 3:00) and A at 3:30, judged by
	// a clock behind.
	h := e.MustHistory(t, "c1", "view=jury&teams=t1,t2,t3", judgeToken)
	var got []string
	for _, s := range h.Teams {
		line := s.TeamID
		for _, p := range s.Points {
			line += fmt.Sprintf(" %s:%d/%d/%d", strings.TrimSuffix(p.Time, ".000"), p.Rank, p.Solved, p.Penalty)
		}
		got = append(got, line)
	}
	want := []string{
		"t1 0:00:00:1/0/0 0:21:00:2/0/0 0:31:00:2/1/30 2:05:00:2/2/150",
		"t2 0:00:00:1/0/0 0:21:00:1/1/20 1:15:00:1/2/90",
		"t3 0:00:00:1/0/0 0:21:00:2/0/0 0:31:00:3/0/0 3:01:00:3/1/150 3:30:00.001:3/2/360",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mustFeedLines reads a real feed of ../shared/data as lines, and the events a reader makes of them.
func mustFeedLines(tb testing.TB, name string) ([][]byte, []rankd.Event) {
	tb.Helper()
	data, err := os.ReadFile(ccstest.SharedPath(tb, "data", name, "event-feed.ndjson"))
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var evs []rankd.Event
	rd := ccs.NewReader(bytes.NewReader(data))
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			evs = append(evs, ev.Clone())
		}
	}
	return lines, evs
}

// Real contests, imported into the server: the scoreboard at a moment equals the offline standings of the
// feed then, and the history of the top 50 teams equals the scoreboard at its moments.
func TestHistoryOfRealFeeds(t *testing.T) {
	for name, cid := range map[string]string{"euc2025": "euc2025", "wf47": "wf47_finals"} {
		t.Run(name, func(t *testing.T) {
			e := MustOpen(t)
			lines, evs := mustFeedLines(t, name)
			for len(lines) > 0 { // in requests of at most 512 KiB
				n, size := 0, 0
				for n < len(lines) && (n == 0 || size+len(lines[n]) < 512<<10) {
					size += len(lines[n])
					n++
				}
				e.MustPost(t, cid, lines[:n])
				lines = lines[n:]
			}
			var live struct{ Rows []stream.Row }
			e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/"+cid+"/scoreboard?view=jury&limit=50", judgeToken, nil, &live)
			var ids []string
			for _, r := range live.Rows {
				ids = append(ids, r.TeamID)
			}
			for _, at := range []time.Duration{time.Hour, 4*time.Hour + 30*time.Minute, 5 * time.Hour, 24 * time.Hour} {
				for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
					want, err := offlineAt(evs, at).Standings(v, 0, -1)
					if err != nil {
						t.Fatal(err)
					}
					p, _ := e.MustAt(t, cid, "at="+ccs.FormatRelTime(at)+"&view="+v.String(), judgeToken)
					if got, w := followedRows(stream.Board{Rows: p.Rows}), standingsRows(want); !slices.Equal(got, w) {
						t.Errorf("%s at %s: the server's board differs from the feed's offline:\n%s\nwant\n%s", v, ccs.FormatRelTime(at),
							strings.Join(got, "\n"), strings.Join(w, "\n"))
					}
				}
			}
			for _, v := range []string{"public", "jury"} {
				h := e.MustHistory(t, cid, "view="+v+"&teams="+strings.Join(ids, ","), judgeToken)
				checkHistory(t, e, cid, v, judgeToken, h, stateTimes(evs), 3, 10)
			}
		})
	}
}

// ctfFeed is a CTF with one dynamic challenge (500, 50 less per solver) solved by Alpha at 0:10, Bravo at
// 1:00 and Charlie at 2:00, each verdict a minute later.
const ctfFeed = `{"type":"contest","data":{"id":"ctf1","name":"CTF","start_time":"2026-03-01T10:00:00Z","duration":"5:00:00","scoreboard_type":"score","rankd":{"rules":"ctf"}}}
{"type":"judgement-types","data":{"id":"AC","name":"correct","penalty":false,"solved":true}}
{"type":"judgement-types","data":{"id":"WA","name":"wrong","penalty":true,"solved":false}}
{"type":"problems","data":{"id":"X","label":"X","name":"X","ordinal":0,"rankd":{"value":500,"minimum":100,"decay":50,"function":"linear"}}}
{"type":"teams","data":{"id":"a","name":"Alpha"}}
{"type":"teams","data":{"id":"b","name":"Bravo"}}
{"type":"teams","data":{"id":"c","name":"Charlie"}}
{"type":"submissions","data":{"id":"1","team_id":"a","problem_id":"X","contest_time":"0:10:00"}}
{"type":"judgements","data":{"id":"1","submission_id":"1","judgement_type_id":"AC","start_contest_time":"0:11:00"}}
{"type":"submissions","data":{"id":"2","team_id":"b","problem_id":"X","contest_time":"1:00:00"}}
{"type":"judgements","data":{"id":"2","submission_id":"2","judgement_type_id":"AC","start_contest_time":"1:01:00"}}
{"type":"submissions","data":{"id":"3","team_id":"c","problem_id":"X","contest_time":"2:00:00"}}
{"type":"judgements","data":{"id":"3","submission_id":"3","judgement_type_id":"AC","start_contest_time":"2:01:00"}}
`

// CTF values in the history are those of their moment, not retroactive: Alpha held 500 points until the
// second solve, though its final score is 400.
func TestHistoryCTFIsNotRetroactive(t *testing.T) {
	e := MustOpen(t) // the clock reads 4:30
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/ctf1/events", judgeToken, ctfFeed, nil)
	h := e.MustHistory(t, "ctf1", "teams=a,c", "")
	var got []string
	for _, s := range h.Teams {
		line := s.TeamID
		for _, p := range s.Points {
			line += fmt.Sprintf(" %s:%d/%g", p.Time, p.Rank, p.Score)
		}
		got = append(got, line)
	}
	want := []string{
		"a 0:00:00.000:1/0 0:11:00.000:1/500 1:01:00.000:1/450 2:01:00.000:1/400",
		"c 0:00:00.000:1/0 0:11:00.000:2/0 1:01:00.000:3/0 2:01:00.000:3/400",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, tt := range []struct {
		at   string
		want float64
	}{{"0:30:00", 500}, {"1:30:00", 450}, {"4:30:00", 400}} {
		p, _ := e.MustAt(t, "ctf1", "at="+tt.at+"&limit=1", "")
		if len(p.Rows) != 1 || p.Rows[0].TeamID != "a" || p.Rows[0].Score != tt.want {
			t.Errorf("at %s: got %+v, want Alpha first with %g", tt.at, p.Rows, tt.want)
		}
	}
}

// The history's requests: the default teams, the bounds, the views, and errors that say why.
func TestHistoryRequests(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 8) // 30 teams, 2 of them hidden
	e.MustPost(t, "c1", lines)
	team := e.MustTeamToken(t, "3")
	var live struct{ Rows []stream.Row }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?limit=10", "", nil, &live)
	var top []string
	for _, r := range live.Rows {
		top = append(top, r.TeamID)
	}
	ids := func(h historyJSON) []string {
		var out []string
		for _, s := range h.Teams {
			out = append(out, s.TeamID)
		}
		return out
	}
	if got := ids(e.MustHistory(t, "c1", "", "")); !slices.Equal(got, top) {
		t.Errorf("default teams: got %v, want the top 10 %v", got, top)
	}
	if got := ids(e.MustHistory(t, "c1", "", team)); !slices.Equal(got, top) {
		t.Errorf("a team token: got %v, want the public top 10 %v", got, top)
	}
	if got := ids(e.MustHistory(t, "c1", "teams=5,+2,,5", "")); !slices.Equal(got, []string{"5", "2"}) {
		t.Errorf("teams=5, 2,,5: got %v, want [5 2]", got)
	}
	h := e.MustHistory(t, "c1", "teams=1", "")
	if h.View != "public" || h.Rules != "icpc" || h.Teams[0].TeamName == "" {
		t.Errorf("got view %q, rules %q, name %q", h.View, h.Rules, h.Teams[0].TeamName)
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = strconv.Itoa(i + 1)
	}
	tests := []struct {
		name, query, token string
		wantStatus         int
		wantMessage        string
	}{
		{"too many teams", "teams=" + strings.Join(many, ","), "", http.StatusBadRequest, "at most 50 teams"},
		{"an unknown team", "teams=1,nope", "", http.StatusNotFound, `unknown team "nope"`},
		{"a hidden team", "teams=30", "", http.StatusNotFound, `unknown team "30"`}, // as if it did not exist
		{"a team view", "view=team", team, http.StatusBadRequest, "public or the jury view"},
		{"the jury's without a token", "view=jury", "", http.StatusUnauthorized, "needs a token"},
		{"the jury's with a team token", "view=jury", team, http.StatusForbidden, "may not see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do(t, "GET", "/api/v1/contests/c1/history?"+tt.query, tt.token, nil)
			var body struct{ Message string }
			_ = json.Unmarshal(r.Body, &body)
			if r.Status != tt.wantStatus || !strings.Contains(body.Message, tt.wantMessage) {
				t.Errorf("got %d %q, want %d with %q", r.Status, body.Message, tt.wantStatus, tt.wantMessage)
			}
		})
	}
	// The jury follows hidden teams too.
	if got := ids(e.MustHistory(t, "c1", "view=jury&teams=30", judgeToken)); !slices.Equal(got, []string{"30"}) {
		t.Errorf("jury, a hidden team: got %v", got)
	}
}

// A history has an ETag: 304 while it is the same; a public change shows within a few seconds.
func TestHistoryETag(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	const path = "/api/v1/contests/c1/history"
	r := e.Do(t, "GET", path, "", nil)
	etag := r.Header.Get("ETag")
	if r.Status != http.StatusOK || etag == "" {
		t.Fatalf("got %d with ETag %q", r.Status, etag)
	}
	if got := e.getWith(t, path, "", etag); got.Status != http.StatusNotModified {
		t.Errorf("the same history: got %d, want 304", got.Status)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.getWith(t, path, "", etag)
		if got.Status == http.StatusOK && got.Header.Get("ETag") != etag {
			if !strings.Contains(string(got.Body), `"time":"1:30:00.000"`) {
				t.Errorf("the new history lacks the solve of 1:30: %s", got.Body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history did not change after a public change: %d %s", got.Status, got.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// BenchmarkScoreboardAt measures boards of past moments built from the log (RANKD_BENCH_SUBMISSIONS
// submissions, 47,000 by default: about 100,000 events): each iteration a new moment, the first ten one
// in each half hour of the contest, in order, the next ten a few seconds after each of them (first-ms and
// again-ms: their mean).
func BenchmarkScoreboardAt(b *testing.B) {
	e, n := mustBenchContest(b)
	var took [2]time.Duration
	var count [2]int
	b.ResetTimer()
	for i := range b.N {
		at := time.Duration(i%10)*30*time.Minute + 17*time.Minute + time.Duration(i)*time.Second
		begin := time.Now()
		e.MustAt(b, "c1", "limit=10&at="+url.QueryEscape(ccs.FormatRelTime(at)), "")
		again := min(i/10, 1)
		took[again] += time.Since(begin)
		count[again]++
	}
	b.ReportMetric(float64(n), "events")
	for i, name := range []string{"first-ms", "again-ms"} {
		if count[i] > 0 {
			b.ReportMetric(float64(took[i].Milliseconds())/float64(count[i]), name)
		}
	}
}

// BenchmarkHistory measures a history of 10 teams worked out from the log: each iteration other teams.
// peak-MB is the most the live heap grew by during a history (sampled), beside the server's boards.
func BenchmarkHistory(b *testing.B) {
	e, n := mustBenchContest(b)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base, peak := live(), atomic.Int64{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				if l := live(); l > peak.Load() {
					peak.Store(l)
				}
			}
		}
	})
	b.ResetTimer()
	for i := range b.N {
		var teams []string
		for j := range 10 {
			teams = append(teams, strconv.Itoa((i*10+j)%1000+1))
		}
		e.MustHistory(b, "c1", "view=jury&teams="+strings.Join(teams, ","), judgeToken)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(float64(peak.Load()-base)/(1<<20), "peak-MB")
}

// mustBenchContest serves a generated contest of RANKD_BENCH_SUBMISSIONS submissions (47,000 by default)
// by a team per 100 of them (at least 1,000 teams), and returns its number of events.
func mustBenchContest(b *testing.B) (*env, int) {
	b.Helper()
	subs := 47000
	if s := os.Getenv("RANKD_BENCH_SUBMISSIONS"); s != "" {
		var err error
		if subs, err = strconv.Atoi(s); err != nil {
			b.Fatalf("RANKD_BENCH_SUBMISSIONS: %v", err)
		}
	}
	e := MustOpenWith(b, options{})
	ctx := context.Background()
	var batch []rankd.LogEntry
	n := 0
	submit := func() {
		if _, err := e.engine.Submit(ctx, "c1", batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	err := gen.Generate(gen.Config{Seed: 1, ContestID: "c1", Teams: max(1000, subs/100), Problems: 12, Submissions: subs, Thaw: true},
		func(ev rankd.Event) error {
			entry, err := engine.Entry(ev)
			if batch, n = append(batch, entry), n+1; len(batch) == 10000 {
				submit()
			}
			return err
		})
	if err != nil {
		b.Fatal(err)
	}
	submit()
	return e, n
}

// The board's chart: the Chart button (by keyboard here) shows the ranks of the top 10 over the contest,
// one line per team in a colour of its own with its name at its end, each line focusable and labelled,
// and a table of the same figures; "c" hides it again.
func TestBrowserChart(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 8)
	e.MustPost(t, "c1", lines)
	var live struct{ Rows []stream.Row }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?limit=10", "", nil, &live)
	var names []string
	for _, r := range live.Rows {
		names = append(names, r.TeamName)
	}
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.Wait("the board", `window.rankd.board && window.rankd.board.rows.length > 0`)
	if !evalJS[bool](tb, `document.getElementById("chart").hidden`) {
		t.Error("the chart shows before it is asked for")
	}
	tb.Do(chromedp.Focus(chromedp.ID("chart-toggle")), typeKeys("\r"))
	tb.Wait("ten lines", `document.querySelectorAll("#chart .series path.line").length === 10`)
	if got := evalJS[string](tb, `document.getElementById("chart-toggle").getAttribute("aria-expanded")`); got != "true" {
		t.Errorf("the button's aria-expanded: got %q, want true", got)
	}
	if got := evalJS[[]string](tb, `[...document.querySelectorAll("#chart .series .label")].map((t) => t.textContent)`); !slices.Equal(got, names) {
		t.Errorf("the lines' names: got %q, want the top 10 %q", got, names)
	}
	if got := evalJS[int](tb, `new Set([...document.querySelectorAll("#chart .series path.line")].map((p) => getComputedStyle(p).stroke)).size`); got != 10 {
		t.Errorf("got %d colours for 10 lines", got)
	}
	if got := evalJS[int](tb, `[...document.querySelectorAll("#chart .series path.line")].filter((p) => /^M[\d.]+,[\d.]+H/.test(p.getAttribute("d"))).length`); got != 10 {
		t.Errorf("got %d lines drawn from the start, want 10", got)
	}
	labels := evalJS[[]string](tb, `[...document.querySelectorAll("#chart .series")].map((g) => g.tabIndex + " " + g.getAttribute("aria-label"))`)
	for i, l := range labels {
		if !strings.HasPrefix(l, "0 "+names[i]+": rank ") {
			t.Errorf("line %d: got tabindex and label %q, want focusable and labelled with %s's rank", i, l, names[i])
		}
	}
	tb.Shot("chart")
	// Tab goes from the buttons to the lines.
	tb.Do(typeKeys("\t\t"))
	if got := evalJS[string](tb, `document.activeElement.dataset.team || document.activeElement.id`); got != live.Rows[0].TeamID {
		t.Errorf("after two tabs the focus is on %q, want the first line (%s)", got, live.Rows[0].TeamID)
	}
	if got := evalJS[[]string](tb, `[...document.querySelectorAll("#chart tbody th")].map((c) => c.textContent)`); !slices.Equal(got, names) {
		t.Errorf("the table's teams: got %q, want %q", got, names)
	}
	tb.Shot("chart-focus")
	tb.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys("c"))
	tb.Wait("the chart hidden", `document.getElementById("chart").hidden`)
}

// A thaw long after the contest (a ceremony days later, an old feed replayed) gets a band of its own at the
// right of the chart, after a line at the end: the contest fills the rest of the width (it was squeezed into a
// sliver at the left, the axis running to the thaw).
func TestBrowserChartThawedLater(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(72 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.Wait("the board", `window.rankd.board && window.rankd.board.rows.length > 0`)
	tb.Do(chromedp.Focus(chromedp.ID("chart-toggle")), typeKeys("\r"))
	tb.Wait("the lines", `document.querySelectorAll("#chart .series path.line").length === 3`)
	at := evalJS[float64](tb, `((l, svg) => l ? parseFloat(l.getAttribute("x1")) / parseFloat(svg.getAttribute("width")) : -1)(`+
		`document.querySelector("#chart line.grid.end"), document.querySelector("#chart svg"))`)
	if at < 0.6 {
		t.Errorf("the contest's end on the chart: at %.2f of its width, want a line at 0.6 or more", at)
	}
	tb.Shot("chart-thawed-later")
}

// The past is worked out a few moments at a time: while every turn is taken, a reader of another moment
// waits, then is told to retry (503); one of a moment already built is served; once a turn is free, the
// other moment is built.
func TestPastWorkIsBounded(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 5)
	e.MustPost(t, "c1", lines)
	e.MustAt(t, "c1", "at=3:00:00", "")
	release := e.server.TakePastTurns(50 * time.Millisecond)
	for _, path := range []string{"/api/v1/contests/c1/scoreboard?at=2:00:00", "/api/v1/contests/c1/history"} {
		r := e.Do(t, "GET", path, "", nil)
		var body struct{ Code string }
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != http.StatusServiceUnavailable || body.Code != "unavailable" {
			t.Errorf("%s while every turn is taken: got %d %s, want 503 unavailable", path, r.Status, r.Body)
		}
	}
	e.MustAt(t, "c1", "at=3:00:00", "") // built before: served
	release()
	e.MustAt(t, "c1", "at=2:00:00", "")
	e.MustHistory(t, "c1", "", "")
}
