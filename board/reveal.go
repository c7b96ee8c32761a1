package board

import (
	"cmp"
	"strconv"
	"time"

	"rankd"
	"rankd/rankindex"
	"rankd/score"
)

// The stepwise reveal (the ICPC Resolver's "resolve"). After the end of a frozen contest the public view can
// be revealed one cell at a time instead of at once: each step (a rankd.Reveal event, numbered from 1) shows
// the public every verdict of one hidden cell, the cell then reading as in the jury view. The cell is not the
// event's to choose: it is the first hidden cell, in problem order, of the lowest-ranked team of the public
// board as the previous step left it; the event names it so that the log says what the public saw, and the
// board refuses an event that names another.
//
// A hidden cell is a cell of a ranked team (one on the public board) with a submission within the contest at
// or after the public view's hideFrom, which no step revealed yet. A revealed cell keeps its verdicts
// public whatever comes later (a rejudge shows at once, as after a thaw); a thaw reveals every cell at once.

// revealCell is a cell a step revealed: its team and problem indexes, which never change.
type revealCell struct {
	t int32
	p uint16
}

// RevealCell names a cell of the board: a team's problem.
type RevealCell struct {
	TeamID    string
	ProblemID string
}

// unveiled reports whether view v shows every verdict of cell ci whatever its window: a public cell a reveal
// step revealed.
func (b *Board) unveiled(v, ci int) bool {
	if v != public || len(b.revealed) == 0 {
		return false
	}
	np := len(b.problems)
	_, ok := b.revealed[revealCell{int32(ci / np), uint16(ci % np)}]
	return ok
}

// hideFrom returns the time from which view v hides the verdicts of cell ci.
func (b *Board) hideFrom(v, ci int) int64 {
	if b.unveiled(v, ci) {
		return score.Never
	}
	return b.views[v].hideFrom
}

// hidden reports whether the cell (t, p) is hidden from the public: it has a submission within the contest
// that the public view does not see the verdict of, and no step revealed it.
func (b *Board) hidden(t int32, p int) bool {
	h := b.views[public].hideFrom
	c := b.cellAt(t, p)
	if h == score.Never || c.n == 0 || c.last < h || c.last < 0 {
		return false
	}
	if _, ok := b.revealed[revealCell{t, uint16(p)}]; ok {
		return false
	}
	// From the last submission back: those at or after the end count for nothing; the latest one that
	// counts decides, as every earlier one is earlier still.
	for r := c.tail; r != 0; r = b.sub(r).prev {
		if s := b.sub(r); s.time < b.dur {
			return s.time >= h && s.time >= 0
		}
	}
	return false
}

// firstHidden returns the first hidden cell of team t in problem order.
func (b *Board) firstHidden(t int32) (int, bool) {
	for _, p := range b.order {
		if b.hidden(t, p) {
			return p, true
		}
	}
	return 0, false
}

// nextHidden returns the cell the next reveal step reveals: the first hidden cell, in problem order, of the
// lowest-ranked team of the public board that has one.
func (b *Board) nextHidden() (t int32, p int, ok bool) {
	if b.views[public].hideFrom == score.Never {
		return 0, 0, false
	}
	b.Settle()
	x := b.views[public].all
	// Bottom-up, a chunk of rows at a time: the index ranges forward only.
	const chunk = 64
	var ids [chunk]int32
	for end := x.Len(); end > 0; end -= chunk {
		from := max(0, end-chunk)
		n := 0
		x.Range(from, end-from, func(id int32, _ rankindex.Key, _ int) bool {
			ids[n] = id
			n++
			return true
		})
		for i := n - 1; i >= 0; i-- {
			if p, ok := b.firstHidden(ids[i]); ok {
				return ids[i], p, true
			}
		}
	}
	return 0, 0, false
}

// Reveal returns where the stepwise reveal stands: the number of steps made, the cell the next step reveals
// (nil when no cell is hidden) and the number of hidden cells left. The next cell is named before the contest
// ended too, though no step can be made then (see CheckReveal); nothing of it is secret, since the public
// board shows which cells have frozen submissions and in what order its rows are.
func (b *Board) Reveal() (step int, next *RevealCell, remaining int) {
	if t, p, ok := b.nextHidden(); ok {
		next = &RevealCell{TeamID: b.teams[t].id, ProblemID: b.problems[p].info.ID}
		// Team by team in memory order, the cells one sequential read.
		for t := range b.teams {
			if !b.ranked(int32(t)) {
				continue
			}
			for _, p := range b.order {
				if b.hidden(int32(t), p) {
					remaining++
				}
			}
		}
	}
	return len(b.reveals), next, remaining
}

// RevealDone reports whether the public view, after the contest's end, hides no verdict any more: every
// hidden cell was revealed step by step, or none was hidden (no submission after the freeze). The board is
// then as a thaw would leave it, though no thaw is recorded.
func (b *Board) RevealDone() bool { return b.revealDone }

// noteRevealDone brings revealDone up to date after an event of type t. It looks at the cells only after the
// contest's end, and not for a judgement, which hides or shows no cell (a cell is hidden by its submissions'
// times).
func (b *Board) noteRevealDone(t rankd.EventType) {
	switch {
	case len(b.reveals) == 0 && b.state.Ended == nil:
		b.revealDone = false
	case t != rankd.EventJudgement:
		b.revealDone = !b.anyHidden()
	}
}

// RevealStep returns the cell step n (from 1) revealed, and false when there was no such step.
func (b *Board) RevealStep(n int) (RevealCell, bool) {
	if n < 1 || n > len(b.reveals) {
		return RevealCell{}, false
	}
	c := b.reveals[n-1]
	return RevealCell{TeamID: b.teams[c.t].id, ProblemID: b.problems[c.p].info.ID}, true
}

// CheckReveal returns the error the next reveal step would be refused at now with, and nil when it can be
// made: EUNPROCESSABLE before the contest ended, ECONFLICT when no cell is hidden (a thaw, or every cell
// revealed) or when the next cell still has a submission without a verdict. A contest whose end has come by
// now counts as ended though its log does not say so yet (a step records the end first), unless it is hidden
// until its end.
func (b *Board) CheckReveal(now time.Time) error {
	// A contest hidden until its end shows everything once its end is recorded: nothing is left to reveal
	// then, so the clock's end does not count.
	_, _, err := b.nextReveal(len(b.reveals)+1, b.endCame(now) && !b.contest.HidesUntilEnd())
	return err
}

// endCame reports whether the contest's end has come by now, by its start and duration.
func (b *Board) endCame(now time.Time) bool {
	start := b.Start()
	return !start.IsZero() && !now.Before(start.Add(b.contest.Duration))
}

// revealOpen refuses reveal step before the contest ended (its log says so, or ended says it will at once):
// the reveal comes after the end.
func (b *Board) revealOpen(step int, ended bool) error {
	switch {
	case !b.hasRules:
		return rankd.Errorf(rankd.EUNPROCESSABLE, "reveal step %d before the contest is defined", step)
	case !ended && b.state.Ended == nil && !b.state.Revealed():
		return rankd.Errorf(rankd.EUNPROCESSABLE, "reveal step %d: the contest has not ended (no ended state yet): the reveal comes after the end", step)
	}
	return nil
}

// nextReveal returns the cell step, the next one, reveals, or why it cannot be made (see revealOpen for ended).
func (b *Board) nextReveal(step int, ended bool) (int32, int, error) {
	if err := b.revealOpen(step, ended); err != nil {
		return 0, 0, err
	}
	t, p, ok := b.nextHidden()
	if !ok {
		return 0, 0, rankd.Errorf(rankd.ECONFLICT, "reveal step %d: nothing is hidden from the public any more", step)
	}
	if b.cellAt(t, p).res[jury].Pending > 0 {
		tm, pr := &b.teams[t].info, &b.problems[p].info
		return 0, 0, rankd.Errorf(rankd.ECONFLICT, "reveal step %d: %s (team %s), problem %s (%s), still has a submission without a verdict: judge it first",
			step, tm.ShownName(), tm.ID, cmp.Or(pr.Label, pr.ID), pr.ID)
	}
	return t, p, nil
}

// revealable returns the cell reveal step rv names, when a step may reveal it: the contest ended, and the cell
// is hidden from the public, its submissions all judged.
func (b *Board) revealable(rv *rankd.Reveal) (int32, int, error) {
	if err := b.revealOpen(rv.Step, false); err != nil {
		return 0, 0, err
	}
	t, tok := b.teamIdx[rv.TeamID]
	p, pok := b.probIdx[rv.ProblemID]
	if !tok || !pok || !b.ranked(t) || b.problems[p].deleted || !b.hidden(t, p) {
		return 0, 0, rankd.Errorf(rankd.ECONFLICT, "reveal step %d: team %s's problem %s is not hidden from the public", rv.Step, rv.TeamID, rv.ProblemID)
	}
	if b.cellAt(t, p).res[jury].Pending > 0 {
		return 0, 0, rankd.Errorf(rankd.ECONFLICT, "reveal step %d: team %s's problem %s still has a submission without a verdict: judge it first",
			rv.Step, rv.TeamID, rv.ProblemID)
	}
	return t, p, nil
}

// admitReveal refuses a new reveal step that does not reveal the cell the rule chooses (see nextReveal).
func (b *Board) admitReveal(rv *rankd.Reveal) error {
	if rv.Step != len(b.reveals)+1 || rv.TeamID == "" || rv.ProblemID == "" {
		return nil // a retry, out of order, or malformed: Apply says which
	}
	t, p, err := b.nextReveal(rv.Step, false)
	if err != nil {
		return err
	}
	if b.teams[t].id != rv.TeamID || b.problems[p].info.ID != rv.ProblemID {
		return rankd.Errorf(rankd.ECONFLICT, "reveal step %d reveals team %s's problem %s, not team %s's problem %s",
			rv.Step, b.teams[t].id, b.problems[p].info.ID, rv.TeamID, rv.ProblemID)
	}
	return nil
}

func (b *Board) applyReveal(ev *rankd.Event) error {
	if err := b.needContest("reveal step"); err != nil {
		return err
	}
	if ev.Delete {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "reveal step %s: a step cannot be deleted: what the public saw stays seen", ev.ID)
	}
	rv := ev.Reveal
	switch {
	case rv.Step < 1:
		return rankd.Errorf(rankd.EINVALID, "reveal step %d: steps are numbered from 1", rv.Step)
	case ev.ID != "" && ev.ID != strconv.Itoa(rv.Step):
		return rankd.Errorf(rankd.EINVALID, "reveal step %d: the event's id %q is not its step number", rv.Step, ev.ID)
	case rv.TeamID == "" || rv.ProblemID == "":
		return rankd.Errorf(rankd.EINVALID, "reveal step %d: the team and problem of the revealed cell are required", rv.Step)
	}
	if done := len(b.reveals); rv.Step <= done {
		c := b.reveals[rv.Step-1]
		if b.teams[c.t].id == rv.TeamID && b.problems[c.p].info.ID == rv.ProblemID {
			return nil // a retry
		}
		return rankd.Errorf(rankd.ECONFLICT, "reveal step %d revealed team %s's problem %s, not team %s's problem %s",
			rv.Step, b.teams[c.t].id, b.problems[c.p].info.ID, rv.TeamID, rv.ProblemID)
	} else if rv.Step > done+1 {
		return rankd.Errorf(rankd.ECONFLICT, "reveal step %d before step %d", rv.Step, done+1)
	}
	// The cell the step names must be one a step may reveal; which of them the rule chooses is Admit's (a log
	// replays the steps it holds, made by a rankd whose rule listed tied rows otherwise).
	t, p, err := b.revealable(rv)
	if err != nil {
		return err
	}
	c := revealCell{t, uint16(p)}
	b.reveals = append(b.reveals, c)
	if b.revealed == nil {
		b.revealed = map[revealCell]struct{}{}
	}
	b.revealed[c] = struct{}{}
	ci := int(t)*len(b.problems) + p
	b.setCell(ci, public, b.gather(&b.cells[ci]))
	// Every step is a change of the public board, even one that shows a cell as it was (a submission after
	// a solve that was already judged): screens follow the reveal step by step.
	b.mark(public, t)
	return nil
}
