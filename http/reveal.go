package http

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// The stepwise reveal (the ICPC Resolver's "resolve"): after the end of a frozen contest an admin steps
// through the hidden cells, one per POST, each step a "reveal" event in the log (see board/reveal.go and
// docs/rules.md). Every screen follows it through the public view's diffs; GET tells anyone where it stands.

// revealCellJSON names a cell: a team's problem.
type revealCellJSON struct {
	TeamID    string `json:"team_id"`
	ProblemID string `json:"problem_id"`
}

func cellRef(c *board.RevealCell) *revealCellJSON {
	if c == nil {
		return nil
	}
	return &revealCellJSON{TeamID: c.TeamID, ProblemID: c.ProblemID}
}

// revealJSON is where the reveal of a contest stands. Nothing in it is secret: the steps made are public, and
// which cells are hidden, and in what order the rows are, the public board shows.
type revealJSON struct {
	ContestID string `json:"contest_id"`
	// Seq is the public view's sequence number this answer goes with.
	Seq uint64 `json:"seq"`
	// Step is the number of steps made.
	Step int `json:"step"`
	// Remaining is the number of cells still hidden from the public.
	Remaining int `json:"remaining"`
	// Next is the cell the next step reveals; null when nothing is hidden.
	Next *revealCellJSON `json:"next"`
	// Blocked is, for the jury only, why the next step would be refused now (the contest has not ended, a
	// submission of the next cell has no verdict yet); absent when it can be made.
	Blocked *errorBody `json:"blocked,omitempty"`
}

// revealStepJSON answers a step.
type revealStepJSON struct {
	revealJSON
	// Revealed is the cell the step revealed, and Cell how the public sees it now: its verdicts.
	Revealed revealCellJSON `json:"revealed"`
	Cell     cellJSON       `json:"cell"`
	// OldRank and NewRank are the team's public rank before and after the step.
	OldRank int `json:"old_rank"`
	NewRank int `json:"new_rank"`
	// Duplicate says that the step had been made before (a retry): nothing changed, and OldRank is the rank
	// now, as NewRank.
	Duplicate bool `json:"duplicate,omitempty"`
}

// revealState reads where the reveal of b stands.
func revealState(b *board.Board, cid string) revealJSON {
	step, next, remaining := b.Reveal()
	return revealJSON{ContestID: cid, Seq: b.Seq(rankd.PublicView), Step: step, Remaining: remaining, Next: cellRef(next)}
}

// juryRevealState is revealState with, for the jury, why the next step would be refused at now.
func juryRevealState(b *board.Board, cid string, now time.Time) revealJSON {
	out := revealState(b, cid)
	if err := b.CheckReveal(now); err != nil && out.Next != nil {
		out.Blocked = &errorBody{Code: rankd.ErrorCode(err), Message: rankd.ErrorMessage(err)}
	}
	return out
}

// getReveal tells anyone where the reveal stands; a jury token learns why the next step is blocked, if it is.
// The public answer is a page of the public view like the others: rendered once per version of the view
// (its sequence number; the state too, which a thaw changes) and served without the board's lock, so that
// no public reader learns from a wait that the jury's board is busy.
func (s *Server) getReveal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.Auth.identify(r)
	if err != nil {
		return err
	}
	cid := r.PathValue("cid")
	if t.Role != rankd.RoleAdmin && t.Role != rankd.RoleJudge {
		return s.cachedRead(w, r, cid, rankd.PublicView, "reveal", func(b *board.Board) (any, error) {
			return revealState(b, cid), nil
		})
	}
	var out revealJSON
	if err := s.Engine.Read(cid, func(b *board.Board, _ int64) error {
		out = juryRevealState(b, cid, s.Now())
		return nil
	}); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "private, no-cache")
	return writeJSON(w, http.StatusOK, out)
}

// postRevealNext makes the next step of the reveal. The body may name the step, {"step": n}, which makes the
// request safe to retry: a step made before answers as a duplicate, and a step beyond the next one is
// refused. After the contest's end by the clock, a contest whose state does not say so yet is ended first.
func (s *Server) postRevealNext(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	var req struct {
		Step *int `json:"step"` // nil: the next one
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return rankd.Errorf(rankd.EINVALID, "the body must be empty or {\"step\": n}, n a step number from 1: %s", decodeProblem(err))
	} else if err == nil {
		if err := oneValue(dec); err != nil {
			return err
		}
	}
	step := 0 // the next one
	if req.Step != nil {
		// 0 is refused, not taken for the next step: a client counting from 0 would make a step at each retry.
		if step = *req.Step; step < 1 {
			return rankd.Errorf(rankd.EINVALID, "step %d: steps are numbered from 1", step)
		}
	}
	if err := s.endByClock(r, cid); err != nil {
		return err
	}

	var ev rankd.Event
	var oldRank int
	var duplicate bool
	if err := retried(func(stale *bool) (err error) {
		ev, oldRank, duplicate, err = s.revealStep(r, cid, step, stale)
		return err
	}); err != nil {
		return err
	}
	out := revealStepJSON{Revealed: revealCellJSON{TeamID: ev.Reveal.TeamID, ProblemID: ev.Reveal.ProblemID},
		OldRank: oldRank, Duplicate: duplicate}
	if err := s.Engine.Read(cid, func(b *board.Board, _ int64) error {
		out.revealJSON = juryRevealState(b, cid, s.Now())
		row, err := b.Row(rankd.PublicView, ev.Reveal.TeamID)
		if err != nil {
			return err // the team was hidden or banned since: its row is not public any more
		}
		out.NewRank = row.Rank
		if out.Duplicate {
			out.OldRank = row.Rank
		}
		rj := renderRow(b, row)
		for _, c := range rj.Cells {
			if c.ProblemID == ev.Reveal.ProblemID {
				out.Cell = c
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// endByClock records the end of a contest whose time is up but whose state does not say it ended yet, as the
// thaw does: the reveal comes after the end.
func (s *Server) endByClock(r *http.Request, cid string) error {
	if err := s.current(r.Context(), cid); err != nil {
		return err
	}
	return s.Engine.RecordEnd(r.Context(), cid, s.Now())
}

// revealStep makes step n of the reveal (0: the next one) unless it was made, guarded by the steps made
// (see retried), and returns its event, the revealed team's rank before it and whether it was made before.
func (s *Server) revealStep(r *http.Request, cid string, step int, stale *bool) (ev rankd.Event, oldRank int, duplicate bool, err error) {
	made := false // the step was made before: a retry
	if err = s.Engine.Read(cid, func(b *board.Board, _ int64) error {
		done, next, _ := b.Reveal()
		n := step
		if n == 0 {
			n = done + 1
		}
		var cell board.RevealCell
		switch {
		case n <= done:
			cell, _ = b.RevealStep(n)
			made = true
		case n > done+1:
			return rankd.Errorf(rankd.ECONFLICT, "reveal step %d before step %d", n, done+1)
		default:
			if err := b.CheckReveal(s.Now()); err != nil {
				return err
			}
			cell = *next
		}
		row, err := b.Row(rankd.PublicView, cell.TeamID)
		if err != nil {
			return err
		}
		oldRank = row.Rank
		ev = rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(n),
			Reveal: &rankd.Reveal{Step: n, TeamID: cell.TeamID, ProblemID: cell.ProblemID,
				Time: s.Now().Sub(b.Start()).Truncate(time.Millisecond)}}
		return nil
	}); err != nil {
		return ev, 0, false, err
	}

	// A retry is answered as a duplicate without storing anything: made again now, the step would be a new
	// version of it (another time), stored and sent to the event feed again.
	if made {
		return ev, oldRank, true, nil
	}
	// Made meanwhile by another request, on this server or another: read again, a step named is then a
	// duplicate, and the next step is the one after it.
	n := ev.Reveal.Step
	resp, err := s.submit(r, cid, []rankd.Event{ev}, unchanged(stale, func(b *board.Board) bool {
		done, _, _ := b.Reveal()
		return done == n-1
	}))
	if err != nil {
		return ev, 0, false, err
	}
	res := resp.Results[0]
	switch {
	case res.Status == engine.StatusRejected:
		return ev, 0, false, &rankd.Error{Code: res.Code, Message: res.Message}
	case res.Status == engine.StatusDuplicate && step == 0:
		// The same step made by another request in the same millisecond: this one makes the next.
		*stale = true
		return ev, 0, false, errChanged
	}
	return ev, oldRank, res.Status == engine.StatusDuplicate, nil
}
