package http

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
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
	// Forget removes what it keeps of a deleted contest's finalizations.
	Forget(ctx context.Context, contestID string) error
}

// finalizer returns the server's Finalizer, or an error when it has none.
func (s *Server) finalizer(ctx context.Context, cid string) (Finalizer, error) {
	if s.Finalizer == nil {
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "this server does not finalize contests")
	}
	if _, _, _, err := s.contestNow(ctx, cid); err != nil {
		return nil, err
	}
	return s.Finalizer, nil
}

// getFinalize answers where a contest's finalization is.
func (s *Server) getFinalize(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	f, err := s.finalizer(r.Context(), cid)
	if err != nil {
		return err
	}
	st, err := f.Status(r.Context(), cid)
	if err != nil {
		return err
	}
	s.finals.forgetBefore(cid, st.Version)
	return writeJSON(w, http.StatusOK, st)
}

// postFinalize finalizes a contest now (unless a finalization is about to run or running).
func (s *Server) postFinalize(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	f, err := s.finalizer(r.Context(), cid)
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
	f, err := s.finalizer(r.Context(), cid)
	if err != nil {
		return err
	}
	st, err := f.Retry(r.Context(), cid)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, st)
}

// FinalCache is a copy of the final standings that the servers share: Redis, in the distributed mode. When the
// server's Projection is one too, final standings are read through it (memory, then it, then the store) and
// it is filled from the store when it lacks them. The store stays the truth.
type FinalCache interface {
	// FinalVersion returns the version of a contest's final standings the cache holds; 0 when none.
	FinalVersion(ctx context.Context, contestID string) (int64, error)
	// Final returns a contest's final standings from the cache; ENOTFOUND when it holds none.
	Final(ctx context.Context, contestID string) (rankd.FinalStandings, error)
	// PutFinal makes f the active version in the cache, unless it holds the same or a later one.
	PutFinal(ctx context.Context, f rankd.FinalStandings) error
}

// finalTTL is how long the final standings in memory are served before they are checked again: a version
// switched by another server is seen within it. The check is one GET with a FinalCache, a read of the
// store without. Checked in the background while readers come, they are served until finalStale: a reader
// after a longer silence waits for the check, and does not get a version superseded long ago.
const (
	finalTTL   = 5 * time.Second
	finalStale = 2 * finalTTL
)

// finalCache keeps contests' active final standings in memory. A contest not in memory is loaded once
// however many readers ask for it at the same time; one loaded more than finalTTL ago is still served while
// one load, in the background, brings it up to date (see finalStale).
type finalCache struct {
	group   singleflight.Group
	mu      sync.Mutex
	entries map[string]finalEntry
}

type finalEntry struct {
	f      rankd.FinalStandings
	loaded time.Time
	// public names what the public's answer holds of f (see publicDigest).
	public string
}

// publicDigest names the public's part of final standings, their rows and awards: the public's answer
// carries it instead of the version, which a finalization again after hidden verdicts moves (and the public
// must not learn that any came).
func publicDigest(f rankd.FinalStandings) (string, error) {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode([]any{f.Public, f.Awards}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// forgetBefore drops a contest's final standings from memory when they are older than version, which a
// reader then waits for: a server reporting a finalization done (GET .../finalize) serves its version next.
func (c *finalCache) forgetBefore(contestID string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[contestID]; ok && e.f.Version < version {
		delete(c.entries, contestID)
	}
}

// get returns the active final standings of a contest, loading them with load when needed. load gets what
// memory holds (Version 0: nothing) and returns it when it is still the active version.
func (c *finalCache) get(ctx context.Context, contestID string, now time.Time,
	load func(ctx context.Context, id string, have rankd.FinalStandings) (rankd.FinalStandings, error)) (finalEntry, error) {
	c.mu.Lock()
	e, ok := c.entries[contestID]
	c.mu.Unlock()
	// Not the first reader's ctx: its leaving must not fail the others.
	ctx = context.WithoutCancel(ctx)
	key := "final|" + contestID // the group also renders pages
	refresh := func() (any, error) {
		// Checked again inside the flight: a reader that missed may come when the load that answers it is
		// just over.
		c.mu.Lock()
		e, ok := c.entries[contestID]
		c.mu.Unlock()
		if ok && now.Sub(e.loaded) < finalTTL {
			return e, nil
		}
		f, err := load(ctx, contestID, e.f)
		if err != nil {
			return nil, err
		}
		fresh := finalEntry{f: f, loaded: now, public: e.public}
		if f.Version != e.f.Version || !ok {
			if fresh.public, err = publicDigest(f); err != nil {
				return nil, err
			}
		}
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]finalEntry{}
		}
		c.entries[contestID] = fresh
		c.mu.Unlock()
		return fresh, nil
	}
	if ok && now.Sub(e.loaded) < finalStale {
		if now.Sub(e.loaded) >= finalTTL {
			go func() { _, _, _ = c.group.Do(key, refresh) }() // a failure is retried by the next reader
		}
		return e, nil
	}
	v, err, _ := c.group.Do(key, refresh)
	if err != nil {
		return finalEntry{}, err
	}
	return v.(finalEntry), nil
}

// loadFinal reads a contest's active final standings for the cache in memory, which holds have: from the
// shared cache when there is one and it holds have's version or a later one, else from the store (each
// counted by rankd_final_loads_total), filling the shared cache with them unless it is unreachable. A shared cache
// that fails is logged and passed over: the store answers.
func (s *Server) loadFinal(ctx context.Context, id string, have rankd.FinalStandings) (rankd.FinalStandings, error) {
	shared, ok := s.Projection.(FinalCache)
	// A shared cache that does not answer is given finalWait, then left alone for a while, as pages do (see
	// standings): a Redis that stopped answering cost each read of the final standings seconds.
	ok = ok && time.Now().UnixNano() >= s.projectionPaused.Load()
	fill := false
	if ok {
		sctx, cancel := context.WithTimeout(ctx, finalWait)
		f, behind, err := sharedFinal(sctx, shared, id, have)
		cancel()
		switch {
		case err != nil:
			s.projectionPaused.Store(time.Now().Add(projectionPause).UnixNano())
			s.Logger.Warn("reading the final standings from the shared cache failed; reading the store",
				slog.String("contest", id), slog.String("error", err.Error()))
		case !behind:
			if f.Version != have.Version {
				s.finalLoads.WithLabelValues("shared").Inc()
			}
			return f, nil
		}
		fill = err == nil
	}
	s.finalLoads.WithLabelValues("store").Inc()
	f, err := s.Store.ActiveFinal(ctx, id)
	if err != nil {
		return rankd.FinalStandings{}, err
	}
	if fill {
		sctx, cancel := context.WithTimeout(ctx, finalWait)
		defer cancel()
		if err := shared.PutFinal(sctx, f); err != nil {
			s.Logger.Warn("filling the shared cache with the final standings failed",
				slog.String("contest", id), slog.String("error", err.Error()))
		}
	}
	return f, nil
}

// finalWait bounds a read or fill of the final standings in the shared cache: they are megabytes for a big
// contest, more than a page's projectionWait.
const finalWait = time.Second

// sharedFinal reads a contest's final standings from c, for memory holding have: have itself while c holds
// its version (one GET), c's when they are later; behind when c holds none or older ones, which only the
// store can tell apart from the truth.
func sharedFinal(ctx context.Context, c FinalCache, id string, have rankd.FinalStandings) (f rankd.FinalStandings, behind bool, err error) {
	if have.Version > 0 {
		v, err := c.FinalVersion(ctx, id)
		switch {
		case err != nil:
			return f, false, err
		case v == have.Version:
			return have, false, nil
		case v < have.Version:
			return f, true, nil
		}
	}
	f, err = c.Final(ctx, id)
	switch {
	case rankd.ErrorCode(err) == rankd.ENOTFOUND:
		return f, true, nil
	case err != nil:
		return f, false, err
	}
	// Switched back between the two reads (refilled from a store that lost a version): the store decides.
	return f, f.Version < have.Version, nil
}

// finalJSON is a contest's final standings as the API serves them.
type finalJSON struct {
	ContestID string `json:"contest_id"`
	// Version, Pos and Built are the jury's only: a finalization again after hidden verdicts moves them, which
	// the public's answer must not show.
	Version int64           `json:"version,omitempty"`
	Pos     int64           `json:"pos,omitempty"`
	Built   time.Time       `json:"built,omitzero"`
	View    string          `json:"view"`
	Rows    []rowJSON       `json:"rows"`
	Awards  json.RawMessage `json:"awards"`
}

// getFinal answers a contest's active final standings: the jury's rows for the jury, the public's for the
// others (a team included: final standings have no secrets from it but the jury's own view). The answer is
// rendered once per version and board sequence (team names come from the board) and kept with the pages, so
// that a burst of readers costs one load and one rendering; its ETag names both.
func (s *Server) getFinal(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	final, err := s.finals.get(r.Context(), cid, s.Now(), s.loadFinal)
	if err != nil {
		return err
	}
	view := rankd.PublicView
	if v.Kind == rankd.ViewJury {
		view = rankd.JuryView
	}
	var etag string
	if err := s.readBoard(cid, view, func(b *board.Board, _ int64) error {
		etag = finalETag(view, final, b.Seq(view))
		return nil
	}); err != nil {
		return err
	}
	if match(r, etag) {
		writePage(w, r, v, cachedPage{}, etag)
		return nil
	}
	key := cid + "|" + view.String() + "|final"
	page, ok := s.pages.get(key, etag)
	if !ok {
		// The board may have moved since: the page is rendered under the ETag it has then.
		rendered, err, _ := s.finals.group.Do("page|"+key+"|"+etag, func() (any, error) {
			return s.renderFinal(cid, view, final)
		})
		if err != nil {
			return err
		}
		p := rendered.(renderedFinal)
		page, etag = p.page, p.etag
	}
	writePage(w, r, v, page, etag)
	return nil
}

// finalETag names a rendering of final standings in a view, whose board was at seq: the jury's by their
// version, the public's by what they hold.
func finalETag(view rankd.View, final finalEntry, seq uint64) string {
	if view.Kind == rankd.ViewJury {
		return fmt.Sprintf(`"final.%s.%d.%d"`, etagView(view), final.f.Version, seq)
	}
	return fmt.Sprintf(`"final.%s.%s.%d"`, etagView(view), final.public, seq)
}

type renderedFinal struct {
	page cachedPage
	etag string
}

// renderFinal renders the rows of one view of f, with the team names and groups the board has now, and
// keeps the page.
func (s *Server) renderFinal(cid string, view rankd.View, final finalEntry) (renderedFinal, error) {
	f := final.f
	rows, list := f.Public, f.Awards
	if view.Kind == rankd.ViewJury {
		rows = f.Jury
		if f.JuryAwards != nil { // versions built before the jury's awards were kept have the public's only
			list = f.JuryAwards
		}
	}
	awards, err := json.Marshal(ccs.Awards(list))
	if err != nil {
		return renderedFinal{}, err
	}
	out := finalJSON{ContestID: cid, View: view.String(), Rows: make([]rowJSON, len(rows)), Awards: awards}
	if view.Kind == rankd.ViewJury {
		out.Version, out.Pos, out.Built = f.Version, f.Pos, f.Built
	}
	var etag string
	err = s.readBoard(cid, view, func(b *board.Board, _ int64) error {
		etag = finalETag(view, final, b.Seq(view))
		for i, row := range rows {
			out.Rows[i] = renderRow(b, row)
		}
		return nil
	})
	if err != nil {
		return renderedFinal{}, err
	}
	body, err := json.Marshal(out)
	if err != nil {
		return renderedFinal{}, err
	}
	return renderedFinal{page: s.pages.put(cid+"|"+view.String()+"|final", etag, body), etag: etag}, nil
}
