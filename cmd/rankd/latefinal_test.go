package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// A verdict that comes after the contest's end (a submission pending then) reaches the final standings once
// the log has been still for a while, without anyone finalizing by hand; also when the server restarts before
// that (the final standings stayed without it for good).
func TestLateVerdictsAreFinalized(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "running", true: "restarted"}[restart], func(t *testing.T) { testLateVerdicts(t, restart) })
	}
}

func testLateVerdicts(t *testing.T, restart bool) {
	dir := t.TempDir()
	var url string
	open := func() *main.Server {
		s := &main.Server{Addr: "127.0.0.1:0", DataDir: dir, AdminToken: testAdminToken, JudgeToken: testJudgeToken,
			FinalizeSettle: 300 * time.Millisecond}
		if err := s.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		url = "http://" + s.Listening.String()
		waitReady(t, url)
		return s
	}
	s := open()
	defer func() { s.Close(context.Background()) }()
	// Ending 3 s after it is created: a contest whose whole log came after its end waits for its feed to say it
	// ended (see TestFeedAfterItsEndIsNotEndedByTheServer).
	start := time.Now().Add(3*time.Second - time.Hour).UTC().Format(time.RFC3339Nano)
	MustDo(t, "POST", url+"/api/v1/contests", `{"contest":{"id":"late","name":"Late","start_time":"`+start+`",
		"duration":"1:00:00","scoreboard_freeze_duration":"0:00:00"},"problems":[{"id":"A","label":"A","ordinal":0}],
		"teams":[{"id":"t1","name":"Alpha"}]}`, http.StatusCreated)
	MustDo(t, "POST", url+"/api/v1/contests/late/submissions", `{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:59:00"}`, http.StatusOK)
	// solved is what the final standings say team t1 solved; -1 before there are any.
	solved := func() int {
		resp, err := http.Get(url + "/api/v1/contests/late/final")
		if err != nil {
			return -1
		}
		defer resp.Body.Close()
		var f struct{ Rows []struct{ Solved int } }
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&f) != nil || len(f.Rows) != 1 {
			return -1
		}
		return f.Rows[0].Solved
	}
	waitFor(t, "final standings", func() bool { return solved() == 0 })
	MustDo(t, "POST", url+"/api/v1/contests/late/judgements", `{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"0:59:30"}`, http.StatusOK)
	if restart {
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		s = open()
	}
	waitFor(t, "the late verdict in the final standings", func() bool { return solved() == 1 })
}

// The system clock set three hours ahead for a few seconds during a contest does not end it: the end the
// server would record by it (an OI contest hidden until its end published for good) waits until the jump
// has lasted ClockTrustAfter.
func TestClockJumpEndsNoContest(t *testing.T) {
	var offset atomic.Int64
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AdminToken: testAdminToken, JudgeToken: testJudgeToken,
		FinalizeSettle: 50 * time.Millisecond, Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	url := "http://" + s.Listening.String()
	waitReady(t, url)
	start := time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339)
	MustDo(t, "POST", url+"/api/v1/contests", `{"contest":{"id":"oi","name":"OI","start_time":"`+start+`",
		"duration":"2:00:00","rankd":{"rules":"oi","hide_until_end":true}},"problems":[{"id":"A","label":"A","ordinal":0,"max_score":100}],
		"teams":[{"id":"t1","name":"Alpha"}]}`, http.StatusCreated)
	time.Sleep(200 * time.Millisecond) // the scheduler has looked at the clock as it is
	offset.Store(int64(3 * time.Hour))
	time.Sleep(time.Second) // the scheduler looks every 50 ms
	offset.Store(0)
	resp, err := http.Get(url + "/api/contests/oi/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct{ Ended *string }
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Ended != nil {
		t.Errorf("after the clock jumped ahead for a second: got ended %v (%v), want none", st.Ended, err)
	}
}
