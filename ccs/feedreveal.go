package ccs

import (
	"slices"

	"rankd"
)

// fcell is a team's problem, as the FeedFilter knows cells.
type fcell struct{ team, problem string }

// reveal applies a step of the stepwise reveal: the withheld judgements of the cell it reveals go to the
// public, in log order, then the step's own line (the step is public: screens follow it). The judgements come
// first so that a rankd client that imports the feed has the cell's verdicts when the step comes, as a board
// that checks the step needs them; they arrive with the same entry, so no reader learns them earlier. The log
// holds only steps a board accepted, so the filter need not check their order; a deletion, which no board
// accepts, is left out.
func (f *FeedFilter) reveal(ev *rankd.Event, line []byte, emit func([]byte) error) error {
	if ev.Delete || ev.Reveal == nil {
		return nil
	}
	c := fcell{ev.Reveal.TeamID, ev.Reveal.ProblemID}
	if f.revealed == nil {
		f.revealed = map[fcell]bool{}
	}
	f.revealed[c] = true
	var shown []*fjud
	if t := f.teams[c.team]; t != nil {
		for _, s := range t.subs {
			if s.problem != c.problem {
				continue
			}
			for _, j := range s.juds {
				if j.sent != j.pos && f.judVisible(j) {
					shown = append(shown, j)
				}
			}
		}
	}
	slices.SortFunc(shown, byPos)
	for _, j := range shown {
		if err := f.sync(rankd.EventJudgement, &j.fobj, true, emit); err != nil {
			return err
		}
	}
	return emit(line)
}
