package http

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/finalize"
)

// Finalizer builds contests' final standings (package finalize).
type Finalizer interface {
	Run(ctx context.Context, contestID string, now time.Time) (finalize.Status, error)
	Status(ctx context.Context, contestID string) (finalize.Status, error)
	Retry(ctx context.Context, contestID string) (finalize.Status, error)
}

// finalizer returns the server's Finalizer, or an error when it has none.
func (s *Server) finalizer(cid string) (Finalizer, error) {
	if s.Finalizer == nil {
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "this server does not finalize contests")
	}
	if _, _, _, err := s.contestNow(cid); err != nil {
		return nil, err
	}
	return s.Finalizer, nil
}

// getFinalize answers where a contest's finalization is.
func (s *Server) getFinalize(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	f, err := s.finalizer(cid)
	if err != nil {
		return err
	}
	st, err := f.Status(r.Context(), cid)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

// postFinalize finalizes a contest now (unless a finalization is about to run or running).
func (s *Server) postFinalize(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	f, err := s.finalizer(cid)
	if err != nil {
		return err
	}
	st, err := f.Run(r.Context(), cid, s.Now())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, st)
}

// postFinalizeRetry runs a dead finalization again.
func (s *Server) postFinalizeRetry(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	f, err := s.finalizer(cid)
	if err != nil {
		return err
	}
	st, err := f.Retry(r.Context(), cid)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, st)
}

// finalTTL is how long the final standings read from the store are served from memory before they are read
// again: a version switched by another server is seen within it.
const finalTTL = 5 * time.Second

// finalCache keeps contests' active final standings in memory. A contest not in memory is loaded once
// however many readers ask for it at the same time; one loaded more than finalTTL ago is still served while
// one load, in the background, brings it up to date.
type finalCache struct {
	group   singleflight.Group
	mu      sync.Mutex
	entries map[string]finalEntry
}

type finalEntry struct {
	f      rankd.FinalStandings
	loaded time.Time
}

// get returns the active final standings of a contest, loading them with load when needed.
func (c *finalCache) get(ctx context.Context, contestID string, now time.Time,
	load func(ctx context.Context, id string) (rankd.FinalStandings, error)) (rankd.FinalStandings, error) {
	c.mu.Lock()
	e, ok := c.entries[contestID]
	c.mu.Unlock()
	// Not the first reader's ctx: its leaving must not fail the others.
	ctx = context.WithoutCancel(ctx)
	refresh := func() (any, error) {
		// Checked again inside the flight: a reader that missed may come when the load that answers it is
		// just over.
		c.mu.Lock()
		e, ok := c.entries[contestID]
		c.mu.Unlock()
		if ok && now.Sub(e.loaded) < finalTTL {
			return e.f, nil
		}
		f, err := load(ctx, contestID)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]finalEntry{}
		}
		c.entries[contestID] = finalEntry{f: f, loaded: now}
		c.mu.Unlock()
		return f, nil
	}
	if ok {
		if now.Sub(e.loaded) >= finalTTL {
			go func() { _, _, _ = c.group.Do(contestID, refresh) }() // a failure is retried by the next reader
		}
		return e.f, nil
	}
	v, err, _ := c.group.Do(contestID, refresh)
	if err != nil {
		return rankd.FinalStandings{}, err
	}
	return v.(rankd.FinalStandings), nil
}

// finalJSON is a contest's final standings as the API serves them.
type finalJSON struct {
	ContestID string          `json:"contest_id"`
	Version   int64           `json:"version"`
	Pos       int64           `json:"pos"`
	Built     time.Time       `json:"built"`
	View      string          `json:"view"`
	Rows      []rowJSON       `json:"rows"`
	Awards    json.RawMessage `json:"awards"`
}

// getFinal answers a contest's active final standings: the jury's rows for the jury, the public's for the
// others (a team included: final standings have no secrets from it but the jury's own view).
func (s *Server) getFinal(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	f, err := s.finals.get(r.Context(), cid, s.Now(), func(ctx context.Context, id string) (rankd.FinalStandings, error) {
		s.finalLoads.Inc()
		return s.Store.ActiveFinal(ctx, id)
	})
	if err != nil {
		return err
	}
	rows, view := f.Public, rankd.PublicView
	if v.Kind == rankd.ViewJury {
		rows, view = f.Jury, rankd.JuryView
	}
	awards, err := json.Marshal(ccs.Awards(f.Awards))
	if err != nil {
		return err
	}
	out := finalJSON{ContestID: cid, Version: f.Version, Pos: f.Pos, Built: f.Built, View: view.String(),
		Rows: make([]rowJSON, len(rows)), Awards: awards}
	err = s.Engine.Read(cid, func(b *board.Board, _ int64) error {
		for i, row := range rows {
			out.Rows[i] = renderRow(b, row)
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheControl(v))
	return writeJSON(w, http.StatusOK, out)
}
