package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd"
)

// Close does not wait for a request that waits for room in a full queue: the request is refused (its client
// sends it again), and Close gives up on the commit in progress once its context ends.
func TestCloseWithFullQueue(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)
	store := newAppendsHeld(MustOpenStore(t, dir))
	defer store.Close()
	defer close(store.holdAppends)
	e := MustOpenEngine(t, store)
	one := all["a"][len(all["a"])-1:]
	if _, err := e.Enqueue(context.Background(), "a", one); err != nil {
		t.Fatal(err)
	}
	<-store.appending
	for range 1024 { // the queue's room
		if _, err := e.Enqueue(context.Background(), "a", one); err != nil {
			t.Fatal(err)
		}
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := e.Enqueue(context.Background(), "a", one)
		waiting <- err
	}()
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := MustCloseWithin(t, e, ctx, "Close waits for a request that waits for room in the queue"); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("Close: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	select {
	case err := <-waiting:
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			t.Errorf("request waiting for room when the engine closed: got %v, want code %s", err, rankd.EUNAVAILABLE)
		}
	case <-time.After(5 * time.Second):
		t.Error("a request waiting for room in the queue still waits after Close")
	}
}
