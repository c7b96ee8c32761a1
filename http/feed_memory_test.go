package http_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
	"rankd/gen"
	rankdhttp "rankd/http"
)

// An open public event feed holds little memory of the server's, however long the log: feeds count against
// --max-streams, worked out from about 80 KB a stream (docs/operations.md). A reader of the public feed holds
// all its filter knows of the log (ccs.FeedFilter, about 350 bytes an entry); each connection held one (a
// log of 560,000 entries: about 100 MB per connection). The connections that caught up share one.
func TestPublicFeedsHoldLittleEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a generated contest")
	}
	e := MustOpen(t)
	var feed []string
	cfg := gen.Config{Seed: 5, ContestID: "c1", Teams: 200, Problems: 8, Submissions: 20000, Start: contestStart,
		Duration: 5 * time.Hour, Freeze: time.Hour}
	if err := gen.Generate(cfg, func(ev rankd.Event) error {
		line, err := ccs.AppendEvent(nil, ev)
		feed = append(feed, string(line))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for rest := feed; len(rest) > 0; { // the test server takes bodies of a megabyte
		n := min(len(rest), 2000)
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(rest[:n], ""), nil)
		rest = rest[n:]
	}
	whole := func() int64 { // the lines of the whole public feed
		var n atomic.Int64
		e.readFeed(t, context.Background(), "?stream=false", &n)
		return n.Load()
	}
	want := whole()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	const conns = 8
	read := make([]atomic.Int64, 1+conns)
	follow := func(from, to int) {
		for i := from; i < to; i++ {
			wg.Go(func() { e.readFeed(t, ctx, "", &read[i]) })
		}
		for i := range to {
			for deadline := time.Now().Add(30 * time.Second); read[i].Load() < want; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("feed %d: %d lines read of %d", i, read[i].Load(), want)
				}
			}
		}
		time.Sleep(3 * rankdhttp.FeedPoll) // caught up, each joins the shared reader at its next look at the log
	}
	follow(0, 1)
	before := liveHeap()
	follow(1, 1+conns)
	after := liveHeap()
	per := (int64(after) - int64(before)) / conns
	t.Logf("log of %d entries: live heap %d KB with one public feed open, %d KB with %d more: %d KB per feed",
		len(feed), before>>10, after>>10, conns, per>>10)
	if per > 256<<10 {
		t.Errorf("each open public event feed holds %d KB of the server's memory on a log of %d entries, want about 80 KB (docs/operations.md)", per>>10, len(feed))
	}

	// They go on together: what comes after reaches them all.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "late", "name": "Late team", "group_ids": []string{"g1"}}, nil)
	want = whole()
	follow(0, 0)
}

// readFeed reads the public event feed of c1 until it ends or ctx does, counting its lines in n. It asks for
// the feed as it is: a client that takes it compressed keeps a decompressor of its own (about 60 KB), which
// would count here as the server's, and the server's compressors are shared by all its streams (one for each
// write in progress, kept by a sync.Pool).
func (e *env) readFeed(tb testing.TB, ctx context.Context, query string, n *atomic.Int64) {
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/contests/c1/event-feed"+query, nil)
	if err != nil {
		tb.Error(err)
		return
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		tb.Error(err)
		return
	}
	defer resp.Body.Close()
	n.Store(0)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 { // not a keep-alive
			n.Add(1)
		}
	}
}

// feedCollector gathers the lines of a streaming event feed until it ends.
type feedCollector struct {
	mu    sync.Mutex
	lines []string
	ended chan struct{}
}

func (e *env) collectFeed(tb testing.TB, ctx context.Context, query string) *feedCollector {
	tb.Helper()
	return e.collectFeedOf(tb, ctx, "c1", query)
}

// collectFeedOf is collectFeed of contest cid.
func (e *env) collectFeedOf(tb testing.TB, ctx context.Context, cid, query string) *feedCollector {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/contests/"+cid+"/event-feed"+query, nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("event feed%s: got status %d, want 200", query, resp.StatusCode)
	}
	c := &feedCollector{ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			if len(sc.Bytes()) > 0 {
				c.mu.Lock()
				c.lines = append(c.lines, sc.Text())
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *feedCollector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// Public event feeds opened at different moments of a contest, from its start or from a token, while events,
// bans and the thaw come in, each get exactly the lines of the public feed after their place, whether made by
// their own reader or by the shared one they join; the contest's deletion ends them.
func TestPublicFeedsShareOneReader(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 21)
	post := func(batch [][]byte) {
		var b strings.Builder
		for _, l := range batch {
			b.Write(l)
		}
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, b.String(), nil)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type follower struct {
		from int // lines of the whole feed it starts after
		c    *feedCollector
	}
	var followers []follower
	for i := 0; i < len(lines); i += 50 {
		post(lines[i:min(i+50, len(lines))])
		switch i / 50 % 4 {
		case 1: // from the start
			followers = append(followers, follower{0, e.collectFeed(t, ctx, "")})
		case 2: // from a token
			have := e.MustFeed(t, "c1", "", "")
			from := len(have) / 2
			followers = append(followers, follower{from, e.collectFeed(t, ctx, "?since_token="+have[from-1].Token)})
		case 3:
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams/"+fmt.Sprint(1+i%29)+"/ban", adminToken, nil, nil)
		}
		time.Sleep(time.Duration(i%3) * rankdhttp.FeedPoll)
	}
	for i := 1; i < 30; i += 3 {
		e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1/teams/"+fmt.Sprint(i)+"/ban", adminToken, nil, nil)
	}
	var whole []string
	for _, l := range e.MustFeed(t, "c1", "", "") {
		whole = append(whole, string(l.Raw))
	}
	for i, f := range followers {
		want := whole[f.from:]
		for deadline := time.Now().Add(10 * time.Second); f.c.count() < len(want); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("feed %d: %d lines of %d", i, f.c.count(), len(want))
			}
		}
		time.Sleep(2 * rankdhttp.FeedPoll) // none comes too many
		f.c.mu.Lock()
		got := f.c.lines
		f.c.mu.Unlock()
		if !slices.Equal(got, want) {
			for k := range min(len(got), len(want)) {
				if got[k] != want[k] {
					t.Fatalf("feed %d from line %d: line %d: got %s, want %s", i, f.from, k, got[k], want[k])
				}
			}
			t.Fatalf("feed %d from line %d: got %d lines, want %d", i, f.from, len(got), len(want))
		}
	}

	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)
	for i, f := range followers {
		select {
		case <-f.c.ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("feed %d goes on after its contest was deleted", i)
		}
	}
}
