package engine_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// MustRevealNext submits the next step of a contest's reveal and returns its result; ok is false when no step
// can be made.
func MustRevealNext(tb testing.TB, e *engine.Engine, id string) (engine.Result, bool) {
	tb.Helper()
	var ev rankd.Event
	err := e.Read(id, func(b *board.Board, _ int64) error {
		step, next, _ := b.Reveal()
		if next == nil || b.CheckReveal(time.Time{}) != nil {
			return nil
		}
		ev = rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(step + 1), Reveal: &rankd.Reveal{Step: step + 1, TeamID: next.TeamID, ProblemID: next.ProblemID}}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if ev.Reveal == nil {
		return engine.Result{}, false
	}
	return MustSubmitOne(tb, e, id, ev), true
}

func MustSubmitOne(tb testing.TB, e *engine.Engine, id string, ev rankd.Event) engine.Result {
	tb.Helper()
	entry, err := engine.Entry(ev)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := e.Submit(context.Background(), id, []rankd.LogEntry{entry})
	if err != nil {
		tb.Fatal(err)
	}
	return res[0]
}

func MustPublic(tb testing.TB, e *engine.Engine, id string) rankd.Standings {
	tb.Helper()
	var st rankd.Standings
	err := e.Read(id, func(b *board.Board, _ int64) error {
		var err error
		st, err = b.Standings(rankd.PublicView, 0, -1)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// Reveal steps are events of the log: a retry is a duplicate, and a server that restarts in the middle of the
// reveal (from its checkpoint, or from the log alone) has the same public board, sequence number included,
// and goes on with the next step.
func TestRevealSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := MustOpenStore(t, dir)
	e := MustOpenEngine(t, store)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries); err != nil {
		t.Fatal(err)
	}
	var steps []rankd.Event
	for range 5 {
		res, ok := MustRevealNext(t, e, "c")
		if !ok || res.Status != engine.StatusAccepted {
			t.Fatalf("step %d: got %+v (ok %v), want it accepted", len(steps)+1, res, ok)
		}
		err := e.Read("c", func(b *board.Board, _ int64) error {
			cell, _ := b.RevealStep(len(steps) + 1)
			steps = append(steps, rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(len(steps) + 1),
				Reveal: &rankd.Reveal{Step: len(steps) + 1, TeamID: cell.TeamID, ProblemID: cell.ProblemID}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if res := MustSubmitOne(t, e, "c", steps[2]); res.Status != engine.StatusDuplicate {
		t.Fatalf("step 3 again: got %+v, want a duplicate", res)
	}
	skip := steps[0]
	skip.ID, skip.Reveal = "9", &rankd.Reveal{Step: 9, TeamID: skip.Reveal.TeamID, ProblemID: skip.Reveal.ProblemID}
	if res := MustSubmitOne(t, e, "c", skip); res.Status != engine.StatusRejected || res.Code != rankd.ECONFLICT {
		t.Fatalf("step 9 after step 5: got %+v, want rejected with %s", res, rankd.ECONFLICT)
	}
	want := MustPublic(t, e, "c")

	// The log alone gives the same board.
	offline := board.New()
	for _, ev := range append(entriesEvents(entries), steps...) {
		_, _ = offline.Apply(&ev)
	}
	if got, err := offline.Standings(rankd.PublicView, 0, -1); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the log replayed offline: got seq %d, want %d (err %v)", got.Seq, want.Seq, err)
	}

	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	store.Close()
	store = MustOpenStore(t, dir)
	defer store.Close()
	e = MustOpenEngine(t, store)
	defer e.Close(ctx)
	if got := MustPublic(t, e, "c"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart: got seq %d, want %d", got.Seq, want.Seq)
	}
	for n := 6; ; n++ {
		res, ok := MustRevealNext(t, e, "c")
		if !ok {
			break
		}
		if res.Status != engine.StatusAccepted {
			t.Fatalf("step %d after the restart: got %+v", n, res)
		}
	}
	var pub, jury rankd.Standings
	err := e.Read("c", func(b *board.Board, _ int64) error {
		pub, _ = b.Standings(rankd.PublicView, 0, -1)
		jury, _ = b.Standings(rankd.JuryView, 0, -1)
		if _, next, remaining := b.Reveal(); next != nil || remaining != 0 {
			t.Errorf("after the reveal: next %v, %d remaining", next, remaining)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pub.Rows, jury.Rows) {
		t.Fatal("after the reveal the public board is not the jury's")
	}
}

func entriesEvents(entries []rankd.LogEntry) []rankd.Event {
	evs := make([]rankd.Event, len(entries))
	for i := range entries {
		evs[i] = entries[i].Event
	}
	return evs
}
