package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"rankd/board"
	"rankd/engine"
	"rankd/sqlite"
	"rankd/storetest"
)

// A contest that started late (the state's started, 10 minutes after its start_time) runs from its actual
// start everywhere: the board reads absolute times from it, and so must the phase, the state, the freeze by
// hand and the end. The phase said "frozen" 10 minutes early while a submission made after that claimed
// freeze counted before it, publicly.
func TestLateStartIsTheStart(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	started := contestStart.Add(10 * time.Minute)
	e.SetNow(started) // the judge's feed says when it started, as it starts
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		fmt.Sprintf(`{"type":"state","data":{"started":%q}}`+"\n", started.Format(time.RFC3339)), nil)
	e.SetNow(contestStart.Add(4*time.Hour + 5*time.Minute)) // 3:55 since the actual start: not frozen yet
	var c struct {
		Phase string
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &c)
	var st struct{ Frozen *string }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st)
	if c.Phase != "running" || st.Frozen != nil {
		t.Errorf("3:55 after the actual start: got phase %s, state frozen %v; want running, not frozen", c.Phase, st.Frozen)
	}
	var fr struct {
		FrozenAt string `json:"frozen_at"`
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, &fr)
	if fr.FrozenAt != "3:55:00.000" {
		t.Errorf("freeze by hand: got frozen_at %s, want 3:55:00.000 (from the actual start)", fr.FrozenAt)
	}
	// Made 3 s after the freeze, judged: hidden from the public.
	at := e.now.Add(3 * time.Second).Format(time.RFC3339)
	e.SetNow(e.now.Add(5 * time.Second))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		fmt.Sprintf(`{"type":"submissions","data":{"id":"late","team_id":"t3","problem_id":"A","time":%q}}`, at),
		fmt.Sprintf(`{"type":"judgements","data":{"id":"jl","submission_id":"late","judgement_type_id":"AC","start_time":%q}}`, at),
	}, "\n")+"\n", nil)
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	for _, r := range p.Rows {
		if r.TeamID == "t3" && r.Solved > 0 {
			t.Errorf("the public board shows the solve made after the freeze: %+v", r)
		}
	}
	if !p.Frozen {
		t.Error("the public board does not say it is frozen")
	}
}

// Once frozen, while the contest runs, the start cannot move later nor be taken back: judges' absolute times
// would be read from the new start, and what is made after the freeze would count before it; moving the
// start, then dropping the freeze, then moving the start back published frozen verdicts. Moving it earlier is
// fine.
func TestFrozenStartCannotMoveLater(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t) // frozen: 4:30 into the contest
	for _, tc := range []struct {
		start any
		want  int
	}{
		{contestStart.Add(15 * time.Minute).Format(time.RFC3339), http.StatusConflict},
		{nil, http.StatusConflict},
		{contestStart.Add(-5 * time.Minute).Format(time.RFC3339), http.StatusOK},
	} {
		c := testContest()["contest"].(map[string]any)
		c["start_time"] = tc.start
		if r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}); r.Status != tc.want {
			t.Errorf("PATCH start %v: got %d %s, want %d", tc.start, r.Status, r.Body, tc.want)
		}
		line := fmt.Sprintf(`{"type":"contest","data":{"id":"c1","name":"Test Contest","start_time":%s,"duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","penalty_time":20}}`,
			jsonOrNull(tc.start))
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line+"\n"); r.Status != tc.want {
			t.Errorf("a judge's contest with start %v: got %d %s, want %d", tc.start, r.Status, r.Body, tc.want)
		}
	}
}

func jsonOrNull(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%q", v)
}

// After its end, a frozen contest whose start is taken back (a feed of a past contest replaying a paused
// countdown, as wf47's does) still hides what it hid: its freeze cannot be dropped.
func TestFrozenWithoutStart(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.SetNow(contestStart.Add(30 * 24 * time.Hour))
	c := testContest()["contest"].(map[string]any)
	c["start_time"] = nil
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}, nil)
	c["scoreboard_freeze_duration"] = "0:00:00"
	if r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}); r.Status != http.StatusConflict {
		t.Errorf("dropping the freeze after the start was taken back: got %d %s, want 409", r.Status, r.Body)
	}
}

// The state's started is the start that counts: a judge's state moving it later while the contest runs
// frozen is refused as a definition's would be (it was taken, and a verdict made after the freeze counted
// before it, publicly); moving it earlier is fine.
func TestFrozenStateStartCannotMoveLater(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t) // frozen: 4:30 into the contest
	for _, tc := range []struct {
		started time.Time
		want    int
	}{
		{contestStart.Add(time.Hour), http.StatusConflict},
		{contestStart.Add(-time.Minute), http.StatusOK},
	} {
		line := fmt.Sprintf(`{"type":"state","data":{"started":%q}}`, tc.started.Format(time.RFC3339))
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line+"\n"); r.Status != tc.want {
			t.Errorf("state started %v: got %d %s, want %d", tc.started, r.Status, r.Body, tc.want)
		}
	}
}

// A judge's state that thaws a contest running frozen is refused: a judge token showed the public every hidden
// verdict at once. Lifting the freeze during the contest is the admin's: POST .../thaw, or a state an admin's
// token relays (rankd follow of a source that did). After the end a judge's thaw is taken.
func TestFrozenStateThawDuringContest(t *testing.T) {
	line := fmt.Sprintf(`{"type":"state","data":{"started":%q,"thawed":%q}}`+"\n",
		contestStart.Format(time.RFC3339), contestStart.Add(4*time.Hour+30*time.Minute).Format(time.RFC3339))
	thawed := func(e *env) bool {
		var st struct{ Thawed *string }
		e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st)
		return st.Thawed != nil
	}
	e := MustOpen(t)
	e.MustContest(t) // frozen: 4:30 into the contest
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line); r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "POST .../thaw") {
		t.Errorf("a judge's state thawing the running contest: got %d %s, want 409 pointing at POST .../thaw", r.Status, r.Body)
	}
	if thawed(e) {
		t.Errorf("after the judge's refused thaw: got thawed, want frozen")
	}
	// Nor before the freeze (the thaw would keep the freeze from ever hiding anything), nor with an end to come.
	for _, st := range []string{
		fmt.Sprintf(`{"type":"state","data":{"started":%q,"thawed":%q}}`, contestStart.Format(time.RFC3339), contestStart.Add(time.Hour).Format(time.RFC3339)),
		fmt.Sprintf(`{"type":"state","data":{"started":%q,"ended":%q,"thawed":%q}}`, contestStart.Format(time.RFC3339),
			contestStart.Add(7*time.Hour).Format(time.RFC3339), contestStart.Add(4*time.Hour+30*time.Minute).Format(time.RFC3339)),
	} {
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, st+"\n"); r.Status != http.StatusConflict {
			t.Errorf("a judge's state %s: got %d %s, want 409", st, r.Status, r.Body)
		}
	}
	// A source that ends the contest early reports the end, then the thaw: taken in one request as in two.
	ended := fmt.Sprintf(`{"type":"state","data":{"started":%q,"ended":%q}}`, contestStart.Format(time.RFC3339),
		contestStart.Add(4*time.Hour+20*time.Minute).Format(time.RFC3339))
	endedThawed := strings.Replace(ended, `}}`, fmt.Sprintf(`,"thawed":%q}}`, contestStart.Add(4*time.Hour+25*time.Minute).Format(time.RFC3339)), 1)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, ended+"\n"+endedThawed+"\n"); r.Status != http.StatusOK || !thawed(e) {
		t.Errorf("a judge's end and thaw in one request: got %d %s, want 200 and thawed", r.Status, r.Body)
	}
	e = MustOpen(t)
	e.MustContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line); r.Status != http.StatusOK || !thawed(e) {
		t.Errorf("the judge's state after the end: got %d %s, want 200 and thawed", r.Status, r.Body)
	}

	e = MustOpen(t)
	e.MustContest(t)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", adminToken, line); r.Status != http.StatusOK || !thawed(e) {
		t.Errorf("an admin's state thawing the running contest: got %d %s, want 200 and thawed", r.Status, r.Body)
	}
}

// A feed of a past contest replays the delays of its start (euc2025's moves it and back before the contest):
// long after the end they move nothing the public sees, and are taken whatever the batches (a line was
// rejected when a batch ended between the two).
func TestPastContestStartMoves(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	e.SetNow(contestStart.Add(30 * 24 * time.Hour))
	for _, start := range []time.Time{contestStart.Add(15 * time.Minute), contestStart} {
		c := testContest()["contest"].(map[string]any)
		c["start_time"] = start.Format(time.RFC3339)
		line, err := json.Marshal(map[string]any{"type": "contest", "data": c})
		if err != nil {
			t.Fatal(err)
		}
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, string(line)+"\n"); r.Status != http.StatusOK {
			t.Errorf("start %v a month after the contest: got %d %s, want 200", start, r.Status, r.Body)
		}
	}
}

// The CCS scoreboard's contest_time runs from the recorded start too.
func TestCCSContestTimeFromTheRecordedStart(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	e.SetNow(contestStart.Add(time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		fmt.Sprintf(`{"type":"state","data":{"started":%q}}`+"\n", contestStart.Add(10*time.Minute).Format(time.RFC3339)), nil)
	e.SetNow(contestStart.Add(4*time.Hour + 30*time.Minute))
	var sb struct {
		ContestTime string `json:"contest_time"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/scoreboard", "", nil, &sb)
	if sb.ContestTime != "4:20:00.000" {
		t.Errorf("got contest_time %s, want 4:20:00.000 (4:30 after start_time, 4:20 after the recorded start)", sb.ContestTime)
	}
}

// Once a contest's results are out (thawed, or final standings built by rankd), a state that takes its end
// back is refused: reopened, its freeze could be lifted as in a running contest (a state reopening a finalized
// contest, then a definition without a freeze, showed the public every frozen verdict). Before that, it is
// taken (a contest ended early by mistake), as a new definition is (PATCH). A state sent again as history (a
// feed read again) is a duplicate, not a refusal.
func TestEndedContestNotReopened(t *testing.T) {
	at := func(d time.Duration) string { return contestStart.Add(d).Format(time.RFC3339) }
	started := fmt.Sprintf(`{"type":"state","token":"s1","data":{"started":%q}}`, at(0))
	ended := fmt.Sprintf(`{"type":"state","token":"s2","data":{"started":%q,"ended":%q}}`, at(0), at(5*time.Hour))
	thawed := fmt.Sprintf(`{"type":"state","token":"s3","data":{"started":%q,"ended":%q,"thawed":%q}}`, at(0), at(5*time.Hour), at(5*time.Hour+time.Minute))
	reopen := []struct{ name, line, token string }{
		{"a judge's state ending later", fmt.Sprintf(`{"type":"state","token":"s4","data":{"started":%q,"frozen":%q,"ended":%q}}`, at(0), at(4*time.Hour), at(8*time.Hour)), judgeToken},
		{"an admin's state ending later", fmt.Sprintf(`{"type":"state","token":"s5","data":{"started":%q,"ended":%q}}`, at(0), at(7*time.Hour)), adminToken},
		{"the state deleted", `{"type":"state","token":"s6","data":null}`, judgeToken},
	}
	for _, tc := range []struct {
		name   string
		lines  []string
		final  bool // final standings built by rankd
		refuse bool
	}{
		{"thawed", []string{started, thawed}, false, true},
		{"final standings built", []string{started, ended}, true, true},
		{"ended, nothing out", []string{started, ended}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range reopen {
				var store *sqlite.DB
				e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store { store = db; return db }})
				e.MustContest(t)
				e.SetNow(contestStart.Add(6 * time.Hour))
				for _, line := range tc.lines {
					e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, line+"\n", nil)
				}
				if tc.final {
					ctx := context.Background()
					f, err := e.engine.Final(ctx, "c1")
					if err != nil {
						t.Fatal(err)
					}
					_ = e.engine.Read("c1", func(_ *board.Board, pos int64) error { f.Pos = pos; return nil })
					f.Stored = storetest.MustEntryAt(t, store, "c1", f.Pos).Stored
					if _, err := store.SaveFinal(ctx, f); err != nil {
						t.Fatal(err)
					}
				}
				var res struct{ Accepted, Duplicates, Rejected int }
				if e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, started+"\n", &res); res.Duplicates != 1 {
					t.Errorf("the first state sent again: got %+v, want a duplicate", res)
				}
				resp := e.Do(t, "POST", "/api/v1/contests/c1/events", r.token, r.line+"\n")
				if refused := resp.Status == http.StatusConflict && strings.Contains(string(resp.Body), "results are out"); refused != tc.refuse || !refused && resp.Status != http.StatusOK {
					t.Errorf("%s: got %d %s, want refused %v", r.name, resp.Status, resp.Body, tc.refuse)
				}
			}
		})
	}
}

// A finalized contest's finalization cannot be taken back by a state that keeps the end: the next state could
// then take the end back, the finalization no longer counting.
func TestFinalizationNotTakenBack(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	at := func(d time.Duration) string { return contestStart.Add(d).Format(time.RFC3339) }
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		fmt.Sprintf(`{"type":"state","data":{"started":%q,"ended":%q,"finalized":%q}}`+"\n", at(0), at(5*time.Hour), at(5*time.Hour+time.Minute)), nil)
	for _, line := range []string{
		fmt.Sprintf(`{"type":"state","data":{"started":%q,"ended":%q}}`, at(0), at(5*time.Hour)),
		fmt.Sprintf(`{"type":"state","data":{"started":%q}}`, at(0)),
	} {
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line+"\n"); r.Status != http.StatusConflict {
			t.Errorf("%s: got %d %s, want 409", line, r.Status, r.Body)
		}
	}
	again := fmt.Sprintf(`{"type":"state","data":{"started":%q,"ended":%q,"finalized":%q}}`, at(0), at(5*time.Hour), at(5*time.Hour+2*time.Minute))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, again+"\n", nil)
}
