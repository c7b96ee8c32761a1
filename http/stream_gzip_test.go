package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openRawStream opens a stream of view asking for gzip, with a client that leaves the body as it came.
func (e *env) openRawStream(tb testing.TB, view string) *http.Response {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard/stream?view="+view, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+judgeToken)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("stream %s: status %d", view, resp.StatusCode)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readEvent reads the next event of an SSE stream: its name and data.
func readEvent(tb testing.TB, br *bufio.Reader) (name, data string) {
	tb.Helper()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			tb.Fatalf("reading the stream: %v", err)
		}
		switch line = strings.TrimSuffix(line, "\n"); {
		case strings.HasPrefix(line, "event: "):
			name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "" && name != "":
			return name, data
		}
	}
}

// A shared view's stream goes gzip-compressed to a client that takes it: each frame arrives as it is made
// (a piece of the compressed body flushed with it), the snapshot is a fraction of its size, and a stream that
// ends cleanly ends the gzip body cleanly (its trailer: the CRC of all it held). A team's view is not
// compressed (its frames are its own: compressing them would cost once per client).
func TestStreamGzip(t *testing.T) {
	e := MustOpen(t)
	e.mustContestOf(t, 300)

	plain := e.openRawStream(t, "team:t1")
	if got := plain.Header.Get("Content-Encoding"); got != "" {
		t.Errorf("a team view's stream: got Content-Encoding %q, want none", got)
	}
	plainBody := bufio.NewReader(plain.Body)
	if name, _ := readEvent(t, plainBody); name != "snapshot" {
		t.Fatalf("a team view's stream: got %q first, want a snapshot", name)
	}

	resp := e.openRawStream(t, "public")
	if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("the public stream, asked with Accept-Encoding gzip: got Content-Encoding %q, want gzip", got)
	}
	if got := resp.Header.Values("Vary"); !strings.Contains(strings.Join(got, ","), "Accept-Encoding") {
		t.Errorf("got Vary %q, want it to name Accept-Encoding", got)
	}
	compressed := &countingReader{r: resp.Body}
	zr, err := gzip.NewReader(compressed)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(zr)
	name, snapshot := readEvent(t, br)
	if name != "snapshot" || !strings.Contains(snapshot, `"team_id":"t299"`) {
		t.Fatalf("got %q %.100s, want the snapshot of 300 teams", name, snapshot)
	}
	if compressed.n*3 > int64(len(snapshot)) {
		t.Errorf("a snapshot of %d bytes took %d compressed, want a third or less", len(snapshot), compressed.n)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"submissions","data":{"id":"g1","team_id":"t7","problem_id":"A","contest_time":"0:10:00"}}`+"\n"+
			`{"type":"judgements","data":{"id":"gj1","submission_id":"g1","judgement_type_id":"AC","start_contest_time":"0:10:00"}}`+"\n", nil)
	if name, diff := readEvent(t, br); name != "diff" || !strings.Contains(diff, `"team_id":"t7"`) {
		t.Fatalf("after a judgement: got %q %.200s, want a diff with t7's row", name, diff)
	}
	// Deleting the contest ends the stream, with an error event, cleanly.
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)
	if name, _ := readEvent(t, br); name != "error" {
		t.Fatalf("after the contest's deletion: got %q, want an error event", name)
	}
	if rest, err := io.ReadAll(br); err != nil {
		t.Errorf("the end of a stream ended cleanly: got %v after %q, want the gzip body's clean end", err, rest)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// A HEAD of a live stream or the event feed gets the headers and ends: streamed, its body thrown away, it
// held the connection, and the next request on it got no answer.
func TestStreamHead(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	client := &http.Client{Timeout: 5 * time.Second}
	for _, path := range []string{"/api/v1/contests/c1/scoreboard/stream", "/api/contests/c1/event-feed"} {
		for range 2 { // the second on the connection the first leaves
			req, err := http.NewRequest("HEAD", e.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("HEAD %s: %v", path, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") == "" {
				t.Errorf("HEAD %s: got %d, Content-Type %q; want 200 with the stream's type", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?limit=1", "", nil); r.Status != http.StatusOK {
			t.Errorf("a read after HEAD %s: got %d, want 200", path, r.Status)
		}
	}
}

// openFeed opens a contest's event feed with the query given, asking for gzip or not, with a client that
// leaves the body as it came (and cuts it after 10 s: a line that never comes fails the test, not hangs it).
func (e *env) openFeed(tb testing.TB, query, token string, gz bool) *http.Response {
	tb.Helper()
	resp := e.rawGet(tb, "/api/contests/c1/event-feed"+query, token, gz)
	tb.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("event feed%s: status %d", query, resp.StatusCode)
	}
	if got, want := resp.Header.Get("Content-Encoding"), map[bool]string{true: "gzip"}[gz]; got != want {
		tb.Fatalf("event feed%s, gzip asked %v: got Content-Encoding %q, want %q", query, gz, got, want)
	}
	if got := resp.Header.Values("Vary"); !strings.Contains(strings.Join(got, ","), "Accept-Encoding") {
		tb.Errorf("event feed: got Vary %q, want it to name Accept-Encoding", got)
	}
	return resp
}

// The event feed goes gzip-compressed to a client that takes it: the same lines, a fraction of the bytes,
// each line flushed as it comes, and the body's clean end when the feed ends. The jury feed and the public one
// (whose clients share the contest's reader once they caught up) alike.
func TestEventFeedGzip(t *testing.T) {
	e := MustOpen(t)
	e.mustContestOf(t, 300)
	for i, tt := range []struct{ name, token string }{{"jury", judgeToken}, {"public", ""}} {
		plain, err := io.ReadAll(e.openFeed(t, "?stream=false", tt.token, false).Body)
		if err != nil {
			t.Fatal(err)
		}
		compressed := &countingReader{r: e.openFeed(t, "?stream=false", tt.token, true).Body}
		zr, err := gzip.NewReader(compressed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s feed: reading it to its end: %v", tt.name, err)
		}
		if string(got) != string(plain) || len(plain) == 0 {
			t.Fatalf("%s feed: got %d bytes gzip-compressed, want the %d bytes of the feed as it is", tt.name, len(got), len(plain))
		}
		if compressed.n*5 > int64(len(plain)) {
			t.Errorf("%s feed: %d bytes took %d compressed, want a fifth or less", tt.name, len(plain), compressed.n)
		}

		zr, err = gzip.NewReader(e.openFeed(t, "", tt.token, true).Body)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(zr)
		readLine := func() string { // the next line, past keep-alive newlines
			t.Helper()
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("%s feed: reading a line: %v", tt.name, err)
				}
				if l != "\n" {
					return l
				}
			}
		}
		lines := strings.SplitAfter(string(plain), "\n")
		for _, want := range lines[:len(lines)-1] {
			if l := readLine(); l != want {
				t.Fatalf("%s feed, streamed: got %q, want %q", tt.name, l, want)
			}
		}
		// Two events at once, read together from the log: one piece of the compressed body.
		ids := []string{"gz" + strconv.Itoa(i), "gz" + strconv.Itoa(i) + "b"}
		var posted strings.Builder
		for _, id := range ids {
			posted.WriteString(`{"type":"submissions","data":{"id":"` + id + `","team_id":"t1","problem_id":"B","contest_time":"1:30:00"}}` + "\n")
		}
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, posted.String(), nil)
		for _, id := range ids {
			if l := readLine(); !strings.Contains(l, `"id":"`+id+`"`) {
				t.Fatalf("%s feed, streamed: got %q after new submissions, want %s", tt.name, l, id)
			}
		}
		if tt.name == "public" {
			// Deleting the contest ends the feed, and the gzip body with it, cleanly.
			e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)
			if rest, err := io.ReadAll(br); err != nil || len(bytes.TrimSpace(rest)) > 0 {
				t.Errorf("the feed of a deleted contest: got %q and %v, want the gzip body's clean end", rest, err)
			}
		}
	}
}
