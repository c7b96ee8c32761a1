package http_test

import (
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
	"rankd/engine"
	rankdhttp "rankd/http"
	"rankd/sqlite"
)

// replayGate holds the reads of one contest's log after a position once armed, until released (honouring
// the reader's context, as the Postgres store does): a store that hangs, or just a slow read.
type replayGate struct {
	*sqlite.DB
	cid     string
	armed   atomic.Bool
	held    chan struct{} // gets a value when a read is held
	release chan struct{}
}

func (g *replayGate) Replay(ctx context.Context, cid string, after int64, fn func(*rankd.LogEntry) error) error {
	if g.armed.Load() && cid == g.cid && after > 0 {
		select {
		case g.held <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-g.release:
		}
	}
	return g.DB.Replay(ctx, cid, after, fn)
}

// contestWithID is the test contest with another id.
func contestWithID(id string) map[string]any {
	c := testContest()
	c["contest"].(map[string]any)["id"] = id
	return c
}

// While a read of one contest's log for its shared public feed hangs, the other contests' feeds go on and
// a contest can be deleted: a connection that joined the shared reader waited for it holding the lock of
// every contest's shared readers.
func TestFeedsOfOtherContestsGoOnWhileOneLogHangs(t *testing.T) {
	gate := &replayGate{cid: "c2", held: make(chan struct{}, 1), release: make(chan struct{})}
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store { gate.DB = db; return gate }})
	var once sync.Once
	free := func() { once.Do(func() { close(gate.release) }) }
	defer free()
	e.MustContest(t) // c1
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, contestWithID("c2"), nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := e.collectFeedOf(t, ctx, "c2", "")
	time.Sleep(300 * time.Millisecond) // a joined c2's shared reader (it made it)

	gate.armed.Store(true)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c2/teams", adminToken,
		map[string]any{"id": "t8", "name": "Late", "group_ids": []string{"g1"}}, nil)
	select {
	case <-gate.held: // c2's shared reader reads the log, holding its lock
	case <-time.After(2 * time.Second):
		t.Fatal("c2's shared reader did not read the log")
	}
	_ = e.collectFeedOf(t, ctx, "c2", "") // b: catches up on its own, then joins: sharedFeeds.mu held
	time.Sleep(300 * time.Millisecond)

	// c1 is another contest, its log readable.
	c := e.collectFeedOf(t, ctx, "c1", "")
	time.Sleep(300 * time.Millisecond)
	have := c.count()
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t9", "name": "Other", "group_ids": []string{"g1"}}, nil)
	got := false
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c.count() > have {
			got = true
			break
		}
	}
	if !got {
		t.Errorf("contest c1's public feed got nothing new for 2 s while contest c2's log read hung")
	}

	deleted := make(chan int, 1)
	go func() { deleted <- e.Do(t, "DELETE", "/api/v1/contests/c1", adminToken, nil).Status }()
	select {
	case code := <-deleted:
		t.Logf("c1 deleted: %d", code)
		deleted <- code
	case <-time.After(2 * time.Second):
		t.Errorf("deleting contest c1 did not end in 2 s while contest c2's log read hung")
	}

	// The client of c2 that made the read goes: its handler stays (the read is not cancelled).
	cancel()
	select {
	case <-a.ended:
	case <-time.After(time.Second):
	}
	free()
	<-deleted
}

// A public feed on its own reader (not joined to the shared one yet) when its contest is deleted and created
// again ends: its reader is of the old log; handed over as the new contest's shared reader, it gave the
// connections that joined it lines made of the new log with the old one's state.
func TestFeedEndsWhenItsContestIsCreatedAgain(t *testing.T) {
	e := MustOpenWith(t, options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The old contest: the test contest and a team t4.
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t4", "name": "Delta", "group_ids": []string{"g1"}}, nil)
	old := len(e.MustFeed(t, "c1", "", ""))
	c1 := e.collectFeed(t, ctx, "")
	for deadline := time.Now().Add(5 * time.Second); c1.count() < old; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d lines of %d", c1.count(), old)
		}
	}
	// Deleted, and created again at once: the test contest and a submission s0 (as many lines).
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"submissions","data":{"id":"s0","team_id":"t1","problem_id":"A","contest_time":"0:10:00"}}`+"\n", nil)
	select {
	case <-c1.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("a feed of the deleted contest goes on with the one created again")
	}
	if c1.count() != old {
		t.Errorf("the feed of the deleted contest got %d lines, want its %d", c1.count(), old)
	}

	c2 := e.collectFeed(t, ctx, "")
	time.Sleep(3 * rankdhttp.FeedPoll) // caught up, joined
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j0","submission_id":"s0","judgement_type_id":"AC","start_contest_time":"0:11:00"}`, nil)
	var whole []string
	for _, l := range e.MustFeed(t, "c1", "", "") {
		whole = append(whole, string(l.Raw))
	}
	for deadline := time.Now().Add(5 * time.Second); c2.count() < len(whole); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a feed of the contest created again has %d lines, want %d", c2.count(), len(whole))
		}
	}
	c2.mu.Lock()
	got := c2.lines
	c2.mu.Unlock()
	if !slices.Equal(got, whole) {
		t.Errorf("a feed of the contest created again:\ngot  %q\nwant %q", got, whole)
	}
}

// A read of the log that hangs for a shared public feed ends with the clients that wait on it: each held a
// place among --max-streams though every client left.
func TestHungFeedReadEndsWithItsClients(t *testing.T) {
	gate := &replayGate{cid: "c1", held: make(chan struct{}, 1), release: make(chan struct{})}
	e := MustOpenWith(t, options{maxStreams: 1, wrap: func(db *sqlite.DB) engine.Store { gate.DB = db; return gate }})
	defer close(gate.release)
	e.MustContest(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := e.collectFeed(t, ctx, "")
	time.Sleep(300 * time.Millisecond) // joined
	gate.armed.Store(true)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t8", "name": "Late", "group_ids": []string{"g1"}}, nil)
	select {
	case <-gate.held:
	case <-time.After(2 * time.Second):
		t.Fatal("the shared reader did not read the log")
	}
	cancel() // the client goes
	<-a.ended
	time.Sleep(500 * time.Millisecond)
	if r := e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false", "", nil); r.Status == http.StatusServiceUnavailable {
		t.Errorf("the only client left 500 ms ago, its stream still counts: %d %s", r.Status, r.Body)
	}
}

// One commit of more than the 8 MB a shared reader keeps reaches every public feed that was up to date, not
// only the one whose connection reads it on: the lines were let go as soon as that one had them.
func TestBigCommitReachesEveryUpToDateFeed(t *testing.T) {
	e := MustOpenWith(t, options{maxBody: 32 << 20})
	e.MustContest(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var feeds []*feedCollector
	for range 8 {
		feeds = append(feeds, e.collectFeed(t, ctx, ""))
	}
	time.Sleep(500 * time.Millisecond) // up to date, on the shared reader

	name := strings.Repeat("x", 4000)
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, `{"type":"teams","data":{"id":"n%d","name":"%s %d","group_ids":["g1"]}}`+"\n", i, name, i)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, b.String(), nil)
	want := len(e.MustFeed(t, "c1", "", ""))
	for i, a := range feeds {
		for deadline := time.Now().Add(20 * time.Second); a.count() < want; time.Sleep(10 * time.Millisecond) {
			select {
			case <-a.ended:
				t.Fatalf("feed %d, up to date, was cut off by one commit of %d MB: %d lines of %d", i, b.Len()>>20, a.count(), want)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("feed %d: %d lines of %d", i, a.count(), want)
			}
		}
	}
}

// onceGate holds one read of a contest's log once armed (the next after a position 0), until released,
// honouring the reader's context; the others pass.
type onceGate struct {
	replayGate
	taken atomic.Bool
}

func (g *onceGate) Replay(ctx context.Context, cid string, after int64, fn func(*rankd.LogEntry) error) error {
	if g.armed.Load() && cid == g.cid && after > 0 && g.taken.CompareAndSwap(false, true) {
		g.held <- struct{}{}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-g.release:
		}
	}
	return g.DB.Replay(ctx, cid, after, fn)
}

// A public feed that caught up while the shared reader's read hangs does not wait for it deaf to its
// client's leaving: it kept its place among --max-streams as long as the read hung.
func TestFeedWaitingOnSharedReadEndsWithItsClient(t *testing.T) {
	gate := &onceGate{replayGate: replayGate{cid: "c1", held: make(chan struct{}, 1), release: make(chan struct{})}}
	e := MustOpenWith(t, options{maxStreams: 2, wrap: func(db *sqlite.DB) engine.Store { gate.DB = db; return gate }})
	defer close(gate.release)
	e.MustContest(t)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	_ = e.collectFeed(t, ctxA, "")
	time.Sleep(300 * time.Millisecond) // a made the shared reader
	gate.armed.Store(true)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t8", "name": "Late", "group_ids": []string{"g1"}}, nil)
	select {
	case <-gate.held: // a reads it for the shared reader: held
	case <-time.After(2 * time.Second):
		t.Fatal("the shared reader did not read the log")
	}
	want := len(e.MustFeed(t, "c1", "", ""))
	ctxB, cancelB := context.WithCancel(context.Background())
	b := e.collectFeed(t, ctxB, "")
	for deadline := time.Now().Add(5 * time.Second); b.count() < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("b did not catch up on its own reader: %d lines", b.count())
		}
	}
	time.Sleep(300 * time.Millisecond) // b tries to join
	cancelB()
	<-b.ended
	time.Sleep(500 * time.Millisecond)
	if r := e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false", "", nil); r.Status == http.StatusServiceUnavailable {
		t.Errorf("client b left 500 ms ago, its stream still counts (waiting for a's read): %d %s", r.Status, r.Body)
	}
}
