package engine_test

import (
	"context"
	"testing"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// TestEnqueueChecked: a Check is asked of each event of a request as it commits, numbered within the request,
// with the board as the events before it left it; the events it refuses are not stored, the others are.
func TestEnqueueChecked(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries[:len(entries)-3]); err != nil {
		t.Fatal(err)
	}
	last := entries[len(entries)-3:]
	var asked []int
	var seqs []uint64
	refused := rankd.Errorf(rankd.ECONFLICT, "refused by the check")
	p, err := e.EnqueueChecked(ctx, "c", last, func(b *board.Board, i int) error {
		asked, seqs = append(asked, i), append(seqs, b.Seq(rankd.JuryView))
		if i == 1 {
			return refused
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	results, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 3 || asked[0] != 0 || asked[1] != 1 || asked[2] != 2 {
		t.Fatalf("the check was asked of %v, want 0, 1 and 2", asked)
	}
	if seqs[1] <= seqs[0] {
		t.Errorf("the check of the second event saw the board at %d, before the first event (%d)", seqs[1], seqs[0])
	}
	want := []string{engine.StatusAccepted, engine.StatusRejected, engine.StatusAccepted}
	for i, r := range results {
		if r.Status != want[i] || i == 1 && (r.Code != rankd.ECONFLICT || r.Message != "refused by the check") {
			t.Errorf("event %d: got %+v, want %s", i, r, want[i])
		}
	}
	// Sent again without the check, the refused one is stored; the others are duplicates.
	results, err = e.Submit(ctx, "c", last)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{engine.StatusDuplicate, engine.StatusAccepted, engine.StatusDuplicate}
	for i, r := range results {
		if r.Status != want[i] {
			t.Errorf("sent again, event %d: got %s, want %s", i, r.Status, want[i])
		}
	}
}
