// Package score holds the scoring rules of rankd as pure functions: from the submissions of one cell (a team
// on a problem) to the cell's result, from cells to a row's sort key, and the CTF value formulas. It does no
// I/O and keeps no state, so the in-memory board and every other projection compute exactly the same thing.
package score

import (
	"math"
)

// Verdict is the class of a submission's counting judgement, as the rules see it.
type Verdict uint8

const (
	// Pending: no verdict yet, or hidden from this view (frozen).
	Pending Verdict = iota
	// Accepted solves the problem.
	Accepted
	// Rejected costs penalty time (ICPC) and counts as a try.
	Rejected
	// Free is a verdict that neither solves nor costs penalty (a compile error by default): it does not count.
	Free
)

// Classify returns the verdict class of a judgement type with the given flags.
func Classify(solved, penalty bool) Verdict {
	switch {
	case solved:
		return Accepted
	case penalty:
		return Rejected
	}
	return Free
}

// Never is a time later than any contest time: a view that hides nothing hides from Never.
const Never = math.MaxInt64

// Sub is a submission as the rules see it. Times are contest times in milliseconds.
type Sub struct {
	Time    int64
	Verdict Verdict
	// Score is the OI score of a judged submission.
	Score float64
	// Subtasks holds the IOI score of each subtask of a judged submission.
	Subtasks []float64
}

// Window says which submissions of a cell count and which are hidden in a view. Times in milliseconds.
type Window struct {
	// Duration is the contest length: submissions before 0 or at/after Duration do not count.
	Duration int64
	// HideFrom is the time from which submissions are pending whatever their verdict (the freeze); Never
	// for a view that sees every verdict.
	HideFrom int64
}

// Result is a cell computed under some rules and view.
type Result struct {
	Solved  bool
	Judged  int32
	Pending int32
	// Time is the solve time (ICPC, CTF) or the time the score was reached (OI, IOI), in milliseconds.
	Time int64
	// Penalty is the ICPC penalty in minutes of a solved cell.
	Penalty int64
	// Score is the OI or IOI score.
	Score float64
	// FirstPending is the time of the earliest pending submission that could still change the solve (one
	// before the solve, or any when unsolved); Never when there is none. First to solve waits for it.
	FirstPending int64
}

// sees returns the verdict view w has of s, and whether s counts at all (it is within the contest).
func (w Window) sees(s *Sub) (Verdict, bool) {
	switch {
	case s.Time < 0 || s.Time >= w.Duration:
		return Pending, false
	case s.Time >= w.HideFrom:
		return Pending, true
	}
	return s.Verdict, true
}

// pend counts a pending submission at time t.
func (r *Result) pend(t int64) {
	r.Pending++
	if r.FirstPending == Never {
		r.FirstPending = t
	}
}

// ICPC computes a cell under ICPC rules: solved by the first accepted submission, at its contest minute plus
// penaltyMinutes for each rejected submission before it. subs must be sorted by time.
func ICPC(subs []Sub, w Window, penaltyMinutes int64) Result {
	r := Result{FirstPending: Never}
	var tries int64
	for i := range subs {
		s := &subs[i]
		v, ok := w.sees(s)
		if !ok {
			continue
		}
		switch v {
		case Pending:
			r.pend(s.Time)
		case Accepted:
			r.Judged++
			r.Solved = true
			r.Time = s.Time
			r.Penalty = s.Time/60000 + tries*penaltyMinutes
			// Nothing after the solve counts, but a hidden submission still shows as pending: whether it
			// follows a solve is a verdict the view does not know.
			for _, s := range subs[i+1:] {
				if s.Time >= w.HideFrom && s.Time < w.Duration {
					r.Pending++
				}
			}
			return r
		case Rejected:
			r.Judged++
			tries++
		}
	}
	return r
}

// CTF computes a cell under CTF rules: solved by the first accepted submission; the value is the board's
// business, since it depends on the other solvers. subs must be sorted by time.
func CTF(subs []Sub, w Window) Result {
	r := ICPC(subs, w, 0)
	r.Penalty = 0
	return r
}

// OI computes a cell under OI rules: the best score of the judged submissions, or with last set the score of
// the last judged one. Time is when the cell's score was reached. subs must be sorted by time.
func OI(subs []Sub, w Window, last bool) Result {
	r := Result{FirstPending: Never}
	for i := range subs {
		s := &subs[i]
		switch v, ok := w.sees(s); {
		case !ok || v == Free:
			continue
		case v == Pending:
			r.pend(s.Time)
			continue
		}
		r.Judged++
		if (last && s.Score != r.Score) || s.Score > r.Score {
			r.Score, r.Time = s.Score, s.Time
		}
	}
	r.Solved = r.Score > 0
	return r
}

// IOI computes a cell under IOI rules: the sum over subtasks of the best score of each subtask across the
// judged submissions. With no subtasks (n == 0) it is OI's best submission. Subtask scores past the n-th are
// ignored: the board refuses judgements with more than their problem has. best is scratch space of at
// least n elements, so that the hot path does not allocate. subs must be sorted by time.
func IOI(subs []Sub, w Window, n int, best []float64) Result {
	if n == 0 {
		return OI(subs, w, false)
	}
	best = best[:n]
	clear(best)
	r := Result{FirstPending: Never}
	for i := range subs {
		s := &subs[i]
		switch v, ok := w.sees(s); {
		case !ok || v == Free:
			continue
		case v == Pending:
			r.pend(s.Time)
			continue
		}
		r.Judged++
		var total float64
		for k := range best {
			if k < len(s.Subtasks) && s.Subtasks[k] > best[k] {
				best[k] = s.Subtasks[k]
			}
			total += best[k]
		}
		total = Round(total)
		if len(s.Subtasks) == 0 && s.Score > total {
			// Judged as a whole (no subtask scores given): it counts as a whole, not as nothing.
			total = s.Score
		}
		if total > r.Score {
			r.Score, r.Time = total, s.Time
		}
	}
	r.Solved = r.Score > 0
	return r
}

// Round rounds a sum of scores to the millionth of a point. Sums of float64 scores that are equal in decimal
// can differ in their last bit (0.1 + 0.2 against 0.3); the rules want equal totals to share a rank, so every
// sum is rounded before it is compared or shown. No contest scores finer than a millionth of a point.
func Round(sum float64) float64 { return math.Round(sum*1e6) / 1e6 }
