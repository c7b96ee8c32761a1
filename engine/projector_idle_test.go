package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd/engine"
)

// A projection flushed while a quiet contest is followed (the distributed mode syncs every contest every
// second, though nothing comes) is rebuilt: the syncs that move nothing do not put off the idle check.
func TestProjectionFlushedWhileSyncsMoveNothing(t *testing.T) {
	p := newMemProjection()
	e := engine.New(sharedHeldStore{newHeldStore(MustOpenStore(t, t.TempDir()))}, nil)
	e.Shared, e.Projection = true, p
	ctx := context.Background()
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	if _, err := e.Submit(ctx, "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	for range 5 { // the projector idle, the projection at the board
		if err := e.SyncContest(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	p.flush()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		if err := e.SyncContest(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if pos, _ := p.Position(ctx, "c"); pos > 0 {
			MustMatchProjection(t, e, p, "c")
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the flushed projection was not rebuilt while syncs came every 200 ms")
}
