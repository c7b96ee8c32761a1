package storetest

import (
	"context"
	"testing"
	"time"
)

// testBegan: a log begins with its first entry's Stored time, which later appends do not move; a contest
// without a log has none, and one deleted and created again begins anew.
func testBegan(t *testing.T, s Store) {
	ctx := context.Background()
	began := func(id string) time.Time {
		t.Helper()
		at, err := s.Began(ctx, id)
		if err != nil {
			t.Fatalf("Began(%s): %v", id, err)
		}
		return at
	}
	if at := began("a"); !at.IsZero() {
		t.Errorf("a contest without a log: got %v, want the zero time", at)
	}
	MustAppend(t, s, "a", Submission("s1", "t1", "A", time.Minute))
	first := MustEntryAt(t, s, "a", 1).Stored
	time.Sleep(2 * time.Millisecond) // a later Stored time, whatever the clock's resolution
	MustAppend(t, s, "a", Submission("s2", "t1", "A", 2*time.Minute))
	MustAppend(t, s, "b", Submission("s1", "t1", "A", time.Minute))
	if at := began("a"); !at.Equal(first) {
		t.Errorf("after a second append: got %v, want the first entry's %v", at, first)
	}
	if err := s.DeleteContest(ctx, "a"); err != nil {
		t.Fatalf("DeleteContest(a): %v", err)
	}
	if at := began("a"); !at.IsZero() {
		t.Errorf("deleted: got %v, want the zero time", at)
	}
	time.Sleep(2 * time.Millisecond)
	MustAppend(t, s, "a", Submission("s3", "t1", "A", time.Minute))
	if at, again := began("a"), MustEntryAt(t, s, "a", 1).Stored; !at.Equal(again) || !at.After(first) {
		t.Errorf("created again: got %v, want its new first entry's %v, after %v", at, again, first)
	}
}
