package engine_test

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/gen"
	"rankd/sqlite"
)

// smallContest returns a small generated contest of the given id as log entries.
func smallContest(tb testing.TB, id string) []rankd.LogEntry {
	tb.Helper()
	var entries []rankd.LogEntry
	err := gen.Generate(gen.Config{Seed: 3, ContestID: id, Teams: 5, Problems: 3, Submissions: 20}, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		entries = append(entries, e)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return entries
}

// MustStoreContests stores contests a and b in a store in dir, and returns their entries.
func MustStoreContests(tb testing.TB, dir string) map[string][]rankd.LogEntry {
	tb.Helper()
	db := MustOpenStore(tb, dir)
	e := MustOpenEngine(tb, db)
	all := map[string][]rankd.LogEntry{}
	for _, id := range []string{"a", "b"} {
		all[id] = smallContest(tb, id)
		if _, err := e.Submit(context.Background(), id, all[id]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := e.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return all
}

// heldStore holds contest a's first checkpoint read until release is closed (a restore in progress), and
// its appends while holdAppends is set (a store that hangs).
type heldStore struct {
	*sqlite.DB
	entered, release chan struct{}
	once             sync.Once
	holdAppends      chan struct{} // closed to let appends go
	appending        chan struct{}
	appendOnce       sync.Once
}

func newHeldStore(db *sqlite.DB) *heldStore {
	return &heldStore{DB: db, entered: make(chan struct{}), release: make(chan struct{})}
}

// newAppendsHeld returns a heldStore that holds contest a's appends (and not its checkpoint reads).
func newAppendsHeld(db *sqlite.DB) *heldStore {
	s := newHeldStore(db)
	close(s.release)
	s.holdAppends, s.appending = make(chan struct{}), make(chan struct{})
	return s
}

func (s *heldStore) LatestCheckpoint(ctx context.Context, id string) (rankd.Checkpoint, error) {
	if id == "a" {
		s.once.Do(func() {
			close(s.entered)
			<-s.release
		})
	}
	return s.DB.LatestCheckpoint(ctx, id)
}

func (s *heldStore) Append(ctx context.Context, id string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if id == "a" && s.holdAppends != nil {
		s.appendOnce.Do(func() { close(s.appending) })
		<-s.holdAppends
	}
	return s.DB.Append(ctx, id, entries, accept)
}

// sharedHeldStore is a heldStore as a shared log, whose other writers never write.
type sharedHeldStore struct{ *heldStore }

func (s sharedHeldStore) AppendAfter(ctx context.Context, id string, after int64, tail func([]rankd.LogEntry) error,
	entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	var t []rankd.LogEntry
	err := s.Replay(ctx, id, after, func(le *rankd.LogEntry) error {
		t = append(t, rankd.LogEntry{Pos: le.Pos, Data: bytes.Clone(le.Data)})
		return nil
	})
	if err == nil && len(t) > 0 {
		err = tail(t)
	}
	if err != nil {
		return nil, err
	}
	return s.Append(ctx, id, entries, accept)
}

// While the stored contests are being restored, one not restored yet is unavailable (retry), not unknown;
// once restored, it takes events.
func TestSubmitWhileOpening(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	store := newHeldStore(MustOpenStore(t, dir))
	defer store.Close()
	e := engine.New(store, nil)
	opened := make(chan error, 1)
	go func() { opened <- e.Open(context.Background()) }()
	<-store.entered // restoring a; b comes after it
	last := all["b"][len(all["b"])-1:]
	if _, err := e.Submit(context.Background(), "b", last); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("an event of a stored contest while the engine opens: got error %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	if err := e.Read("b", func(*board.Board, int64) error { return nil }); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("a read of a stored contest while the engine opens: got error %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	close(store.release)
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	res, err := e.Submit(context.Background(), "b", last)
	if err != nil || res[0].Status != engine.StatusDuplicate {
		t.Errorf("the same event once opened: got %+v, %v; want a duplicate", res, err)
	}
	if err := e.Read("nope", func(*board.Board, int64) error { return nil }); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("a read of an unknown contest: got error %v, want code %s", err, rankd.ENOTFOUND)
	}
}

// In shared mode a request may restore a contest while Open is restoring the others: Open keeps that one,
// and Close then stops every committer.
func TestSharedSubmitWhileOpening(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	store := newHeldStore(MustOpenStore(t, dir))
	defer store.Close()
	e := engine.New(sharedHeldStore{store}, nil)
	e.Shared = true
	e.Projection = newMemProjection()
	opened := make(chan error, 1)
	go func() { opened <- e.Open(context.Background()) }()
	<-store.entered
	last := all["b"][len(all["b"])-1:]
	if res, err := e.Submit(context.Background(), "b", last); err != nil || res[0].Status != engine.StatusDuplicate {
		t.Errorf("an event of b while the engine opens: got %+v, %v; want a duplicate", res, err)
	}
	close(store.release)
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	if err := MustCloseWithin(t, e, context.Background(), "Close hangs: a committer was left running"); err != nil {
		t.Fatal(err)
	}
}

// A contest whose store hangs, its queue full, holds up no other contest.
func TestFullQueueHoldsUpNoOtherContest(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	store := newAppendsHeld(MustOpenStore(t, dir))
	defer store.Close()
	e := MustOpenEngine(t, store)
	ctx := context.Background()
	one := all["a"][len(all["a"])-1:]
	if _, err := e.Enqueue(ctx, "a", one); err != nil {
		t.Fatal(err)
	}
	<-store.appending
	for range 1024 { // the queue's room
		if _, err := e.Enqueue(ctx, "a", one); err != nil {
			t.Fatal(err)
		}
	}
	go e.Enqueue(ctx, "a", one) // waits for room
	time.Sleep(50 * time.Millisecond)
	go e.Submit(ctx, "c", smallContest(t, "c")[:1]) // a new contest: takes the engine's lock
	time.Sleep(50 * time.Millisecond)
	read := make(chan error, 1)
	go func() { read <- e.Read("b", func(*board.Board, int64) error { return nil }) }()
	select {
	case err := <-read:
		if err != nil {
			t.Errorf("read b: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("a read of contest b waits for contest a's queue")
	}
	close(store.holdAppends)
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// A request that comes while Open starts a contest's committer finds it whole (run with -race).
func TestEnqueueWhileStarting(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	db := MustOpenStore(t, dir)
	defer db.Close()
	one := all["a"][len(all["a"])-1:]
	for range 50 {
		e := engine.New(db, nil)
		e.Projection = newMemProjection()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				_, err := e.Enqueue(context.Background(), "a", one)
				if code := rankd.ErrorCode(err); code != rankd.EUNAVAILABLE && code != rankd.ENOTFOUND {
					return
				}
			}
		}()
		if err := e.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-done
		if err := e.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// failingShared is a shared log over one store whose AppendAfter fails while fail is set, before it reads
// the others' entries.
type failingShared struct {
	sharedHeldStore
	fail atomic.Bool
}

func (s *failingShared) AppendAfter(ctx context.Context, id string, after int64, tail func([]rankd.LogEntry) error,
	entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if s.fail.Load() {
		return nil, errDisk
	}
	return s.sharedHeldStore.AppendAfter(ctx, id, after, tail, entries, accept)
}

// A board rebuilt after a failed commit may hold what other servers stored meanwhile: every row of each
// view whose sequence number moved is reported as changed, so that live followers get them.
func TestRebuildReportsOthersEntries(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t, t.TempDir())
	defer db.Close()
	held := newHeldStore(db)
	close(held.release)
	store := &failingShared{sharedHeldStore: sharedHeldStore{held}}
	e := engine.New(store, nil)
	e.Shared = true
	var mu sync.Mutex
	reported := map[rankd.View]map[string]bool{}
	e.Notify = func(_ string, diffs []board.Diff) {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range diffs {
			if reported[d.View] == nil {
				reported[d.View] = map[string]bool{}
			}
			for _, r := range d.Rows {
				reported[d.View][r.TeamID] = true
			}
		}
	}
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	entries := contestEntries(t)
	half := len(entries) / 2
	if _, err := e.Submit(ctx, "c", entries[:half]); err != nil {
		t.Fatal(err)
	}
	// Another server stores the rest.
	if _, err := db.Append(ctx, "c", entries[half:], nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clear(reported)
	mu.Unlock()
	store.fail.Store(true)
	if _, err := e.Submit(ctx, "c", entries[len(entries)-1:]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("a commit that fails: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	store.fail.Store(false)
	// The failure is answered before the rebuild, which holds the board's lock: a read waits for it.
	if err := e.Read("c", func(*board.Board, int64) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := mustBoard(t, entries)
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		st, err := want.Standings(v, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		for _, r := range st.Rows {
			if !reported[v][r.TeamID] {
				t.Errorf("view %v: team %s not reported after the rebuild", v, r.TeamID)
			}
		}
		mu.Unlock()
	}
	err := e.Read("c", func(b *board.Board, pos int64) error {
		if pos != int64(len(entries)) {
			t.Errorf("rebuilt at %d, want %d", pos, len(entries))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mustBoard returns the board that applying entries builds.
func mustBoard(tb testing.TB, entries []rankd.LogEntry) *board.Board {
	tb.Helper()
	b := board.New()
	for i := range entries {
		if _, err := b.Apply(&entries[i].Event); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// hangingStore's appends hang while hang is set, until their context ends, as a database that stopped
// answering would.
type hangingStore struct {
	*sqlite.DB
	hang atomic.Bool
}

func (s *hangingStore) Append(ctx context.Context, id string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if s.hang.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.DB.Append(ctx, id, entries, accept)
}

// MustOpenQuickTimeout opens an engine over store whose commits time out after 100 ms, with the first 100
// entries of contest c committed; it returns the contest's entries. It closes when the test ends.
func MustOpenQuickTimeout(tb testing.TB, store engine.Store) (*engine.Engine, []rankd.LogEntry) {
	tb.Helper()
	ctx := context.Background()
	e := engine.New(store, nil)
	e.CommitTimeout = 100 * time.Millisecond
	if err := e.Open(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close(ctx) })
	entries := contestEntries(tb)
	if _, err := e.Submit(ctx, "c", entries[:100]); err != nil {
		tb.Fatal(err)
	}
	return e, entries
}

// A commit that the store does not answer fails after CommitTimeout (the client sends the events again), and
// the contest takes events again once the store answers.
func TestCommitTimeout(t *testing.T) {
	ctx := context.Background()
	store := &hangingStore{DB: MustOpenStore(t, t.TempDir())}
	t.Cleanup(func() { _ = store.Close() }) // after the engine's
	e, entries := MustOpenQuickTimeout(t, store)
	store.hang.Store(true)
	if _, err := e.Submit(ctx, "c", entries[100:200]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("a commit the store does not answer: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	store.hang.Store(false)
	res, err := e.Submit(ctx, "c", entries[100:200])
	if err != nil || res[0].Status != engine.StatusAccepted {
		t.Fatalf("sent again once the store answers: got %v, %v; want accepted", res[:1], err)
	}
	err = e.Read("c", func(b *board.Board, pos int64) error {
		if pos != 200 {
			t.Errorf("got the board at %d, want 200", pos)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Close gives up waiting for a commit the store does not answer once its context ends.
func TestCloseGivesUp(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	store := newAppendsHeld(MustOpenStore(t, dir))
	defer store.Close()
	defer close(store.holdAppends)
	e := MustOpenEngine(t, store)
	if _, err := e.Enqueue(context.Background(), "a", all["a"][len(all["a"])-1:]); err != nil {
		t.Fatal(err)
	}
	<-store.appending
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := MustCloseWithin(t, e, ctx, "Close waits for a commit after its context ended"); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("Close: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
}

// rebuildHeldStore is a hangingStore whose checkpoint reads (a board's rebuild) wait for release while it hangs.
type rebuildHeldStore struct {
	hangingStore
	held, release chan struct{}
	once          sync.Once
}

func (s *rebuildHeldStore) LatestCheckpoint(ctx context.Context, id string) (rankd.Checkpoint, error) {
	if s.hang.Load() {
		s.once.Do(func() { close(s.held) })
		<-s.release // longer than the rebuild's timeout: the commit's failure must not wait for it
	}
	return s.DB.LatestCheckpoint(ctx, id)
}

// A failed commit is answered before the board is rebuilt from the log: a store that hangs made the sender
// wait for the rebuild's timeout too, twice the commit's, beyond a judge's own timeout.
func TestFailedCommitAnsweredBeforeRebuild(t *testing.T) {
	ctx := context.Background()
	store := &rebuildHeldStore{hangingStore: hangingStore{DB: MustOpenStore(t, t.TempDir())},
		held: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { _ = store.Close() }) // after the engine's
	e, entries := MustOpenQuickTimeout(t, store)
	store.hang.Store(true)
	answered := make(chan error, 1)
	go func() {
		_, err := e.Submit(ctx, "c", entries[100:200])
		answered <- err
	}()
	<-store.held // the rebuild has begun, and waits
	select {
	case err := <-answered:
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			t.Errorf("the failed commit: got %v, want code %s", err, rankd.EUNAVAILABLE)
		}
	case <-time.After(10 * time.Second):
		t.Error("the failed commit was not answered while the board was rebuilt")
	}
	store.hang.Store(false)
	close(store.release)
}
