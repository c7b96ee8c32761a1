package board

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"rankd"
)

// Start returns when the contest started: the state's started time when known, the contest's start
// otherwise. Contest times, and the moments readers ask for, are relative to it.
func (b *Board) Start() time.Time { return rankd.StartOf(&b.contest, b.state) }

// ApplyAsOf applies ev as it was known at contest time at (see AsOf), start being the contest's start that
// state times are relative to. known is false, and nothing changes, for an event not known yet then.
// Replaying a log through ApplyAsOf, in order, builds the board of that moment: `rankd standings --at` and
// the server's `?at=` both do.
func (b *Board) ApplyAsOf(ev *rankd.Event, at time.Duration, start time.Time) (ch *Change, known bool, err error) {
	e, known := AsOf(*ev, at, start)
	if !known {
		return nil, false, nil
	}
	ch, err = b.Apply(&e)
	return ch, true, err
}

// knownFrom returns the earliest contest time from which AsOf knows ev: math.MinInt64 for an event always
// known (a state event too: which of its steps it shows is for narrow), math.MaxInt64 for one never known.
func knownFrom(ev *rankd.Event) time.Duration {
	switch {
	case ev.Type == rankd.EventSubmission && !ev.Delete:
		return sat(ev.Submission.Time, 1) // known when made before the moment
	case ev.Type == rankd.EventJudgement && !ev.Delete:
		return ev.Judgement.KnownAt()
	case ev.Type == rankd.EventReveal:
		if ev.Reveal == nil {
			return math.MaxInt64
		}
		return ev.Reveal.Time
	}
	return math.MinInt64
}

// sat returns d+n, saturated at the largest duration.
func sat(d, n time.Duration) time.Duration {
	if d > math.MaxInt64-n {
		return math.MaxInt64
	}
	return d + n
}

// span is the contest times lo ≤ t < hi at which replaying a part of a log through AsOf(ev, t, start) gives
// what it gives at the moment a board is built for: the moments the board is the board of too.
type span struct{ lo, hi time.Duration }

// everAfter is the span of an empty log.
var everAfter = span{math.MinInt64, math.MaxInt64}

// narrow narrows s, which holds at, to the moments at which ev, known from from (knownFrom), is as at at.
func (s *span) narrow(ev *rankd.Event, from, at time.Duration, start time.Time) {
	s.cut(from, at)
	if ev.Type == rankd.EventState && ev.State != nil {
		st := ev.State
		for _, f := range []*time.Time{st.Started, st.Frozen, st.Ended, st.Thawed, st.Finalized, st.EndOfUpdates} {
			if f != nil {
				s.cut(f.Sub(start), at) // a step shows from its time on
			}
		}
	}
}

// cut narrows s, which holds at, to the side of threshold from that at is on.
func (s *span) cut(from, at time.Duration) {
	switch {
	case from == math.MinInt64 || from == math.MaxInt64:
	case from <= at:
		s.lo = max(s.lo, from)
	default:
		s.hi = min(s.hi, from)
	}
}

// Past builds the boards of the past moments of one contest from its log, each as replaying the log
// through ApplyAsOf builds it, bit for bit, but without replaying the whole log:
//
//   - It keeps checkpoints of boards it built (within Budget bytes, the least recently used going first).
//     A checkpoint holds a prefix of the log as known at a moment, and serves every moment at which each
//     event of that prefix is as it was then (its span): a prefix whose events were all known by then serves
//     every later moment until the contest's next step (freeze, end, thaw). A board is restored from the
//     longest such prefix, and only the rest of the log is replayed. The log only grows, so a checkpoint
//     stays good when events are appended.
//   - It indexes the log by blocks of positions, each with the earliest moment any of its events is known:
//     a block no event of which was known at a moment is not read. Since a log mostly comes in the order
//     things happen, a moment reads little beyond what was known then.
//
// Each board built saves one checkpoint, of the longest prefix known in full at its moment, when that is at
// least a gap beyond the checkpoint it was restored from. Past is safe for concurrent use.
type Past struct {
	// Budget bounds the bytes of the checkpoints kept; DefaultPastBudget when zero.
	Budget int
	// Gap is the fewest positions between two checkpoints (see gap); DefaultPastGap when zero.
	Gap int64

	mu     sync.Mutex
	start  time.Time       // the contest start the checkpoints were made with: spans depend on it
	blocks []time.Duration // blocks[i]: when an event of positions i·pastBlock+1 to (i+1)·pastBlock is first known
	cps    []*pastCheckpoint
	size   int    // the bytes of cps
	clock  uint64 // counts uses, for the least recently used
}

// The defaults of Past's settings, and its index's block size.
const (
	DefaultPastBudget = 128 << 20
	DefaultPastGap    = 1 << 15
	pastBlock         = 4096
)

// pastCheckpoint is a board of the first pos events of the log, as known at the moments of sp.
type pastCheckpoint struct {
	pos  int64
	sp   span
	data []byte
	used uint64
}

// LogReader calls fn with each event of a log after position after up to position upto, in order, with
// its position; fn must not keep the event.
type LogReader func(after, upto int64, fn func(pos int64, ev *rankd.Event) error) error

// PastStats tells how a board of a past moment was built.
type PastStats struct {
	Restored int64 // the position of the checkpoint restored; 0 for none
	Read     int64 // the events read from the log
	Skipped  int64 // the events not read: unknown at the moment, by the index
	Saved    int64 // the position of the checkpoint saved; 0 for none
}

// At returns the board of contest time at of the log up to position upto, start being the contest's start
// (see ApplyAsOf): what applying each event of the log through ApplyAsOf(ev, at, start) builds.
func (p *Past) At(at time.Duration, start time.Time, upto int64, read LogReader) (*Board, PastStats, error) {
	r := pastBuild{p: p, at: at, start: start, sp: everAfter, whole: true}
	var data []byte
	p.mu.Lock()
	if !p.start.Equal(start) {
		p.cps, p.size, p.start = nil, 0, start
	}
	var best *pastCheckpoint
	for _, cp := range p.cps {
		if cp.pos <= upto && cp.sp.lo <= at && at < cp.sp.hi && (best == nil || cp.pos > best.pos) {
			best = cp
		}
	}
	if best != nil {
		p.clock++
		best.used = p.clock
		data, r.sp, r.stats.Restored = best.data, best.sp, best.pos
	}
	p.mu.Unlock()
	r.b = New()
	if data != nil {
		b, err := Restore(data)
		if err != nil {
			return nil, r.stats, err
		}
		r.b = b
	}
	if err := p.scan(r.stats.Restored, upto, at, read, &r); err != nil {
		return nil, r.stats, err
	}
	if r.whole {
		r.save(upto)
	}
	r.b.Settle()
	return r.b, r.stats, nil
}

// Advance brings b, the board of contest time at built by At up to position from, up to position upto.
func (p *Past) Advance(b *Board, at time.Duration, start time.Time, from, upto int64, read LogReader) (PastStats, error) {
	r := pastBuild{p: p, b: b, at: at, start: start, sp: everAfter} // not whole: it saves no checkpoint
	err := p.scan(from, upto, at, read, &r)
	b.Settle()
	return r.stats, err
}

// scan calls r with the events after position after up to upto, skipping the blocks of the index with
// none known at at, and indexes the blocks it reads whole.
func (p *Past) scan(after, upto int64, at time.Duration, read LogReader, r *pastBuild) error {
	p.mu.Lock()
	blocks := p.blocks // only ever appended to
	p.mu.Unlock()
	skip := func(i int) bool { return i < len(blocks) && blocks[i] > at }
	for pos := after; pos < upto; {
		if i := int(pos / pastBlock); skip(i) {
			end := min(int64(i+1)*pastBlock, upto)
			r.skip(pos, blocks[i], end-pos)
			pos = end
			continue
		}
		end := pos
		for end < upto && !skip(int(end/pastBlock)) {
			end = min((end/pastBlock+1)*pastBlock, upto)
		}
		// The first block read from its start, and the earliest moment of its events so far.
		next, first := (pos+pastBlock-1)/pastBlock, time.Duration(math.MaxInt64)
		err := read(pos, end, func(q int64, ev *rankd.Event) error {
			from := knownFrom(ev)
			if i := (q - 1) / pastBlock; i >= next {
				first = min(first, from)
				if q%pastBlock == 0 {
					p.index(i, first)
					first = math.MaxInt64
				}
			}
			return r.event(q, ev, from)
		})
		if err != nil {
			return err
		}
		pos = end
	}
	return nil
}

// index records when an event of block i is first known, unless the index has it already or lacks the
// blocks before it.
func (p *Past) index(i int64, first time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if int64(len(p.blocks)) == i {
		p.blocks = append(p.blocks, first)
	}
}

// gap returns the fewest positions between a checkpoint at pos and the one before it: Gap, and an eighth
// of pos, since taking a checkpoint costs about what replaying half of its events does.
func (p *Past) gap(pos int64) int64 { return max(cmp.Or(p.Gap, DefaultPastGap), pos/8) }

// pastBuild is a board of a past moment being built.
type pastBuild struct {
	p     *Past
	b     *Board
	at    time.Duration
	start time.Time
	sp    span // the moments the board is also the board of
	whole bool // every event so far known at at: a checkpoint of the board serves later moments too
	stats PastStats
}

// event applies the event at position pos, known from from, as it was known at the moment.
func (r *pastBuild) event(pos int64, ev *rankd.Event, from time.Duration) error {
	r.stats.Read++
	if from > r.at && from != math.MaxInt64 {
		r.unknown(pos-1, from)
		return nil
	}
	r.sp.narrow(ev, from, r.at, r.start)
	_, _, _ = r.b.ApplyAsOf(ev, r.at, r.start) // an event the board could not use then is skipped, as offline
	return nil
}

// skip passes over the n events after position pos, none known before from.
func (r *pastBuild) skip(pos int64, from time.Duration, n int64) {
	r.stats.Skipped += n
	if from != math.MaxInt64 { // events never known are the same at every moment
		r.unknown(pos, from)
	}
}

// unknown notes an event unknown at the moment, known from from, after position pos: the board up to pos
// was the last one whole.
func (r *pastBuild) unknown(pos int64, from time.Duration) {
	if r.whole {
		r.whole = false
		r.save(pos)
	}
	r.sp.hi = min(r.sp.hi, from)
}

// save keeps a checkpoint of the board, built up to position pos, when it is far enough from the one it
// was restored from.
func (r *pastBuild) save(pos int64) {
	p := r.p
	if pos-r.stats.Restored < p.gap(pos) {
		return
	}
	r.b.Settle()
	data, err := r.b.Checkpoint()
	if err != nil {
		return // a board without a checkpoint is still the board; the next one tries again
	}
	r.stats.Saved = pos
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.start.Equal(r.start) {
		return // the contest's start moved meanwhile
	}
	p.clock++
	cp := &pastCheckpoint{pos: pos, sp: r.sp, data: data, used: p.clock}
	// A checkpoint serving fewer moments, and not much further on, is no longer worth its room.
	p.cps = slices.DeleteFunc(p.cps, func(o *pastCheckpoint) bool {
		drop := o.sp.lo >= cp.sp.lo && o.sp.hi <= cp.sp.hi && o.pos-cp.pos < p.gap(o.pos)
		if drop {
			p.size -= len(o.data)
		}
		return drop
	})
	p.cps = append(p.cps, cp)
	p.size += len(data)
	for budget := cmp.Or(p.Budget, DefaultPastBudget); p.size > budget; {
		i := 0
		for j, o := range p.cps {
			if o.used < p.cps[i].used {
				i = j
			}
		}
		p.size -= len(p.cps[i].data)
		p.cps = slices.Delete(p.cps, i, i+1)
	}
}
