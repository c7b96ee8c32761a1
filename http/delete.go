package http

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// deleteContest deletes a contest and everything stored of it (DELETE /api/v1/contests/{cid}): its log,
// boards, tokens and final standings. Its live streams end; its id is free for a new contest.
func (s *Server) deleteContest(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	if err := s.Engine.Delete(r.Context(), cid); err != nil {
		return err
	}
	s.Logger.Info("contest deleted by an admin", slog.String("contest", cid))
	if s.Finalizer != nil {
		// Left, they would keep a contest created again with the id from being finalized at its end (one
		// filed for that end is taken for done). The deletion is done all the same; the log says what failed.
		if err := s.Finalizer.Forget(r.Context(), cid); err != nil {
			s.Logger.Error("removing a deleted contest's finalization jobs failed", slog.String("contest", cid),
				slog.String("error", err.Error()))
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"contest_id": cid, "deleted": true})
}

// ContestDeleted forgets what the server keeps in memory of a contest the engine no longer holds (see
// engine.Engine.Deleted): its live streams end, and no page, snapshot, past board or final standings of it
// is served again, to it or to a contest created later with its id.
func (s *Server) ContestDeleted(cid string) {
	s.deletions.add(cid)
	s.push.forget(cid)
	s.feeds.forget(cid)
	s.pages.forget(cid + "|")
	s.pasts.forget(cid)
	s.finals.forget(cid)
	s.Auth.forget(cid, "")
}

// deletions counts the deletions of each contest id, so that what began before one (a live stream, an
// event feed reading the log) does not go on with the contest created again with the id.
type deletions struct {
	mu sync.Mutex
	n  map[string]uint64
}

func (d *deletions) of(cid string) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n[cid]
}

func (d *deletions) add(cid string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == nil {
		d.n = map[string]uint64{}
	}
	d.n[cid]++
}

// forget drops a contest's final standings from memory.
func (c *finalCache) forget(cid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, cid)
}

// forget ends the streams of a contest and drops its channels and snapshots.
func (h *hub) forget(cid string) {
	h.mu.Lock()
	if cc := h.contests[cid]; cc != nil {
		for _, ch := range cc.views {
			for f := range ch.subs {
				f.gone.Store(true)
				close(f.dropped)
			}
			clear(ch.subs) // frames on their way to them (fanOut) do not drop them again
		}
		delete(h.contests, cid)
	}
	h.mu.Unlock()
	h.snapMu.Lock()
	for k := range h.snaps {
		if k.contest == cid {
			delete(h.snaps, k)
		}
	}
	h.snapMu.Unlock()
}

// forget drops the pages whose keys start with prefix.
func (c *pageCache) forget(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, gen := range []struct {
		m    map[string]cachedPage
		size *int
	}{{c.m, &c.size}, {c.prev, &c.prevSize}} {
		for k, p := range gen.m {
			if strings.HasPrefix(k, prefix) {
				*gen.size -= p.size()
				delete(gen.m, k)
			}
		}
	}
}

// forget drops the past boards and histories of a contest.
func (p *past) forget(cid string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moments = slices.DeleteFunc(p.moments, func(m *moment) bool { return m.cid == cid })
	p.histories = slices.DeleteFunc(p.histories, func(h *historyEntry) bool { return strings.HasPrefix(h.key, cid+"|") })
	p.contests = slices.DeleteFunc(p.contests, func(c contestPast) bool { return c.cid == cid })
}
