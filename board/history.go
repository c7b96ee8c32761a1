package board

import (
	"cmp"
	"math"
	"slices"
	"time"

	"rankd"
)

// Standing is a team's place in a view without its cells: its rank (0 when it is not ranked: hidden or
// banned, in the jury view) and its totals.
type Standing struct {
	Rank    int
	Solved  int
	Penalty int64
	Score   float64
}

// Point is a team's standing in a view from a contest time on, until its next point.
type Point struct {
	Time time.Duration
	Standing
}

// Series is the standings of one team over a contest.
type Series struct {
	TeamID string
	Points []Point
}

// History works out the standings of teams over a contest from its log, in one replay, such that a
// team's standing at any contest time t (in whole milliseconds) is its row on the board of that moment: the
// board that replaying the log through ApplyAsOf(ev, t, start) builds. Give it the log in order with Add,
// then ask for Series.
//
// Each event is applied from the moment it became known (see AsOf): definitions, deletions and the
// contest's state without its steps before the start, a submission from just after its contest time, a
// judgement from when its verdict was known (and its submission was). Events are applied in that order,
// ties in log order. Since a cell is a function of its submissions and their latest judgements, whatever
// the order they came in, the board after the events known at t equals the board that replays the log
// through AsOf(t). Versions of one object are where the order matters, and a version is applied only when
// a replay would let it count among the versions then known: a submission's latest version in the log
// (or its deletion); a judgement's version with the latest start, the latest in the log among equals.
// The contest's state at t is the latest state of the log without the steps after t, as in a replay.
type History struct {
	start time.Time
	evs   []timedEvent
	// subKnown is when the submissions seen so far became known (their earliest version), by id.
	subKnown map[string]time.Duration
	state    *timedEvent // the latest state event
}

// timedEvent is an event of the log with the moment it becomes known.
type timedEvent struct {
	known time.Duration // from this contest time on; math.MinInt64: always
	pos   int64         // its position in the log
	ev    rankd.Event
}

// always is the moment of what is known from the beginning.
const always = time.Duration(math.MinInt64)

// NewHistory returns a History of a contest that started at start (Board.Start).
func NewHistory(start time.Time) *History {
	return &History{start: start, subKnown: map[string]time.Duration{}}
}

// Add takes the next event of the log, at position pos; the event is copied.
func (h *History) Add(pos int64, ev *rankd.Event) {
	te := timedEvent{known: always, pos: pos, ev: ev.Clone()}
	switch {
	case ev.Type == rankd.EventState:
		// Only the latest state counts (a deletion too): see events.
		h.state = &te
		return
	case ev.Delete:
	case ev.Type == rankd.EventSubmission:
		te.known = ev.Submission.Time + 1 // known at t when made before t
		if k, ok := h.subKnown[objectID(ev)]; !ok || te.known < k {
			h.subKnown[objectID(ev)] = te.known
		}
	case ev.Type == rankd.EventReveal && ev.Reveal != nil:
		te.known = ev.Reveal.Time
	case ev.Type == rankd.EventJudgement:
		te.known = ev.Judgement.KnownAt()
		if k, ok := h.subKnown[ev.Judgement.SubmissionID]; ok && k > te.known {
			te.known = k // it counts once its submission is known
		}
	}
	te.known = ceilMS(te.known)
	h.evs = append(h.evs, te)
}

// Grow makes room for n more events.
func (h *History) Grow(n int) { h.evs = slices.Grow(h.evs, n) }

// events returns the events in the order they become known, each with the millisecond from which it is
// known (math.MinInt64: always), the contest's state once for each of its steps; ties in log order.
func (h *History) events() []*timedEvent {
	order := make([]*timedEvent, 0, len(h.evs)+8)
	for i := range h.evs {
		order = append(order, &h.evs[i])
	}
	if h.state != nil {
		st := *h.state
		if st.ev.Delete || st.ev.State == nil {
			order = append(order, &st)
		} else {
			s := st.ev.State
			steps := []time.Duration{always}
			for _, f := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
				if f != nil {
					steps = append(steps, f.Sub(h.start))
				}
			}
			slices.Sort(steps)
			for _, at := range slices.Compact(steps) {
				ev, _ := AsOf(st.ev, at, h.start)
				order = append(order, &timedEvent{known: ceilMS(at), pos: st.pos, ev: ev})
			}
		}
	}
	slices.SortStableFunc(order, func(x, y *timedEvent) int {
		if c := cmp.Compare(x.known, y.known); c != 0 {
			return c
		}
		return cmp.Compare(x.pos, y.pos)
	})
	return order
}

// ceilMS rounds a contest time up to the millisecond: the first whole millisecond from which an event is
// known.
func ceilMS(d time.Duration) time.Duration {
	if d == always {
		return d
	}
	m := d / time.Millisecond
	if d%time.Millisecond > 0 {
		m++
	}
	return m * time.Millisecond
}

// Series returns the standings of the teams in view v (public or jury) over the contest: a first point at
// time 0, then one each time a team's standing changed. A team unknown, or not on the public board in the
// public view, is an ENOTFOUND error.
func (h *History) Series(v rankd.View, teamIDs []string) ([]Series, error) {
	if v.Kind == rankd.ViewTeam {
		return nil, rankd.Errorf(rankd.EINVALID, "the history is of the public or the jury view")
	}
	vi := viewIndex(v.Kind)
	evs := h.events()
	b := New()
	// The version of each submission and judgement on the board: for a judgement its start, and the
	// position of its event in the log.
	type version struct {
		start int64 // ms, as the board compares judgements
		pos   int64
	}
	type object struct {
		typ rankd.EventType
		id  string
	}
	applied := map[object]version{}
	apply := func(te *timedEvent) bool {
		var key object
		at := version{pos: te.pos}
		switch ev := &te.ev; {
		case ev.Type == rankd.EventSubmission:
			key = object{ev.Type, objectID(ev)}
		case ev.Type == rankd.EventJudgement && !ev.Delete && ev.Judgement.TypeID != "":
			// One without a verdict changes nothing, whenever it comes.
			key, at.start = object{ev.Type, objectID(ev)}, ms(ev.Judgement.StartTime)
		}
		if key.typ != 0 {
			if v, ok := applied[key]; ok && (at.start < v.start || (at.start == v.start && at.pos < v.pos)) {
				return false // the version counting now would count in a replay too
			}
			applied[key] = at
		}
		ch, err := b.Apply(&te.ev)
		if err != nil {
			return false // as in a replay through AsOf: an event the board cannot use then is skipped
		}
		for _, d := range ch.Diffs {
			if d.View.Kind == v.Kind {
				return true
			}
		}
		return false
	}
	i := 0
	for ; i < len(evs) && evs[i].known <= 0; i++ {
		apply(evs[i])
	}
	teams := make([]int32, len(teamIDs))
	out := make([]Series, len(teamIDs))
	for j, id := range teamIDs {
		t, ok := b.teamIdx[id]
		switch {
		case !ok || !b.teams[t].defined:
			return nil, rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", id)
		case vi == public && !b.ranked(t):
			return nil, rankd.Errorf(rankd.ENOTFOUND, "team %q is not on the public board", id)
		}
		teams[j] = t
		out[j] = Series{TeamID: id, Points: []Point{{Standing: b.standing(vi, t)}}}
	}
	for i < len(evs) {
		at := evs[i].known
		changed := false
		for ; i < len(evs) && evs[i].known == at; i++ {
			changed = apply(evs[i]) || changed
		}
		if !changed {
			continue
		}
		for j, t := range teams {
			st := b.standing(vi, t)
			if st != out[j].Points[len(out[j].Points)-1].Standing {
				out[j].Points = append(out[j].Points, Point{Time: at, Standing: st})
			}
		}
	}
	return out, nil
}

// objectID returns the id of the object an event carries or deletes.
func objectID(ev *rankd.Event) string {
	switch {
	case ev.ID != "" || ev.Delete:
		return ev.ID
	case ev.Submission != nil:
		return ev.Submission.ID
	case ev.Judgement != nil:
		return ev.Judgement.ID
	}
	return ""
}

// standing returns team t's standing in view vi, as its row shows it (see Row).
func (b *Board) standing(vi int, t int32) Standing {
	b.Settle()
	agg := &b.teams[t].rows[vi]
	st := Standing{Solved: int(agg.solved), Penalty: agg.penalty, Score: agg.score}
	if b.views[vi].all.Contains(t) {
		st.Rank = b.rank(vi, t)
	}
	return st
}
