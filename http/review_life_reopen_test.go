package http_test

import (
	"bytes"
	"encoding/json"
	"io"
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
	e.SetNow(contestStart.Add(5*time.Hour + 10*time.Second))
	if r := e.Do(t, "POST", "/api/v1/contests/c1/reveal/next", adminToken, nil); r.Status != http.StatusConflict {
		t.Fatalf("a reveal with submissions to judge: got %d %s, want 409", r.Status, r.Body)
	}
	c := testContest()["contest"].(map[string]any)
	c["duration"], c["scoreboard_freeze_duration"] = "5:10:00", "1:10:00"
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c}, nil)

	e.SetNow(contestStart.Add(5*time.Hour + 5*time.Minute))
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

	e.SetNow(contestStart.Add(5*time.Hour + 11*time.Minute))
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

// Final standings rankd built are results out too: a contest made to end after now would reopen under them
// (the phase went back to frozen while /final served the old version).
func TestFinalizedContestCannotReopen(t *testing.T) {
	fc := mustFinalContest(t, 10)
	fc.mustFinalize(t, 1)
	fs := fc.mustServer(t, nil)
	var c map[string]any
	resp, err := http.Get(fs.URL + "/api/contests/c")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Two hours longer, frozen from where it was: it would end an hour after the server's now.
	c["duration"], c["scoreboard_freeze_duration"] = "7:00:00", "3:00:00"
	body, err := json.Marshal(map[string]any{"contest": c})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("PATCH", fs.URL+"/api/v1/contests/c", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(msg), "results are out") {
		t.Errorf("reopening a finalized contest: got %d %s, want 409", resp.StatusCode, msg)
	}
}
