package http_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// An admin deletes a contest: it is gone from every address, its live streams end, its team tokens are
// revoked, and a contest created later with its id starts afresh — none of the old one's pages (cached at
// the same sequence number), submissions or tokens is served for it.
func TestDeleteContest(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	team := e.MustTeamToken(t, "t1")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams/t3/ban", adminToken, nil, nil)
	var before page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &before)

	follow := func(query string) <-chan string {
		resp, err := http.Get(e.URL + "/api/v1/contests/c1/scoreboard/stream" + query)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		ended := make(chan string, 1)
		go func() {
			data, _ := io.ReadAll(resp.Body)
			ended <- string(data)
		}()
		return ended
	}
	ended, bigScreen := follow(""), follow("?top=2&throttle=100ms")

	var got struct {
		ContestID string `json:"contest_id"`
		Deleted   bool
	}
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, &got)
	if got.ContestID != "c1" || !got.Deleted {
		t.Errorf("the answer: got %+v, want c1 deleted", got)
	}
	select {
	case got := <-ended:
		// The client is told, so that it does not resume (on a contest created again with the id).
		// Its empty id clears a browser's last event id: EventSource reconnects without Last-Event-ID.
		if want := "event: error\nid\ndata: {\"code\":\"not_found\",\"message\":\"contest \\\"c1\\\" was deleted\"}\n\n"; !strings.HasSuffix(got, want) {
			t.Errorf("the end of the live stream: got %q, want it to hold %q", got[max(0, len(got)-300):], want)
		}
	case <-time.After(5 * time.Second):
		t.Error("the live stream of the deleted contest is still open after 5 s")
	}
	select {
	case got := <-bigScreen:
		if want := "event: error\nid\ndata: {\"code\":\"not_found\""; !strings.Contains(got, want) {
			t.Errorf("the end of the big-screen stream: got %q, want it to hold %q", got[max(0, len(got)-300):], want)
		}
	case <-time.After(5 * time.Second):
		t.Error("the big-screen stream of the deleted contest is still open after 5 s")
	}
	for _, path := range []string{"/api/v1/contests/c1", "/api/v1/contests/c1/scoreboard", "/api/v1/contests/c1/submissions",
		"/api/contests/c1/scoreboard", "/api/contests/c1/event-feed", "/api/v1/contests/c1/scoreboard/stream"} {
		if r := e.Do(t, "GET", path, adminToken, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s after the deletion: got status %d, want 404", path, r.Status)
		}
	}
	var list []struct{ ID string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", adminToken, nil, &list)
	if slices.ContainsFunc(list, func(c struct{ ID string }) bool { return c.ID == "c1" }) {
		t.Errorf("the contests listed after the deletion: got %+v, want no c1", list)
	}
	if r := e.Do(t, "DELETE", "/api/v1/contests/c1", adminToken, nil); r.Status != http.StatusNotFound {
		t.Errorf("a second deletion: got status %d, want 404", r.Status)
	}
	if r := e.Do(t, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"0:40:00"}`); r.Status != http.StatusNotFound {
		t.Errorf("an event for the deleted contest: got status %d, want 404", r.Status)
	}

	// The id again: another ban brings the public board to the same sequence number as before.
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams/t2/ban", adminToken, nil, nil)
	var after page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &after)
	if after.Seq != before.Seq {
		t.Fatalf("the new contest's public seq: got %d, want %d as the old one's (the test's premise)", after.Seq, before.Seq)
	}
	if teams := after.teams(); strings.Join(teams, ",") != "t1,t3" {
		t.Errorf("the new contest's board: got teams %v, want t1,t3 (t2 banned in it; the old board banned t3)", teams)
	}
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?view=team", team, nil); r.Status != http.StatusUnauthorized {
		t.Errorf("the old contest's team token on the new one: got status %d, want 401", r.Status)
	}
}
