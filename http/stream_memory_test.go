package http_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// mustContestOf creates contest c1 with teams t0..t(n-1) and four problems.
func (e *env) mustContestOf(tb testing.TB, teams int) {
	tb.Helper()
	bundle := testContest()
	var ts []any
	for i := range teams {
		ts = append(ts, map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Team %d", i), "group_ids": []string{"g1"}})
	}
	bundle["teams"] = ts
	bundle["problems"] = []any{
		map[string]any{"id": "A", "label": "A", "name": "A", "ordinal": 0},
		map[string]any{"id": "B", "label": "B", "name": "B", "ordinal": 1},
		map[string]any{"id": "C", "label": "C", "name": "C", "ordinal": 2},
		map[string]any{"id": "D", "label": "D", "name": "D", "ordinal": 3},
	}
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests", adminToken, bundle, nil)
}

// followView opens a live stream of a view and counts its frames until ctx ends.
func (e *env) followView(tb testing.TB, ctx context.Context, view, token string, frames *atomic.Int64) func() {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/v1/contests/c1/scoreboard/stream?view="+view, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	// Uncompressed: the clients run in the test's process, and each gzip reader's window and tables would
	// count as the server's memory.
	resp, err := plainClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("stream %s: status %d", view, resp.StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				frames.Add(1)
			}
		}
	}()
	return func() { <-done }
}

// plainClient asks for streams as they are.
var plainClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A live stream holds little memory of the server's (docs/operations.md: "each holds about 80 KB"), also a
// team's own view, which every team's board page follows during a contest. Each team view is a channel of its
// own; one that kept the last 512 frames for resuming, each repeating the public changes of its tick, held
// half a megabyte at 100 teams after a few hundred judgements (2,000 teams: megabytes a team).
func TestTeamStreamsHoldLittleEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of events")
	}
	// The public view, shared by its followers, is the control: its frames are kept once however many follow it.
	for _, view := range []string{"public", "team:t%d"} {
		t.Run(strings.TrimSuffix(view, ":t%d"), func(t *testing.T) { testStreamsMemory(t, view) })
	}
}

// testStreamsMemory follows view (%d: each follower's number) with 40 clients through 600 frames.
func testStreamsMemory(t *testing.T, view string) {
	e := MustOpen(t)
	const teams, followers, batches = 100, 40, 600
	e.mustContestOf(t, teams)
	ctx, cancel := context.WithCancel(context.Background())
	var frames [followers]atomic.Int64
	var waits []func()
	defer func() {
		cancel()
		for _, w := range waits {
			w()
		}
	}()
	for i := range followers {
		waits = append(waits, e.followView(t, ctx, strings.ReplaceAll(view, "%d", fmt.Sprint(i)), judgeToken, &frames[i]))
	}
	for i := range followers { // every snapshot is there
		for deadline := time.Now().Add(10 * time.Second); frames[i].Load() < 1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no snapshot")
			}
		}
	}
	before := liveHeap()

	// Judgements before the freeze, a few per tick: each tick moves the public view, and every team view.
	rng := rand.New(rand.NewPCG(1, 2))
	for b := range batches {
		var lines []string
		for k := range 4 {
			id := b*4 + k
			at := fmt.Sprintf("1:%02d:%02d.%03d", id/60000%60, id/1000%60, id%1000)
			lines = append(lines,
				fmt.Sprintf(`{"type":"submissions","data":{"id":"s%d","team_id":"t%d","problem_id":"%c","contest_time":"%s"}}`, id, 40+rng.IntN(teams-40), 'A'+rng.IntN(4), at),
				fmt.Sprintf(`{"type":"judgements","data":{"id":"j%d","submission_id":"s%d","judgement_type_id":"%s","start_contest_time":"%s"}}`, id, id, []string{"AC", "WA"}[rng.IntN(2)], at))
		}
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", nil)
		time.Sleep(6 * time.Millisecond) // the test server's tick is 5 ms: a frame per batch
	}
	for i := range followers {
		for deadline := time.Now().Add(20 * time.Second); frames[i].Load() < 520; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stream %d got %d frames, want 520 or more", i, frames[i].Load())
			}
		}
	}
	after := liveHeap()
	per := (int64(after) - int64(before)) / followers
	t.Logf("live heap %d KB before, %d KB after %d batches: %d KB per stream", before>>10, after>>10, batches, per>>10)
	if per > 160<<10 {
		t.Errorf("each stream holds %d KB of the server's memory once its view moved %d times, want about 80 KB (docs/operations.md)", per>>10, batches)
	}
}

// A follower of a shared view costs the server little while it waits for frames: 5,000 spectators are the
// load the push is built for. Its queue of DefaultBuffer frames held each frame by value (16 KB per
// follower before any frame came, 34 KB in all); it holds pointers to the channel's frames.
func TestIdleStreamsHoldLittleEach(t *testing.T) {
	e := MustOpen(t)
	e.mustContestOf(t, 100)
	const followers = 200
	addr := strings.TrimPrefix(e.URL, "http://")
	before := liveHeap()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	for range followers {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET /api/v1/contests/c1/scoreboard/stream?view=public HTTP/1.1\r\nHost: rankd\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		// Its snapshot is there: the follower is subscribed.
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var got []byte
		for !bytes.Contains(got, []byte("event: snapshot")) {
			n, err := c.Read(buf)
			if err != nil {
				t.Fatalf("stream: %v, after %q", err, got)
			}
			got = append(got, buf[:n]...)
		}
	}
	per := (int64(liveHeap()) - int64(before)) / followers
	t.Logf("%d bytes of heap per follower", per)
	// About 18 KB: its connection's buffers (10 KB, Go's server's), the request, its queue (2 KB).
	if per > 24<<10 {
		t.Errorf("a follower waiting for frames holds %d KB of heap, want at most 24 KB", per>>10)
	}
}
