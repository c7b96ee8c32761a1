package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/sqlite"
)

// syncingStore holds each Append between deciding about its entries and making them durable, until told
// to go on: as a slow disk would.
type syncingStore struct {
	*sqlite.DB
	decided chan struct{} // gets a value when an Append has decided
	sync    chan struct{} // a value lets it go on
}

func (s *syncingStore) Append(ctx context.Context, id string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	outer := ctx
	ctx = rankd.WithDecided(ctx, func() {
		rankd.Decided(outer) // the engine's
		s.decided <- struct{}{}
		<-s.sync
	})
	return s.DB.Append(ctx, id, entries, accept)
}

// A commit of a frozen judgement, which leaves the public view as it was, holds up no reader of the public
// view while its entries become durable: a spectator's read times would tell when hidden verdicts come.
// Readers of the other views wait for the disk, as do the public view's when the commit changes it.
func TestPublicReadersDoNotWaitForHiddenCommits(t *testing.T) {
	store := &syncingStore{DB: MustOpenStore(t, t.TempDir()), decided: make(chan struct{}), sync: make(chan struct{})}
	e := MustOpenEngine(t, store)
	entries := contestEntries(t)
	done := commitHeld(t, store, e, entries)
	done()
	// The last submission of the contest is frozen (the generated contest freezes its last hour).
	var frozen *rankd.Submission
	for i := range entries {
		if s := entries[i].Event.Submission; entries[i].Event.Type == rankd.EventSubmission && s != nil {
			frozen = s
		}
	}
	before := MustPublic(t, e, "c").Seq

	hidden := rankd.Event{Type: rankd.EventJudgement, ID: "hidden", Judgement: &rankd.Judgement{ID: "hidden",
		SubmissionID: frozen.ID, TypeID: "AC", StartTime: frozen.Time}}
	done = commitHeld(t, store, e, mustEntries(t, hidden))
	public, jury := readSoon(e.ReadPublic), readSoon(e.Read)
	if !public(5 * time.Second) {
		t.Errorf("a public reader during a hidden commit's sync: got it waiting, want it served")
	}
	if jury(100 * time.Millisecond) {
		t.Errorf("a jury reader during a commit's sync: got it served, want it waiting for the disk")
	}
	done()
	if !jury(5 * time.Second) {
		t.Fatal("a jury reader after the commit: still waiting")
	}
	if got := MustPublic(t, e, "c").Seq; got != before {
		t.Fatalf("the public sequence after a frozen judgement: got %d, want %d (the test's judgement is not hidden)", got, before)
	}

	late := rankd.Event{Type: rankd.EventSubmission, ID: "late", Submission: &rankd.Submission{ID: "late",
		TeamID: frozen.TeamID, ProblemID: frozen.ProblemID, Time: frozen.Time}}
	done = commitHeld(t, store, e, mustEntries(t, late))
	public = readSoon(e.ReadPublic)
	if public(100 * time.Millisecond) {
		t.Errorf("a public reader during the sync of a commit the public sees: got it served, want it waiting for the disk")
	}
	done()
	if !public(5 * time.Second) {
		t.Fatal("a public reader after the commit: still waiting")
	}
	if got := MustPublic(t, e, "c").Seq; got == before {
		t.Fatalf("the public sequence after a frozen submission: got %d still, want it moved", got)
	}
}

func mustEntries(tb testing.TB, events ...rankd.Event) []rankd.LogEntry {
	tb.Helper()
	var entries []rankd.LogEntry
	for _, ev := range events {
		entry, err := engine.Entry(ev)
		if err != nil {
			tb.Fatal(err)
		}
		entries = append(entries, entry)
	}
	return entries
}

// commitHeld submits entries and returns once their commit has decided about them, held before it makes
// them durable; done lets it go on and waits for its answer.
func commitHeld(tb testing.TB, store *syncingStore, e *engine.Engine, entries []rankd.LogEntry) (done func()) {
	tb.Helper()
	answered := make(chan error, 1)
	go func() {
		_, err := e.Submit(context.Background(), "c", entries)
		answered <- err
	}()
	<-store.decided
	return func() {
		tb.Helper()
		store.sync <- struct{}{}
		if err := <-answered; err != nil {
			tb.Fatal(err)
		}
	}
}

// readSoon starts a read of contest c with read; the function it returns reports whether the read was
// served within a time.
func readSoon(read func(string, func(*board.Board, int64) error) error) func(time.Duration) bool {
	served := make(chan struct{})
	go func() {
		_ = read("c", func(*board.Board, int64) error { return nil })
		close(served)
	}()
	return func(d time.Duration) bool {
		select {
		case <-served:
			return true
		case <-time.After(d):
			return false
		}
	}
}
