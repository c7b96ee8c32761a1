package sqlite

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"rankd"
)

// The database file deleted (or replaced) under a running server, by a clean-up job or an rm in the wrong
// directory: SQLite goes on writing into the open file, which no longer has a name, and every commit would
// be acknowledged and then lost at the next start. Each write first checks that the path still names the
// file opened, and once it does not, the store refuses every write for good (until a restart), and saves
// a copy of what it holds, read through its open connection, beside the path: nothing acknowledged is lost.

// fileCheck remembers the file the store opened and what became of it.
type fileCheck struct {
	opened os.FileInfo // nil when the file could not be looked at after Open

	saving sync.WaitGroup // the copy being saved, which Close waits for

	mu    sync.Mutex
	gone  bool
	saved string // the copy's path, once saved
	err   error  // why the copy could not be saved
}

// noteOpened records the file at the store's path, once it is open.
func (db *DB) noteOpened() {
	db.file.opened, _ = os.Stat(db.path)
}

// checkFile returns an error with code EUNAVAILABLE when the store's path no longer names the file it
// opened, and starts saving a copy of the store the first time it finds so.
func (db *DB) checkFile() error {
	c := &db.file
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.gone {
		if c.opened == nil {
			return nil
		}
		if now, err := os.Stat(db.path); err == nil && os.SameFile(now, c.opened) {
			return nil
		}
		c.gone = true
		c.saving.Go(db.saveCopy)
	}
	var cause error
	switch {
	case c.saved != "":
		cause = fmt.Errorf("sqlite: %s was deleted or replaced while the server had it open: nothing more is stored; "+
			"a copy of the store as the server had it is saved as %s: stop the server, move the copy to %s and start it again",
			db.path, c.saved, db.path)
	case c.err != nil:
		cause = fmt.Errorf("sqlite: %s was deleted or replaced while the server had it open: nothing more is stored, "+
			"and a copy of the store could not be saved (%w): keep the server running, free some space, and read /proc/<pid>/fd of the server for the open file",
			db.path, c.err)
	default:
		cause = fmt.Errorf("sqlite: %s was deleted or replaced while the server had it open: nothing more is stored; "+
			"a copy of the store as the server had it is being saved beside it", db.path)
	}
	return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the store cannot be written now (its file is gone); retry", Err: cause}
}

// saveCopy writes a copy of the store, as its open connection reads it (the deleted file and its WAL), to a
// new file beside the store's path.
func (db *DB) saveCopy() {
	target := db.path + ".saved-" + time.Now().UTC().Format("20060102T150405Z")
	_, err := db.write.ExecContext(context.Background(), `VACUUM INTO ?`, target)
	c := &db.file
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.err = err
		_ = os.Remove(target) // a part written
		return
	}
	c.saved = target
}
