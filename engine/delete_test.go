package engine_test

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/gen"
	"rankd/postgres"
	"rankd/postgres/pgtest"
)

// MustDeleted checks that an engine no longer holds contest id: not listed, not readable, its events
// refused as of an unknown contest.
func MustDeleted(tb testing.TB, e *engine.Engine, id string, entry rankd.LogEntry) {
	tb.Helper()
	if slices.Contains(e.ContestIDs(), id) {
		tb.Errorf("contests after the deletion: got %v, want no %s", e.ContestIDs(), id)
	}
	if _, err := e.Submit(context.Background(), id, []rankd.LogEntry{entry}); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		tb.Errorf("an event of the deleted contest: got %v, want code %s", err, rankd.ENOTFOUND)
	}
}

// A contest deleted is gone, with its checkpoints: a contest created again with its id, restored after a
// restart, is the new log's board alone. Requests queued before the deletion are committed; later ones are
// refused as of an unknown contest.
func TestDelete(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := MustOpenStore(t, dir)
	defer store.Close()
	e := MustOpenEngine(t, store) // checkpoints every 500 entries
	var deleted []string
	e.Deleted = func(id string) { deleted = append(deleted, id) }
	old := contestEntries(t)
	if _, err := e.Submit(ctx, "c", old); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(ctx, "c"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if !slices.Equal(deleted, []string{"c"}) {
		t.Errorf("Deleted was called with %v, want [c]", deleted)
	}
	MustDeleted(t, e, "c", old[len(old)-1])
	if err := e.Delete(ctx, "c"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("a second deletion: got %v, want code %s", err, rankd.ENOTFOUND)
	}

	// Another server that had not heard of the deletion saves its checkpoint of the old board.
	stale := board.New()
	for i := range old {
		if _, err := stale.Apply(&old[i].Event); err != nil {
			t.Fatal(err)
		}
	}
	data, err := stale.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SaveCheckpoint(ctx, "c", rankd.Checkpoint{Pos: int64(len(old)), Data: data}); err != nil {
		t.Fatal(err)
	}

	fresh := genEntries(t, gen.Config{Seed: 4, ContestID: "c", Teams: 10, Problems: 3, Submissions: 800})
	if len(fresh) <= len(old) {
		t.Fatalf("the new log has %d entries, want more than the old one's %d (the test's premise)", len(fresh), len(old))
	}
	if _, err := e.Submit(ctx, "c", fresh); err != nil {
		t.Fatal(err)
	}
	want := offlineStandings(t, fresh)
	if got := MustStandings(t, e, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("the contest created again: got %d rows, want the new log's %d", len(got.Rows), len(want.Rows))
	}
	// Restored (another server starting) while the old board's checkpoint is the latest, at a position the new
	// log has too.
	other := MustOpenEngine(t, store)
	if got := MustStandings(t, other, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("restored over the old board's checkpoint: got %d rows, want the new log's %d", len(got.Rows), len(want.Rows))
	}
	_ = other.Close(ctx)
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again := MustOpenEngine(t, store)
	defer again.Close(ctx)
	if got := MustStandings(t, again, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("restored after a restart: got %d rows, want the new log's %d", len(got.Rows), len(want.Rows))
	}
}

// Events sent while a contest is deleted are either committed before the deletion or refused as of an
// unknown contest: none is acknowledged and lost, none is stored after it.
func TestDeleteWhileSubmitting(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	entries := contestEntries(t)
	setup := slices.IndexFunc(entries, func(le rankd.LogEntry) bool { return le.Event.Type == rankd.EventSubmission })
	if _, err := e.Submit(ctx, "c", entries[:setup]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(entries))
	for i := setup; i < len(entries); i += 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.Submit(ctx, "c", entries[i:min(i+50, len(entries))])
			errs <- err
		}()
	}
	if err := e.Delete(ctx, "c"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND {
			t.Errorf("an event sent during the deletion: got %v, want it stored or code %s", err, rankd.ENOTFOUND)
		}
	}
	n := 0
	if err := store.Replay(ctx, "c", 0, func(*rankd.LogEntry) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("the log after the deletion: got %d entries (%v), want none", n, err)
	}
}

// MustDeleteHeld has the first server store entries of contest c, the others hold it, and the first delete it.
func MustDeleteHeld(tb testing.TB, entries []rankd.LogEntry, first *engine.Engine, others ...*engine.Engine) {
	tb.Helper()
	ctx := context.Background()
	if _, err := first.Submit(ctx, "c", entries); err != nil {
		tb.Fatal(err)
	}
	for _, e := range others {
		if err := e.SyncContest(ctx, "c"); err != nil {
			tb.Fatal(err)
		}
	}
	if err := first.Delete(ctx, "c"); err != nil {
		tb.Fatalf("delete: %v", err)
	}
}

// Over a shared log, a contest deleted on one server is forgotten by another when it next commits to it
// (the commit is refused, to be retried, and stores nothing) or when it next looks at the log (Sync); the
// id then makes a new contest on any server.
func TestDeleteShared(t *testing.T) {
	ctx := context.Background()
	u := pgtest.MustSchema(t)
	a, b, c := MustOpenShared(t, u), MustOpenShared(t, u), MustOpenShared(t, u)
	forgot := make(chan string, 2)
	b.Deleted = func(id string) { forgot <- id }
	entries := contestEntries(t)
	half := len(entries) / 2
	MustDeleteHeld(t, entries[:half], a, b, c)
	// b commits to the contest it still holds: refused, to be retried.
	_, err := b.Submit(ctx, "c", entries[half:half+1])
	if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("a commit to the contest deleted elsewhere: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	if id := <-forgot; id != "c" {
		t.Errorf("b forgot %q, want c", id)
	}
	MustDeleted(t, b, "c", entries[half])
	// c looks at the log.
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	eventuallyEngine(t, "c forgets the contest", func() bool { return !slices.Contains(c.ContestIDs(), "c") })
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.Contests(ctx)
	if err != nil || len(ids) != 0 {
		t.Errorf("the log's contests: got %v (%v), want none: nothing stored after the deletion", ids, err)
	}

	fresh := genEntries(t, gen.Config{Seed: 4, ContestID: "c", Teams: 10, Problems: 3, Submissions: 100})
	if _, err := b.Submit(ctx, "c", fresh); err != nil {
		t.Fatal(err)
	}
	want := offlineStandings(t, fresh)
	for name, e := range map[string]*engine.Engine{"a": a, "c": c} {
		if err := e.SyncContest(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if got := MustStandings(t, e, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
			t.Errorf("%s: the contest created again: got %d rows, want the new log's %d", name, len(got.Rows), len(want.Rows))
		}
	}
}

// A contest deleted and created again on one server, with a longer log, before the others heard of it: each
// of them forgets the old board when it next commits to the contest or looks at its log, and then holds the
// new log's board, never the old board with the new log's tail (which would apply: both logs share their
// beginning, then the old one has a solve that the new one has not).
func TestDeleteSharedCreatedAgain(t *testing.T) {
	ctx := context.Background()
	u := pgtest.MustSchema(t)
	a, b, c := MustOpenShared(t, u), MustOpenShared(t, u), MustOpenShared(t, u)
	base := contestEntries(t)
	first := base[slices.IndexFunc(base, func(le rankd.LogEntry) bool { return le.Event.Type == rankd.EventSubmission })].Event.Submission
	typeID := base[slices.IndexFunc(base, func(le rankd.LogEntry) bool {
		return le.Event.Type == rankd.EventJudgement && le.Event.Judgement.TypeID != ""
	})].Event.Judgement.TypeID
	entry := func(ev rankd.Event) rankd.LogEntry {
		le, err := engine.Entry(ev)
		if err != nil {
			t.Fatal(err)
		}
		return le
	}
	submission := func(id string) rankd.LogEntry {
		return entry(rankd.Event{Type: rankd.EventSubmission, ID: id, Submission: &rankd.Submission{ID: id, TeamID: first.TeamID,
			ProblemID: first.ProblemID, Time: first.Time + time.Second}})
	}
	old := append(slices.Clone(base), submission("x0"), entry(rankd.Event{Type: rankd.EventJudgement, ID: "jx0",
		Judgement: &rankd.Judgement{ID: "jx0", SubmissionID: "x0", TypeID: typeID, StartTime: first.Time + time.Minute}}))
	fresh := append(slices.Clone(base), submission("x1"), submission("x2"), submission("x3"))
	MustDeleteHeld(t, old, a, b, c)
	if _, err := a.Submit(ctx, "c", fresh); err != nil {
		t.Fatal(err)
	}
	more := []rankd.LogEntry{submission("x4")}
	want := offlineStandings(t, append(slices.Clone(fresh), more...))

	// b commits: refused, then the retry goes to the new contest.
	if _, err := b.Submit(ctx, "c", more); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("b's commit to the old board: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	eventuallyEngine(t, "b forgets the old board", func() bool {
		_, err := b.Submit(ctx, "c", more)
		return err == nil
	})
	if got := MustStandings(t, b, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("b: got %+v, want the new log's %+v", got.Rows[:1], want.Rows[:1])
	}
	// c looks at the log.
	if err := c.SyncContest(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	eventuallyEngine(t, "c holds the new contest", func() bool {
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		var st rankd.Standings
		err := c.Read("c", func(bd *board.Board, _ int64) error {
			var err error
			st, err = bd.Standings(rankd.JuryView, 0, -1)
			return err
		})
		return err == nil && reflect.DeepEqual(st.Rows, want.Rows)
	})
}

// eventuallyEngine waits up to 5 s for cond.
func eventuallyEngine(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within 5 s", what)
		}
	}
}

// A contest is deleted only with its projection: while the projection cannot be reached the deletion is
// refused, to be asked again, and the contest goes on; once it can, both go.
func TestDeleteWithProjection(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	p := newMemProjection()
	e := engine.New(store, nil)
	e.Projection = p
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	p.mu.Lock()
	p.fail = true
	p.mu.Unlock()
	if err := e.Delete(ctx, "c"); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("delete while the projection is down: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	want := offlineStandings(t, entries)
	if got := MustStandings(t, e, "c"); !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("the contest after a refused deletion: got %d rows, want its %d", len(got.Rows), len(want.Rows))
	}
	p.mu.Lock()
	p.fail = false
	p.mu.Unlock()
	if err := e.Delete(ctx, "c"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	MustDeleted(t, e, "c", entries[len(entries)-1])
	eventuallyEngine(t, "the projection deleted", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		_, ok := p.contests["c"]
		return !ok
	})
}
