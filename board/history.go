package board

import (
	"container/heap"
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

// History works out the standings of teams over a contest from its log, in two reads of it, such that a
// team's standing at any contest time t (in whole milliseconds) is its row on the board of that moment: the
// board that replaying the log through ApplyAsOf(ev, t, start) builds. Give it the log in order with Add,
// then ask for Series, which reads the log again.
//
// Each event is applied from the moment it became known (see AsOf): definitions, deletions and the
// contest's state without its steps before the start, a submission from just after its contest time, a
// judgement from when its verdict was known (and its submission was), a reveal step from its time but not
// before the end. Events are applied in that order, ties in log order after the state's step. Since a cell
// is a function of its submissions and their latest judgements, whatever the order they came in, the board
// after the events known at t equals the board that replays the log through AsOf(t). Versions of one
// object are where the order matters, and a version is applied only when a replay would let it count among
// the versions then known: the latest in the log, of a submission or a judgement (a deletion too). The
// contest's state at t is the latest state of the log without the steps after t, as in a replay.
//
// No copy of the log is kept. The first read notes when each event becomes known (8 bytes an event, and
// the submissions' times); the second applies the events in that order as it reads them, holding back only
// those that come in the log before an event known earlier: few, since a log mostly comes in the order
// things happen.
type History struct {
	start time.Time
	first int64           // the position of the first event added
	known []time.Duration // by position from first: from when the event is known; never for a state event
	// subKnown is when the submissions seen so far became known (their earliest version), by idKey.
	subKnown map[uint64]time.Duration
	tracked  int         // how many versions Series keeps track of (see objectOf)
	maxID    [2]uint64   // the largest numeric id of the objects of each kind tracked
	state    *timedEvent // the latest state event
	reveals  []int64     // the positions from first of the reveal steps
}

// timedEvent is an event of the log with the moment it becomes known.
type timedEvent struct {
	known time.Duration // from this contest time on; math.MinInt64: always
	pos   int64         // its position in the log
	ev    rankd.Event
}

// The moments of what is known from the beginning, and of what is not applied.
const (
	always = time.Duration(math.MinInt64)
	never  = time.Duration(math.MaxInt64)
)

// NewHistory returns a History of a contest that started at start (Board.Start).
func NewHistory(start time.Time) *History {
	return &History{start: start, subKnown: map[uint64]time.Duration{}}
}

// Add takes the next event of the log, at position pos: the events of a log, in order, at consecutive
// positions. Only the latest state event is copied.
func (h *History) Add(pos int64, ev *rankd.Event) {
	if len(h.known) == 0 {
		h.first = pos
	}
	known := always
	switch {
	case ev.Type == rankd.EventState:
		// Only the latest state counts (a deletion too), at each of its steps: see steps.
		h.state = &timedEvent{known: always, pos: pos, ev: ev.Clone()}
		h.known = append(h.known, never)
		return
	case ev.Delete:
	case ev.Type == rankd.EventSubmission:
		known = ev.Submission.Time + 1 // known at t when made before t
		id, _ := idKey(objectID(ev))
		if k, ok := h.subKnown[id]; !ok || known < k {
			h.subKnown[id] = known
		}
	case ev.Type == rankd.EventReveal && ev.Reveal != nil:
		known = ev.Reveal.Time
		h.reveals = append(h.reveals, int64(len(h.known)))
	case ev.Type == rankd.EventJudgement:
		known = ev.Judgement.KnownAt()
		sub, _ := idKey(ev.Judgement.SubmissionID)
		if k, ok := h.subKnown[sub]; ok && k > known {
			known = k // it counts once its submission is known
		}
	}
	if o, numeric, ok := objectOf(ev); ok {
		h.tracked++
		if numeric {
			h.maxID[o.kind] = max(h.maxID[o.kind], o.id)
		}
	}
	h.known = append(h.known, ceilMS(known))
}

// object is a submission (kind 0) or a judgement (kind 1), by idKey.
type object struct {
	kind int
	id   uint64
}

// objectOf returns the object whose versions Series keeps track of that ev is a version of, if any: a
// submission, or a judgement with a verdict (one without changes nothing, whenever it comes), or the
// deletion of either; and whether its id is numeric.
func objectOf(ev *rankd.Event) (o object, numeric, ok bool) {
	switch {
	case ev.Type == rankd.EventSubmission:
	case ev.Type == rankd.EventJudgement && (ev.Delete || ev.Judgement.TypeID != ""):
		o.kind = 1
	default:
		return o, false, false
	}
	o.id, numeric = idKey(objectID(ev))
	return o, numeric, true
}

// versions are the positions in the log of the versions of the objects on the board (0: none): by id in a
// table for the numeric ids (which feeds mostly give, counting from 1), in a map for the others.
type versions struct {
	dense [2][]int64
	other map[object]int64
}

// newVersions returns the versions of h's objects, none yet.
func (h *History) newVersions() *versions {
	vs := &versions{other: map[object]int64{}}
	for kind, n := range h.maxID {
		if n < uint64(4*h.tracked+1024) { // not when a few large ids would make the table mostly empty
			vs.dense[kind] = make([]int64, n+1)
		}
	}
	return vs
}

// get returns the position of object o's version.
func (vs *versions) get(o object, numeric bool) int64 {
	if numeric && o.id < uint64(len(vs.dense[o.kind])) {
		return vs.dense[o.kind][o.id]
	}
	return vs.other[o]
}

// set sets the position of object o's version.
func (vs *versions) set(o object, numeric bool, v int64) {
	if numeric && o.id < uint64(len(vs.dense[o.kind])) {
		vs.dense[o.kind][o.id] = v
		return
	}
	vs.other[o] = v
}

// Grow makes room for n more events.
func (h *History) Grow(n int) { h.known = slices.Grow(h.known, n) }

// steps returns the latest state event once for each of its steps, each known from the step's time
// (math.MinInt64: always), at the state event's position.
func (h *History) steps() []*timedEvent {
	if h.state == nil {
		return nil
	}
	st := h.state
	if st.ev.Delete || st.ev.State == nil {
		return []*timedEvent{st}
	}
	s := st.ev.State
	steps := []time.Duration{always}
	for _, f := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
		if f != nil {
			steps = append(steps, f.Sub(h.start))
		}
	}
	slices.Sort(steps)
	var out []*timedEvent
	for i, at := range slices.Compact(steps) {
		ev, _ := AsOf(st.ev, at, h.start)
		// A step goes before the events known at the same moment, as a replay sees the state of that moment
		// whatever the order (a reveal step needs the end), and steps within one millisecond go in their
		// order; the state known from the start goes in log order with the definitions.
		pos := st.pos
		if at != always {
			pos = math.MinInt64 + int64(i)
		}
		out = append(out, &timedEvent{known: ceilMS(at), pos: pos, ev: ev})
	}
	return out
}

// knownTimes returns from when each event is applied: h.known, but a reveal step no earlier than the end,
// since a board refuses one before it: a replay through AsOf applies a step known before the end (one
// without a time is known at every moment) from the end on.
func (h *History) knownTimes() []time.Duration {
	if h.state == nil || h.state.ev.Delete || h.state.ev.State == nil || h.state.ev.State.Ended == nil {
		return h.known
	}
	end := ceilMS(h.state.ev.State.Ended.Sub(h.start))
	known, copied := h.known, false
	for _, i := range h.reveals {
		if known[i] < end {
			if !copied {
				known, copied = slices.Clone(h.known), true
			}
			known[i] = end
		}
	}
	return known
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

// held is the events held back, earliest known first, ties in log order: a heap.
type held []*timedEvent

func (q held) Len() int { return len(q) }
func (q held) Less(i, j int) bool {
	return q[i].known < q[j].known || q[i].known == q[j].known && q[i].pos < q[j].pos
}
func (q held) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *held) Push(x any)   { *q = append(*q, x.(*timedEvent)) }
func (q *held) Pop() any {
	old := *q
	te := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return te
}

// Series returns the standings of the teams in view v (public or jury) over the contest: a first point at
// time 0, then one each time a team's standing changed. replay reads the log that Add was given again: it
// calls fn with each event in order, with its position, and stops at fn's first error, returning it; fn
// keeps no event. A team unknown, or not on the public board in the public view, is an ENOTFOUND error.
func (h *History) Series(v rankd.View, teamIDs []string, replay func(fn func(pos int64, ev *rankd.Event) error) error) ([]Series, error) {
	if v.Kind == rankd.ViewTeam {
		return nil, rankd.Errorf(rankd.EINVALID, "the history is of the public or the jury view")
	}
	vi := viewIndex(v.Kind)
	b := New()
	applied := h.newVersions()
	apply := func(pos int64, ev *rankd.Event) bool {
		if o, numeric, ok := objectOf(ev); ok {
			if applied.get(o, numeric) > pos {
				return false // the version on the board is the one a replay would have
			}
			applied.set(o, numeric, pos)
		}
		ch, err := b.Apply(ev)
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

	// The events are applied in the order they become known: the first point once those known from the
	// start are, then one for each moment at which an event is known, when a standing changed.
	teams := make([]int32, len(teamIDs))
	out := make([]Series, len(teamIDs))
	begin := func() error {
		for j, id := range teamIDs {
			t, ok := b.teamIdx[id]
			switch {
			case !ok || !b.teams[t].defined, vi == public && !b.ranked(t):
				// Hidden and banned teams do not exist to the public.
				return rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", id)
			}
			teams[j] = t
			out[j] = Series{TeamID: id, Points: []Point{{Standing: b.standing(vi, t)}}}
		}
		return nil
	}
	started, changed, moment := false, false, time.Duration(0)
	point := func() {
		if !changed {
			return
		}
		for j, t := range teams {
			st := b.standing(vi, t)
			if st != out[j].Points[len(out[j].Points)-1].Standing {
				out[j].Points = append(out[j].Points, Point{Time: moment, Standing: st})
			}
		}
	}
	next := func(known time.Duration, pos int64, ev *rankd.Event) error {
		switch {
		case !started && known > 0:
			if err := begin(); err != nil {
				return err
			}
			started, moment = true, known
		case started && known != moment:
			point()
			changed, moment = false, known
		}
		c := apply(pos, ev)
		changed = changed || c && started
		return nil
	}

	// after[i] is the earliest moment of an event after the ith: an event held back is applied once no
	// event still to read comes before it.
	knownAt := h.knownTimes()
	n := int64(len(knownAt))
	after := make([]time.Duration, n)
	for i, m := n-1, never; i >= 0; i-- {
		after[i] = m
		m = min(m, knownAt[i])
	}
	var q held
	for _, te := range h.steps() {
		heap.Push(&q, te)
	}
	release := func(until func(te *timedEvent) bool) error {
		for len(q) > 0 && until(q[0]) {
			te := heap.Pop(&q).(*timedEvent)
			if err := next(te.known, te.pos, &te.ev); err != nil {
				return err
			}
		}
		return nil
	}
	err := replay(func(pos int64, ev *rankd.Event) error {
		i := pos - h.first
		if i < 0 || i >= n {
			return rankd.Errorf(rankd.EINTERNAL, "history: the log read again has an event at %d, not added before", pos)
		}
		switch known := knownAt[i]; {
		case known == never:
		case known <= after[i]:
			// Its turn, after what is held back and known before it: no event still to read comes first.
			if err := release(func(te *timedEvent) bool { return te.known < known || te.known == known && te.pos < pos }); err != nil {
				return err
			}
			if err := next(known, pos, ev); err != nil {
				return err
			}
		default:
			heap.Push(&q, &timedEvent{known: known, pos: pos, ev: ev.Clone()})
		}
		return release(func(te *timedEvent) bool { return te.known < after[i] || te.known == after[i] && te.pos <= pos })
	})
	if err == nil {
		err = release(func(*timedEvent) bool { return true })
	}
	if err == nil && !started {
		err = begin()
	}
	if err != nil {
		return nil, err
	}
	point()
	return out, nil
}

// objectID returns the id of the object an event carries or deletes.
func objectID(ev *rankd.Event) string {
	switch {
	case ev.Judgement != nil && ev.Judgement.ID != "":
		return ev.Judgement.ID // a deletion's too, as the board takes it
	case ev.Submission != nil && !ev.Delete:
		return ev.Submission.ID
	}
	return ev.ID
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
