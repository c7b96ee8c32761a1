package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"rankd"
	"rankd/board"
)

// The projector of a contest keeps the engine's Projection up to date with its board. Commits mark the
// rows they change (under the contest's lock); the projector, on its own goroutine so that the network
// never holds a commit up, renders the marked rows as the board holds them and sends them as one update at
// the board's position. What a failed update carried is marked again and sent with the next one, so
// nothing is lost while the projection is unreachable. A projection that lost its data, or one whose
// position this board cannot account for (at start-up, after a rebuild of the board), is rebuilt whole; one
// at a position the log does not have holds another log's rows (a database restored from an older dump, or a
// new one, beside the Redis of the old), and is replaced though it is further on.

// Bounds of the wait between two attempts when the projection fails.
const (
	projectRetryMin = 50 * time.Millisecond
	projectRetryMax = 5 * time.Second
	// projectCheckEvery is how often an idle projector looks at the projection's position: a Redis flushed,
	// or restarted from an older snapshot, while no event comes is then rebuilt all the same.
	projectCheckEvery = 5 * time.Second
	// projectCheckTimeout bounds a look at the projection's position and at the log.
	projectCheckTimeout = 10 * time.Second
)

// projectorState is a contest's projector's share of the contest. Its fields other than signal are guarded
// by the contest's lock: written under the write lock, or by the projector alone under the read lock.
type projectorState struct {
	signal chan struct{} // a kick: rows are marked; closed when the committer stops
	dirty  [2]map[string]struct{}
	// whole asks for a full rebuild rather than an update: the projection's content is not known. wholeGen
	// counts the requests, so that a rebuild done meanwhile does not answer a later one.
	whole    bool
	wholeGen uint64
	// replace is the position of a projection of another log, which the rebuild asked for replaces (see
	// rankd.ProjectionUpdate.Replace); 0: none.
	replace int64
	// reached is a position the projection is known to have reached; updates say so (After), so that one
	// that went back behind it (Redis restarted from an older snapshot) is rebuilt rather than patched.
	reached atomic.Int64
}

// viewsProjected are the views a projection holds, in the order of projectorState.dirty.
var viewsProjected = [2]rankd.View{rankd.JuryView, rankd.PublicView}

// touch marks the rows that diffs name.
func (p *projectorState) touch(diffs []board.Diff) {
	for _, d := range diffs {
		i := 0
		switch d.View.Kind {
		case rankd.ViewJury:
		case rankd.ViewPublic:
			i = 1
		default:
			continue
		}
		if p.dirty[i] == nil {
			p.dirty[i] = make(map[string]struct{})
		}
		for _, r := range d.Rows {
			p.dirty[i][r.TeamID] = struct{}{}
		}
	}
}

// lost asks for a full rebuild.
func (p *projectorState) lost() {
	p.whole = true
	p.wholeGen++
}

// kick wakes the projector, when there is one.
func (p *projectorState) kick() {
	if p.signal == nil {
		return
	}
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// projectLoop runs c's projector until its committer stops, then sends what is left once.
func (e *Engine) projectLoop(c *contest) {
	ctx := context.Background()
	e.checkProjection(ctx, c, true)
	var wait time.Duration
	for open := true; ; {
		if !open && c.deleted {
			return // the contest's projection goes with it (see start)
		}
		err := e.project(ctx, c)
		if !open {
			return
		}
		if err == nil {
			wait = 0
		} else {
			wait = min(max(2*wait, projectRetryMin), projectRetryMax)
			// A board being rebuilt is the log's store failing, which says so itself: Redis is not.
			if !errors.Is(err, errBoardRebuilding) && e.quiet.allow("projection "+c.id) {
				e.Logger.Warn("projection failed; retrying", slog.String("contest", c.id), slog.Duration("in", wait),
					slog.String("error", err.Error()))
			}
		}
		if wait == 0 {
			select {
			case _, open = <-c.proj.signal:
			case <-time.After(projectCheckEvery):
				e.checkProjection(ctx, c, false)
			}
			continue
		}
		select {
		case _, open = <-c.proj.signal:
		case <-time.After(wait):
		}
	}
}

// checkProjection looks at c's projection: at start-up, whether it holds c's board at its position (it then
// only needs updates) or must be rebuilt; later, whether it is behind c's board though nothing is left to
// send (what it held was lost: Redis flushed, or went back to an older snapshot). Either time, a projection
// at a position the log does not have holds another log's rows, and is replaced.
func (e *Engine) checkProjection(ctx context.Context, c *contest, start bool) {
	ctx, cancel := context.WithTimeout(ctx, projectCheckTimeout)
	defer cancel()
	pos, err := e.Projection.Position(ctx, c.id)
	c.mu.RLock()
	ahead := err == nil && pos > c.pos
	c.mu.RUnlock()
	foreign := false
	if ahead {
		// A position past the board's is another server's, which stored it before it projected it; unless
		// the log has no such entry. A log that cannot tell is asked again at the next check.
		has, lerr := e.logHas(ctx, c.id, pos)
		foreign = lerr == nil && !has
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case foreign:
		e.Logger.Warn("the projection is at a position the log does not have: it holds another log's rows (a restored or new database beside the Redis of the old); replacing it",
			slog.String("contest", c.id), slog.Int64("projection_pos", pos), slog.Int64("pos", c.pos))
		c.proj.lost()
		c.proj.replace = pos
	case !start:
		if err == nil && !c.proj.whole && len(c.proj.dirty[0]) == 0 && len(c.proj.dirty[1]) == 0 && c.board.Contest().ID != "" && pos < c.pos {
			c.proj.lost()
		}
	case err == nil && pos == c.pos && pos > 0:
		c.proj.reached.Store(c.pos)
	default:
		c.proj.lost()
	}
}

// errBoardRebuilding is why a board being rebuilt from the log is not projected yet.
var errBoardRebuilding = rankd.Errorf(rankd.EUNAVAILABLE, "the board is being rebuilt")

// errFound stops a look at the log once it found what it looked for.
var errFound = errors.New("found")

// entryAt returns the first entry of contest id's log from position pos on (the one at pos, in a log
// without gaps), and whether there is one; its Data is left out.
func (e *Engine) entryAt(ctx context.Context, id string, pos int64) (rankd.LogEntry, bool, error) {
	var found rankd.LogEntry
	err := e.store.Replay(ctx, id, pos-1, func(le *rankd.LogEntry) error {
		found = rankd.LogEntry{Pos: le.Pos, Stored: le.Stored}
		return errFound
	})
	if errors.Is(err, errFound) {
		return found, true, nil
	}
	return rankd.LogEntry{}, false, err
}

// logHas reports whether contest id's log has an entry at pos.
func (e *Engine) logHas(ctx context.Context, id string, pos int64) (bool, error) {
	_, ok, err := e.entryAt(ctx, id, pos)
	return ok, err
}

// project sends what is marked: an update, or the whole board when the projection needs it.
func (e *Engine) project(ctx context.Context, c *contest) error {
	c.rlock()
	if c.stale {
		c.runlock()
		return errBoardRebuilding
	}
	if c.board.Contest().ID == "" {
		c.runlock()
		return nil
	}
	if c.proj.whole {
		gen := c.proj.wholeGen
		full := e.render(c, nil)
		full.Replace = c.proj.replace
		logKey := c.logKey
		c.runlock()
		if k, ok := e.store.(LogKeyer); ok && logKey != 0 {
			// A board of a log deleted since, on another server, must not put its rows back: its committer
			// forgets it next.
			if key, err := k.LogKey(ctx, c.id); err != nil || key != logKey {
				return err
			}
		}
		if err := e.Projection.Rebuild(ctx, full); err != nil {
			return err
		}
		c.proj.reached.Store(full.Pos) // switched to, or the projection was already past it
		c.mu.Lock()
		c.proj.whole = c.proj.wholeGen != gen
		if !c.proj.whole {
			c.proj.replace = 0
		}
		c.mu.Unlock()
		return nil
	}
	if len(c.proj.dirty[0]) == 0 && len(c.proj.dirty[1]) == 0 && c.proj.reached.Load() >= c.pos {
		c.runlock()
		return nil
	}
	// Nothing marked, yet the board moved on (events that change no row, such as an organization nobody
	// belongs to): the update moves the projection's position only, or it would look lost and be rebuilt.
	// The projector alone writes dirty under the read lock; commits mark it with the write lock and
	// durable held.
	dirty := c.proj.dirty
	c.proj.dirty = [2]map[string]struct{}{}
	u := e.render(c, &dirty)
	c.runlock()
	_, err := e.Projection.Project(ctx, u)
	switch {
	case err == nil:
		// Applied, or already past: then whoever moved it past sent these rows as well.
		c.proj.reached.Store(u.Pos)
		return nil
	case rankd.ErrorCode(err) == rankd.ECONFLICT:
		c.mu.Lock()
		c.proj.lost()
		c.mu.Unlock()
		return e.project(ctx, c)
	}
	c.mu.Lock()
	for i, set := range dirty {
		if c.proj.dirty[i] == nil {
			c.proj.dirty[i] = set
			continue
		}
		for id := range set {
			c.proj.dirty[i][id] = struct{}{}
		}
	}
	c.mu.Unlock()
	return err
}

// render builds the projection update of c's board: the rows of dirty, or every ranked row when dirty is
// nil. It runs with c's lock held.
func (e *Engine) render(c *contest, dirty *[2]map[string]struct{}) rankd.ProjectionUpdate {
	b := c.board
	u := rankd.ProjectionUpdate{ContestID: c.id, Pos: c.pos, After: c.proj.reached.Load(), Contest: b.Contest(),
		Problems: b.Problems()}
	for i, v := range viewsProjected {
		vu := rankd.ViewUpdate{View: v, Seq: b.Seq(v)}
		if dirty == nil {
			vu.Rows = b.ProjectedRows(v)
		} else {
			if len(dirty[i]) == 0 {
				continue
			}
			for id := range dirty[i] {
				if r, ok := b.Projected(v, id); ok {
					vu.Rows = append(vu.Rows, r)
				} else {
					vu.Removed = append(vu.Removed, id)
				}
			}
		}
		u.Views = append(u.Views, vu)
	}
	return u
}
