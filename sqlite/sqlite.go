// Package sqlite is rankd's embedded store: the event log, checkpoints, the submissions list and access tokens
// in one SQLite database file, through the pure-Go driver modernc.org/sqlite, so that a single rankd binary
// needs no server beside it.
//
// The database runs in WAL mode with synchronous=FULL: a commit is on disk when it returns, so an event is
// acknowledged only once it is durable. SQLite allows one writer at a time, so every write goes through one
// connection (calls queue for it) while reads use a pool of their own and never wait for writes.
//
// The log is stored in segments, one row per Append call, so that a call of thousands of entries costs a
// few B-tree writes rather than several per entry. What deduplication and the submissions list need is
// kept in memory per contest (an index, see index.go), read from the log's segments when first needed and
// kept up to date by Append and Submissions: its memory grows with the number of objects of the contests
// in use. The WAL
// is copied back into the database file (checkpointed) in the background, off Append's path.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"rankd"
)

// FileName is the name of the database file inside the directory given to Open.
const FileName = "rankd.db"

// busyTimeout is how long a statement waits for a lock another process holds (a backup, the sqlite3 shell)
// before it fails.
const busyTimeout = 5 * time.Second

// The store implements every store interface of rankd.
var (
	_ rankd.EventLog        = (*DB)(nil)
	_ rankd.CheckpointStore = (*DB)(nil)
	_ rankd.SubmissionStore = (*DB)(nil)
	_ rankd.TokenStore      = (*DB)(nil)
	_ rankd.ContestDeleter  = (*DB)(nil)
)

// DB is an open store. Its methods are safe for concurrent use.
type DB struct {
	path   string
	now    func() time.Time
	logger *slog.Logger
	write  *sql.DB // one connection: SQLite has one writer, so writes queue here rather than fail as busy
	read   *sql.DB // a pool of read-only connections; in WAL mode they read a snapshot without blocking
	stmts  stmts   // Append's statements, prepared on write

	mu      sync.Mutex        // guards indexes
	indexes map[string]*index // by contest id: the contests whose index was needed since Open

	// The WAL is checkpointed (copied into the database file) in the background, off Append's path, on a
	// connection of its own: Append adds what it wrote to walBytes and wakes the checkpointer once it
	// exceeds checkpointBytes. Checkpoints do not affect durability: a commit is durable in the WAL.
	ckpt     *sql.DB
	walBytes atomic.Int64
	kick     chan struct{} // never closed: Append may send to it while Close runs
	quit     chan struct{} // closed by Close
	stop     sync.Once
	done     chan struct{} // closed when the checkpointer returns

	file fileCheck // the file opened, and whether the path still names it
}

// checkpointBytes is how much Append writes to the WAL between two checkpoints (about SQLite's default of
// 1000 pages). Should the checkpointer fall behind, the writer checkpoints itself at writerCheckpointPages.
// The bytes counted are the entries': a batch's are about the pages it writes, but commits of single events
// write a few pages each for a hundred bytes, and leave the checkpoints to the writer. Counting pages instead
// (SQLite's count of the pages a connection wrote) was measured: no better, since those commits rewrite the
// same few pages (the log's last, its indexes'), which one checkpoint of the writer's copies once each.
// A WAL file that grew beyond walSizeLimit (readers kept it from being reused) is truncated to it when
// reused.
const (
	checkpointBytes       = 4 << 20
	writerCheckpointPages = 16000
	walSizeLimit          = 64 << 20
)

// Option configures Open.
type Option func(*DB)

// WithNow sets the clock that stamps stored entries, checkpoints and tokens; time.Now by default. Tests
// inject a fixed clock to compare what they read back.
func WithNow(now func() time.Time) Option {
	return func(db *DB) { db.now = now }
}

// WithLogger sets where the store says what an operator must know that no request is told (the copy it saved
// of a store whose file was deleted under it); nowhere by default.
func WithLogger(l *slog.Logger) Option {
	return func(db *DB) { db.logger = l }
}

// Open opens the store in directory dir, creating the directory and the database file FileName inside it
// when they do not exist, and brings the schema up to date. A database written by a newer rankd, whose schema
// this one does not know, is refused.
func Open(ctx context.Context, dir string, opts ...Option) (*DB, error) {
	if dir == "" {
		return nil, rankd.Errorf(rankd.EINVALID, "no data directory given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	db := &DB{path: filepath.Join(abs, FileName), now: time.Now, logger: slog.New(slog.DiscardHandler), indexes: make(map[string]*index)}
	if err := CheckWritable(db.path); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(db)
	}

	// The writer is opened first: it switches the file to WAL mode (a setting of the file, kept), which the
	// readers then find. BEGIN IMMEDIATE takes the write lock at the start of a transaction, so that one
	// that read first never fails to upgrade when another process wrote meanwhile. Temporary tables and
	// statement journals, if a statement needs one, live in memory rather than in temporary files.
	db.write, err = sql.Open("sqlite", dsn(db.path, "_txlock=immediate",
		"_pragma=journal_mode(WAL)", "_pragma=synchronous(FULL)", "_pragma=foreign_keys(1)",
		"_pragma=temp_store(MEMORY)", fmt.Sprintf("_pragma=wal_autocheckpoint(%d)", writerCheckpointPages),
		fmt.Sprintf("_pragma=journal_size_limit(%d)", walSizeLimit)))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxLifetime(0)
	db.write.SetConnMaxIdleTime(0)
	if err := db.checkPragmas(ctx); err != nil {
		_ = db.write.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		_ = db.write.Close()
		return nil, err
	}
	if err := db.stmts.prepare(ctx, db.write); err != nil {
		_ = db.Close()
		return nil, err
	}

	// Readers never create the file (mode=rw): opened after the file was deleted, they would make an empty
	// store, and answer that it has no tables.
	db.read, err = sql.Open("sqlite", dsn(db.path, "mode=rw", "_pragma=query_only(1)"))
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	db.read.SetMaxOpenConns(n)
	db.read.SetMaxIdleConns(n)
	if err := db.read.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}

	db.ckpt, err = sql.Open("sqlite", dsn(db.path, "_pragma=synchronous(FULL)"))
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	db.ckpt.SetMaxOpenConns(1)
	db.noteOpened()
	db.kick, db.quit, db.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go db.checkpointer()
	return db, nil
}

// CheckWritable refuses a database whose files exist but cannot be written: SQLite would open it read-only
// without a word, the server would say it is ready, and every event would fail to be stored (or every
// finalization job, for the jobs' file).
func CheckWritable(path string) error {
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlite: open: the store must be writable: %w", err)
		}
		_ = f.Close() // opened only to check the permission
	}
	return nil
}

// dsn returns the driver's data source name for the file at path with the given query parameters. The path
// is a file: URI, escaped, so that no character of it is taken for a parameter.
func dsn(path string, params ...string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if filepath.VolumeName(path) != "" {
		u.Path = "/" + u.Path // file:///C:/... on Windows
	}
	q := fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout.Milliseconds())
	for _, p := range params {
		q += "&" + p
	}
	return u.String() + "?" + q
}

// checkPragmas makes sure the writer runs with the settings the store's guarantees rest on: a file system
// without shared memory refuses WAL mode, and a setting the driver did not apply would go unnoticed.
func (db *DB) checkPragmas(ctx context.Context) error {
	var mode string
	var sync, fk int
	if err := db.write.QueryRowContext(ctx, "SELECT * FROM pragma_journal_mode, pragma_synchronous, pragma_foreign_keys").
		Scan(&mode, &sync, &fk); err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) {
			switch se.Code() & 0xff {
			case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
				// The first write of the start (the WAL's shared-memory file, rankd.db-shm) says little by
				// itself: "disk I/O error" reads as a failing disk, when the disk is most often full.
				return fmt.Errorf("sqlite: open %s: the store cannot be written (is its disk full, failing or read-only?): %w", db.path, err)
			}
		}
		return fail(ctx, "open "+db.path, err)
	}
	if mode != "wal" || sync != 2 || fk != 1 {
		return fmt.Errorf("sqlite: open %s: journal_mode=%s synchronous=%d foreign_keys=%d, want wal, 2 (full), 1",
			db.path, mode, sync, fk)
	}
	return nil
}

// Path returns the path of the database file.
func (db *DB) Path() string { return db.path }

// Close closes the store. Calls in progress finish first; later calls fail.
func (db *DB) Close() error {
	if db.write != nil {
		db.closeFile() // a store whose file was deleted: its copy, the last of what it holds
	}
	if db.quit != nil {
		db.stop.Do(func() { close(db.quit) })
		<-db.done
	}
	errs := []error{db.stmts.close()}
	if db.ckpt != nil {
		errs = append(errs, db.ckpt.Close())
	}
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	// The writer closes last: the last connection to close folds the WAL back into the database file.
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// wroteWAL records that Append wrote n bytes to the WAL, and wakes the checkpointer when it is time.
func (db *DB) wroteWAL(n int) {
	if db.walBytes.Add(int64(n)) < checkpointBytes {
		return
	}
	db.walBytes.Store(0)
	select {
	case db.kick <- struct{}{}:
	default: // a checkpoint is due already
	}
}

// checkpointer checkpoints the WAL each time it is woken, until Close. A PASSIVE checkpoint copies what
// no reader still needs and never blocks the writer; a failed one is retried at the next wake-up, the WAL
// meanwhile holding every commit.
func (db *DB) checkpointer() {
	defer close(db.done)
	for {
		select {
		case <-db.quit:
			return
		case <-db.kick:
			_, _ = db.ckpt.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}
}

// fail wraps err, the failure of operation op, for the caller. When ctx is done, its error is the cause
// (the driver reports an interrupted statement in its own words), so that callers can check it with errors.Is.
// A file that cannot be used now (a full disk, a read-only file system, a lock another process holds, a file
// that cannot be opened) gives an *rankd.Error with code EUNAVAILABLE, so that callers answer "retry later"
// rather than take it for a fault of theirs; the driver's words stay in the cause, for the log.
func fail(ctx context.Context, op string, err error) error {
	return classify(ctx, op, err, false)
}

// failWrite is fail for a write, for which an I/O error is the disk failing now (a file size limit, a disk
// full in its own words): retried, it may go through. A read's I/O error is a damaged file, which waiting
// does not cure: it stays internal, so that one damaged contest is set aside and the others are served.
func failWrite(ctx context.Context, op string, err error) error {
	return classify(ctx, op, err, true)
}

func classify(ctx context.Context, op string, err error, write bool) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("sqlite: %s: %w", op, cerr)
	}
	err = fmt.Errorf("sqlite: %s: %w", op, err)
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff { // the primary result code of an extended one
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_BUSY,
		sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOLFS, sqlite3.SQLITE_PROTOCOL:
	case sqlite3.SQLITE_IOERR:
		if !write {
			return err
		}
	default:
		return err
	}
	return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: errStoreFailing, Err: err}
}

// errStoreFailing is what users are told of a store whose file cannot be used now.
const errStoreFailing = "the store cannot be used now (its disk is full, failing or read-only, or its file is gone); retry"

// rollback ends tx if it is still open; after a commit it does nothing.
func rollback(tx *sql.Tx) {
	_ = tx.Rollback() // the error is sql.ErrTxDone after a commit, or the one that made us roll back
}

// unixNano is t as stored: nanoseconds since the epoch.
func unixNano(t time.Time) int64 { return t.UnixNano() }

// fromUnixNano is a stored time as a UTC time.
func fromUnixNano(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// closeRows closes rows when a read returns. Its error is not the caller's: what went wrong while reading
// is reported by rows.Err, checked before.
func closeRows(rows *sql.Rows) { _ = rows.Close() }
