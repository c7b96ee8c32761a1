package http_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"rankd/stream"
)

// revealState is GET /reveal's answer.
type revealState struct {
	Seq       uint64
	Step      int
	Remaining int
	Next      *struct {
		TeamID    string `json:"team_id"`
		ProblemID string `json:"problem_id"`
	}
	Blocked *struct{ Code, Message string }
}

func (s revealState) next() string {
	if s.Next == nil {
		return ""
	}
	return s.Next.TeamID + " " + s.Next.ProblemID
}

// revealStep is POST /reveal/next's answer.
type revealStep struct {
	revealState
	Revealed struct {
		TeamID    string `json:"team_id"`
		ProblemID string `json:"problem_id"`
	}
	Cell      stream.Cell
	OldRank   int `json:"old_rank"`
	NewRank   int `json:"new_rank"`
	Duplicate bool
}

// MustRevealContest is the test contest with verdicts for its frozen submissions and one more: t2's B and
// t3's B solved, t1's B rejected, all during the freeze.
func (e *env) MustRevealContest(tb testing.TB) {
	tb.Helper()
	e.MustContest(tb)
	feed := strings.Join([]string{
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}}`,
		`{"type":"judgements","data":{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}}`,
		`{"type":"submissions","data":{"id":"s5","team_id":"t1","problem_id":"B","contest_time":"4:30:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"WA","start_contest_time":"4:31:00"}}`,
	}, "\n") + "\n"
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, feed, nil)
}

func TestRevealEndpoints(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	const get, next = "/api/v1/contests/c1/reveal", "/api/v1/contests/c1/reveal/next"

	// During the contest (4:30): nothing can be revealed; only the jury learns why.
	var st revealState
	e.MustDo(t, http.StatusOK, "GET", get, "", nil, &st)
	if st.Step != 0 || st.Remaining != 3 || st.next() != "t3 B" || st.Blocked != nil {
		t.Fatalf("public GET during the contest: got %+v, want step 0, 3 remaining, t3's B next, nothing blocked said", st)
	}
	e.MustDo(t, http.StatusOK, "GET", get, judgeToken, nil, &st)
	if st.Blocked == nil || st.Blocked.Code != "unprocessable" {
		t.Fatalf("jury GET during the contest: got %+v, want blocked: unprocessable", st)
	}
	for _, tc := range []struct {
		token string
		want  int
	}{{"", http.StatusUnauthorized}, {judgeToken, http.StatusForbidden}, {adminToken, http.StatusUnprocessableEntity}} {
		if r := e.Do(t, "POST", next, tc.token, nil); r.Status != tc.want {
			t.Errorf("POST next with token %q during the contest: got %d, want %d: %s", tc.token, r.Status, tc.want, r.Body)
		}
	}

	// After the end, the Resolver's order: t3 (last, with B hidden), then t2, then t1. The end by the clock is
	// not in the log yet: the jury is told nothing blocks the step (which records the end first).
	e.SetNow(contestStart.Add(6 * time.Hour))
	st = revealState{}
	if e.MustDo(t, http.StatusOK, "GET", get, judgeToken, nil, &st); st.Blocked != nil {
		t.Errorf("jury GET after the end by the clock: got blocked %+v, want nothing blocked", *st.Blocked)
	}
	for _, body := range []string{`{"step": 0}`, `{"step": "x"}`, `{"step": 1.5}`} {
		// 0 is not "the next one": a client counting from 0 would make a step at each retry.
		r := e.Do(t, "POST", next, adminToken, body)
		if msg := string(r.Body); r.Status != http.StatusBadRequest || strings.Contains(msg, "Go") || strings.Contains(msg, "int") {
			t.Errorf("POST next %s: got %d %s, want 400 in the user's terms", body, r.Status, r.Body)
		}
	}
	for _, want := range []struct {
		cell             string
		solved           bool
		oldRank, newRank int
		remaining        int
		next             string
	}{
		{"t3 B", true, 2, 2, 2, "t2 B"},
		{"t2 B", true, 3, 2, 1, "t1 B"},
		{"t1 B", false, 1, 1, 0, ""},
	} {
		var got revealStep
		e.MustDo(t, http.StatusOK, "POST", next, adminToken, nil, &got)
		if cell := got.Revealed.TeamID + " " + got.Revealed.ProblemID; cell != want.cell || got.Cell.Solved != want.solved ||
			got.Cell.Pending != 0 || got.OldRank != want.oldRank || got.NewRank != want.newRank || got.Remaining != want.remaining ||
			got.next() != want.next || got.Duplicate {
			t.Fatalf("step %d: got %+v, want %+v", got.Step, got, want)
		}
	}
	if r := e.Do(t, "POST", next, adminToken, nil); r.Status != http.StatusConflict {
		t.Errorf("a fourth step: got %d, want 409: %s", r.Status, r.Body)
	}

	// A retry naming its step, even later, is a duplicate, and stores nothing; a step beyond the next is
	// refused.
	e.SetNow(contestStart.Add(6*time.Hour + time.Minute))
	var again revealStep
	e.MustDo(t, http.StatusOK, "POST", next, adminToken, map[string]int{"step": 2}, &again)
	if !again.Duplicate || again.Revealed.TeamID != "t2" || again.Step != 3 {
		t.Errorf("step 2 again: got %+v, want a duplicate of t2's B", again)
	}
	feed := e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false", judgeToken, nil)
	if n := strings.Count(string(feed.Body), `"type":"reveal"`); feed.Status != http.StatusOK || n != 3 {
		t.Errorf("the log after a retry: got %d (status %d) reveal lines, want 3", n, feed.Status)
	}
	if r := e.Do(t, "POST", next, adminToken, map[string]int{"step": 5}); r.Status != http.StatusConflict {
		t.Errorf("step 5 after step 3: got %d, want 409", r.Status)
	}
	if r := e.Do(t, "POST", next, adminToken, `{"stride": 1}`); r.Status != http.StatusBadRequest {
		t.Errorf("a body that is not a step: got %d, want 400", r.Status)
	}

	e.MustDo(t, http.StatusOK, "GET", get, "", nil, &st)
	if st.Step != 3 || st.Remaining != 0 || st.Next != nil {
		t.Errorf("GET after the reveal: got %+v, want step 3, nothing remaining", st)
	}
	var pub, jury struct {
		Rows   []stream.Row
		Frozen bool
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &pub)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &jury)
	if !reflect.DeepEqual(pub.Rows, jury.Rows) {
		t.Errorf("after the reveal the public board differs from the jury's:\n%+v\n%+v", pub.Rows, jury.Rows)
	}
	// Nothing is hidden any more: the public board is not frozen, though the thaw is not recorded yet.
	var contests []struct{ Frozen bool }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", "", nil, &contests)
	if pub.Frozen || len(contests) != 1 || contests[0].Frozen {
		t.Errorf("after the reveal: the public page frozen %v, the contests %+v; want nothing frozen", pub.Frozen, contests)
	}
	var state struct{ Ended, Thawed *string }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state)
	if state.Ended == nil || state.Thawed != nil {
		t.Errorf("state after the reveal: got %+v, want ended (recorded by the first step), not thawed", state)
	}
}

// The public GET says where the reveal stands and nothing of what is hidden: no verdict, no count of judged
// submissions, not whether the jury is still judging.
func TestRevealGetHidesVerdicts(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t) // s3 and s4, frozen, without verdicts
	e.SetNow(contestStart.Add(6 * time.Hour))
	r := e.Do(t, "GET", "/api/v1/contests/c1/reveal", "", nil)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &raw); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"contest_id", "next", "remaining", "seq", "step"}; !slices.Equal(keys, want) {
		t.Fatalf("public GET: got members %v, want %v: %s", keys, want, r.Body)
	}
	before := string(r.Body)
	// A verdict for a frozen submission changes nothing public.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
	if after := string(e.Do(t, "GET", "/api/v1/contests/c1/reveal", "", nil).Body); after != before {
		t.Errorf("a frozen verdict changed the public GET:\n%s\n%s", before, after)
	}
	// The jury learns that the next cell (t3's B, judged now) can go, the end having come by the clock (the
	// step records it), and then that t2's B waits for a verdict.
	var st revealState
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", adminToken, nil, &st)
	if st.next() != "t3 B" || st.Blocked != nil {
		t.Fatalf("jury GET before the end is recorded: got %+v, want t3's B next, nothing blocking it", st)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", adminToken, nil, &st)
	if st.next() != "t2 B" || st.Blocked == nil || st.Blocked.Code != "conflict" || !strings.Contains(st.Blocked.Message, "without a verdict") {
		t.Fatalf("jury GET: got %+v, want t2's B next, blocked for want of a verdict", st)
	}
	if r := e.Do(t, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil); r.Status != http.StatusConflict {
		t.Errorf("the next step while its cell waits for a verdict: got %d, want 409", r.Status)
	}
	st = revealState{}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &st)
	if st.Blocked != nil {
		t.Errorf("public GET: got %+v, want no word of the blocked step", st)
	}
}

// Every screen follows the reveal through the public stream: one diff per step, naming the revealed team's
// row, each based on the one before.
func TestRevealStream(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	next, _ := e.MustStream(t, "", nil)
	if ev := nextFrame(next); ev.name != "retry" {
		t.Fatalf("got %+v, want the retry hint", ev)
	}
	snap := nextFrame(next)
	var s struct{ Seq uint64 }
	if snap.name != "snapshot" || json.Unmarshal([]byte(snap.data), &s) != nil {
		t.Fatalf("got %+v, want a snapshot", snap)
	}
	seq := s.Seq
	for i := range 3 {
		var step revealStep
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil, &step)
		ev := nextFrame(next)
		var d struct {
			Seq     uint64
			BaseSeq uint64 `json:"base_seq"`
			Rows    []stream.Row
		}
		if ev.name != "diff" || json.Unmarshal([]byte(ev.data), &d) != nil {
			t.Fatalf("step %d: got %+v, want a diff", i+1, ev)
		}
		var teams []string
		for _, r := range d.Rows {
			teams = append(teams, r.TeamID)
		}
		if d.BaseSeq != seq || d.Seq != seq+1 || d.Seq != step.Seq || !slices.Contains(teams, step.Revealed.TeamID) {
			t.Fatalf("step %d (%s's %s, seq %d): got the diff %d from %d of %v, want one step from %d with the team",
				i+1, step.Revealed.TeamID, step.Revealed.ProblemID, step.Seq, d.Seq, d.BaseSeq, teams, seq)
		}
		seq = d.Seq
	}
}

// A reveal step is part of the past from the moment it was taken: the board at a moment before it keeps the
// cell hidden, after it shows it, and a team's history says when.
func TestRevealInThePast(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil, nil) // t3's B, at 6:00
	e.SetNow(contestStart.Add(7 * time.Hour))
	cellB := func(at, team string) stream.Cell {
		var page struct{ Rows []stream.RowData }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?at="+at, "", nil, &page)
		for _, r := range page.Rows {
			if r.TeamID == team {
				return r.Cells[1]
			}
		}
		t.Fatalf("at %s: no row of %s", at, team)
		return stream.Cell{}
	}
	if c := cellB("5:30:00", "t3"); c.Solved || c.Pending != 1 {
		t.Errorf("before the step: got t3's B %+v, want it pending", c)
	}
	if c := cellB("6:30:00", "t3"); !c.Solved {
		t.Errorf("after the step: got t3's B %+v, want it solved", c)
	}
	var hist struct {
		Teams []struct {
			TeamID string `json:"team_id"`
			Points []struct {
				TimeMS int64 `json:"time_ms"`
				Solved int
			}
		}
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/history?teams=t3", "", nil, &hist)
	pts := hist.Teams[0].Points
	if last := pts[len(pts)-1]; last.Solved != 1 || last.TimeMS != (6*time.Hour).Milliseconds() {
		t.Errorf("t3's history: got %+v, want it solving B at 6:00:00", pts)
	}
}

// Once a reveal step is made the freeze cannot move: earlier, it would hide again what the public saw
// revealed (and could not be moved back); later, it would show what is still hidden.
func TestFreezeFixedDuringReveal(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil, nil)
	for _, freeze := range []string{"1:30:00", "0:30:00"} {
		contest := testContest()["contest"].(map[string]any)
		contest["scoreboard_freeze_duration"] = freeze
		r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest})
		if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "being revealed") {
			t.Errorf("a freeze of %s during the reveal: got %d %s, want 409 saying the contest is being revealed", freeze, r.Status, r.Body)
		}
	}
	var st revealState
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &st)
	if st.Step != 1 || st.Remaining != 2 {
		t.Errorf("the reveal after the refusals: got %+v, want step 1, 2 remaining", st)
	}
}
