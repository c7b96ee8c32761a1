package sqlite_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rankd"
	"rankd/sqlite"
	"rankd/storetest"
)

// The database file deleted under an open store: every write is refused (EUNAVAILABLE), none acknowledged into
// a file without a name, and a copy of what the store holds is saved beside the path, from which a store
// opened again reads every entry appended before.
func TestDeletedFileRefusesWritesAndKeepsACopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var logs bytes.Buffer // written once Close has waited for the copy
	db := MustOpen(t, dir, sqlite.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if _, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "a")}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{sqlite.FileName, sqlite.FileName + "-wal", sqlite.FileName + "-shm"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	writes := map[string]func() error{
		"append": func() error {
			_, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j2", "b")}, nil)
			return err
		},
		"checkpoint": func() error { return db.SaveCheckpoint(ctx, "c1", rankd.Checkpoint{Pos: 1, Data: []byte("x")}) },
		"token": func() error {
			return db.SaveToken(ctx, rankd.Token{Secret: "s3cr3t-s3cr3t-s3cr3t", Role: rankd.RoleAdmin, Name: "a"})
		},
		"delete": func() error { return db.DeleteContest(ctx, "c1") },
	}
	for name, write := range writes {
		if err := write(); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			t.Errorf("%s after the file was deleted: got %v, want an error with code %s", name, err, rankd.EUNAVAILABLE)
		}
	}
	MustClose(t, db) // waits for the copy
	copies, err := filepath.Glob(filepath.Join(dir, sqlite.FileName+".saved-*"))
	if err != nil || len(copies) != 1 {
		t.Fatalf("got copies %q (%v), want one", copies, err)
	}
	// Said as soon as it is saved: no write may come to say it.
	if !strings.Contains(logs.String(), "copy="+copies[0]) {
		t.Errorf("the log: got %q, want it to say where the copy is", logs.String())
	}
	if err := os.Rename(copies[0], filepath.Join(dir, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	again := MustOpen(t, dir)
	var lines []string
	if err := again.Replay(ctx, "c1", 0, func(e *rankd.LogEntry) error { lines = append(lines, string(e.Data)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "a" {
		t.Errorf("the saved copy holds %q, want [a]", lines)
	}
}
