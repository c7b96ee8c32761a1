package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"rankd"
)

// The database file deleted (or replaced) under a running server, by a clean-up job or an rm in the wrong
// directory: SQLite goes on writing into the open file, which no longer has a name, and every commit would
// be acknowledged and then lost at the next start. Each write (Append just before it commits) and Close
// check that the path still names the file opened; once it does not, the store refuses every write for good
// (until a restart) and saves a copy of what it holds, read through its open connection, beside the path:
// nothing acknowledged is lost.

// fileCheck remembers the file the store opened and what became of it.
type fileCheck struct {
	opened os.FileInfo // nil when the file could not be looked at after Open

	saving sync.WaitGroup // the copy being saved, which Close waits for

	mu      sync.Mutex
	gone    bool
	copying bool
	closed  bool   // no copy starts once Close waits for the one being saved
	saved   string // the copy's path, once saved
	err     error  // why the last try to save the copy failed
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
		now, err := os.Stat(db.path)
		if err == nil && os.SameFile(now, c.opened) || err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil // there, or not known to be gone (a transient error of the file system)
		}
		c.gone = true
	}
	if c.saved == "" && !c.copying && !c.closed {
		// Tried again at each write while none is saved: space freed, or the directory made again.
		c.copying = true
		c.saving.Go(db.saveCopy)
	}
	what := db.path + " was deleted or replaced while the server had it open: nothing more is stored"
	var cause error
	switch {
	case c.saved != "":
		cause = fmt.Errorf("sqlite: %s; a copy of the store as the server had it is saved as %s: stop the server, "+
			"move the copy to %s and start it again", what, c.saved, db.path)
	case c.err != nil:
		cause = fmt.Errorf("sqlite: %s, and a copy of the store could not be saved beside it (%w): keep the server "+
			"running and make room there (make the directory again, free some space); the copy is tried again at "+
			"the next write and at shutdown", what, c.err)
	default:
		cause = fmt.Errorf("sqlite: %s; a copy of the store as the server had it is being saved beside it", what)
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
	c.copying = false
	if err != nil {
		c.err = err
		_ = os.Remove(target) // a part written
		return
	}
	c.saved = target
	// Said once, now: the next write's error would say it too, but no write may come.
	db.logger.Error("the store's file was deleted or replaced while the server had it open: a copy of the store as the server had it is saved; stop the server, move the copy to the store's path and start it again",
		slog.String("copy", target), slog.String("store", db.path))
}

// closeFile looks at the file a last time as the store closes, and waits for the copy being saved: a file
// deleted while the server was idle (no write found it gone) is saved too.
func (db *DB) closeFile() {
	c := &db.file
	_ = db.checkFile()
	c.mu.Lock()
	c.closed = true // no copy starts from now on: Wait waits for all
	c.mu.Unlock()
	c.saving.Wait()
	c.mu.Lock()
	retry := c.gone && c.saved == ""
	c.mu.Unlock()
	if retry {
		db.saveCopy() // the last try, those before having failed
	}
}
