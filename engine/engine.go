// Package engine runs the contests of one rankd server. It keeps a board per contest; makes every event
// durable in the log before it acknowledges it, many requests sharing one commit (group commit); restores
// the boards at start-up from their latest checkpoint and the log's tail; and serves reads under a
// per-contest lock, so that a reader never sees an event that is not on disk.
package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"rankd"
	"rankd/board"
	"rankd/ccs"
)

// Store is what the engine needs of a store.
type Store interface {
	rankd.EventLog
	rankd.CheckpointStore
}

// SharedLog is a log that other servers append to as well (see postgres.DB.AppendAfter): its append hands
// the caller, inside the transaction and before any accept, the entries after the caller's position.
type SharedLog interface {
	AppendAfter(ctx context.Context, contestID string, after int64, tail func([]rankd.LogEntry) error,
		entries []rankd.LogEntry, accept func(i int) error) ([]rankd.AppendResult, error)
}

// LogKeyer is a shared log that names each contest's log: a contest deleted and created again on another
// server has a new key, which tells a board of the old log from one of the new. LogKey returns 0 for a
// contest without a log. Its Append and Replay check the key rankd.WithLogKey gives them.
type LogKeyer interface {
	LogKey(ctx context.Context, contestID string) (int64, error)
}

// Defaults of the Engine's settings.
const (
	DefaultCheckpointEvery = 200000
	DefaultMaxBatch        = 10000
	// DefaultCommitTimeout bounds how long a commit (and a rebuild of a board from the log) waits on a store
	// that does not answer: a store that hangs fails the events, which the clients send again, rather than
	// holding the contest for good. Time spent applying events, however long, does not count.
	DefaultCommitTimeout = 30 * time.Second
)

// Engine holds the live contests of a server.
type Engine struct {
	// Now is the clock, for the events the engine makes itself (the end of a contest whose time is up) and
	// nothing else.
	Now func() time.Time
	// CheckpointEvery is how many log entries are applied between two checkpoints of a contest.
	CheckpointEvery int
	// MaxBatch bounds the entries of one commit.
	MaxBatch int
	// CommitTimeout bounds a commit; 0 is DefaultCommitTimeout.
	CommitTimeout time.Duration
	Logger        *slog.Logger
	// Notify, when set, is called with the diffs of each event applied, under the contest's write lock (so
	// before its commit is durable, and no reader sees the board until it is): it must not block, call
	// back into the engine or keep diffs. If the commit fails the board is rebuilt from the log, and the
	// rows these diffs named are to be read again.
	Notify func(contestID string, diffs []board.Diff)
	// Shared says that other servers append to the log too (distributed mode): the store must be a
	// SharedLog. Each commit then first applies what the others stored, and Sync follows the log.
	Shared bool
	// Projection, when set, is kept up to date with the boards' jury and public rows (see projector.go).
	Projection rankd.Projection
	// Limits, when set, checks a contest's definition as an event would leave it (a contest or problem
	// event), before the event is accepted: the distributed mode refuses a contest its projection cannot
	// hold exactly.
	Limits func(c rankd.Contest, problems []rankd.Problem) error
	// Deleted, when set, is called with the id of a contest once the engine no longer holds it: deleted by
	// Delete, or on another server of a shared log. It must not block or call back into the engine.
	Deleted func(contestID string)

	store   Store
	metrics *Metrics

	mu       sync.RWMutex
	contests map[string]*contest
	// failed holds the contests whose log could not be read back (a damaged store), with why: they answer
	// that they are unavailable, and the others are served.
	failed map[string]error
	closed bool
	// closing is closed by Close: requests waiting for room in a full queue give up, rather than hold Close
	// up for as long as a hanging store holds the queue.
	closing chan struct{}
	ready   atomic.Bool
	wg      sync.WaitGroup
	// background is cancelled by Close: it stops the checkpoints taken behind the committers, which Close
	// takes anew from the boards.
	background     context.Context
	stopBackground context.CancelFunc
	quiet          quiet
}

// quietEvery is how often a failure that repeats (a store down, failing every request) is logged.
const quietEvery = 10 * time.Second

// quiet keeps the log of failures that repeat readable: each kind is logged at most once per quietEvery.
type quiet struct {
	mu   sync.Mutex
	last map[string]time.Time
	kept int // keys left by the last sweep
}

// allow reports whether the failure named key may be logged now.
func (q *quiet) allow(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	if t, ok := q.last[key]; ok && now.Sub(t) < quietEvery {
		return false
	}
	if q.last == nil {
		q.last = make(map[string]time.Time)
	}
	if len(q.last) >= max(quietSweepAt, 2*q.kept) {
		// Keys name contests, and contests go: one logged over quietEvery ago is as if never logged. Swept
		// when the map has doubled since, so that many failing at once cost each look O(1).
		for k, t := range q.last {
			if now.Sub(t) >= quietEvery {
				delete(q.last, k)
			}
		}
		q.kept = len(q.last)
	}
	q.last[key] = now
	return true
}

// quietSweepAt is how many keys quiet holds before it forgets those logged over quietEvery ago.
const quietSweepAt = 64

// Quietly reports whether a failure that repeats while a store is down, named key (say "event feed c1"),
// may be logged now: each at most once per 10 s, so that the log stays readable.
func (e *Engine) Quietly(key string) bool { return e.quiet.allow(key) }

// New returns an engine over store, reporting to metrics (nil for none). Call Open before serving it.
func New(store Store, metrics *Metrics) *Engine {
	e := &Engine{
		Now:             time.Now,
		CheckpointEvery: DefaultCheckpointEvery,
		MaxBatch:        DefaultMaxBatch,
		Logger:          slog.New(slog.DiscardHandler),
		store:           store,
		metrics:         metrics,
		contests:        make(map[string]*contest),
		failed:          make(map[string]error),
		closing:         make(chan struct{}),
	}
	e.background, e.stopBackground = context.WithCancel(context.Background())
	if metrics != nil {
		metrics.attach(e)
	}
	return e
}

// Ready reports whether every stored contest has been restored and caught up with its log.
func (e *Engine) Ready() bool { return e.ready.Load() }

// Open restores every contest of the store: its latest checkpoint, then the log after it. A store that
// cannot be reached meanwhile (EUNAVAILABLE) is asked again, with backoff, until ctx is done or Close is
// called: a database restarting while a server starts delays it, rather than leaving it never ready.
func (e *Engine) Open(ctx context.Context) error {
	if _, ok := e.store.(SharedLog); e.Shared && !ok {
		return rankd.Errorf(rankd.EINVALID, "this store cannot be shared by several servers")
	}
	for wait := openRetryMin; ; wait = min(2*wait, openRetryMax) {
		err := e.open(ctx)
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			return err
		}
		e.Logger.Warn("restoring the contests failed; retrying", slog.Duration("in", wait), slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return err
		case <-e.closing:
			return err
		case <-time.After(wait):
		}
	}
}

// Bounds of the wait between two attempts of Open when the store cannot be reached.
const (
	openRetryMin = time.Second
	openRetryMax = 30 * time.Second
)

// open restores the contests of the store that the engine does not hold yet.
func (e *Engine) open(ctx context.Context) error {
	ids, err := e.store.Contests(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		e.mu.RLock()
		_, held := e.contests[id]
		e.mu.RUnlock()
		if held {
			continue // restored by an earlier attempt, or by a request for it (a shared log: see adopt)
		}
		begin := time.Now()
		c, err := e.restore(ctx, id)
		if err != nil {
			if !e.fail(ctx, id, err) {
				return err
			}
			continue
		}
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
		}
		if _, ok := e.contests[id]; ok {
			// Restored meanwhile by a request for it (a shared log: see adopt), with its own committer.
			e.mu.Unlock()
			continue
		}
		e.contests[id] = c
		e.start(c)
		e.mu.Unlock()
		e.Logger.Info("contest restored", slog.String("contest", id), slog.Int64("pos", c.pos),
			slog.Duration("took", time.Since(begin)))
	}
	e.ready.Store(true)
	return nil
}

// fail records that contest id could not be restored, unless err is one to try again (the store cannot
// be reached, or ctx is done); it reports whether it did. One damaged contest must not keep the others
// from being served.
func (e *Engine) fail(ctx context.Context, id string, err error) bool {
	if rankd.ErrorCode(err) == rankd.EUNAVAILABLE || ctx.Err() != nil {
		return false
	}
	e.mu.Lock()
	e.failed[id] = err
	e.mu.Unlock()
	e.Logger.Error("contest cannot be restored from its log: it is unavailable until its store is repaired and the server restarted; the others are served",
		slog.String("contest", id), slog.String("error", err.Error()))
	return true
}

// Close stops taking events, commits what is queued, checkpoints every contest and returns. It does not
// close the store.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.closing)
	e.ready.Store(false)
	all := make([]*contest, 0, len(e.contests))
	for _, c := range e.contests {
		all = append(all, c)
	}
	e.mu.Unlock()
	for _, c := range all {
		c.closeQueue(false)
	}
	e.stopBackground()
	stopped := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done():
		// What is still queued was never acknowledged: its clients send it again.
		return rankd.Errorf(rankd.EUNAVAILABLE, "gave up waiting for the commits in progress: %v", ctx.Err())
	}
	var errs []error
	for _, c := range all {
		if c.deleted {
			continue // deleted while Close waited: a checkpoint would outlive it
		}
		if err := e.checkpoint(ctx, c); err != nil {
			// Its code stays (a full disk: unavailable), the message says what it means to an operator.
			errs = append(errs, &rankd.Error{Code: rankd.ErrorCode(err), Err: err, Message: fmt.Sprintf(
				"contest %s: its checkpoint was not saved at shutdown (nothing is lost: the next start replays its log from the checkpoint before)", c.id)})
		}
	}
	return errors.Join(errs...)
}

// contest is one live contest. Its committer goroutine is the only writer of board and pos.
type contest struct {
	id    string
	queue chan *request
	// queueMu guards sending on queue against Close closing it; only this contest's senders wait on it,
	// so that a contest whose queue is full holds up no other.
	queueMu     sync.RWMutex
	queueClosed bool
	// deleted says that the contest was deleted (set with queueClosed): its requests are answered so.
	deleted bool
	// logKey is the key of the log the board was built from (see LogKeyer); 0 when the store names none or
	// the contest has stored nothing yet.
	logKey int64
	// deletedElsewhere says that the contest was deleted on another server, found so by a commit or a Sync
	// (written by the committer; read by the projector once the committer ended).
	deletedElsewhere bool

	// durable is held by a commit from its first apply until its entries are durable, and by readers
	// that must not see entries before they are (all but those of the public view: see ReadPublic), before
	// mu. A commit holds mu too, all along unless the public view did not change (see commit).
	durable sync.RWMutex
	mu      sync.RWMutex
	board   *board.Board
	pos     int64 // the log position the board has applied
	// moved is when the board last moved (applied an entry, or was restored), on a steady clock (see
	// Still); movedPos is c.pos then, under mu.
	moved     atomic.Int64
	movedPos  int64
	lastCheck atomic.Int64 // the position of the latest checkpoint
	began     atomic.Int64 // when the log began (see Fed), unix ns; 0 until read
	// checkpointing says that a checkpoint is being taken behind the committer (checkpointBehind).
	checkpointing atomic.Bool
	// After a checkpoint failed (a disk nearly full has room for commits, not for megabytes), none is tried
	// before checkRetry (unix ns); checkFailed counts the failures in a row, which double the wait.
	checkRetry  atomic.Int64
	checkFailed atomic.Int32
	// stale says that the board may hold events the log does not (a commit failed, and so did the rebuild
	// from the log, the store being down): nobody reads it, and the next commit rebuilds it first; a reader
	// that finds it stale asks for one (rebuildAsked: one request waits at most).
	stale        bool
	rebuildAsked atomic.Bool

	// public is what the public may know of the board now, readable without the lock.
	public atomic.Pointer[Public]

	proj projectorState

	// gauges are the board's metrics as last read (see Metrics.Collect).
	gauges atomic.Pointer[gauges]
}

// rlock takes c's board for reading as far as it is durable (see durable).
func (c *contest) rlock() {
	c.durable.RLock()
	c.mu.RLock()
}

func (c *contest) runlock() {
	c.mu.RUnlock()
	c.durable.RUnlock()
}

// Public is what anyone may know of a contest's board at a moment: the public view's sequence number and
// the contest's definition and state.
type Public struct {
	Seq     uint64
	Contest rankd.Contest
	State   rankd.State
	// RevealDone says that the stepwise reveal is complete (see board.Board.RevealDone).
	RevealDone bool
}

// publish makes the board's public facts readable without the lock, and notes when the board moved; it runs
// with the lock held.
func (c *contest) publish() {
	// Settled here, by the writer, once per batch: readers then find every row in place.
	c.board.Settle()
	c.public.Store(&Public{Seq: c.board.Seq(rankd.PublicView), Contest: c.board.Contest(), State: c.board.State(),
		RevealDone: c.board.RevealDone()})
	if c.pos != c.movedPos || c.moved.Load() == 0 {
		c.movedPos = c.pos
		c.moved.Store(int64(time.Since(epoch)))
	}
}

// epoch starts the steady clock of contest.moved.
var epoch = time.Now()

// Still returns how long a contest's board has been as it is: since it last applied an entry (of this
// server's commits, or of other servers' in the shared log) or was restored. A feed sent after its contest's
// end (an import, a follow catching up) keeps it moving: what the server does at a contest's end waits for
// it to be still (see cmd/rankd's scheduler, and package finalize).
func (e *Engine) Still(contestID string) (time.Duration, error) {
	e.mu.RLock()
	c, ok := e.contests[contestID]
	e.mu.RUnlock()
	if !ok {
		return 0, e.unknown(contestID)
	}
	return time.Since(epoch) - time.Duration(c.moved.Load()), nil
}

// Public returns what anyone may know of a contest's board now, without waiting for a commit in progress:
// a public reader's time then says nothing of what the jury's board is doing.
func (e *Engine) Public(contestID string) (Public, bool) {
	e.mu.RLock()
	c, ok := e.contests[contestID]
	e.mu.RUnlock()
	if !ok {
		return Public{}, false
	}
	p := c.public.Load()
	if p == nil || p.Contest.ID == "" {
		return Public{}, false
	}
	return *p, true
}

// request is one call of Submit waiting for its commit.
type request struct {
	// sync asks the committer to apply what other servers stored (see Sync); a sync request has no entries.
	sync bool
	// del asks the committer to delete the contest (see Delete), or with forget to forget it (deleted on
	// another server); such a request has no entries.
	del, forget bool
	entries     []rankd.LogEntry
	check       Check // asked of each entry as it commits; nil: none
	results     []Result
	err         error
	done        chan struct{}
}

// Check is asked of each event of a batch as the batch commits, before the board applies it, with the board at
// the log's end: the events other servers stored applied, and the batch's events before it. An error refuses
// the event (nothing stored), as the board's own refusals do. i numbers the batch's events from 0. A caller
// that built its events from what it read of the board checks here that nothing changed since: in the
// distributed mode another server may store a change between the read and the commit. It runs on the
// contest's committer, its board locked: it must be quick and must not read the engine.
type Check func(b *board.Board, i int) error

// restore builds a contest's board from its latest checkpoint and the log after it.
func (e *Engine) restore(ctx context.Context, id string) (*contest, error) {
	c, err := e.load(ctx, id)
	if err != nil {
		return nil, err
	}
	c.publish()
	return c, nil
}

// load builds a contest's board from its latest checkpoint and the log after it, and publishes nothing.
func (e *Engine) load(ctx context.Context, id string) (*contest, error) {
	return e.loadWatched(ctx, id, nil)
}

// loadWatched is load calling progress (when not nil) as the log is read and applied.
func (e *Engine) loadWatched(ctx context.Context, id string, progress func()) (*contest, error) {
	c := &contest{id: id, queue: make(chan *request, 1024)}
	if k, ok := e.store.(LogKeyer); ok {
		// Read first: a log created again after it is found by the next commit or look at the log.
		key, err := k.LogKey(ctx, id)
		if err != nil {
			return nil, err
		}
		c.logKey = key
	}
	cp, err := e.store.LatestCheckpoint(ctx, id)
	switch {
	case err == nil:
		b, rerr := board.Restore(cp.Data)
		if rerr == nil {
			rerr = e.logReaches(ctx, id, cp)
		}
		if rerr == nil {
			c.board, c.pos = b, cp.Pos
			c.lastCheck.Store(cp.Pos)
			break
		}
		// A checkpoint that does not restore is only a lost shortcut: the log rebuilds it all.
		e.Logger.Warn("checkpoint refused, replaying the whole log", slog.String("contest", id),
			slog.String("error", rerr.Error()))
		c.board = board.New()
	case rankd.ErrorCode(err) == rankd.ENOTFOUND:
		c.board = board.New()
	default:
		return nil, err
	}
	if err := e.replay(ctx, c, progress); err != nil {
		return nil, err
	}
	return c, nil
}

// logReaches checks that a contest's log holds the entry a checkpoint was taken at, stored before the
// checkpoint was: a checkpoint further on than the log, or saved before its entry was stored, is of another
// log of the contest's id (one deleted, its checkpoint saved by a server that had not heard yet), not a
// shortcut into this one.
func (e *Engine) logReaches(ctx context.Context, id string, cp rankd.Checkpoint) error {
	if cp.Pos == 0 {
		return nil
	}
	le, ok, err := e.entryAt(ctx, id, cp.Pos)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("the checkpoint is at log position %d, beyond the log's end", cp.Pos)
	case le.Pos != cp.Pos:
		return fmt.Errorf("the checkpoint is at log position %d, and the log goes on at %d", cp.Pos, le.Pos)
	case le.Stored.After(cp.Saved):
		return fmt.Errorf("the checkpoint at log position %d was saved before that entry was stored", cp.Pos)
	}
	return nil
}

// replay applies the log of c after c.pos to c.board, reporting no change (a board being built), and calls
// progress (when not nil) for each entry read. The log's lines are streamed through one feed reader, the way
// a feed file is read.
func (e *Engine) replay(ctx context.Context, c *contest, progress func()) error {
	pr, pw := io.Pipe()
	go func() {
		// Buffered, so that the pipe hands over blocks of lines rather than each line (a goroutine switch).
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := e.store.Replay(ctx, c.id, c.pos, func(le *rankd.LogEntry) error {
			if progress != nil {
				progress() // read: the apply side, slow, holds the reads back through the pipe
			}
			if _, err := bw.Write(le.Data); err != nil {
				return err
			}
			return bw.WriteByte('\n')
		})
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			err = readError{err}
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	return e.applyLog(c, pr, false, progress)
}

// readError is a failure to read the log (the store, not an entry of it): the board then holds the entries
// before it, exactly, and c.pos says so.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// applyLog applies to c.board the log lines of r, which follow c.pos, calling progress (when not nil) for
// each. A readError of r is returned as it is, c.pos counting the lines applied before it.
func (e *Engine) applyLog(c *contest, r io.Reader, notify bool, progress func()) error {
	// Parsing runs on one core while the board applies on another.
	// Not cancelled midway: a board is applied a log to its end, or rebuilt.
	_, err := ccs.Pipeline(context.Background(), r, func(ev *rankd.Event, _ int, err error) error {
		if errors.As(err, new(readError)) {
			return err
		}
		var ch *board.Change
		if err == nil {
			ch, err = c.board.Apply(ev)
		}
		if err != nil {
			// Every line of the log was accepted once: one refused now means the log is damaged.
			return rankd.Errorf(rankd.EINTERNAL, "contest %s: log entry %d: %w", c.id, c.pos+1, err)
		}
		c.pos++
		if notify {
			e.changed(c, ch)
		}
		if progress != nil {
			progress()
		}
		return nil
	})
	return err
}

// applyTail applies entries that other servers stored, which follow c.pos.
func (e *Engine) applyTail(c *contest, entries []rankd.LogEntry) error {
	if len(entries) > 0 && entries[0].Pos != c.pos+1 {
		return rankd.Errorf(rankd.EINTERNAL, "contest %s: the log goes on at %d, not at %d", c.id, entries[0].Pos, c.pos+1)
	}
	var buf bytes.Buffer
	for i := range entries {
		buf.Write(entries[i].Data)
		buf.WriteByte('\n')
	}
	return e.applyLog(c, &buf, true, nil)
}

// changed reports what an applied event changed: to Notify, and to the projector.
func (e *Engine) changed(c *contest, ch *board.Change) {
	if len(ch.Diffs) == 0 {
		return
	}
	if e.Notify != nil {
		e.Notify(c.id, ch.Diffs)
	}
	if e.Projection != nil {
		c.proj.touch(ch.Diffs)
	}
}

// start runs the committer of c.
func (e *Engine) start(c *contest) {
	if e.Projection != nil {
		c.proj.signal = make(chan struct{}, 1) // before the committer, which kicks it
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.commitLoop(c)
		if e.Projection != nil {
			close(c.proj.signal)
		}
	}()
	if e.Projection != nil {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.projectLoop(c)
			if c.deleted && !c.deletedElsewhere {
				e.deleteProjectionAgain(c.id)
			}
		}()
	}
}

// commitLoop takes the queued requests of c, as many as are waiting, and commits them together. A deletion
// is done alone, after the requests queued before it: once it is done the loop ends.
func (e *Engine) commitLoop(c *contest) {
	var batch []*request
	for req := range c.queue {
		var del *request
		if req.del {
			del = req
		} else {
			batch = append(batch[:0], req)
			n := len(req.entries)
		drain:
			for n < e.MaxBatch {
				select {
				case more, ok := <-c.queue:
					if !ok {
						break drain
					}
					if more.del {
						del = more
						break drain
					}
					batch = append(batch, more)
					n += len(more.entries)
				default:
					break drain
				}
			}
			if !e.commit(c, batch) {
				answer(batch)
			}
			if c.deletedElsewhere {
				if del == nil {
					del = &request{del: true, done: make(chan struct{})}
				}
				del.forget = true
			}
		}
		if del != nil {
			if e.deleteNow(c, del) {
				return
			}
			continue
		}
		if last := c.lastCheck.Load(); !c.stale && c.pos-last >= e.checkpointGap(last) && c.checkpointDue() && c.checkpointing.CompareAndSwap(false, true) {
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				defer c.checkpointing.Store(false)
				e.checkpointBehind(c)
			}()
		}
	}
}

func (e *Engine) commitTimeout() time.Duration { return cmp.Or(e.CommitTimeout, DefaultCommitTimeout) }

// checkpointGap returns how many entries after a checkpoint at position last the next one is due:
// CheckpointEvery, or as many as the last one held, up to 8 times CheckpointEvery. A checkpoint's cost
// grows with the board, so that the cost per entry stays bounded, as does the replay after a restart.
func (e *Engine) checkpointGap(last int64) int64 {
	every := int64(e.CheckpointEvery)
	return min(max(every, last), 8*every)
}

// checkpointBehind takes a checkpoint of c without holding up its commits: it builds a copy of the board
// from the latest checkpoint and the log after it (what a restart would do) and stores that. Encoding the
// live board would hold its lock, and every commit with it, for as long (a second at a million
// submissions).
func (e *Engine) checkpointBehind(c *contest) {
	ctx := e.background
	begin := time.Now()
	fresh, err := e.load(ctx, c.id)
	if err == nil && ctx.Err() == nil {
		var data []byte
		if data, err = fresh.board.Checkpoint(); err == nil {
			err = e.saveCheckpoint(ctx, c, rankd.Checkpoint{Pos: fresh.pos, Data: data})
		}
	}
	if ctx.Err() != nil {
		return // closing
	}
	if err != nil {
		// Each try rebuilds a board from the log, a second or more of a core at a large contest: tried again
		// at every commit, a store failing every checkpoint would keep a core busy and flood the log.
		wait := min(checkRetryMin<<min(c.checkFailed.Add(1)-1, 10), checkRetryMax)
		c.checkRetry.Store(time.Now().Add(wait).UnixNano())
		e.Logger.Error("checkpoint failed", slog.String("contest", c.id), slog.Duration("retry_in", wait), slog.String("error", err.Error()))
		return
	}
	c.checkFailed.Store(0)
	c.checkRetry.Store(0)
	e.Logger.Debug("checkpoint taken", slog.String("contest", c.id), slog.Int64("pos", fresh.pos),
		slog.Duration("took", time.Since(begin)))
}

// Bounds of the wait before a checkpoint is tried again after one failed.
const (
	checkRetryMin = 10 * time.Second
	checkRetryMax = 10 * time.Minute
)

// checkpointDue reports whether a checkpoint may be tried now: no earlier one failed, or the wait after it
// is over.
func (c *contest) checkpointDue() bool {
	retry := c.checkRetry.Load()
	return retry == 0 || time.Now().UnixNano() >= retry
}

// answer tells the requests of a batch that their commit is over.
func answer(batch []*request) {
	for _, r := range batch {
		r.entries = nil // stored: a large request waiting for its last parts need not hold its first ones
		close(r.done)
	}
}

// commit appends the entries of a batch of requests in one transaction, applying each to the board as
// the store accepts it; the board's lock is held until the entries are durable. It reports whether it
// answered the requests itself (see answer).
func (e *Engine) commit(c *contest, batch []*request) (answered bool) {
	entries := batch[0].entries
	if len(batch) > 1 {
		n := 0
		for _, r := range batch {
			n += len(r.entries)
		}
		entries = make([]rankd.LogEntry, 0, n)
		for _, r := range batch {
			entries = append(entries, r.entries...)
		}
	}
	// A commit is given up when the store stops answering for the commit timeout, not when applying its
	// events takes longer (a batch of many submissions in one cell): it failed, and its board was rebuilt.
	ctx, progress, cancel := stallContext(context.Background(), e.commitTimeout())
	defer cancel()
	if len(entries) == 0 && !c.stale { // the committer alone writes stale
		// Sync requests only. They come every second in the distributed mode: the projector is woken only
		// when they moved the board, or its idle check (a Redis flushed) would never come.
		c.rebuildAsked.Store(false)
		before := c.pos
		if err := e.follow(ctx, c); err != nil {
			for _, r := range batch {
				r.err = err
			}
		}
		if c.pos != before {
			c.proj.kick()
		}
		return
	}
	defer c.proj.kick()
	begin := time.Now()
	seqs := make([]uint64, len(entries))
	c.durable.Lock()
	defer c.durable.Unlock()
	c.mu.Lock()
	locked := true
	defer func() {
		if locked {
			c.mu.Unlock()
		}
	}()
	c.rebuildAsked.Store(false) // this commit rebuilds a stale board first
	if c.stale {
		if e.rebuild(c); c.stale {
			e.notStored(batch)
			return
		}
	}
	if len(entries) == 0 {
		return // rebuilt: at the log's end
	}
	// Once every entry is applied, readers of the public view need not wait for the disk when the entries,
	// submissions and judgements, left it as it was: they read what they read before (see ReadPublic).
	public, judging := c.board.Seq(rankd.PublicView), true
	var notes []string // what the senders of accepted events are told of them, by entry
	var now time.Time  // the clock, read once for the submissions of the batch (see outsideContest)
	check := checksOf(batch)
	accept := func(i int) error {
		progress()
		if t := entries[i].Event.Type; t != rankd.EventSubmission && t != rankd.EventJudgement {
			judging = false
		}
		if err := check(c.board, i); err != nil {
			return err
		}
		if err := e.checkLimits(c.board, &entries[i].Event); err != nil {
			return err
		}
		if err := c.board.Admit(&entries[i].Event); err != nil {
			return err
		}
		// Timing every event would cost a tenth of its apply (reading the clock is slow on virtual machines).
		timed := i%applySample == 0
		var applyBegin time.Time
		if timed {
			applyBegin = time.Now()
		}
		ch, err := c.board.Apply(&entries[i].Event)
		if timed {
			e.metrics.observeApply(time.Since(applyBegin))
		}
		if err != nil {
			return err
		}
		seqs[i] = c.board.Seq(rankd.JuryView)
		e.changed(c, ch)
		if entries[i].Event.Type == rankd.EventSubmission && now.IsZero() {
			now = e.Now()
		}
		if note := outsideContest(c.board, &entries[i].Event, now); note != "" {
			if notes == nil {
				notes = make([]string, len(entries))
			}
			notes[i] = note
		}
		return nil
	}
	ctx = rankd.WithDecided(ctx, func() {
		if locked && judging && c.board.Seq(rankd.PublicView) == public { // once, whatever the store
			c.board.Settle()
			c.mu.Unlock()
			locked = false
		}
	})
	var results []rankd.AppendResult
	var err error
	// A log that can say what others appended is asked even when nobody else should append (a server
	// that lost its hold of the database, and another that took it meanwhile): the board stays the log's.
	logKey := c.logKey
	ctx = rankd.WithLogKey(ctx, &logKey)
	if shared, ok := e.store.(SharedLog); ok {
		results, err = shared.AppendAfter(ctx, c.id, c.pos, func(tail []rankd.LogEntry) error {
			return e.applyTail(c, tail)
		}, entries, accept)
	} else {
		results, err = e.store.Append(ctx, c.id, entries, accept)
	}
	if !locked {
		c.mu.Lock()
		locked = true
	}
	e.metrics.observeCommit(time.Since(begin), len(entries))
	if isDeleted(err) {
		// Deleted on another server since this board read the log, and perhaps created again: the committer
		// forgets it next, and the senders' retry finds the contest as the log has it now, or none.
		for _, r := range batch {
			r.err = rankd.Errorf(rankd.EUNAVAILABLE, "contest %q was deleted on another server since this one read it; retry", c.id)
		}
		answer(batch)
		c.deletedElsewhere = true
		return true
	}
	if err != nil {
		e.Logger.Error("commit failed", slog.String("contest", c.id), slog.Int("entries", len(entries)),
			slog.String("error", err.Error()))
		// The senders are told at once, not after the rebuild: a store that hangs would have made them wait
		// twice its timeout, beyond a judge's own.
		e.notStored(batch)
		answer(batch)
		// The board may hold events the log does not: build it again from what is durable.
		e.rebuild(c)
		return true
	}
	if logKey != 0 {
		c.logKey = logKey
	}
	i := 0
	for _, r := range batch {
		for j := range r.results {
			r.results[j] = resultOf(results[i])
			e.metrics.countIngest(r.results[j].Status)
			if results[i].Err == nil && !results[i].Duplicate {
				if notes != nil && notes[i] != "" {
					r.results[j].Message = strings.TrimPrefix(r.results[j].Message+"; "+notes[i], "; ")
				}
				c.pos = results[i].Pos
				r.results[j].Seq = seqs[i]
			}
			i++
		}
	}
	c.publish()
	return false
}

// checksOf returns the Check of a batch's entries, numbered across its requests: each request's own, asked
// with the entry's number within the request.
func checksOf(batch []*request) func(b *board.Board, i int) error {
	checked := false
	for _, r := range batch {
		checked = checked || r.check != nil
	}
	if !checked {
		return func(*board.Board, int) error { return nil }
	}
	// The store asks for the entries in order: the request holding entry i is found from the last one's.
	k, start := 0, 0
	return func(b *board.Board, i int) error {
		if i < start {
			k, start = 0, 0
		}
		for k < len(batch) && i >= start+len(batch[k].entries) {
			start += len(batch[k].entries)
			k++
		}
		if k == len(batch) || batch[k].check == nil {
			return nil
		}
		return batch[k].check(b, i-start)
	}
}

// ingestUnavailable is the ingest counter's status of events that could not be stored.
const ingestUnavailable = "unavailable"

// notStored fails the requests of a batch whose events could not be stored, counting them.
func (e *Engine) notStored(batch []*request) {
	for _, r := range batch {
		r.err = rankd.Errorf(rankd.EUNAVAILABLE, "the events could not be stored; retry")
		for range r.entries {
			e.metrics.countIngest(ingestUnavailable)
		}
	}
}

// outsideContest returns, for a submission b's contest does not count because it was made before its start
// or at or after its end, what its sender is told: it is stored and listed, and a judge with a clock off (or
// a mistake of contest_time) learns of it; the same for one made later than the contest's time at now (by
// more than a minute), which counts, ahead of its time. "" for any other event.
func outsideContest(b *board.Board, ev *rankd.Event, now time.Time) string {
	if ev.Type != rankd.EventSubmission || ev.Delete || ev.Submission == nil {
		return ""
	}
	c := b.Contest()
	switch t := ev.Submission.Time; {
	case t < 0:
		return fmt.Sprintf("stored, and counts on no board: contest_time %s is before the contest's start", ccs.FormatRelTime(t))
	case t >= c.Duration:
		return fmt.Sprintf("stored, and counts on no board: contest_time %s is at or after the contest's end (%s)",
			ccs.FormatRelTime(t), ccs.FormatRelTime(c.Duration))
	case !b.Start().IsZero() && t > now.Sub(b.Start())+time.Minute:
		return fmt.Sprintf("stored: contest_time %s is ahead of the contest's clock (%s now): a judge's clock off, or a mistake of contest_time?",
			ccs.FormatRelTime(t), ccs.FormatRelTime(now.Sub(b.Start()).Truncate(time.Second)))
	}
	return ""
}

// followChunk bounds the bytes of log lines that follow reads before applying them.
const followChunk = 4 << 20

// follow applies what other servers stored after c.pos. The log is read without c's lock, in chunks
// applied under it: a store slow to answer, or silent, holds up no reader of the board, which meanwhile
// holds what the log does, only behind. The committer alone calls it. A failure to read the log leaves the
// board as it is, behind, and is returned; an entry the board refuses has it rebuilt from the log.
func (e *Engine) follow(ctx context.Context, c *contest) error {
	keyer, named := e.store.(LogKeyer)
	// A log that names its logs checks that the entries it reads are of the board's (and names the log for
	// a board that has none yet): another log of the id, or none, means the contest was deleted on another
	// server, and the committer forgets this board.
	key := c.logKey
	if named {
		ctx = rankd.WithLogKey(ctx, &key)
		defer func() { // under the lock, for the projector
			c.mu.Lock()
			c.logKey = key
			c.mu.Unlock()
		}()
	}
	for {
		var buf bytes.Buffer
		first, n := int64(0), 0
		err := e.store.Replay(ctx, c.id, c.pos, func(le *rankd.LogEntry) error {
			if n == 0 {
				first = le.Pos
			}
			n++
			buf.Write(le.Data)
			buf.WriteByte('\n')
			if buf.Len() >= followChunk {
				return errEnough
			}
			return nil
		})
		more := errors.Is(err, errEnough)
		if isDeleted(err) {
			c.deletedElsewhere = true
			return nil
		}
		if err != nil && !more {
			if e.quiet.allow("follow " + c.id) {
				e.Logger.Warn("following the log failed", slog.String("contest", c.id), slog.String("error", err.Error()))
			}
			return err
		}
		if n == 0 {
			// Nothing after the board's position: nothing new, or another log of the id, shorter.
			if named && c.logKey != 0 {
				switch now, err := keyer.LogKey(ctx, c.id); {
				case err != nil:
					return err
				case now != c.logKey:
					c.deletedElsewhere = true
				}
			}
			return nil
		}
		c.mu.Lock()
		if first != c.pos+1 {
			err = rankd.Errorf(rankd.EINTERNAL, "contest %s: the log goes on at %d, not at %d", c.id, first, c.pos+1)
		} else {
			err = e.applyLog(c, &buf, true, nil)
		}
		if err != nil {
			e.Logger.Error("following the log failed", slog.String("contest", c.id), slog.String("error", err.Error()))
			e.rebuild(c)
		}
		c.publish()
		c.mu.Unlock()
		if err != nil || !more {
			return nil
		}
	}
}

// applySample is how often an event's apply is timed for rankd_apply_seconds: the first of each batch and
// every applySample-th after it.
const applySample = 16

// checkLimits checks, with Limits, the contest's definition as ev would leave it.
func (e *Engine) checkLimits(b *board.Board, ev *rankd.Event) error {
	if e.Limits == nil || ev.Delete && ev.Type == rankd.EventContest {
		return nil
	}
	c, problems := b.Contest(), b.Problems()
	switch {
	case ev.Type == rankd.EventContest && ev.Contest != nil:
		c = *ev.Contest
	case ev.Type == rankd.EventProblem:
		problems = slices.DeleteFunc(problems, func(p rankd.Problem) bool { return p.ID == ev.ID })
		if !ev.Delete && ev.Problem != nil {
			problems = append(problems, *ev.Problem)
		}
	default:
		return nil
	}
	if c.ID == "" {
		return nil // no contest yet: the board refuses the event
	}
	return e.Limits(c, problems)
}

// CheckFreeze refuses a change of board b's contest that would move the freeze of its public board later
// once frozen (at now): the verdicts between the two would go public. The change is a new definition nc or a
// new state ns (nil: unchanged). A later freeze time is refused, and while the contest runs (by the clock, its
// end not recorded), so is a start moved later or taken back, in the definition or in the state's started
// (the start that counts, rankd.StartOf): the times judges send from then on are read from the new start, so
// that what is made after the freeze would count before it. (A start moved after the end, as a feed of a past
// contest replays its delays and paused countdowns, moves nothing the public sees.) Once a reveal step is
// made, the freeze may not move at all (earlier, it would hide again what the public saw revealed). Whoever
// sends it is refused: an admin's change, or a judge sending its contest again (a source extending a frozen
// contest without lengthening its freeze, or undoing a freeze made by hand). The server asks it of the
// contests and states it is sent, not of its own thaw's (which lifts the freeze by hand), nor of the log's: a
// log replays as it was stored.
func CheckFreeze(b *board.Board, nc *rankd.Contest, ns *rankd.State, now time.Time) error {
	c, st := b.Contest(), b.State()
	if nc == nil {
		nc = &c
	} else {
		redefined := b.Redefined(*nc) // a CCS source's contest keeps rankd's extension (hide_until_end)
		nc = &redefined
	}
	if ns == nil {
		ns = &st
	}
	from, to := hideTime(&c), hideTime(nc)
	steps, _, _ := b.Reveal()
	if steps > 0 && to != from {
		return rankd.Errorf(rankd.ECONFLICT, "contest %q is being revealed (%d steps made): its freeze (from %s) "+
			"cannot move now; POST .../thaw shows the rest", c.ID, steps, ccs.FormatRelTime(from))
	}
	frozen, running := frozenNow(b, now)
	if !frozen {
		return nil
	}
	if to > from && c.HidesUntilEnd() {
		return rankd.Errorf(rankd.ECONFLICT, "contest %q hides every result from the public until its end "+
			"(hide_until_end), and this change would show them now: keep rules oi or ioi with hide_until_end "+
			"until the contest ends", c.ID)
	}
	if to > from {
		return rankd.Errorf(rankd.ECONFLICT, "contest %q: the public board is frozen since %s, and this change would "+
			"move the freeze to %s, showing the public what it hid: to keep the freeze where it began, set "+
			"scoreboard_freeze_duration to %s (POST .../thaw lifts it)", c.ID, ccs.FormatRelTime(from),
			ccs.FormatRelTime(to), ccs.FormatRelTime(nc.Duration-from))
	}
	if !running {
		return nil
	}
	// The start the change leaves: a definition's own when it moves it (PATCH records it as started too), else
	// the state's. None (taken back) would leave no clock to tell the freeze by.
	start, next := b.Start(), rankd.StartOf(&c, *ns)
	if !nc.Start.Equal(c.Start) {
		next = nc.Start
	}
	if c.HidesUntilEnd() {
		// Hidden until its end, a contest shows nothing a later start could count early (a late start its
		// source reports); but one taken back, or moved past now, would no longer be running, hidden.
		if next.IsZero() || next.After(now) {
			return rankd.Errorf(rankd.ECONFLICT, "contest %q hides every result until its end (hide_until_end): while it "+
				"runs, its start cannot be taken back or moved past now", c.ID)
		}
		return nil
	}
	if next.IsZero() || next.Add(to).After(start.Add(from)) {
		return rankd.Errorf(rankd.ECONFLICT, "contest %q: the public board is frozen (since %s from its start), and this "+
			"change of its start would move the freeze later, counting what is made after it before it: once "+
			"frozen, the start can only move earlier (POST .../thaw lifts the freeze)", c.ID, ccs.FormatRelTime(from))
	}
	return nil
}

// CheckThaw refuses a judge's state ns that thaws board b's contest before its end (at now): it would show the
// public every verdict the freeze hides, or hid (a thaw before the freeze leaves none), at once. The end is
// the clock's, or one recorded, by the board's state or by ns itself (not after now). Lifting the freeze before
// the end is the admin's: POST .../thaw, or a state an admin's token relays (rankd follow, from a source that
// did).
func CheckThaw(b *board.Board, ns *rankd.State, now time.Time) error {
	c, st := b.Contest(), b.State()
	if ns == nil || ns.Thawed == nil || st.Thawed != nil || st.Ended != nil || ns.Ended != nil && !ns.Ended.After(now) {
		return nil
	}
	if start := b.Start(); start.IsZero() || now.Before(start.Add(c.Duration)) {
		return rankd.Errorf(rankd.ECONFLICT, "contest %q has not ended: a judge's state that thaws it before its end "+
			"would show the public every verdict its freeze hides, at once; lifting the freeze during the contest "+
			"is the admin's (POST .../thaw)", c.ID)
	}
	return nil
}

// Reopens reports whether a state ns would take back board b's contest's end (at now): its state says the
// contest ended, and ns says it has not (or not by now).
func Reopens(b *board.Board, ns *rankd.State, now time.Time) bool {
	return ns != nil && b.State().Ended != nil && (ns.Ended == nil || ns.Ended.After(now))
}

// ResultsOut reports whether board b's contest's results are out: thawed, finalized by its state, a reveal
// step made, or final standings built by rankd (final, which the board does not know).
func ResultsOut(b *board.Board, final bool) bool {
	st := b.State()
	steps, _, _ := b.Reveal()
	return final || st.Thawed != nil || st.Finalized != nil || steps > 0
}

// CheckReopen refuses a state ns that would take back board b's contest's end (at now) once its results are
// out (ResultsOut), and a state that takes a finalization back. Reopened, its freeze could be moved or lifted
// as in a running contest, showing the public what the end's standings hid; an admin's new definition is
// refused the same (PATCH).
func CheckReopen(b *board.Board, ns *rankd.State, final bool, now time.Time) error {
	if ns != nil && b.State().Finalized != nil && ns.Finalized == nil {
		// Taken back first, the finalization would no longer count when a later state takes the end back.
		return rankd.Errorf(rankd.ECONFLICT, "contest %q was finalized and its results are out: a state that takes "+
			"the finalization back is refused (a new one with another time is taken)", b.Contest().ID)
	}
	if !Reopens(b, ns, now) || !ResultsOut(b, final) {
		return nil
	}
	c := b.Contest()
	return rankd.Errorf(rankd.ECONFLICT, "contest %q ended and its results are out (thawed, finalized or being revealed): "+
		"a state that takes its end back would reopen it", c.ID)
}

// frozenNow reports whether board b's public board is frozen at now (as the board is: its state may freeze it
// earlier; or hiding verdicts, where a start taken back leaves no clock to tell; an OI or IOI contest hidden
// until its end from its start until its end is recorded), and whether its contest runs (by the clock, its
// end not recorded).
func frozenNow(b *board.Board, now time.Time) (frozen, running bool) {
	c, st := b.Contest(), b.State()
	_, hiding, _ := b.Reveal()
	start := b.Start()
	running = st.Ended == nil && !start.IsZero() && now.Before(start.Add(c.Duration))
	if c.HidesUntilEnd() {
		return c.HidingAt(st, now), running
	}
	begun := st.Finalized != nil || st.Ended != nil || start.IsZero() && hiding != nil ||
		!start.IsZero() && now.Sub(start) >= rankd.FreezeOf(&c, st)
	return st.Thawed == nil && c.FreezeTime() < c.Duration && begun, running
}

// hideTime is the contest time from which a definition's public board hides verdicts: 0 for an OI or IOI
// contest hidden until its end.
func hideTime(c *rankd.Contest) time.Duration {
	if c.HidesUntilEnd() {
		return 0
	}
	return c.FreezeTime()
}

// rebuild builds c's board again from what is durable, after a failure left it holding events the log may
// not. It runs with c's lock held. The projection is rebuilt too: which rows changed is no longer known.
func (e *Engine) rebuild(c *contest) {
	// Given up on when the store stops answering for a commit's time, not when the log is long: a board that
	// takes longer than that to replay (a big contest, a cell of many submissions) was never rebuilt, and its
	// contest answered 503 for good.
	ctx, progress, cancel := stallContext(e.background, e.commitTimeout())
	defer cancel()
	fresh, err := e.loadWatched(ctx, c.id, progress)
	if err != nil {
		if e.quiet.allow("rebuild " + c.id) {
			e.Logger.Error("rebuilding a board from the log failed", slog.String("contest", c.id),
				slog.String("error", err.Error()))
		}
		c.stale = true
		return
	}
	if c.logKey != 0 && fresh.logKey != c.logKey {
		// Another log of the contest's id: this one was deleted on another server. The committer forgets it.
		c.deletedElsewhere, c.stale = true, true
		return
	}
	old := c.board
	c.board, c.pos, c.stale, c.logKey = fresh.board, fresh.pos, false, fresh.logKey
	c.noteCheckpoint(fresh.lastCheck.Load())
	c.proj.lost()
	e.notifyAll(c, old)
	c.publish()
}

// stallContext returns a context of parent that is cancelled once progress has not been called for d: work
// that moves on, however long, goes on; work that waits on something that hangs is given up.
func stallContext(parent context.Context, d time.Duration) (ctx context.Context, progress func(), cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(parent)
	var steps atomic.Int64
	go func() {
		tick := time.NewTicker(max(d/4, time.Millisecond))
		defer tick.Stop()
		seen, since := int64(-1), time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				if n := steps.Load(); n != seen {
					seen, since = n, now
				} else if now.Sub(since) >= d {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() { steps.Add(1) }, cancel
}

// notifyAll tells Notify that every row of a view may have changed, for each view whose sequence number the
// board rebuilt in place of old does not share: the rebuild may hold entries that other servers stored,
// whose changes were never reported.
func (e *Engine) notifyAll(c *contest, old *board.Board) {
	if e.Notify == nil {
		return
	}
	teams := map[string]bool{}
	for _, b := range []*board.Board{old, c.board} {
		for _, t := range b.Teams() {
			teams[t.ID] = true
		}
	}
	rows := make([]board.RowChange, 0, len(teams))
	for id := range teams {
		rows = append(rows, board.RowChange{TeamID: id, Moved: true})
	}
	var diffs []board.Diff
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		if seq := c.board.Seq(v); seq != old.Seq(v) {
			diffs = append(diffs, board.Diff{View: v, Seq: seq, BaseSeq: old.Seq(v), Rows: rows})
		}
	}
	if len(diffs) > 0 {
		e.Notify(c.id, diffs)
	}
}

// checkpoint stores c's board at its position, when it moved since the last one.
func (e *Engine) checkpoint(ctx context.Context, c *contest) error {
	c.rlock()
	pos := c.pos
	if pos == c.lastCheck.Load() || c.stale {
		c.runlock()
		return nil
	}
	data, err := c.board.Checkpoint()
	c.runlock()
	if err != nil {
		return err
	}
	return e.saveCheckpoint(ctx, c, rankd.Checkpoint{Pos: pos, Data: data})
}

// saveCheckpoint stores a checkpoint of c, and notes it as c's latest unless a later one is.
func (e *Engine) saveCheckpoint(ctx context.Context, c *contest, cp rankd.Checkpoint) error {
	if err := e.store.SaveCheckpoint(ctx, c.id, cp); err != nil {
		return err
	}
	c.noteCheckpoint(cp.Pos)
	return nil
}

// noteCheckpoint notes a checkpoint at pos as c's latest, unless a later one is: a checkpoint taken behind
// the committer may be saved while a rebuild reads an older one.
func (c *contest) noteCheckpoint(pos int64) {
	for last := c.lastCheck.Load(); pos > last && !c.lastCheck.CompareAndSwap(last, pos); last = c.lastCheck.Load() {
	}
}

// Result is what became of one submitted event.
type Result struct {
	Status string `json:"status"` // StatusAccepted, StatusDuplicate or StatusRejected
	Pos    int64  `json:"pos,omitempty"`
	// Seq is the jury view's sequence number once an accepted event is applied: the frame of the jury's
	// stream that shows it has this number or a later one.
	Seq     uint64 `json:"seq,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Cause names, for a program, something its code alone does not say: CauseTokenTaken.
	Cause string `json:"cause,omitempty"`
}

// CauseTokenTaken is the Cause of an event whose token the log gives another event: refused
// (rankd.TokenTaken), or, sent asking for it (rankd.LogEntry.DropTakenToken), taken as one without a token.
const CauseTokenTaken = "token_taken"

// The statuses of a Result.
const (
	StatusAccepted  = "accepted"
	StatusDuplicate = "duplicate"
	StatusRejected  = "rejected"
)

func resultOf(r rankd.AppendResult) Result {
	var res Result
	switch {
	case r.Err != nil:
		res = Rejected(r.Err)
	case r.Duplicate:
		res = Result{Status: StatusDuplicate, Pos: r.Pos}
	default:
		res = Result{Status: StatusAccepted, Pos: r.Pos}
	}
	if r.TokenDropped {
		res.Cause = CauseTokenTaken
		if res.Message == "" {
			res.Message = "its token names another event of the log: taken without it, by its content"
		}
	}
	return res
}

// Rejected is the result of an event refused with err.
func Rejected(err error) Result {
	r := Result{Status: StatusRejected, Code: rankd.ErrorCode(err), Message: rankd.ErrorMessage(err)}
	if errors.Is(err, rankd.ErrTokenTaken) {
		r.Cause = CauseTokenTaken
	}
	return r
}

// Entry prepares an event for the log: its feed line (without the token) and that line's digest. The
// event's objects are copied, so the caller may reuse them. Ids and tokens that a store cannot keep as text
// are refused here, event by event, rather than failing a whole commit.
func Entry(ev rankd.Event) (rankd.LogEntry, error) {
	if err := rankd.CheckIDs(&ev); err != nil {
		return rankd.LogEntry{}, err
	}
	token := ev.Token
	ev.Token = ""
	// Room for a typical line (a submission or judgement takes 150–300 bytes): one allocation, where
	// growing from nothing took six.
	line, err := ccs.AppendEvent(make([]byte, 0, 384), ev)
	if err != nil {
		return rankd.LogEntry{}, err
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if holdsNUL(line) {
		// A name or label that no store or cache could keep as text (Redis's projection, PostgreSQL); the
		// line is valid UTF-8, the writer having replaced invalid bytes.
		return rankd.LogEntry{}, rankd.Errorf(rankd.EINVALID, "a text of the event holds a NUL character")
	}
	ev.Token = token
	// The digest only tells a repeat from a new version of the same object: 64 bits make a mistake
	// unthinkable, and xxhash costs a tenth of a cryptographic digest.
	e := rankd.LogEntry{Event: ev.Clone(), Data: line, Hash: strconv.FormatUint(xxhash.Sum64(line), 16), Token: token}
	switch {
	case token == "" || ev.Type != rankd.EventSubmission && ev.Type != rankd.EventJudgement:
	case ev.Delete:
		e.Deletion = e.Hash
	default:
		// In the line's spare room (Data ends before it): no allocation for a line hashed and dropped.
		del, err := ccs.AppendEvent(line[len(line):], rankd.Event{Type: ev.Type, ID: ev.ID, Delete: true})
		if err != nil {
			return rankd.LogEntry{}, err
		}
		e.Deletion = strconv.FormatUint(xxhash.Sum64(bytes.TrimSuffix(del, []byte{'\n'})), 16)
	}
	return e, nil
}

// holdsNUL reports whether a JSON text holds the escape of a NUL character, \u0000 (not a backslash
// followed by "u0000").
func holdsNUL(line []byte) bool {
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte(`\u0000`))
		if j < 0 {
			return false
		}
		j += i
		backslashes := 0
		for k := j - 1; k >= 0 && line[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return true
		}
		i = j + 1
	}
}

// Submit makes events of a contest durable and applies them, in order, and returns a result per event:
// accepted (with its log position), duplicate (already in the log: the position it has there) or
// rejected (with the reason; nothing stored). A contest event creates the contest when it is new (one that is
// not a valid definition is the whole call's EINVALID error: nothing is created); other events of an unknown
// contest are refused with ENOTFOUND.
func (e *Engine) Submit(ctx context.Context, contestID string, entries []rankd.LogEntry) ([]Result, error) {
	p, err := e.Enqueue(ctx, contestID, entries)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// Pending is a batch of events queued for commit.
type Pending struct{ req *request }

// Enqueue queues events as Submit does, without waiting for their commit: a caller that decodes a large
// request queues it in parts, so that the commit of one overlaps the decoding of the next. Batches of one
// contest are committed in the order they were queued.
func (e *Engine) Enqueue(ctx context.Context, contestID string, entries []rankd.LogEntry) (*Pending, error) {
	return e.EnqueueChecked(ctx, contestID, entries, nil)
}

// EnqueueChecked is Enqueue with a Check of each event as it commits.
func (e *Engine) EnqueueChecked(ctx context.Context, contestID string, entries []rankd.LogEntry, check Check) (*Pending, error) {
	req := &request{entries: entries, check: check, results: make([]Result, len(entries)), done: make(chan struct{})}
	if len(entries) == 0 {
		close(req.done)
		return &Pending{req}, nil
	}
	// Once more when the contest held was deleted meanwhile (forgotten: deleted on another server, perhaps
	// created again there): the events are for the contest as the log has it now.
	for again := true; ; again = false {
		c, err := e.contestFor(ctx, contestID, entries)
		if err != nil {
			return nil, err
		}
		err = e.enqueue(ctx, c, req)
		switch {
		case isDeleted(err) && again:
			continue
		case err != nil:
			return nil, err
		}
		return &Pending{req}, nil
	}
}

// Wait returns the results of the batch once it is committed (see Submit).
func (p *Pending) Wait(ctx context.Context) ([]Result, error) {
	select {
	case <-p.req.done:
	case <-ctx.Done():
		// The batch stays queued and will be committed: a retry with the same events is a duplicate.
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "gave up waiting for the commit: %w", ctx.Err())
	}
	return p.req.results, p.req.err
}

// askRebuild has the committer rebuild a stale board (a request without events does) when no such request
// waits already, without waiting for room in the queue: a contest that gets no more events still recovers
// once the store is back, at the pace its readers ask.
func (c *contest) askRebuild() {
	if !c.rebuildAsked.CompareAndSwap(false, true) {
		return
	}
	c.queueMu.RLock()
	defer c.queueMu.RUnlock()
	if c.queueClosed {
		return
	}
	select {
	case c.queue <- &request{sync: true, done: make(chan struct{})}:
	default:
		c.rebuildAsked.Store(false)
	}
}

// enqueue queues req on c, unless the engine is closing.
func (e *Engine) enqueue(ctx context.Context, c *contest, req *request) error {
	c.queueMu.RLock()
	defer c.queueMu.RUnlock()
	if c.queueClosed {
		return c.closedErr()
	}
	select {
	case c.queue <- req:
		return nil
	case <-e.closing:
		return rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
	case <-ctx.Done():
		return rankd.Errorf(rankd.EUNAVAILABLE, "the server is busy: %w", ctx.Err())
	}
}

// contestFor returns the live contest id, creating it when entries define a new contest of that id.
func (e *Engine) contestFor(ctx context.Context, id string, entries []rankd.LogEntry) (*contest, error) {
	defined := false
	var refused error // why the definitions of a new contest would be refused, when none is valid
	for i := range entries {
		if ev := &entries[i].Event; ev.Type == rankd.EventContest && !ev.Delete && ev.Contest != nil {
			if ev.Contest.ID != id {
				// Another contest's feed: none of it is this contest's, though its teams and submissions
				// would fit.
				return nil, rankd.Errorf(rankd.EINVALID, "the events define contest %q, not %q", ev.Contest.ID, id)
			}
			if err := ev.Contest.Validate(); err != nil {
				refused = cmp.Or(refused, err)
			} else {
				defined = true
			}
		}
	}
	e.mu.RLock()
	c, ok := e.contests[id]
	closed := e.closed
	e.mu.RUnlock()
	switch {
	case closed:
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
	case ok:
		return c, nil
	}
	if e.Shared {
		// Perhaps created by another server.
		if c, err := e.adopt(ctx, id); c != nil || err != nil {
			return c, err
		}
	}
	if !defined {
		// A contest is created only by a definition the board takes: one it refused would leave the engine
		// holding a contest that does not exist.
		if refused != nil {
			return nil, refused
		}
		return nil, e.unknown(id)
	}
	if !rankd.ValidID(id) {
		return nil, rankd.Errorf(rankd.EINVALID, "contest id %q: a contest's id is %s: another could not be used in the API's addresses", id, rankd.IDRule)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.contests[id]; ok {
		return c, nil
	}
	if e.closed {
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
	}
	if !e.ready.Load() {
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "the server is starting")
	}
	if e.failed[id] != nil {
		// Its log is there, unreadable: a new board over it would not be the log's.
		return nil, e.unavailable(id)
	}
	c = &contest{id: id, queue: make(chan *request, 1024), board: board.New()}
	e.contests[id] = c
	e.start(c)
	return c, nil
}

// Sync brings the boards up to the log that other servers append to as well (see Shared): contests
// created elsewhere are restored, and the others apply what was stored since their position. It returns
// once each board has caught up with the log as it was when Sync was called.
func (e *Engine) Sync(ctx context.Context) error {
	held := e.storedContests()
	ids, err := e.store.Contests(ctx)
	if err != nil {
		return err
	}
	e.forgetDeleted(held, ids)
	for _, id := range ids {
		if err := e.SyncContest(ctx, id); err != nil && !e.failedOne(id) {
			return err
		}
	}
	return nil
}

// failedOne reports whether contest id could not be restored (see fail).
func (e *Engine) failedOne(id string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.failed[id] != nil
}

// SyncContest is Sync for one contest; a contest without a log is left alone.
func (e *Engine) SyncContest(ctx context.Context, id string) error {
	for again := true; ; again = false {
		c, err := e.adopt(ctx, id)
		if c == nil || err != nil {
			return err
		}
		req := &request{sync: true, done: make(chan struct{})}
		if err = e.enqueue(ctx, c, req); err == nil {
			_, err = (&Pending{req}).Wait(ctx)
		}
		if isDeleted(err) && again {
			continue // forgotten meanwhile: the log's contest now, if any, is adopted anew
		}
		return err
	}
}

// adopt returns the live contest id, restoring it from the store when the engine does not hold it yet; nil
// when the store has no log of it.
func (e *Engine) adopt(ctx context.Context, id string) (*contest, error) {
	e.mu.RLock()
	c, ok := e.contests[id]
	failed := e.failed[id] != nil
	e.mu.RUnlock()
	switch {
	case ok:
		return c, nil
	case failed:
		return nil, e.unknown(id)
	}
	fresh, err := e.restore(ctx, id)
	if err != nil {
		if e.fail(ctx, id, err) {
			return nil, e.unknown(id)
		}
		return nil, err
	}
	if fresh.board.Contest().ID == "" {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.contests[id]; ok {
		return c, nil
	}
	if e.closed {
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
	}
	e.contests[id] = fresh
	e.start(fresh)
	return fresh, nil
}

// unknown is the error for a contest the engine does not hold: not found, unless the engine is still
// restoring the stored contests, which it may be among.
func (e *Engine) unknown(id string) error {
	e.mu.RLock()
	starting := !e.ready.Load() && !e.closed
	failed := e.failed[id] != nil
	e.mu.RUnlock()
	switch {
	case failed:
		return e.unavailable(id)
	case starting:
		return rankd.Errorf(rankd.EUNAVAILABLE, "the server is starting; retry")
	}
	return rankd.Errorf(rankd.ENOTFOUND, "no contest %q", id)
}

// unavailable is the error of a contest that could not be restored: what went wrong is in the server's
// log, for its operator, not in answers.
func (e *Engine) unavailable(id string) error {
	return rankd.Errorf(rankd.EUNAVAILABLE, "contest %q is unavailable: its stored log could not be read (the server's log says why)", id)
}

// ContestIDs returns the ids of the live contests, sorted.
func (e *Engine) ContestIDs() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	ids := make([]string, 0, len(e.contests))
	for id := range e.contests {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Read calls fn with the board of a contest and the log position it reflects, under the contest's read
// lock: fn must not keep the board or block. The board holds only durable entries.
func (e *Engine) Read(contestID string, fn func(b *board.Board, pos int64) error) error {
	return e.read(contestID, readDurable, 0, fn)
}

// ReadWithin is Read, or ReadPublic when public is set, giving up when a commit holds the board for longer
// than d (its disk or database does not answer): it then reads nothing and reports false.
func (e *Engine) ReadWithin(contestID string, public bool, d time.Duration, fn func(b *board.Board, pos int64) error) (bool, error) {
	wait := readDurable
	if public {
		wait = readPublic
	}
	err := e.read(contestID, wait, d, fn)
	if errors.Is(err, errSyncing) {
		return false, nil
	}
	return true, err
}

// ReadPublic is Read for a reader of the public view alone (and of what all views share: the contest's
// definition, its teams' names). A commit of submissions and judgements that leaves the public view as it
// was lets these readers in once it has applied its entries, while it waits for the disk: the jury's
// commits during the freeze then hold up no spectator, whose read times would otherwise tell when hidden
// verdicts come (DESIGN, principle 4). The other views of the board fn gets may hold entries not yet
// durable.
func (e *Engine) ReadPublic(contestID string, fn func(b *board.Board, pos int64) error) error {
	return e.read(contestID, readPublic, 0, fn)
}

// TryRead is Read unless a commit is waiting for the disk: then it reads nothing and reports false.
func (e *Engine) TryRead(contestID string, fn func(b *board.Board, pos int64) error) (bool, error) {
	err := e.read(contestID, readTryDurable, 0, fn)
	if errors.Is(err, errSyncing) {
		return false, nil
	}
	return true, err
}

// How read waits for a commit in progress.
const (
	readPublic     = iota // only while it applies entries, unless it changed the public view
	readDurable           // until its entries are durable
	readTryDurable        // not at all when they are not yet: errSyncing
)

var errSyncing = errors.New("a commit is waiting for the disk")

// rlock read-locks mu, waiting for it at most until deadline when within is not 0, and reports whether it
// did. The wait is mu's own (RLock, on a goroutine when it has to wait): polling TryRLock would lose to the
// commits of a busy contest, each of them a writer waiting.
func rlock(mu *sync.RWMutex, within time.Duration, deadline time.Time) bool {
	if within == 0 {
		mu.RLock()
		return true
	}
	if mu.TryRLock() {
		return true
	}
	var state sync.Mutex
	got, gaveUp := make(chan struct{}), false
	go func() {
		mu.RLock()
		state.Lock()
		defer state.Unlock()
		if gaveUp {
			mu.RUnlock()
			return
		}
		close(got)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-got:
		return true
	case <-t.C:
		state.Lock()
		defer state.Unlock()
		select {
		case <-got:
			return true // locked just now
		default:
			gaveUp = true
			return false
		}
	}
}

// read reads contest contestID's board as wait says, giving up with errSyncing after within (0: never).
func (e *Engine) read(contestID string, wait int, within time.Duration, fn func(b *board.Board, pos int64) error) error {
	e.mu.RLock()
	c, ok := e.contests[contestID]
	e.mu.RUnlock()
	if !ok {
		return e.unknown(contestID)
	}
	deadline := time.Now().Add(within)
	switch wait {
	case readDurable:
		if !rlock(&c.durable, within, deadline) {
			return errSyncing
		}
	case readTryDurable:
		if !c.durable.TryRLock() {
			return errSyncing
		}
	}
	if wait != readPublic {
		defer c.durable.RUnlock()
	}
	if !rlock(&c.mu, within, deadline) {
		return errSyncing
	}
	defer c.mu.RUnlock()
	switch {
	case c.stale:
		c.askRebuild()
		return rankd.Errorf(rankd.EUNAVAILABLE, "contest %q is being rebuilt from the log; retry", contestID)
	case c.board.Contest().ID == "":
		// Created, but its definition was refused: it does not exist yet.
		return rankd.Errorf(rankd.ENOTFOUND, "no contest %q", contestID)
	}
	return fn(c.board, c.pos)
}
