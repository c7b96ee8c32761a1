package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// startQuickEnding starts a server that records ends and finalizes after short quiets (EndQuiet 500 ms,
// FinalizeSettle 1 s, the scheduler looking every second), logging to logs, and returns its URL.
func startQuickEnding(tb testing.TB, logs io.Writer) string {
	tb.Helper()
	return startEnding(tb, logs, 500*time.Millisecond)
}

// startEnding is startQuickEnding with the given EndQuiet.
func startEnding(tb testing.TB, logs io.Writer, endQuiet time.Duration) string {
	tb.Helper()
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: tb.TempDir(), AdminToken: testAdminToken, JudgeToken: testJudgeToken,
		FinalizeSettle: time.Second, EndQuiet: endQuiet, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	if err := s.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close(context.Background()) })
	url := "http://" + s.Listening.String()
	waitReady(tb, url)
	return url
}

// mustPostLines posts feed lines to contest cid, in parts of 150 lines 300 ms apart (a feed coming for a
// while).
func mustPostLines(tb testing.TB, url, cid string, lines [][]byte) {
	tb.Helper()
	for i := 0; i < len(lines); i += 150 {
		req, err := http.NewRequest("POST", url+"/api/v1/contests/"+cid+"/events", bytes.NewReader(bytes.Join(lines[i:min(i+150, len(lines))], nil)))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		req.Header.Set("Content-Type", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			tb.Fatalf("posting lines: got status %d: %s", resp.StatusCode, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// statesOf returns the state lines of feed lines.
func statesOf(lines [][]byte) []string {
	var states []string
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"type":"state"`)) {
			states = append(states, strings.TrimSpace(string(l)))
		}
	}
	return states
}

// A contest's feed sent long after its end (an import, a follow catching up) says when the contest ended
// itself: the server does not record an end of its own over the feed's first lines, which the feed's next
// states (started, frozen: not ended) would then take back, so that the jury's event feed would end the
// contest, reopen it and end it again; nor over a feed that pauses before its end (an import interrupted and
// resumed later), whose first lines were finalized as the contest's final standings (another winner). The
// feed's own states are the log's, and the final standings are the whole feed's.
func TestFeedAfterItsEndIsNotEndedByTheServer(t *testing.T) {
	var logs syncBuffer
	url := startQuickEnding(t, &logs)
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte{'\n'})
	ended := slices.IndexFunc(lines, func(l []byte) bool {
		return bytes.Contains(l, []byte(`"type":"state"`)) && bytes.Contains(l, []byte(`"ended":"`))
	})
	paused := lines[:ended/2]
	mustPostLines(t, url, "euc2025", paused)
	time.Sleep(2500 * time.Millisecond) // still for longer than EndQuiet: an end would be recorded now
	if got, want := mustJuryStates(t, url, "euc2025"), statesOf(paused); len(got) != len(want) {
		t.Errorf("the feed paused: the jury feed's states: got %d, want the feed's %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	req, err := http.NewRequest("GET", url+"/api/v1/contests/euc2025/final", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the feed paused: GET final: got status %d, want 404 (no final standings)", resp.StatusCode)
	}

	mustPostLines(t, url, "euc2025", lines[len(paused):])
	time.Sleep(2500 * time.Millisecond)
	if got, want := mustJuryStates(t, url, "euc2025"), statesOf(lines); len(got) != len(want) {
		t.Errorf("the jury feed's states: got %d, want the feed's %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	var want []struct {
		TeamID string `json:"team_id"`
	}
	if err := json.Unmarshal([]byte(scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", feed(t, "euc2025"), "--view", "jury", "--format", "ccs")))), &want); err != nil {
		t.Fatal(err)
	}
	var final struct {
		Rows []struct {
			TeamID string `json:"team_id"`
		} `json:"rows"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			err = json.NewDecoder(resp.Body).Decode(&final)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("no final standings 20 s after the feed: status %d", resp.StatusCode)
		}
	}
	if len(final.Rows) == 0 || final.Rows[0].TeamID != want[0].TeamID {
		t.Errorf("the final standings' first row: got %+v, want the feed's winner, team %s", final.Rows[:min(1, len(final.Rows))], want[0].TeamID)
	}
	// Built from the whole feed: not built again for its lines after the end once they are still.
	time.Sleep(2500 * time.Millisecond)
	if log := logs.String(); strings.Contains(log, "finalizing again") {
		t.Errorf("the server finalized the feed again at the position its final standings were built from:\n%s", log)
	}
}

// The finalization at the end of a feed sent after it, waiting for the board to be still, builds from the
// feed's last lines: the server's look for late events files none of its own meanwhile (it did once the feed
// had been still for FinalizeSettle, and the same position was built twice).
func TestFeedFinalizedOnceAtItsEnd(t *testing.T) {
	var logs syncBuffer
	url := startEnding(t, &logs, 6*time.Second) // the end's finalization waits 6 s of stillness; late ones 1 s
	lines := []string{
		`{"type":"contest","id":null,"data":{"id":"old","name":"Old","start_time":"2025-01-01T10:00:00Z","duration":"5:00:00","scoreboard_freeze_duration":"0:00:00"}}`,
		`{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"correct","penalty":false,"solved":true}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"A","name":"A","ordinal":0}}`,
		`{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha"}}`,
		`{"type":"state","id":null,"data":{"started":"2025-01-01T10:00:00Z"}}`,
	}
	post := func(lines ...string) {
		t.Helper()
		var b [][]byte
		for _, l := range lines {
			b = append(b, []byte(l+"\n"))
		}
		mustPostLines(t, url, "old", b)
	}
	post(lines...)
	time.Sleep(2 * time.Second) // the server has looked at the contest: its log moves after this
	post(`{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"a","contest_time":"1:00:00"}}`,
		`{"type":"judgements","id":"j1","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"1:00:01"}}`,
		`{"type":"state","id":null,"data":{"started":"2025-01-01T10:00:00Z","ended":"2025-01-01T15:00:00Z"}}`)
	req, err := http.NewRequest("GET", url+"/api/v1/contests/old/final", nil)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final standings 30 s after the feed's end: status %d", resp.StatusCode)
		}
	}
	time.Sleep(3 * time.Second)
	if log := logs.String(); strings.Count(log, "contest finalized") != 1 || strings.Contains(log, "finalizing again") {
		t.Errorf("got %d finalizations, %d filed for late events; want one, the end's:\n%s", strings.Count(log, "contest finalized"),
			strings.Count(log, "finalizing again"), log)
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
	waitReady(t, url)
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
