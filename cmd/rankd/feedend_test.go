package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// A contest's feed sent long after its end (an import, a follow catching up) says when the contest ended
// itself: the server does not record an end of its own over the feed's first lines, which the feed's next
// states (started, frozen: not ended) would then take back, so that the jury's event feed would end the
// contest, reopen it and end it again. The feed's own states are the log's.
func TestFeedAfterItsEndIsNotEndedByTheServer(t *testing.T) {
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AdminToken: testAdminToken, JudgeToken: testJudgeToken,
		FinalizeSettle: time.Second, EndQuiet: 500 * time.Millisecond}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	url := "http://" + s.Listening.String()
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte{'\n'})
	post := func(part [][]byte) {
		t.Helper()
		req, err := http.NewRequest("POST", url+"/api/v1/contests/euc2025/events", bytes.NewReader(bytes.Join(part, nil)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		req.Header.Set("Content-Type", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("posting lines: got status %d", resp.StatusCode)
		}
	}
	// The scheduler looks every second (FinalizeSettle); the feed comes in parts 300 ms apart.
	for i := 0; i < len(lines); i += 150 {
		post(lines[i:min(i+150, len(lines))])
		time.Sleep(300 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond) // still for longer than EndQuiet: an end would be recorded now
	states := mustJuryStates(t, url, "euc2025")
	var want []string
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"type":"state"`)) {
			want = append(want, strings.TrimSpace(string(l)))
		}
	}
	if len(states) != len(want) {
		t.Errorf("the jury feed's states: got %d, want the feed's %d:\n%s", len(states), len(want), strings.Join(states, "\n"))
	}
}

// A contest running out now is ended at its end, though its judges go on posting the verdicts of the last
// submissions: an OI contest hidden until its end opens to the public then, not once the judges stop.
func TestLiveContestEndedWhileJudging(t *testing.T) {
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AdminToken: testAdminToken, JudgeToken: testJudgeToken}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	url := "http://" + s.Listening.String()
	end := time.Now().Add(2 * time.Second)
	start := end.Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	MustDo(t, "POST", url+"/api/v1/contests", `{"contest":{"id":"live","name":"Live","start_time":"`+start+`",
		"duration":"1:00:00","scoreboard_freeze_duration":"0:00:00"},"problems":[{"id":"A","label":"A","ordinal":0}],
		"teams":[{"id":"t1","name":"Alpha"}]}`, http.StatusCreated)
	ended := func() bool {
		return slices.ContainsFunc(mustJuryStates(t, url, "live"), func(l string) bool { return strings.Contains(l, `"ended":"`) })
	}
	// The judges post a verdict every 300 ms, past the end; the server looks every 5 s (ScheduleEvery).
	for i := 0; time.Now().Before(end.Add(main.ScheduleEvery + 2*time.Second)); i++ {
		MustDo(t, "POST", url+"/api/v1/contests/live/submissions", fmt.Sprintf(`{"id":"s%d","team_id":"t1","problem_id":"A","contest_time":"0:59:00"}`, i), http.StatusOK)
		MustDo(t, "POST", url+"/api/v1/contests/live/judgements", fmt.Sprintf(`{"id":"j%d","submission_id":"s%d","judgement_type_id":"WA","start_contest_time":"0:59:01"}`, i, i), http.StatusOK)
		time.Sleep(300 * time.Millisecond)
	}
	if !ended() {
		t.Error("7 s after the end, the judges still posting: the log does not say the contest ended")
	}
}

// mustJuryStates returns the state events of a contest's jury event feed.
func mustJuryStates(tb testing.TB, url, cid string) []string {
	tb.Helper()
	req, err := http.NewRequest("GET", url+"/api/contests/"+cid+"/event-feed?stream=false&view=jury", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var states []string
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		if line := sc.Text(); strings.Contains(line, `"type":"state"`) {
			states = append(states, line)
		}
	}
	return states
}
