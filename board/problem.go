package board

import (
	"cmp"
	"math"
	"slices"

	"rankd"
	"rankd/score"
)

// cellChanged records that the cell (t, p) of view v went from old to cur, and keeps the problem-level
// state (first to solve, CTF solvers) that depends on it in step.
func (b *Board) cellChanged(v int, t int32, p int, old, cur *score.Result) {
	tm := &b.teams[t]
	if !sameShown(old, cur) {
		// A change of FirstPending alone shows nowhere but in first-to-solve marks, which updateFTS marks:
		// the row, and so the view's sequence, stays put (a frozen submission moved to another frozen time).
		b.mark(v, t)
		if v == jury {
			tm.ownDirty = b.epoch
		}
	}
	if b.problems[p].deleted {
		return // off every row; restoring the problem rebuilds everything
	}
	if b.contest.Rules == rankd.CTF && (old.Solved != cur.Solved || old.Time != cur.Time) {
		tm.accOK[v] = false // its values and bonuses: recomputed from the cells
	}
	if tm.accOK[v] && b.contest.Rules == rankd.ICPC && (old.Solved || cur.Solved) {
		tm.accOK[v] = tm.dirty[v] == b.epoch && moveSolves(&tm.rows[v], old, cur)
	}
	if !b.ranked(t) {
		return
	}
	b.updateFTS(v, t, p, old, cur)
	if b.contest.Rules == rankd.CTF && (old.Solved != cur.Solved || old.Time != cur.Time) {
		b.updateSolvers(v, t, p, old, cur)
	}
	if old.FirstPending != cur.FirstPending && b.hasBonuses() {
		b.updateWaiting(v, p, old.FirstPending, cur.FirstPending)
	}
}

// moveSolves moves an ICPC row's totals from a cell's old result to its new one, and reports whether they
// are still exact. A row the view does not show now (not marked: see mark) is not moved: commit recomputes
// it when the view shows it again.
func moveSolves(a *rowAgg, old, cur *score.Result) bool {
	if old.Solved {
		a.solved--
		a.penalty -= old.Penalty
	}
	if cur.Solved {
		a.solved++
		a.penalty += cur.Penalty
	}
	switch {
	case cur.Solved && cur.Time >= a.time:
		a.time = cur.Time
	case old.Solved && old.Time == a.time:
		return false // the last solve moved earlier or went: only the cells know the new one
	}
	return true
}

// sameShown reports whether a row shows two cell results alike: all but FirstPending. Results are compared
// and copied (setRes) field by field on the hot path: one just written field by field and then copied or
// compared whole is read back with wider loads than it was written with, which the CPU cannot forward
// from its store buffer (it waits for the stores to land: a tenth of the apply's time, measured).
func sameShown(a, b *score.Result) bool {
	return a.Solved == b.Solved && a.Judged == b.Judged && a.Pending == b.Pending && a.Time == b.Time &&
		a.Penalty == b.Penalty && a.Score == b.Score
}

// sameResult reports whether two cell results are equal (as == does, field by field: see sameShown).
func sameResult(a, b *score.Result) bool {
	return sameShown(a, b) && a.FirstPending == b.FirstPending
}

// setRes copies src to dst field by field (see sameShown).
func setRes(dst, src *score.Result) {
	dst.Solved, dst.Judged, dst.Pending = src.Solved, src.Judged, src.Pending
	dst.Time, dst.Penalty, dst.Score, dst.FirstPending = src.Time, src.Penalty, src.Score, src.FirstPending
}

func (b *Board) cellAt(t int32, p int) *cell { return &b.cells[int(t)*len(b.problems)+p] }

// updateFTS adjusts the first-to-solve state of problem p in view v for one changed cell of a ranked team.
// Counts are kept incrementally; a full recount over the problem's cells happens only when the earliest
// solve moves, which a contest sees a handful of times per problem.
func (b *Board) updateFTS(v int, t int32, p int, old, cur *score.Result) {
	if !b.hasFirstToSolve() {
		return
	}
	f := &b.views[v].fts[p]
	before := *f
	if old.Solved && old.Time == f.min {
		f.atMin--
	}
	if old.FirstPending < f.min {
		f.blockers--
	}
	if cur.Solved && cur.Time < f.min {
		b.recountFTS(v, p)
	} else {
		if cur.Solved && cur.Time == f.min {
			f.atMin++
		}
		if cur.FirstPending < f.min {
			f.blockers++
		}
		if f.atMin == 0 && f.min != score.Never {
			b.recountFTS(v, p)
		}
	}
	b.markFTSHolders(v, p, before)
}

// markFTSHolders marks the rows whose first-to-solve mark on problem p changed since before.
func (b *Board) markFTSHolders(v, p int, before ftsState) {
	f := &b.views[v].fts[p]
	if f.awarded() == before.awarded() && (!f.awarded() || f.min == before.min) {
		return
	}
	for t := range b.teams {
		r := &b.cellAt(int32(t), p).res[v]
		if r.Solved && ((before.awarded() && r.Time == before.min) || (f.awarded() && r.Time == f.min)) {
			b.mark(v, int32(t))
		}
	}
}

// recountFTS recomputes the first-to-solve state of problem p in view v from its cells; under rules without
// solves it stays empty, which leaves nothing for markFTSHolders to mark.
func (b *Board) recountFTS(v, p int) {
	f := ftsState{min: score.Never}
	if !b.hasFirstToSolve() {
		b.views[v].fts[p] = f
		return
	}
	for t := range b.teams {
		if !b.ranked(int32(t)) {
			continue
		}
		r := &b.cellAt(int32(t), p).res[v]
		switch {
		case r.Solved && r.Time < f.min:
			f.min, f.atMin = r.Time, 1
		case r.Solved && r.Time == f.min:
			f.atMin++
		}
	}
	for t := range b.teams {
		if b.ranked(int32(t)) && b.cellAt(int32(t), p).res[v].FirstPending < f.min {
			f.blockers++
		}
	}
	b.views[v].fts[p] = f
}

// solverCmp orders a CTF challenge's solvers: by solve time, then by team index, which only keeps the list's
// order deterministic. Bonuses depend on solve times alone (see bonus): a rename moves no points.
func (b *Board) solverCmp(v, p int) func(x, y int32) int {
	return func(x, y int32) int {
		return cmp.Or(cmp.Compare(b.cellAt(x, p).res[v].Time, b.cellAt(y, p).res[v].Time), cmp.Compare(x, y))
	}
}

// updateSolvers moves a ranked team in the solver list of CTF challenge p and marks every row whose value
// changed: all solvers when the dynamic value changed, the first-blood places that shifted.
func (b *Board) updateSolvers(v int, t int32, p int, old, cur *score.Result) {
	list := b.views[v].solvers[p]
	n := len(list)
	first := n // first position whose occupant changed
	if old.Solved {
		if at := slices.Index(list, t); at >= 0 {
			list = slices.Delete(list, at, at+1)
			first = min(first, at)
		}
	}
	if cur.Solved {
		at, _ := slices.BinarySearchFunc(list, t, b.solverCmp(v, p))
		list = slices.Insert(list, at, t)
		first = min(first, at)
	}
	b.views[v].solvers[p] = list
	if before, after := b.ctfValue(p, n), b.ctfValue(p, len(list)); after != before {
		// A value down to 0 or up from it may move its solvers' times too (see computeRow).
		b.shiftSolvers(v, p, after-before, before == 0 || after == 0)
	}
	b.markPlaces(v, p, first)
}

// markPlaces marks the solvers of challenge p in view v from position from on whose bonus place may have
// changed: those placed up to and including the place just past the bonuses, whose occupant may have been
// pushed out. The solvers before from kept their places, which only the solvers before them decide.
func (b *Board) markPlaces(v, p, from int) {
	k := len(b.contest.FirstBlood)
	list := b.views[v].solvers[p]
	place := 0
	for i, s := range list {
		if i > 0 && b.cellAt(s, p).res[v].Time != b.cellAt(list[i-1], p).res[v].Time {
			place = i
		}
		if place > k || k == 0 {
			return
		}
		if i >= from {
			b.mark(v, s)
			b.teams[s].accOK[v] = false
		}
	}
}

// updateWaiting moves a ranked cell's FirstPending in the waiting times of challenge p in view v, from old
// to cur, and marks the solvers whose bonus it holds back or releases.
func (b *Board) updateWaiting(v, p int, old, cur int64) {
	w := b.views[v].waiting[p]
	before := earliest(w)
	if old != score.Never {
		if at, found := slices.BinarySearch(w, old); found {
			w = slices.Delete(w, at, at+1)
		}
	}
	if cur != score.Never {
		at, _ := slices.BinarySearch(w, cur)
		w = slices.Insert(w, at, cur)
	}
	b.views[v].waiting[p] = w
	b.markWaiting(v, p, before, earliest(w))
}

// recountWaiting rebuilds the waiting times of challenge p in view v from its cells, and marks the solvers
// whose bonus that holds back or releases.
func (b *Board) recountWaiting(v, p int) {
	w := b.views[v].waiting[p]
	before := earliest(w)
	w = w[:0]
	if b.hasBonuses() {
		for t := range b.teams {
			if fp := b.cellAt(int32(t), p).res[v].FirstPending; fp != score.Never && b.ranked(int32(t)) {
				w = append(w, fp)
			}
		}
		slices.Sort(w)
	}
	b.views[v].waiting[p] = w
	b.markWaiting(v, p, before, earliest(w))
}

// markWaiting marks the solvers of challenge p in view v with a bonus place whose bonus was held back by
// the earliest waiting time before and is not by after, or the other way round: those solved in between.
func (b *Board) markWaiting(v, p int, before, after int64) {
	if before == after {
		return
	}
	lo, hi := min(before, after), max(before, after)
	k := len(b.contest.FirstBlood)
	list := b.views[v].solvers[p]
	place := 0
	for i, s := range list {
		at := b.cellAt(s, p).res[v].Time
		if i > 0 && at != b.cellAt(list[i-1], p).res[v].Time {
			place = i
		}
		if place >= k || at > hi {
			return
		}
		if at > lo {
			b.mark(v, s)
			b.teams[s].accOK[v] = false
		}
	}
}

// earliest is the first of ascending times, Never when there is none.
func earliest(times []int64) int64 {
	if len(times) == 0 {
		return score.Never
	}
	return times[0]
}

// hasBonuses reports whether solves earn first-blood bonuses.
func (b *Board) hasBonuses() bool {
	return b.contest.Rules == rankd.CTF && len(b.contest.FirstBlood) > 0
}

// shiftSolvers marks every solver of challenge p, whose value changed by d, and moves their row totals by
// d: a solve of a challenge that many teams solved costs no recomputation of their rows. The totals are sums
// of integers, exact in a float64 below 2⁵³; a row past that is recomputed instead, and so are all when
// recompute says so.
func (b *Board) shiftSolvers(v, p int, d int64, recompute bool) {
	shift := func(t int32) {
		tm := &b.teams[t]
		if a := &tm.rows[v]; b.mark(v, t) && tm.accOK[v] {
			a.score += float64(d)
			if recompute || math.Abs(a.score) >= 1<<52 || d >= 1<<52 || d <= -1<<52 {
				tm.accOK[v] = false
			}
		} else {
			tm.accOK[v] = false // a row the view does not show now: recomputed when it does
		}
	}
	// Unranked solvers hold the value too (their rows show it); there are few of them.
	for _, t := range b.unranked {
		if b.cellAt(t, p).res[v].Solved {
			shift(t)
		}
	}
	for _, t := range b.views[v].solvers[p] {
		shift(t)
	}
}

// recountTeamProblems rebuilds the first-to-solve and CTF solver state, in both views, of the problems team t
// has submitted to, after t joined or left the ranked teams, marking the rows whose marks or values changed.
func (b *Board) recountTeamProblems(t int32) {
	for p := range b.problems {
		if b.cellAt(t, p).n == 0 {
			continue
		}
		for v := range b.views {
			before := b.views[v].fts[p]
			b.recountFTS(v, p)
			b.markFTSHolders(v, p, before)
			if b.contest.Rules == rankd.CTF {
				b.recountSolvers(v, p)
			}
		}
	}
}

// recountSolvers rebuilds the solver list and the waiting times of CTF challenge p in view v from its cells,
// marking the rows whose value or bonus changed.
func (b *Board) recountSolvers(v, p int) {
	old := b.views[v].solvers[p]
	var list []int32
	for t := range b.teams {
		if b.ranked(int32(t)) && b.cellAt(int32(t), p).res[v].Solved {
			list = append(list, int32(t))
		}
	}
	slices.SortFunc(list, b.solverCmp(v, p))
	first := 0
	for first < len(list) && first < len(old) && list[first] == old[first] {
		first++
	}
	b.views[v].solvers[p] = list
	b.recountWaiting(v, p)
	if first == len(list) && len(list) == len(old) {
		return
	}
	// Solvers that left lose their value or bonus. Rare (a team joins or leaves the ranked teams, the
	// rules change): every row is recomputed from its cells the next time it changes.
	for t := range b.teams {
		b.teams[t].accOK[v] = false
	}
	for _, s := range old[min(first, len(old)):] {
		b.mark(v, s)
	}
	if len(list) != len(old) && b.problems[p].info.Function != rankd.ValueStatic {
		for _, t := range b.unranked {
			if b.cellAt(t, p).res[v].Solved {
				b.mark(v, t)
			}
		}
		for _, s := range list {
			b.mark(v, s)
		}
		return
	}
	b.markPlaces(v, p, first)
}

// hasFirstToSolve reports whether the rules know solves: OI and IOI problems have scores instead.
func (b *Board) hasFirstToSolve() bool {
	return b.contest.Rules == rankd.ICPC || b.contest.Rules == rankd.CTF
}

// ctfValue is the value challenge p has for n solvers.
func (b *Board) ctfValue(p int, n int) int64 {
	pr := &b.problems[p].info
	switch pr.Function {
	case rankd.ValueLinear:
		return score.Linear(pr.Value, pr.Minimum, pr.Decay, n)
	case rankd.ValueLogarithmic:
		return score.Logarithmic(pr.Value, pr.Minimum, pr.Decay, n)
	case rankd.ValueDEFCON:
		return score.DEFCON(n)
	}
	return pr.Value
}

// bonus returns the first-blood bonus of a ranked team t that solved challenge p at time at, in view v. Its
// place is one more than the number of solvers before it, so solvers of the same time share the better
// bonus (competition ranking: 1, 1, 3). It gets none while a submission of the challenge earlier than its
// solve is pending in the view: that one may still take its place, as it holds back first to solve. In
// a team's own view (own), the team's own cell is the jury's, and its solve may be one the view's solvers
// do not hold yet.
func (b *Board) bonus(v int, t int32, p int, at int64, own bool) int64 {
	fb := b.contest.FirstBlood
	if len(fb) == 0 {
		return 0
	}
	list := b.views[v].solvers[p]
	place, _ := slices.BinarySearchFunc(list, at, func(s int32, at int64) int {
		return cmp.Compare(b.cellAt(s, p).res[v].Time, at)
	})
	if place >= len(fb) {
		return 0
	}
	w := b.views[v].waiting[p]
	wait := earliest(w)
	if own {
		// The others' cells as the view sees them, the team's own as the jury does.
		if mine := b.cellAt(t, p).res[v].FirstPending; mine != score.Never && mine == wait {
			wait = earliest(w[1:])
		}
		wait = min(wait, b.cellAt(t, p).res[jury].FirstPending)
	}
	if wait < at {
		return 0
	}
	return fb[place]
}
