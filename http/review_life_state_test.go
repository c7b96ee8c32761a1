package http_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A CCS may finalize a contest before it thaws it (the spec allows either order; the World Finals reveal the
// finalized results at the ceremony): until the thaw, the public board, its frozen mark and the awards stay
// as frozen.
func TestLifeFinalizedBeforeThawStaysFrozen(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	// t3 solves B at 4:20, in the freeze: first to solve B, and the winner on the jury board.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
	e.SetNow(contestStart.Add(7 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"2026-03-01T10:00:00Z","frozen":"2026-03-01T14:00:00Z","ended":"2026-03-01T15:00:00Z","finalized":"2026-03-01T16:00:00Z"}}`, nil)

	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	if !p.Frozen {
		t.Error("finalized, not thawed: the public page is not marked frozen")
	}
	var row struct{ Solved int }
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row); row.Solved != 0 {
		t.Errorf("finalized, not thawed: public sees t3 with %d solved, want 0", row.Solved)
	}
	var awards []struct {
		ID      string
		TeamIDs []string `json:"team_ids"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/awards", "", nil, &awards)
	for _, a := range awards {
		for _, id := range a.TeamIDs {
			if id == "t3" {
				t.Errorf("finalized, not thawed: public award %s names t3, whose only solve is frozen", a.ID)
			}
		}
	}
	var rev struct{ Remaining int }
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &rev); rev.Remaining == 0 {
		t.Error("finalized, not thawed: nothing left for the stepwise reveal, want the frozen cells")
	}

	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"2026-03-01T10:00:00Z","frozen":"2026-03-01T14:00:00Z","ended":"2026-03-01T15:00:00Z","finalized":"2026-03-01T16:00:00Z","thawed":"2026-03-01T17:00:00Z"}}`, nil)
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p); p.Frozen {
		t.Error("thawed: the public page is marked frozen")
	}
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row); row.Solved != 1 {
		t.Errorf("thawed: public sees t3 with %d solved, want 1", row.Solved)
	}
}

// A thaw is not taken back by a state that leaves it out: a CCS followed by rankd finalizes the contest after
// the organiser thawed it by hand on rankd (its state says finalized, not thawed), and the public board, which
// showed every result, is not frozen again. The state stored says thawed, so the event feed says so too.
func TestLifeHandThawOutlivesAStateWithoutIt(t *testing.T) {
	for _, token := range []string{judgeToken, adminToken} {
		e := MustOpen(t)
		e.MustContest(t)
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
		e.SetNow(contestStart.Add(5*time.Hour + time.Minute))
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, "", nil)
		e.SetNow(contestStart.Add(7 * time.Hour))
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", token,
			`{"type":"state","data":{"started":"2026-03-01T10:00:00Z","frozen":"2026-03-01T14:00:00Z","ended":"2026-03-01T15:00:00Z","finalized":"2026-03-01T16:00:00Z"}}`, nil)
		var p page
		if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p); p.Frozen {
			t.Errorf("thawed by hand, then a state without thawed (token %s): the public page is marked frozen", token)
		}
		var row struct{ Solved int }
		if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row); row.Solved != 1 {
			t.Errorf("thawed by hand, then a state without thawed (token %s): public sees t3 with %d solved, want 1", token, row.Solved)
		}
		var st struct{ Thawed, Finalized *string }
		if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st); st.Thawed == nil || st.Finalized == nil {
			t.Errorf("thawed by hand, then a state without thawed (token %s): state %+v, want thawed and finalized", token, st)
		}
		var last string
		for _, l := range e.MustFeed(t, "c1", "", "") {
			if l.Type == "state" {
				last = string(l.Raw)
			}
		}
		if !strings.Contains(last, `"thawed":"`) || !strings.Contains(last, `"finalized":"`) {
			t.Errorf("thawed by hand, then a state without thawed (token %s): the feed's last state is %s, want thawed and finalized", token, last)
		}
	}
}
