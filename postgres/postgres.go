// Package postgres is rankd's store over PostgreSQL, for the distributed mode: the event log, checkpoints, the
// submissions list and access tokens in one database that several rankd nodes share, through pgx and its
// connection pool. It implements the same interfaces as package sqlite and passes the same conformance suite
// (package storetest).
//
// Every Append runs in one transaction that first locks its contest's row (SELECT ... FOR UPDATE): the calls
// of one contest, from any number of nodes, run one after another, so positions stay 1, 2, 3, ... without
// gaps, and deduplication (by token, by the hash of an object's latest version) reads a log nobody else is
// writing to. Calls for different contests do not wait for each other. An entry is acknowledged once its
// transaction has committed.
//
// Strings the database keeps as text (contest, object, submission, team and problem ids, tokens, names) must
// be valid UTF-8 without NUL bytes, as PostgreSQL requires; others are refused with EINVALID. Hashes and data
// are bytes and may hold anything.
//
// The schema is created and migrated by Open, from migrations embedded in the binary, in one transaction
// under an advisory lock: nodes starting together migrate once.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"rankd"
)

// The store implements every store interface of rankd.
var (
	_ rankd.EventLog        = (*DB)(nil)
	_ rankd.CheckpointStore = (*DB)(nil)
	_ rankd.SubmissionStore = (*DB)(nil)
	_ rankd.TokenStore      = (*DB)(nil)
	_ rankd.ContestDeleter  = (*DB)(nil)
)

// DB is an open store: a pool of connections to one database. Its methods are safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool

	// timeout bounds what a server does with db as it starts: Open, HoldExclusive and HoldShared (OpenTimeout but in tests);
	// closeWait bounds each step of Close (closeWait's value but in tests).
	timeout, closeWait time.Duration

	mu sync.Mutex // guards holding, shared, held and heldPID
	// holding says that HoldExclusive or HoldShared took the lock (shared: the second); held is the session
	// holding it (nil when it was lost and could not be taken again), heldPID its server process. A session
	// can be lost (the server restarted, the line was cut, an idle connection was dropped), and the lock with
	// it: Append checks that heldPID still holds it, and takes it again when it can (see relock).
	holding, shared bool
	held            *pgxpool.Conn
	heldPID         uint32
}

// OpenTimeout bounds Open as a whole (connecting, then bringing the schema up to date, which waits for another
// server's migration), and HoldExclusive: a database that does not answer within it (stopped, or beyond a network
// that drops packets) fails them with EUNAVAILABLE, rather than holding the server's start for ever. A database
// that is slow but alive answers them in well under a second.
const OpenTimeout = 20 * time.Second

// ConnectTimeout bounds each new connection of the store, at Open and later, unless the URL sets
// connect_timeout: without it, a connection to a server that accepts and never answers would wait for minutes.
const ConnectTimeout = 10 * time.Second

// Open connects to the database at url (a PostgreSQL URL or key=value string as libpq takes it, e.g.
// postgres://rankd@127.0.0.1:5432/rankd?sslmode=disable; pool settings such as pool_max_conns go in it too)
// and brings the schema up to date. Tables live in the first schema of the connection's search_path (which the
// URL may set: ...&search_path=rankd). A database written by a newer rankd, whose schema this one does not
// know, is refused. A server that cannot be reached, or does not answer within OpenTimeout: EUNAVAILABLE. Only
// the open is bounded so: later calls are bounded by their own contexts.
func Open(ctx context.Context, url string) (*DB, error) {
	return open(ctx, url, OpenTimeout)
}

// open is Open, bounded by timeout rather than OpenTimeout.
func open(ctx context.Context, url string, timeout time.Duration) (*DB, error) {
	if url == "" {
		return nil, rankd.Errorf(rankd.EINVALID, "no PostgreSQL URL given")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parser's message may repeat the URL, password included: it stays in the cause.
		return nil, &rankd.Error{Code: rankd.EINVALID, Message: "invalid PostgreSQL URL", Err: err}
	}
	if cfg.ConnConfig.ConnectTimeout <= 0 {
		cfg.ConnConfig.ConnectTimeout = ConnectTimeout // the pool's own default is 2 minutes
	}
	ctx, cancel := startup(ctx, timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fail(ctx, "open", err)
	}
	db := &DB{pool: pool, timeout: timeout, closeWait: closeWait}
	if err := db.migrate(ctx); err != nil {
		pool.Close() // nothing in use: the migration gave its connection back, or it was never made
		return nil, err
	}
	return db, nil
}

// noAnswer is the cause of the deadline of a start-up call (see startup): the database did not answer in time.
type noAnswer struct{ within time.Duration }

func (e noAnswer) Error() string { return fmt.Sprintf("no answer within %s", e.within) }

// Unwrap makes it a deadline, for errors.Is(err, context.DeadlineExceeded).
func (e noAnswer) Unwrap() error { return context.DeadlineExceeded }

// startup returns ctx bounded by timeout for a call made at start-up, so that a database that accepts
// connections and never answers fails it (fail then gives EUNAVAILABLE) rather than holding it for ever.
func startup(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, timeout, noAnswer{timeout})
}

// Pool returns the store's connection pool, for what keeps its own tables in the same database (the
// finalization jobs of package finalize).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// closeWait is how long Close waits for the connections in use to be given back, and for the lock of
// hold to be given up.
const closeWait = 5 * time.Second

// Close closes the store's connections, waiting at most a few seconds for those in use to be given back: a call
// still waiting for a database that stopped answering, under a context that has no deadline, must not hold the
// server's shutdown for ever. It then fails with EUNAVAILABLE, leaving those connections to be closed once
// their calls end. Later calls fail.
func (db *DB) Close() error {
	db.mu.Lock()
	db.release()
	db.holding = false // an Append in flight does not take the lock again
	db.mu.Unlock()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		db.pool.Close()
	}()
	t := time.NewTimer(db.closeWait)
	defer t.Stop()
	select {
	case <-closed:
		return nil
	case <-t.C:
		return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the database is unavailable",
			Err: fmt.Errorf("postgres: close: connections still in use after %s (%d), left to close when their calls end",
				db.closeWait, db.pool.Stat().AcquiredConns())}
	}
}

// release gives up the lock of hold, if db holds it; db.mu is held. It unlocks first: the server
// ends a closed session's backend, and with it the lock, only some time after the client has gone, so a
// successor starting at once would find it still taken. The session is then closed, not given back to the
// pool, in case the unlock failed.
func (db *DB) release() {
	if db.held == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), db.closeWait)
	defer cancel()
	unlock := `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`
	if db.shared {
		unlock = `SELECT pg_advisory_unlock_shared($1, hashtext(current_schema()))`
	}
	_, _ = db.held.Exec(ctx, unlock, exclusiveLock)
	_ = db.held.Hijack().Close(ctx)
	db.held, db.heldPID = nil, 0
}

// exclusiveLock is the first key of the advisory lock HoldExclusive and HoldShared take (the second is the
// schema's).
const exclusiveLock = 0x72616e6c // "ranl"

// HoldExclusive takes a lock of the database (of its schema) that one session at a time holds, until Close.
// A server that keeps its boards in its own memory takes it, so that a second one over the same database,
// whose boards would never see the first one's events, refuses to start (ECONFLICT), and so does a server of
// the distributed mode (see HoldShared). Should the session holding it be lost, Append takes the lock again
// before it stores anything, and fails with ECONFLICT while another server holds it. A server takes it as it
// starts: a database that does not answer within OpenTimeout fails it with EUNAVAILABLE.
func (db *DB) HoldExclusive(ctx context.Context) error { return db.hold(ctx, false) }

// HoldShared takes the lock of HoldExclusive shared, until Close: the servers of the distributed mode, which
// follow each other's events, hold it together, and a server of one's own (started without Redis) refuses
// to start beside them, as they refuse to start beside it (ECONFLICT): its board would not follow theirs, nor
// theirs its own.
func (db *DB) HoldShared(ctx context.Context) error { return db.hold(ctx, true) }

func (db *DB) hold(ctx context.Context, shared bool) error {
	ctx, cancel := startup(ctx, db.timeout)
	defer cancel()
	db.mu.Lock()
	defer db.mu.Unlock()
	db.shared = shared
	if err := db.lock(ctx); err != nil {
		return err
	}
	db.holding = true
	return nil
}

// lock takes the lock of hold on a session of its own; db.mu is held.
func (db *DB) lock(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fail(ctx, "hold the database", err)
	}
	try := `SELECT pg_try_advisory_lock($1, hashtext(current_schema()))`
	if db.shared {
		try = `SELECT pg_try_advisory_lock_shared($1, hashtext(current_schema()))`
	}
	var ok bool
	err = conn.QueryRow(ctx, try, exclusiveLock).Scan(&ok)
	if err != nil || !ok {
		conn.Release()
		switch {
		case err != nil:
			return fail(ctx, "hold the database", err)
		case db.shared:
			return rankd.Errorf(rankd.ECONFLICT, "another rankd serves this database on its own (started without Redis): "+
				"stop it before starting servers of the distributed mode over it")
		}
		return rankd.Errorf(rankd.ECONFLICT, "another rankd serves this database (on its own, or servers of the distributed mode: "+
			"to join these, start this one with their --redis)")
	}
	db.held, db.heldPID = conn, conn.Conn().PgConn().PID()
	return nil
}

// heldQuery reports whether the server process $2 holds the lock of hold.
const heldQuery = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1
	AND objid = hashtext(current_schema())::oid AND objsubid = 2 AND pid = $2 AND granted)`

// holderPID returns the server process that holds the lock of hold for db (0 when none does since it was
// lost), and whether db took the lock.
func (db *DB) holderPID() (uint32, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.heldPID, db.holding
}

// relock takes the lock of hold again after Append found that process pid no longer holds it: its session
// was lost. Another server that took it meanwhile (exclusively, or shared when it is exclusive): ECONFLICT.
func (db *DB) relock(ctx context.Context, pid uint32) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	switch {
	case !db.holding:
		return rankd.Errorf(rankd.EUNAVAILABLE, "the store is closed")
	case db.heldPID != pid:
		return nil // taken again by a call meanwhile
	}
	if db.held != nil {
		_ = db.held.Hijack().Close(ctx) // lost: nothing to unlock
		db.held, db.heldPID = nil, 0
	}
	return db.lock(ctx)
}

// fail wraps err, the failure of operation op, for the caller. When ctx is done, its error is the cause, so
// that callers can check it with errors.Is. A server that cannot be reached (down, restarting, refusing
// connections, a broken connection), or did not answer a start-up call in time (see startup), gives an
// *rankd.Error with code EUNAVAILABLE, so that callers answer "retry later"; any other failure is internal. The
// driver's message stays in the cause, never in the *rankd.Error's message.
func fail(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		var late noAnswer
		if cause := context.Cause(ctx); errors.As(cause, &late) {
			return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the database is unavailable",
				Err: fmt.Errorf("postgres: %s: %w", op, cause)}
		}
		return fmt.Errorf("postgres: %s: %w", op, cerr)
	}
	err = fmt.Errorf("postgres: %s: %w", op, err)
	if unavailable(err) {
		return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the database is unavailable", Err: err}
	}
	return err
}

// unavailable reports whether err says the server cannot be reached or cannot serve now, rather than that the
// request was wrong: what a retry later may cure.
func unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // shutting down, starting up
			return true
		case pgErr.Code == "53300": // too many connections
			return true
		case pgErr.Code == "25006": // read-only transaction: a standby, during a failover
			return true
		}
		// Any other answer of the server (a bad password, an unknown database too) is not cured by waiting.
		return false
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) ||
		pgconn.SafeToRetry(err)
}

// rollback ends tx if it is still open; after a commit it does nothing. It runs even when the call's ctx is
// done (the usual reason to roll back), with a time limit of its own; should it fail, the pool drops the
// connection, and the server rolls back when it sees it gone.
func rollback(ctx context.Context, tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = tx.Rollback(ctx) // pgx.ErrTxClosed after a commit, or the error that made us roll back
}

// checkText returns an EINVALID error naming what when s cannot be kept as text.
func checkText(what, s string) error {
	if !rankd.ValidText(s) {
		return rankd.Errorf(rankd.EINVALID, "%s is not valid UTF-8 text (or holds a NUL byte)", what)
	}
	return nil
}
