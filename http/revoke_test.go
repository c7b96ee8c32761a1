package http_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Revoking a team's tokens refuses every request made with them from then on, ends their open streams, and
// leaves other teams' tokens as they were.
func TestRevokeTeamTokens(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	first, second, other := e.MustTeamToken(t, "t1"), e.MustTeamToken(t, "t1"), e.MustTeamToken(t, "t2")
	ended := map[string]chan struct{}{}
	for _, query := range []string{"?view=team", "?view=team&top=3&throttle=100ms"} {
		ended[query] = e.openStream(t, query, first)
	}

	var out struct{ Revoked int }
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1/teams/t1/tokens", adminToken, nil, &out)
	if out.Revoked != 2 {
		t.Errorf("revoked: got %d, want 2", out.Revoked)
	}
	for query, done := range ended {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("stream %s with a revoked token: still open after 5 s, want it ended", query)
		}
	}
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"first revoked", first, http.StatusUnauthorized},
		{"second revoked", second, http.StatusUnauthorized},
		{"another team's", other, http.StatusOK},
	} {
		if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?view=team", tc.token, nil); r.Status != tc.want {
			t.Errorf("%s token: got status %d, want %d", tc.name, r.Status, tc.want)
		}
	}
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1/teams/t1/tokens", adminToken, nil, &out)
	if out.Revoked != 0 {
		t.Errorf("revoked again: got %d, want 0", out.Revoked)
	}
	e.MustDo(t, http.StatusNotFound, "DELETE", "/api/v1/contests/nope/teams/t1/tokens", adminToken, nil, nil)
}

// openStream opens a stream of contest c1 with a token and returns a channel closed when the stream ends.
func (e *env) openStream(tb testing.TB, query, token string) chan struct{} {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard/stream"+query, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("stream %s: status %d", query, resp.StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return done
}

// A team's stream sends nothing once its token is revoked, not even a frame already on its way: it went on
// carrying the team's frozen verdicts until the next heartbeat (15 s by default).
func TestRevokedStreamSendsNoMore(t *testing.T) {
	e := MustOpenWith(t, options{heartbeat: time.Hour})
	e.MustContest(t)
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard/stream?view=team", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.MustTeamToken(t, "t2"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("Cache-Control"); got != "private, no-cache" {
		t.Errorf("a team's stream: got Cache-Control %q, want private, no-cache", got)
	}
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("before the snapshot: %v", err)
		}
		if line == "event: snapshot\n" {
			break
		}
	}
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1/teams/t2/tokens", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"judgements","data":{"id":"jr","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:21:00"}}`+"\n", nil)
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(rd)
		rest <- string(b)
	}()
	select {
	case got := <-rest:
		if strings.Contains(got, "event: diff") {
			t.Errorf("after the revocation: got a diff, want the stream ended:\n%s", got)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the stream with a revoked token: still open after 5 s, want it ended")
	}
}
