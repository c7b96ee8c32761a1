package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/sqlite"
	"rankd/storetest"
)

// removeStoreFiles deletes the store's files as a clean-up job would.
func removeStoreFiles(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{sqlite.FileName, sqlite.FileName + "-wal", sqlite.FileName + "-shm"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// The files deleted while the store is idle, then the server stopped (a deploy, a reboot): no write came
// between to find the file gone, so Close looks at it and saves the copy (none was saved: every event
// acknowledged before was lost).
func TestReviewDeletedWhileIdleThenClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "a")}, nil); err != nil {
		t.Fatal(err)
	}
	removeStoreFiles(t, dir)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, sqlite.FileName+".saved-*"))
	if len(copies) != 1 {
		t.Errorf("the store's file deleted, then the store closed: got copies %q, want one holding the entry acknowledged", copies)
	}
}

// The data directory removed whole (rm -rf): the copy beside the path cannot be made, and the error tells
// the operator to make room there and keep the server running. Once the directory is back (or space freed),
// the copy is tried again at the next write and at Close (it was tried once only: what was acknowledged was
// lost when the server stopped).
func TestReviewFailedCopyIsTriedAgain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "a")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	write := func() error {
		_, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j2", "b")}, nil)
		return err
	}
	var msg string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := write()
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			t.Fatalf("a write after the directory was removed: got %v, want unavailable", err)
		}
		if msg = err.Error(); strings.Contains(msg, "could not be saved") || strings.Contains(msg, "is saved as") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the copy neither saved nor failed: %v", err)
		}
	}
	t.Logf("told: %s", msg)
	// The operator does as told: the directory (the space) is back, the server kept running.
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = write()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, sqlite.FileName+".saved-*"))
	if len(copies) != 1 {
		t.Errorf("with room for a copy again: got copies %q, want one: the copy is never tried again", copies)
	}
}

// Readers opened after the file was deleted (the pool grows under load) open the path anew: they created
// an empty database there and answered 500 (no such table). They now find no file, and answer unavailable,
// and no empty store is made at the path.
func TestReviewReadsAfterDeletion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tok := rankd.Token{Secret: "s3cr3t-s3cr3t-s3cr3t", Role: rankd.RoleAdmin, Name: "a"}
	if err := db.SaveToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	removeStoreFiles(t, dir)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	start := make(chan struct{})
	for range 16 {
		wg.Go(func() {
			<-start
			_, err := db.LookupToken(ctx, tok.Secret)
			mu.Lock()
			defer mu.Unlock()
			key := "ok"
			if err != nil {
				key = rankd.ErrorCode(err) + ": " + err.Error()
			}
			codes[key]++
		})
	}
	close(start)
	wg.Wait()
	_, statErr := os.Stat(filepath.Join(dir, sqlite.FileName))
	t.Logf("lookups of a stored token: %v; a new %s at the path: %v", codes, sqlite.FileName, statErr == nil)
	for key := range codes {
		if key != "ok" && !strings.HasPrefix(key, rankd.EUNAVAILABLE+": ") {
			t.Errorf("a token stored before the file was deleted: got %v, want it found by every lookup (or unavailable)", codes)
		}
	}
	if statErr == nil {
		t.Errorf("a new %s was made at the path by the store's readers", sqlite.FileName)
	}
}

// Only the WAL and its index deleted (a clean-up of "*-wal" files): rankd.db is still the file opened, so
// writes go on, into a WAL without a name. Are they in the store opened again?
func TestReviewWALDeleted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "a")}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{sqlite.FileName + "-wal", sqlite.FileName + "-shm"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j2", "b")}, nil)
	t.Logf("append after the WAL was deleted: %v", err)
	acked := err == nil
	// Readers opened meanwhile (a busy server) find no WAL.
	var lines []string
	err = db.Replay(ctx, "c1", 0, func(e *rankd.LogEntry) error { lines = append(lines, string(e.Data)); return nil })
	t.Logf("replay meanwhile: %q %v", lines, err)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	lines = nil
	if err := again.Replay(ctx, "c1", 0, func(e *rankd.LogEntry) error { lines = append(lines, string(e.Data)); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := map[bool]int{true: 2, false: 1}[acked]; len(lines) != want {
		t.Errorf("the store opened again holds %q, want the %d entries acknowledged", lines, want)
	}
}
