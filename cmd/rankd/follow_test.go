package main_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// rankd's public feed deletes the submissions of a team that is hidden and sends them again as they were when
// it is shown: a rankd following that feed takes them again (each line has its own token), and deletes them
// again when the team is hidden again, and ends with the source's public board. It kept them deleted, as a
// judge's retry, and lost the team's solves; then it lost the second deletions (a solve deleted at the source
// meanwhile stayed on the follower).
func TestFollowRankdPublicFeedThroughHideAndShow(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte{'\n'})
	thaw := slices.IndexFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"thawed":"`)) })
	dir := t.TempDir()
	head, tail := filepath.Join(dir, "head.ndjson"), filepath.Join(dir, "tail.ndjson")
	for path, part := range map[string][][]byte{head: lines[:thaw], tail: lines[thaw:]} {
		if err := os.WriteFile(path, bytes.Join(part, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := StartRankd(t, t.TempDir())
	MustRun(t, "import", "--server", src.URL, "--token", testAdminToken, "--feed", head)
	team := src.URL + "/api/v1/contests/euc2025/teams/51/hide" // Universiteit Utrecht, 7 solved before the thaw
	MustDo(t, "POST", team, "", http.StatusOK)
	MustDo(t, "DELETE", team, "", http.StatusOK)
	MustDo(t, "POST", team, "", http.StatusOK)
	MustDo(t, "POST", src.URL+"/api/v1/contests/euc2025/events", `{"type":"submissions","id":"1483","data":null}`+"\n", http.StatusOK) // its solve of F
	MustDo(t, "DELETE", team, "", http.StatusOK)
	MustRun(t, "import", "--server", src.URL, "--token", testAdminToken, "--feed", tail)

	dst := StartRankd(t, t.TempDir())
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := &main.Main{Stdout: &stdout, Stderr: &stderr}
	if err := m.Run(ctx, []string{"follow", "--from", src.URL + "/api/contests/euc2025/event-feed",
		"--server", dst.URL, "--token", testAdminToken, "--delay", "50ms"}); err != nil {
		t.Fatalf("follow: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), " 0 rejected") {
		t.Errorf("follow rejected lines of rankd's feed:\n%s%s", stdout.String(), stderr.String())
	}
	if got, want := MustServedRows(t, dst.URL, "euc2025", "public"), MustServedRows(t, src.URL, "euc2025", "public"); got != want {
		t.Errorf("the follower's board differs from its source's public one:\ngot  %.600s\nwant %.600s", got, want)
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

// rankd refusing the token stops rankd follow saying which token it used, and counting no line as sent.
func TestFollowTokenRefused(t *testing.T) {
	src := httptest.NewServer(newDOMjudge(t, shortFeed...))
	defer src.Close()
	p := StartRankd(t, t.TempDir())
	t.Setenv("RANKD_ADMIN_TOKEN", "")
	t.Setenv("RANKD_JUDGE_TOKEN", "not-a-token-of-this-server")
	_, errOut, err := mustFollow(t, "--from", src.URL+"/feed", "--from-auth", "judge:secret", "--server", p.URL)
	if err == nil || !strings.Contains(err.Error(), "(the token of RANKD_JUDGE_TOKEN)") || strings.Contains(errOut, "lines:") {
		t.Errorf("got %v, saying %q; want a refusal naming RANKD_JUDGE_TOKEN, no line counted", err, errOut)
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
	if !reflect.DeepEqual(posts, want) || !strings.Contains(errOut, "trying again") || strings.Contains(errOut, "lines from 1: lines from") || !strings.Contains(out, "2 lines, 2 accepted") {
		t.Errorf("got posts %q, stdout %q, stderr %q; want %q, then the counts", posts, out, errOut, want)
	}
}

// domjudge serves a feed's lines as DOMjudge's event feed does: chunked, each line split across two writes,
// a blank keep-alive line now and then, resuming after ?since_token= (since_id for a 2020-03 feed; 400 for
// one it does not know), and open after the last line, sending keep-alives, until the client goes (DOMjudge
// never closes the stream, even after end_of_updates). Its faults are set per test.
type domjudge struct {
	lines    [][]byte // without their newline
	tokens   []string // where a client resumes after each line
	param    string   // since_token or since_id
	statuses []int    // the answers to the first connections, before any line
	drops    []int    // lines (indices) in the middle of which the connection breaks, the first time
	forget   bool     // connections get the feed from its start, whatever they ask (a restarted source)
	header   string   // Content-Type; application/x-ndjson when empty
	// reload, when set, changes the feed after its first drop (its database reloaded), under mu.
	reload func(f *domjudge)

	mu     sync.Mutex
	conns  int
	asked  []string // since_token or since_id of each connection that got lines
	broken map[int]bool
}

// mustDOMjudge returns a fake DOMjudge serving a feed file, in the 2023-06 style with its tokens or, with
// since_id, converted to the 2020-03 style (event ids, op, "contests").
func mustDOMjudge(tb testing.TB, path, param string) *domjudge {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	f := &domjudge{param: param, broken: map[int]bool{}}
	for i, l := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		var ev struct {
			Type  string          `json:"type"`
			Data  json.RawMessage `json:"data"`
			Token string          `json:"token"`
		}
		if err := json.Unmarshal(l, &ev); err != nil {
			tb.Fatal(err)
		}
		if param == "since_id" {
			id := strconv.Itoa(i + 1)
			if ev.Type == "contest" {
				ev.Type = "contests"
			}
			if l, err = json.Marshal(map[string]any{"id": id, "type": ev.Type, "op": "create", "data": ev.Data}); err != nil {
				tb.Fatal(err)
			}
			ev.Token = id
		}
		f.lines, f.tokens = append(f.lines, l), append(f.tokens, ev.Token)
	}
	return f
}

func (f *domjudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != "judge" || p != "secret" {
		http.Error(w, `{"code":401,"message":"Authentication required"}`, http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	k := f.conns
	f.conns++
	f.mu.Unlock()
	if k < len(f.statuses) {
		http.Error(w, `{"code":500,"message":"try later"}`, f.statuses[k])
		return
	}
	from := 0
	q := r.URL.Query()
	if q.Has(f.param) && !f.forget {
		if from = slices.Index(f.tokens, q.Get(f.param)) + 1; from == 0 {
			http.Error(w, `{"code":400,"message":"Invalid parameter requested."}`, http.StatusBadRequest)
			return
		}
	}
	f.mu.Lock()
	f.asked = append(f.asked, q.Get(f.param))
	f.mu.Unlock()
	w.Header().Set("Content-Type", cmp.Or(f.header, "application/x-ndjson"))
	w.Header().Set("X-Accel-Buffering", "no")
	flush := w.(http.Flusher).Flush
	for i := from; i < len(f.lines); i++ {
		l := f.lines[i]
		w.Write(l[:len(l)/2])
		flush()
		f.mu.Lock()
		drop := slices.Contains(f.drops, i) && !f.broken[i]
		if drop {
			f.broken[i] = true
			if f.reload != nil {
				f.reload(f)
			}
		}
		f.mu.Unlock()
		if drop {
			panic(http.ErrAbortHandler) // the connection breaks in the middle of the line
		}
		w.Write(append(l[len(l)/2:len(l):len(l)], '\n'))
		if i%97 == 0 {
			w.Write([]byte{'\n'})
		}
		flush()
	}
	keepAlive := time.NewTicker(20 * time.Millisecond)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			w.Write([]byte{'\n'})
			flush()
		}
	}
}

// Asked returns the since_token or since_id of each connection that got lines.
func (f *domjudge) Asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// rankdProxy passes rankd follow's requests on to a rankd server, counting the lines rankd took; while it is
// down, it breaks every connection, as a server that is gone does.
type rankdProxy struct {
	target   string
	down     atomic.Bool
	mu       sync.Mutex
	lines    map[string]bool // the lines rankd answered 200 for
	inflight atomic.Int64    // requests not answered yet
}

// taken is how many different lines rankd answered 200 for: a batch sent again after a drop (its answer lost
// on the way back) counts once.
func (p *rankdProxy) taken() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

func (p *rankdProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.inflight.Add(1)
	defer p.inflight.Add(-1)
	if p.down.Load() {
		panic(http.ErrAbortHandler)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		p.mu.Lock()
		if p.lines == nil {
			p.lines = map[string]bool{}
		}
		for line := range bytes.Lines(body) {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				p.lines[string(line)] = true
			}
		}
		p.mu.Unlock()
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// followCounts returns the counts rankd follow reported last: lines, accepted, duplicates, rejected.
func followCounts(tb testing.TB, out string) [4]int {
	tb.Helper()
	all := regexp.MustCompile(`(\d+) lines?[:,] (\d+) accepted, (\d+) duplicates, (\d+) rejected`).FindAllStringSubmatch(out, -1)
	if all == nil {
		tb.Fatalf("no counts in %q", out)
	}
	var n [4]int
	for i := range n {
		n[i], _ = strconv.Atoi(all[len(all)-1][i+1])
	}
	return n
}

// rankd follow against DOMjudge's event feed, as DOMjudge serves it, with the faults of a real network and
// a real contest system: the board it leaves is the offline one, in both views. A feed with end_of_updates
// ends the command although DOMjudge keeps its connection open; one without is followed until Ctrl-C.
func TestFollowDOMjudge(t *testing.T) {
	for _, tc := range []struct {
		name, feed, param, contest string
		statuses, drops            []int
		forget, rankdDown          bool
		ends                       bool // the feed has end_of_updates
	}{
		{name: "2023-06", feed: "euc2025", param: "since_token", contest: "euc2025", statuses: []int{503, 500},
			drops: []int{100, 1500}, ends: true},
		{name: "2020-03", feed: "euc2025", param: "since_id", contest: "euc2025", drops: []int{700}, ends: true},
		{name: "source restarted", feed: "euc2025", param: "since_token", contest: "euc2025", drops: []int{1000},
			forget: true, ends: true},
		{name: "no end of updates, rankd down a while", feed: "wf47", param: "since_token", contest: "wf47_finals",
			drops: []int{5000}, rankdDown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := feed(t, tc.feed)
			src := mustDOMjudge(t, path, tc.param)
			src.statuses, src.drops, src.forget = tc.statuses, tc.drops, tc.forget
			// A line of several megabytes: an organization sent again with a large extra field.
			org := slices.IndexFunc(src.lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"organizations"`)) })
			long := bytes.Replace(src.lines[org], []byte(`"data":{`), []byte(`"data":{"x_padding":"`+strings.Repeat("x", 3<<20)+`",`), 1)
			src.lines = slices.Insert(src.lines, org+1, long)
			src.tokens = slices.Insert(src.tokens, org+1, "long")
			feedServer := httptest.NewServer(src)
			defer feedServer.Close()
			p := StartRankd(t, t.TempDir())
			proxy := &rankdProxy{target: p.URL}
			sink := httptest.NewServer(proxy)
			defer sink.Close()

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				m := &main.Main{Stdout: &stdout, Stderr: &stderr}
				done <- m.Exit(ctx, []string{"follow", "--from", feedServer.URL + "/api/v4/contests/" + tc.contest + "/event-feed",
					"--from-auth", "judge:secret", "--server", sink.URL, "--token", testAdminToken})
			}()
			if tc.rankdDown {
				for proxy.taken() == 0 {
					time.Sleep(10 * time.Millisecond)
				}
				proxy.down.Store(true)
				time.Sleep(1500 * time.Millisecond)
				proxy.down.Store(false)
			}
			var code int
			if tc.ends {
				code = <-done
			} else {
				for (proxy.taken() < len(src.lines) || proxy.inflight.Load() > 0) && ctx.Err() == nil {
					time.Sleep(10 * time.Millisecond)
				}
				// The last answer is on its way to follow, which counts its lines when it reads it: a Ctrl-C
				// before that left them out of its count (a CI run saw 11,032 of 11,826).
				time.Sleep(200 * time.Millisecond)
				cancel() // Ctrl-C
				code = <-done
			}
			if want := map[bool]int{true: 0, false: 130}[tc.ends]; code != want {
				t.Fatalf("exit status: got %d, want %d; it said:\n%s", code, want, tail(stderr.String(), 20))
			}
			// A source that resumes where it is asked gets no line twice; one that restarted sends them again.
			want := len(src.lines)
			if tc.forget {
				want += tc.drops[0]
			}
			if got := followCounts(t, stdout.String()+stderr.String()); got[0] != want || got[3] != 0 {
				t.Errorf("got %d lines, %d rejected; want %d lines, none rejected", got[0], got[3], want)
			}
			for _, view := range []string{"jury", "public"} {
				want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
				if got := MustServedRows(t, p.URL, tc.contest, view); got != want {
					t.Errorf("view %s: the followed board differs from the offline one:\ngot  %.600s\nwant %.600s", view, got, want)
				}
			}
			t.Logf("connections resumed after %q; follow said:\n%s", src.Asked(), tail(stderr.String(), 8))
		})
	}
}

// newDOMjudge returns a fake DOMjudge serving the given 2023-06 lines.
func newDOMjudge(tb testing.TB, lines ...string) *domjudge {
	tb.Helper()
	f := &domjudge{param: "since_token", broken: map[int]bool{}}
	for _, l := range lines {
		var ev struct{ Token string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			tb.Fatal(err)
		}
		f.lines, f.tokens = append(f.lines, []byte(l)), append(f.tokens, ev.Token)
	}
	return f
}

// shortFeed is a contest's definition and the end of its updates.
var shortFeed = []string{
	`{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00"},"token":"1"}`,
	`{"type":"state","id":null,"data":{"end_of_updates":"2026-03-01T16:00:00.000Z"},"token":"2"}`,
}

// acceptingRankd answers every batch as a rankd server that accepts all its lines.
var acceptingRankd = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, `{"accepted":%d,"duplicates":0,"rejected":0,"results":[]}`, bytes.Count(body, []byte{'\n'}))
})

// syncBuffer is a buffer that a test reads while rankd follow writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mustFollow runs rankd follow until it ends, failing the test if it takes longer than 20 s.
func mustFollow(tb testing.TB, args ...string) (stdout, stderr string, err error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var o, e syncBuffer
	err = (&main.Main{Stdout: &o, Stderr: &e}).Run(ctx, append([]string{"follow"}, args...))
	if ctx.Err() != nil {
		tb.Fatalf("rankd follow did not end in 20 s; it said:\n%s", tail(e.String(), 10))
	}
	return o.String(), e.String(), err
}

// A contest system whose database reloaded during the feed (DOMjudge's, after a restore): it no longer knows
// where to resume (400), and it sends its events again numbered anew, without the judgements it had sent
// without a verdict. The feed is read from its start; the lines whose tokens now name other events in rankd's
// log are taken without their tokens; nothing is lost, nothing refused, and the board is the feed's.
func TestFollowReloadedSource(t *testing.T) {
	path := feed(t, "euc2025")
	src := mustDOMjudge(t, path, "since_token")
	src.drops = []int{2500}
	src.reload = func(f *domjudge) {
		var lines [][]byte
		for _, l := range f.lines {
			if !bytes.Contains(l, []byte(`"type":"judgements"`)) || bytes.Contains(l, []byte(`"judgement_type_id"`)) {
				lines = append(lines, l)
			}
		}
		token := regexp.MustCompile(`"token":"[^"]*"`)
		f.lines, f.tokens = nil, nil
		for i, l := range lines {
			t := fmt.Sprint("cdi", i)
			f.lines = append(f.lines, token.ReplaceAll(l, []byte(`"token":"`+t+`"`)))
			f.tokens = append(f.tokens, t)
		}
	}
	feedServer := httptest.NewServer(src)
	defer feedServer.Close()
	p := StartRankd(t, t.TempDir())
	out, errOut, err := mustFollow(t, "--from", feedServer.URL+"/api/v4/contests/euc2025/event-feed", "--from-auth", "judge:secret",
		"--server", p.URL, "--token", testAdminToken)
	if err != nil {
		t.Fatalf("rankd follow: %v\n%s", err, tail(errOut, 20))
	}
	if got := followCounts(t, out); got[3] != 0 || !strings.Contains(out, "taken without their tokens") {
		t.Errorf("got %s; want nothing rejected, and lines taken without their tokens\n%s", out, tail(errOut, 20))
	}
	if _, after, _ := strings.Cut(errOut, "cannot resume"); strings.Contains(after, "connecting again") {
		t.Errorf("rankd follow said:\n%s\nwant it to read the feed again from its start at once, the connection being fine", tail(errOut, 20))
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the board differs from the feed's:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}
}

// What the feed's server answers decides whether rankd follow stops, saying why, or tries again: a refusal
// another try would get again stops it; a server in trouble or busy (429, 5xx) is asked again.
func TestFollowSourceAnswers(t *testing.T) {
	sink := httptest.NewServer(acceptingRankd)
	defer sink.Close()
	for _, tc := range []struct {
		status int
		want   string // in the error; "" for success
	}{
		{http.StatusUnauthorized, "give its credentials with --from-auth"},
		{http.StatusForbidden, "give its credentials with --from-auth"},
		{http.StatusNotFound, "/api/v4/contests/c/event-feed (404 Not Found)"},
		{http.StatusTooManyRequests, ""},
		{http.StatusInternalServerError, ""},
		{http.StatusServiceUnavailable, ""},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			src := newDOMjudge(t, shortFeed...)
			src.statuses = []int{tc.status}
			ts := httptest.NewServer(src)
			defer ts.Close()
			out, errOut, err := mustFollow(t, "--from", ts.URL+"/api/v4/contests/c/event-feed", "--from-auth", "judge:secret",
				"--server", sink.URL, "--token", testAdminToken)
			switch {
			case tc.want == "" && (err != nil || !strings.Contains(out, "2 lines, 2 accepted")):
				t.Errorf("got %v, %q; want the feed followed to its end\n%s", err, out, errOut)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v; want an error with %q", err, tc.want)
			}
		})
	}
}

// A feed address that answers a web page (a login page, DOMjudge's jury interface) is refused at once,
// not followed as lines that are all bad, again and again.
func TestFollowWebPage(t *testing.T) {
	src := newDOMjudge(t)
	src.lines = [][]byte{[]byte("<!DOCTYPE html>"), []byte("<html><body>Log in</body></html>")}
	src.tokens = []string{"", ""}
	src.header = "text/html; charset=UTF-8"
	ts := httptest.NewServer(src)
	defer ts.Close()
	sink := httptest.NewServer(acceptingRankd)
	defer sink.Close()
	_, _, err := mustFollow(t, "--from", ts.URL+"/jury", "--from-auth", "judge:secret", "--server", sink.URL, "--token", testAdminToken)
	if err == nil || !strings.Contains(err.Error(), "a web page, not an event feed") {
		t.Errorf("got %v; want an error saying the address is a web page", err)
	}
}

// An address of the API that answers JSON but no event feed (the contest, the list of contests: the feed's
// address without /event-feed) is refused at once, not connected to again every second for ever.
func TestFollowNotAFeed(t *testing.T) {
	sink := httptest.NewServer(acceptingRankd)
	defer sink.Close()
	for _, answer := range [][]byte{
		[]byte(`{"id":"c","name":"Contest","start_time":null}`),
		[]byte(`[{"id":"c","name":"Contest"}]`),
		[]byte("{\n  \"id\": \"c\",\n  \"name\": \"Contest\"\n}"), // pretty-printed
	} {
		src := newDOMjudge(t)
		src.lines = [][]byte{answer}
		src.tokens = []string{""}
		src.header = "application/json"
		ts := httptest.NewServer(src)
		_, _, err := mustFollow(t, "--from", ts.URL+"/api/v4/contests/c", "--from-auth", "judge:secret", "--server", sink.URL, "--token", testAdminToken)
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), "not an event feed") {
			t.Errorf("an answer %s: got %v; want an error saying it is not an event feed", answer, err)
		}
	}
}

// A feed served over https with a self-signed certificate is followed once --from-ca gives the certificate;
// without it, the message says to give it.
func TestFollowSelfSignedTLS(t *testing.T) {
	ts := httptest.NewUnstartedServer(newDOMjudge(t, shortFeed...))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused without --from-ca
	ts.StartTLS()
	defer ts.Close()
	sink := httptest.NewServer(acceptingRankd)
	defer sink.Close()
	args := []string{"--from", ts.URL + "/api/v4/contests/c/event-feed", "--from-auth", "judge:secret", "--server", sink.URL, "--token", testAdminToken}

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- (&main.Main{Stdout: io.Discard, Stderr: &stderr}).Run(ctx, append([]string{"follow"}, args...))
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "--from-ca FILE") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(stderr.String(), "--from-ca FILE") {
		t.Errorf("without --from-ca it said %q; want it to say to give the certificate with --from-ca FILE", stderr.String())
	}

	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := mustFollow(t, append(args, "--from-ca", ca)...); err != nil || !strings.Contains(out, "2 lines, 2 accepted") {
		t.Errorf("with --from-ca: got %v, %q; want the feed followed\n%s", err, out, errOut)
	}
	if _, errOut, err := run(append([]string{"follow", "--from-ca", os.Args[0]}, args...)...); err == nil || !strings.Contains(errOut, "holds no PEM certificate") {
		t.Errorf("--from-ca of a file that is no certificate: got %v, %q; want a usage error that says so", err, errOut)
	}
}

// A line rankd refuses is reported with its line and what is wrong with it, and the rest of the feed goes on:
// one bad event does not stop the board.
func TestFollowRejectedLineGoesOn(t *testing.T) {
	src := httptest.NewServer(newDOMjudge(t,
		`{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00Z","duration":"5:00:00"},"token":"1"}`,
		`{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"nobody","problem_id":"A","time":"2026-03-01T10:10:00Z","contest_time":"0:10:00"},"token":"2"}`,
		`{"type":"teams","id":"t1","data":{"id":"t1","name":"T1"},"token":"3"}`,
		`{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t1","problem_id":"A","contest_time":"nonsense"},"token":"4"}`,
		shortFeed[1]))
	defer src.Close()
	p := StartRankd(t, t.TempDir())
	out, errOut, err := mustFollow(t, "--from", src.URL+"/feed", "--from-auth", "judge:secret", "--server", p.URL, "--token", testAdminToken)
	if err != nil || !strings.Contains(out, "5 lines, 3 accepted, 0 duplicates, 2 rejected") ||
		!strings.Contains(errOut, `line 2: rejected: submission s1: unknown team "nobody"`) {
		t.Errorf("got %v, %q, %q; want the bad line reported by its line and the rest taken", err, out, errOut)
	}
	// The server numbers the lines of its request too: the feed's line number alone is said.
	if !strings.Contains(errOut, "line 4: rejected: submissions") || strings.Contains(errOut, "rejected: line") {
		t.Errorf("got %q; want the malformed line reported once by its feed line, 4", errOut)
	}
	if n := strings.Count(errOut, "5 lines: 3 accepted"); n != 1 {
		t.Errorf("got the counts said %d times in %q, want once", n, errOut)
	}
}

// A rankd that answers 404 for a contest the feed defined has lost it (started over another data
// directory, say): rankd follow stops, saying so and what to do, not that the feed never defined it.
func TestFollowRankdLostTheContest(t *testing.T) {
	src := httptest.NewServer(newDOMjudge(t, shortFeed[0], `{"type":"teams","id":"t1","data":{"id":"t1","name":"T1"},"token":"t"}`, shortFeed[1]))
	defer src.Close()
	var posts atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if posts.Add(1) > 1 {
			http.Error(w, `{"code":"not_found","message":"no contest \"c\""}`, http.StatusNotFound)
			return
		}
		acceptingRankd(w, r)
	}))
	defer sink.Close()
	_, _, err := mustFollow(t, "--from", src.URL+"/feed", "--from-auth", "judge:secret", "--server", sink.URL, "--token", testAdminToken, "--batch", "1")
	if err == nil || !strings.Contains(err.Error(), "no longer has contest c, which the feed defined") {
		t.Errorf("got %v; want an error saying the server lost the contest the feed defined", err)
	}
}

// A feed whose first line, a state, comes before its contest line: the state goes with the contest line, not
// alone to a contest the server does not have yet (404, and follow stopped), whether lines go one per request
// or the state waits alone for longer than the delay.
func TestFollowStateBeforeContest(t *testing.T) {
	lines := make([][]byte, len(stateFirstFeed))
	for i, l := range stateFirstFeed {
		lines[i] = []byte(l + "\n")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		first int // lines the feed sends before a pause
	}{
		{"one line per request", []string{"--batch", "1"}, len(lines)},
		{"one line per request, the contest named", []string{"--batch", "1", "--contest", "sf"}, len(lines)},
		{"the state alone for a while, the contest named", []string{"--contest", "sf"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			feed := &liveFeed{lines: lines, first: tc.first, release: make(chan struct{})}
			src := httptest.NewServer(feed)
			defer src.Close()
			p := StartRankd(t, t.TempDir())
			go func() {
				time.Sleep(500 * time.Millisecond) // five times the delay
				close(feed.release)
			}()
			_, errOut, err := mustFollow(t, append([]string{"--from", src.URL + "/feed", "--from-auth", "judge:secret",
				"--server", p.URL, "--token", testAdminToken}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v; it said:\n%s", err, errOut)
			}
			if got := MustServedRows(t, p.URL, "sf", "public"); !strings.Contains(got, `"num_solved": 1`) {
				t.Errorf("the public board: got %.300s, want T1 with one solved", got)
			}
		})
	}
}

// A contest named that the server does not have, followed from a feed that does not define it (a typo in
// --contest): follow says so and stops, as it did before lines waited for the contest line, when a
// submission comes, or when the feed ends; it neither waits for ever nor ends as if all went well.
func TestFollowUnknownContestNamed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"submissions", []string{stateFirstFeed[0], stateFirstFeed[5], stateFirstFeed[6], stateFirstFeed[7]}},
		{"states only, then the end", []string{stateFirstFeed[0], stateFirstFeed[7]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := httptest.NewServer(newDOMjudge(t, tc.lines...))
			defer src.Close()
			p := StartRankd(t, t.TempDir())
			_, errOut, err := mustFollow(t, "--from", src.URL+"/feed", "--from-auth", "judge:secret", "--server", p.URL,
				"--token", testAdminToken, "--contest", "nosuch")
			if err == nil || !strings.Contains(err.Error(), "has no contest nosuch, and the feed has not defined it") {
				t.Errorf("got %v; want an error saying the server has no such contest; it said:\n%s", err, errOut)
			}
		})
	}
}

// forgetfulRankd answers posts of feed lines as a rankd server does, by their tokens and log positions, and
// after its forgetAfter-th post forgets all but the first keep events of its log (restored from an older
// backup under a running rankd follow).
type forgetfulRankd struct {
	forgetAfter, keep int

	mu     sync.Mutex
	posts  int
	log    map[string]int // token -> log position
	next   int
	forgot bool
}

func (f *forgetfulRankd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	type result struct {
		Item   int    `json:"item"`
		Status string `json:"status"`
		Pos    int    `json:"pos"`
	}
	var out struct {
		Accepted   int      `json:"accepted"`
		Duplicates int      `json:"duplicates"`
		Rejected   int      `json:"rejected"`
		Results    []result `json:"results"`
	}
	for i, line := range bytes.Split(bytes.TrimSpace(body), []byte{'\n'}) {
		var ev struct{ Token string }
		_ = json.Unmarshal(line, &ev)
		if pos, ok := f.log[ev.Token]; ok {
			out.Duplicates++
			out.Results = append(out.Results, result{i + 1, "duplicate", pos})
			continue
		}
		f.next++
		f.log[ev.Token] = f.next
		out.Accepted++
		out.Results = append(out.Results, result{i + 1, "accepted", f.next})
	}
	if f.posts++; f.posts == f.forgetAfter {
		maps.DeleteFunc(f.log, func(_ string, pos int) bool { return pos > f.keep })
		f.next, f.forgot = f.keep, true
	}
	json.NewEncoder(w).Encode(out)
}

// A server restored from an older backup while rankd follow relays a feed to it: the next event it accepts
// takes a log position before one it acknowledged, and the feed is read again from its start, so that the
// lines it lost come again (it said nothing, and they were lost for good).
func TestFollowServerRestoredFromBackup(t *testing.T) {
	src := mustDOMjudge(t, feed(t, "euc2025"), "since_token")
	feedServer := httptest.NewServer(src)
	defer feedServer.Close()
	sink := &forgetfulRankd{forgetAfter: 5, keep: 100, log: map[string]int{}}
	rankdServer := httptest.NewServer(sink)
	defer rankdServer.Close()
	_, errOut, err := mustFollow(t, "--from", feedServer.URL+"/api/v4/contests/euc2025/event-feed", "--from-auth", "judge:secret",
		"--server", rankdServer.URL, "--token", testAdminToken, "--batch", "100")
	if err != nil {
		t.Fatalf("rankd follow: %v\n%s", err, tail(errOut, 20))
	}
	if !strings.Contains(errOut, "its log went back (restored from an older backup?); reading the feed again from its start") {
		t.Errorf("rankd follow said:\n%s\nwant it to say the server's log went back", tail(errOut, 20))
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if !sink.forgot {
		t.Fatal("the server did not forget: the test tests nothing")
	}
	var missing []string
	for _, tok := range src.tokens {
		if _, ok := sink.log[tok]; !ok {
			missing = append(missing, tok)
		}
	}
	if len(missing) > 0 {
		t.Errorf("got %d of the feed's %d lines missing from the server at the end (%q...), want none", len(missing), len(src.tokens), missing[:min(5, len(missing))])
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if fromStart := slices.Index(src.asked[1:], ""); fromStart < 0 {
		t.Errorf("the feed was asked from %q, want a connection from its start after the first", src.asked)
	}
}
