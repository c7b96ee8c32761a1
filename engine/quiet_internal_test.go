package engine

import (
	"fmt"
	"testing"
	"time"
)

// Keys of contests long gone are forgotten once the map grows: a server that sees thousands of contests
// created and deleted keeps no key of each.
func TestQuietForgetsOldKeys(t *testing.T) {
	var q quiet
	for i := range 10_000 {
		key := fmt.Sprintf("late c%d", i)
		if !q.allow(key) {
			t.Fatalf("%s: got not allowed, want allowed the first time", key)
		}
		if q.allow(key) {
			t.Fatalf("%s: got allowed again at once, want not", key)
		}
		q.last[key] = q.last[key].Add(-quietEvery) // as if logged quietEvery ago
	}
	if got := len(q.last); got > 2*quietSweepAt {
		t.Errorf("got %d keys kept, want at most %d", got, 2*quietSweepAt)
	}
	// A key still fresh survives a sweep.
	q = quiet{}
	q.allow("fresh")
	for i := range 3 * quietSweepAt {
		q.allow(fmt.Sprint(i))
		q.last[fmt.Sprint(i)] = time.Now().Add(-quietEvery)
	}
	if q.allow("fresh") {
		t.Error("fresh key: got allowed after sweeps, want not allowed within quietEvery")
	}
}
