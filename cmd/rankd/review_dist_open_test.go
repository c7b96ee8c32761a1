package main_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/gen"
	"rankd/sqlite"
)

// blinkingStore is a store whose database goes away for a moment while a server starts: its first list of
// contests fails, and so does its first replay, after the first entry.
type blinkingStore struct {
	*sqlite.DB
	contests, replays atomic.Int32
}

var errBlink = rankd.Errorf(rankd.EUNAVAILABLE, "the database is unavailable")

func (s *blinkingStore) Contests(ctx context.Context) ([]string, error) {
	if s.contests.Add(1) == 1 {
		return nil, errBlink
	}
	return s.DB.Contests(ctx)
}

// LatestCheckpoint finds none: the restore replays the whole log.
func (s *blinkingStore) LatestCheckpoint(context.Context, string) (rankd.Checkpoint, error) {
	return rankd.Checkpoint{}, rankd.Errorf(rankd.ENOTFOUND, "no checkpoint")
}

func (s *blinkingStore) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	if s.replays.Add(1) > 1 {
		return s.DB.Replay(ctx, contestID, after, fn)
	}
	n := 0
	return s.DB.Replay(ctx, contestID, after, func(le *rankd.LogEntry) error {
		if n++; n > 1 {
			return errBlink
		}
		return fn(le)
	})
}

// A database that is unreachable for a moment while a server restores its contests delays the server's
// start, rather than leaving it never ready: the restore is tried again until it succeeds.
func TestEngineOpenOutlastsAStoreBlink(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, entries := genFeed(t, gen.Config{Seed: 2, ContestID: "blink", Teams: 10, Problems: 3, Submissions: 50}.WithDefaults())
	first := engine.New(db, nil)
	if err := first.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Submit(ctx, "blink", entries); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}

	e := engine.New(&blinkingStore{DB: db}, nil)
	defer e.Close(ctx)
	openCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := e.Open(openCtx); err != nil {
		t.Fatalf("open while the store blinks: got %v, want the contests restored once it is back", err)
	}
	if !e.Ready() {
		t.Fatal("not ready after Open")
	}
	err = e.Read("blink", func(_ *board.Board, pos int64) error {
		if pos != int64(len(entries)) {
			t.Errorf("restored at position %d, want %d", pos, len(entries))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
