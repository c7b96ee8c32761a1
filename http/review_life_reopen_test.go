package http_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The end recorded by a first reveal attempt at 5:00, then the contest extended by 10 minutes (a power cut made
// up for): the contest runs again, frozen, until its new end. Its phase, its CCS state and the reveal say so,
// and the end recorded later is the new one. Once results are out, it cannot be reopened.
func TestLifeExtendedAfterItsEndWasRecorded(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.now = contestStart.Add(5*time.Hour + 10*time.Second)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil); r.Status != http.StatusConflict {
		t.Fatalf("a reveal with submissions to judge: got %d %s, want 409", r.Status, r.Body)
	}
	c := testContest()["contest"].(map[string]any)
	c["duration"], c["scoreboard_freeze_duration"] = "5:10:00", "1:10:00"
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}, nil)

	e.now = contestStart.Add(5*time.Hour + 5*time.Minute)
	var got struct{ Phase string }
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &got); got.Phase != "frozen" {
		t.Errorf("at 5:05 of 5:10: phase %q, want frozen", got.Phase)
	}
	var state struct{ Ended *string }
	if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state); state.Ended != nil {
		t.Errorf("at 5:05 of 5:10: CCS state ended %s, want null", *state.Ended)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`[{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"},`+
			`{"id":"j4","submission_id":"s4","judgement_type_id":"WA","start_contest_time":"4:21:00"}]`, nil)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a reveal step at 5:05 of 5:10: got %d %s, want 422", r.Status, r.Body)
	}

	e.now = contestStart.Add(5*time.Hour + 11*time.Minute)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil, nil)
	if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state); state.Ended == nil ||
		*state.Ended != "2026-03-01T15:10:00.000Z" {
		t.Errorf("after the new end: CCS state ended %v, want 2026-03-01T15:10:00.000Z", state.Ended)
	}
	c["duration"], c["scoreboard_freeze_duration"] = "5:20:00", "1:20:00"
	r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c})
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "results are out") {
		t.Errorf("extended again after a reveal step: got %d %s, want 409", r.Status, r.Body)
	}
}
