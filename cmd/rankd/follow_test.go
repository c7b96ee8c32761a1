package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// liveFeed serves a feed's lines as a contest system's event feed does, behind basic authentication: the
// first connection sends the first lines and, once let go, ends early (a dropped connection); the
// following ones resume after since_token.
type liveFeed struct {
	lines   [][]byte
	first   int           // lines the first connection sends
	release chan struct{} // lets the first connection end
	mu      sync.Mutex
	resumed []string // the since_token of each connection after the first
}

func (f *liveFeed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != "judge" || p != "secret" {
		http.Error(w, "who are you?", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	from, to := 0, f.first
	if r.URL.Query().Has("since_token") {
		since := r.URL.Query().Get("since_token")
		f.mu.Lock()
		f.resumed = append(f.resumed, since)
		f.mu.Unlock()
		from, to = -1, len(f.lines)
		for i, l := range f.lines {
			var h struct{ Token string }
			if json.Unmarshal(l, &h) == nil && h.Token == since {
				from = i + 1
			}
		}
		if from < 0 {
			http.Error(w, "unknown token", http.StatusBadRequest)
			return
		}
	}
	for _, l := range f.lines[from:to] {
		w.Write(l)
	}
	w.(http.Flusher).Flush()
	if to < len(f.lines) {
		select {
		case <-f.release:
		case <-r.Context().Done():
		}
	}
}

// rankd follow relays a live feed into a server as it comes (a line waits at most --delay, even while the
// connection stays open), resumes after a dropped connection from the last line read, and ends with the
// feed's end_of_updates: the board is the offline one, and no line was sent twice.
func TestFollow(t *testing.T) {
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte{'\n'})
	src := &liveFeed{lines: lines, first: len(lines) / 2, release: make(chan struct{})}
	ts := httptest.NewServer(src)
	defer ts.Close()
	p := StartRankd(t, t.TempDir())

	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		m := &main.Main{Stdout: &stdout, Stderr: &stderr}
		done <- m.Run(context.Background(), []string{"follow", "--from", ts.URL + "/api/contests/euc2025/event-feed",
			"--from-auth", "judge:secret", "--server", p.URL, "--token", testAdminToken, "--batch", "5000", "--delay", "50ms"})
	}()
	// The first half is on the server while the feed's connection is still open.
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/api/v1/contests/euc2025")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the contest is not on the server 10 s after the feed sent it")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(src.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("follow: %v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("follow did not end with the feed; it said:\n%s", stderr.String())
	}

	var want struct{ Token string }
	if err := json.Unmarshal(lines[src.first-1], &want); err != nil {
		t.Fatal(err)
	}
	if len(src.resumed) != 1 || src.resumed[0] != want.Token {
		t.Errorf("connections after the first resumed after %q, want one after %q", src.resumed, want.Token)
	}
	m := regexp.MustCompile(`: (\d+) lines, `).FindStringSubmatch(stdout.String())
	if m == nil || m[1] != strconv.Itoa(len(lines)) {
		t.Errorf("follow said %q, want the %d lines each sent once", stdout.String(), len(lines))
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the followed board differs from the offline one:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}
}

// A feed whose server refuses the credentials stops rankd follow with a message that says what to give.
func TestFollowRefused(t *testing.T) {
	ts := httptest.NewServer(&liveFeed{})
	defer ts.Close()
	_, errOut, err := run("follow", "--from", ts.URL+"/feed", "--from-auth", "judge:wrong", "--server", "http://127.0.0.1:1", "--token", testAdminToken)
	if err == nil || !strings.Contains(err.Error()+errOut, "--from-auth") {
		t.Errorf("got %v, %q; want an error that says to give --from-auth", err, errOut)
	}
}

// While rankd answers 503 (or cannot be reached), rankd follow sends the same batch again until it is taken:
// the feed waits, nothing is skipped.
func TestFollowWaitsForRankd(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00"},"token":"1"}` + "\n"),
		[]byte(`{"type":"state","id":null,"data":{"end_of_updates":"2026-03-01T16:00:00.000Z"},"token":"2"}` + "\n"),
	}
	src := httptest.NewServer(&liveFeed{lines: lines, first: len(lines)})
	defer src.Close()
	var mu sync.Mutex
	var posts []string
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(posts) < 2 {
			posts = append(posts, "refused")
			http.Error(w, `{"code":"unavailable","message":"the events could not be stored; retry"}`, http.StatusServiceUnavailable)
			return
		}
		posts = append(posts, r.URL.Path)
		w.Write([]byte(`{"accepted":2,"duplicates":0,"rejected":0,"results":[]}`))
	}))
	defer sink.Close()
	out, errOut, err := run("follow", "--from", src.URL+"/feed", "--from-auth", "judge:secret", "--server", sink.URL,
		"--token", testAdminToken, "--delay", "10ms")
	if err != nil {
		t.Fatalf("follow: %v\n%s", err, errOut)
	}
	want := []string{"refused", "refused", "/api/v1/contests/c/events"}
	if !reflect.DeepEqual(posts, want) || !strings.Contains(errOut, "trying again") || !strings.Contains(out, "2 lines, 2 accepted") {
		t.Errorf("got posts %q, stdout %q, stderr %q; want %q, then the counts", posts, out, errOut, want)
	}
}
