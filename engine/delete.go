package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"rankd"
)

// ProjectionDeleter is what Delete needs of a projection: removing what it holds of a contest.
type ProjectionDeleter interface {
	DeleteContest(ctx context.Context, contestID string) error
}

// Delete deletes a contest: what the store holds of it (its log, checkpoints, tokens, final standings), its
// projection, and its board. Its committer does it, after the requests queued before it, so that no commit
// runs across it; requests that come after are answered that the contest is not found. The id is free again
// once Delete returns. A contest whose log could not be read back (see fail) is deleted too. Deleted is
// called with the id once it is done, on this server; the other servers of a shared log forget the contest
// when they next look at the log (see Sync), or when they next commit to it.
func (e *Engine) Delete(ctx context.Context, id string) error {
	if _, ok := e.store.(rankd.ContestDeleter); !ok {
		return rankd.Errorf(rankd.EINVALID, "this store cannot delete contests")
	}
	if e.Shared {
		// Perhaps created on another server, and not heard of here yet.
		if _, err := e.adopt(ctx, id); err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND && !e.failedOne(id) {
			return err
		}
	}
	e.mu.RLock()
	c, held := e.contests[id]
	failed := e.failed[id] != nil
	e.mu.RUnlock()
	if !held && failed {
		if err := e.deleteProjectionFirst(ctx, id); err != nil {
			return err
		}
		if err := e.deleteStored(ctx, id); err != nil {
			return err
		}
		e.mu.Lock()
		delete(e.failed, id)
		e.mu.Unlock()
		e.deleted(id)
		return nil
	}
	if !held {
		return e.unknown(id)
	}
	req := &request{del: true, done: make(chan struct{})}
	if err := e.enqueue(ctx, c, req); err != nil {
		return err
	}
	_, err := (&Pending{req}).Wait(ctx)
	return err
}

// deleteStored removes what the store holds of contest id.
func (e *Engine) deleteStored(ctx context.Context, id string) error {
	return e.store.(rankd.ContestDeleter).DeleteContest(ctx, id)
}

// deleteProjection removes what the projection, when there is one, holds of contest id.
func (e *Engine) deleteProjection(ctx context.Context, id string) error {
	if p, ok := e.Projection.(ProjectionDeleter); ok {
		return p.DeleteContest(ctx, id)
	}
	return nil
}

// deleteProjectionFirst removes what the projection holds of a contest about to be deleted: a projection
// that cannot be reached now refuses the deletion (EUNAVAILABLE), to be asked again.
func (e *Engine) deleteProjectionFirst(ctx context.Context, id string) error {
	if err := e.deleteProjection(ctx, id); err != nil {
		e.Logger.Warn("deleting a contest's projection failed: the contest is not deleted", slog.String("contest", id), slog.String("error", err.Error()))
		return rankd.Errorf(rankd.EUNAVAILABLE, "contest %q is not deleted: the shared cache (Redis) could not be reached to delete its boards there; retry once it is back", id)
	}
	return nil
}

// deleteProjectionAgain removes again what the projection holds of a deleted contest, once its projector
// stopped: an update it was sending during the deletion. A projection that cannot be reached keeps those
// keys: logged, not failed.
func (e *Engine) deleteProjectionAgain(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), e.commitTimeout())
	defer cancel()
	if err := e.deleteProjection(ctx, id); err != nil {
		e.Logger.Warn("deleting a contest's projection failed", slog.String("contest", id), slog.String("error", err.Error()))
	}
}

// deleteNow is the committer's part of a deletion: it deletes what the store holds of c (when that fails,
// req is answered so and the contest goes on), or, for a request to forget c, the store no longer holds it
// (deleted on another server) and the engine forgets it. It reports whether c is gone: its committer then
// ends.
func (e *Engine) deleteNow(c *contest, req *request) bool {
	// A checkpoint taken behind the committer must not be saved after the deletion: it would be the
	// checkpoint of a contest created later with the same id. Wait for it, and keep others from starting.
	for !c.checkpointing.CompareAndSwap(false, true) {
		time.Sleep(time.Millisecond)
	}
	if !req.forget {
		ctx, cancel := context.WithTimeout(context.Background(), e.commitTimeout())
		// The projection first, and only with it: left behind, a deleted contest's rows would stand for those
		// of one created again with the id once its log reached their position. Removed, and the log's
		// deletion failing, the servers rebuild it from the log.
		err := e.deleteProjectionFirst(ctx, c.id)
		if err == nil {
			err = e.deleteStored(ctx, c.id)
		}
		cancel()
		if rankd.ErrorCode(err) == rankd.ENOTFOUND {
			err = nil // nothing stored (its first commit failed), or deleted on another server meanwhile
		}
		if err != nil {
			c.checkpointing.Store(false)
			req.err = err
			close(req.done)
			return false
		}
	}
	c.deletedElsewhere = req.forget
	e.mu.Lock()
	if e.contests[c.id] == c {
		delete(e.contests, c.id)
	}
	e.mu.Unlock()
	c.closeQueue(true)
	for r := range c.queue {
		r.err = c.closedErr()
		close(r.done)
	}
	e.Logger.Info("contest deleted", slog.String("contest", c.id), slog.Bool("elsewhere", req.forget))
	e.deleted(c.id)
	close(req.done) // once the engine's user forgot it too: a read after Delete returns finds nothing of it
	return true
}

// deleted tells the engine's user that a contest was deleted.
func (e *Engine) deleted(id string) {
	if e.Deleted != nil {
		e.Deleted(id)
	}
}

// closeQueue closes c's queue, once: at a deletion, or when the engine closes.
func (c *contest) closeQueue(deleted bool) {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.queueClosed {
		return
	}
	c.queueClosed, c.deleted = true, deleted
	close(c.queue)
}

// closedErr is the answer to a request for c once its queue is closed.
func (c *contest) closedErr() error {
	if c.deleted {
		return &rankd.Error{Code: rankd.ENOTFOUND, Err: rankd.ErrContestDeleted, Message: fmt.Sprintf("contest %q was deleted", c.id)}
	}
	return rankd.Errorf(rankd.EUNAVAILABLE, "the server is shutting down")
}

// storedContests returns the contests this engine holds whose board was built from a stored log.
func (e *Engine) storedContests() []*contest {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var held []*contest
	for _, c := range e.contests {
		if p := c.public.Load(); p != nil && p.Contest.ID != "" {
			held = append(held, c)
		}
	}
	return held
}

// forgetDeleted has the committers of held (see storedContests, read before ids, the log's contests) forget
// their contests that the log no longer has: deleted on another server. One deleted and created again is
// found by the committer's next look at the log (see follow).
func (e *Engine) forgetDeleted(held []*contest, ids []string) {
	for _, c := range held {
		if _, listed := slices.BinarySearch(ids, c.id); listed {
			continue
		}
		c.queueMu.RLock()
		if !c.queueClosed {
			select {
			case c.queue <- &request{del: true, forget: true, done: make(chan struct{})}:
			default: // a full queue: its next commit finds the contest deleted, or the next Sync asks again
			}
		}
		c.queueMu.RUnlock()
	}
}

// isDeleted reports whether err says the contest was deleted on another server.
func isDeleted(err error) bool { return errors.Is(err, rankd.ErrContestDeleted) }
