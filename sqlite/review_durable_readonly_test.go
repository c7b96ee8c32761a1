package sqlite_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"rankd/sqlite"
)

// TestReadOnlyStoreRefused: a database whose files the server may not write (a backup restored with the
// wrong owner or mode) is refused at Open, naming the file. SQLite opened it read-only without a word: the
// server said it was ready, then answered every event 503 "retry" for ever.
func TestReadOnlyStoreRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only files: run as another user")
	}
	for _, name := range []string{sqlite.FileName, sqlite.FileName + "-wal"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			MustClose(t, MustOpen(t, dir))
			path := filepath.Join(dir, name)
			if name != sqlite.FileName {
				// Close removed the WAL; an empty one is what a crash leaves once it was checkpointed.
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(path, 0o400); err != nil {
				t.Fatal(err)
			}
			db, err := sqlite.Open(context.Background(), dir)
			if err == nil {
				MustClose(t, db)
				t.Fatalf("Open of a store whose %s is read-only: got no error, want one", name)
			}
			if !errors.Is(err, fs.ErrPermission) {
				t.Errorf("Open of a store whose %s is read-only: got %v, want a permission error", name, err)
			}
		})
	}
}
