package http_test

import (
	"net/http"
	"testing"
	"time"
)

// The judge system recorded the start (a CCS state), then the organiser delays the start by 15 minutes: the
// recorded start follows (the CCS wants it equal to the start time), and absolute times sent from then on are
// measured from the new start, not the old one.
func TestLifeStartDelayedAfterItWasRecorded(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.SetNow(contestStart.Add(5 * time.Minute))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"2026-03-01T10:00:00Z"}}`, nil)
	c := testContest()["contest"].(map[string]any)
	c["start_time"] = "2026-03-01T10:15:00Z"
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}, nil)

	var state struct{ Started *string }
	if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state); state.Started != nil {
		t.Errorf("at 10:05, delayed to 10:15: CCS state started %s, want null", *state.Started)
	}
	var got struct{ Phase string }
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &got); got.Phase != "scheduled" {
		t.Errorf("at 10:05, delayed to 10:15: phase %q, want scheduled", got.Phase)
	}

	e.SetNow(contestStart.Add(2 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"x1","team_id":"t1","problem_id":"B","time":"2026-03-01T12:00:00+00:00"}`, nil)
	var subs []struct {
		ID          string
		ContestTime string `json:"contest_time"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/submissions?team=t1&problem=B", "", nil, &subs)
	if len(subs) != 1 || subs[0].ContestTime != "1:45:00.000" {
		t.Errorf("a submission at 12:00 of a contest started at 10:15: got %+v, want contest time 1:45:00.000", subs)
	}
	if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state); state.Started == nil ||
		*state.Started != "2026-03-01T10:15:00.000Z" {
		t.Errorf("CCS state started %v, want 2026-03-01T10:15:00.000Z", state.Started)
	}
}
