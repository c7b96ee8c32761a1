package engine_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/sqlite"
)

// fullCheckpointStore is a store whose disk has room for the small commits of a running contest but not
// for a checkpoint of its board (megabytes): every SaveCheckpoint fails. It counts the checkpoints tried.
type fullCheckpointStore struct {
	*sqlite.DB
	saves atomic.Int64
}

func (s *fullCheckpointStore) SaveCheckpoint(context.Context, string, rankd.Checkpoint) error {
	s.saves.Add(1)
	return errDisk
}

// A checkpoint that cannot be saved is tried again with some restraint, not after every commit: each try
// rebuilds a copy of the board from the last checkpoint and the log (up to 1.6 million entries, a second
// or more of a core) and logs "checkpoint failed", so a server whose disk is nearly full would spend a core
// on replays and flood its log for as long as judges post, one commit at a time.
func TestFailedCheckpointIsNotRetriedAtEveryCommit(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t, t.TempDir())
	defer db.Close()
	store := &fullCheckpointStore{DB: db}
	e := MustOpenEngine(t, store) // a checkpoint every 500 entries
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries[:500]); err != nil {
		t.Fatal(err)
	}
	// 60 commits of two entries, a judge's pace (tens of a second): each finds the checkpoint due.
	for i := 500; i < 620; i += 2 {
		if _, err := e.Submit(ctx, "c", entries[i:i+2]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := store.saves.Load(); n > 10 {
		t.Errorf("a checkpoint that could not be saved was tried %d times in 61 commits over %s: want a backoff, not a full rebuild of the board at every commit",
			n, 60*10*time.Millisecond)
	}
}
