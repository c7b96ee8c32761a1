package board

import (
	"cmp"
	"slices"

	"rankd"
	"rankd/score"
)

// Submissions live in one arena, in the order they arrived, in chunks that never move: a new submission is
// written after the last one, memory that is warm, where appending to its cell's own array would write
// (and, when full, copy) memory last touched long ago. A cell links its submissions from its last one
// back, in (time, id) order, so that appending writes only the new submission and the cell. A judgement,
// usually of the latest submission of its cell, finds it first.

// subRef is a submission's place in the arena, plus one: 0 is none.
type subRef uint32

const (
	chunkBits = 14
	chunkSize = 1 << chunkBits
)

// sub is a submission as its cell keeps it, with its counting judgement.
type sub struct {
	time   int64  // contest time, ms
	id     uint64 // idKey of the submission id
	jStart int64  // start of the counting judgement, ms
	jID    uint64 // idKey of the counting judgement, when jtype > 0
	score  float64
	prev   subRef // the cell's submission before this one
	jtype  uint8  // index into jtypes; 0 when unjudged
	// hasOlder: the submission has judgements that do not count, kept aside (see judgements.go).
	hasOlder bool
}

// sub returns the submission at r, which is not 0, until the next newSub.
func (b *Board) sub(r subRef) *sub {
	i := uint32(r - 1)
	return &b.subChunks[i>>chunkBits][i&(chunkSize-1)]
}

// newSub stores s in the arena and returns its place; pointers from sub are invalid after it. The place
// of a submission taken out of its cell is not reused: submissions are replaced or deleted rarely. The
// first chunk grows, doubling, so that a small contest does not take a whole chunk; later ones are made
// whole, the last one holding room for the submissions to come (at most 768 KB).
func (b *Board) newSub(s sub) subRef {
	n := len(b.subChunks)
	if n == 0 || len(b.subChunks[n-1]) == chunkSize {
		size := 0
		if n > 0 {
			size = chunkSize
		}
		b.subChunks = append(b.subChunks, make([]sub, 0, size))
		n++
	}
	ch := &b.subChunks[n-1]
	if len(*ch) == cap(*ch) {
		// Doubled exactly: append's growth would overshoot the chunk's size.
		grown := make([]sub, len(*ch), min(max(64, 2*len(*ch)), chunkSize))
		copy(grown, *ch)
		*ch = grown
	}
	*ch = append(*ch, s)
	return subRef((n-1)<<chunkBits + len(*ch))
}

// A cell of many submissions (a contestant who submits thousands of times, a judge that lags behind them)
// keeps beside its list an index of them, made when first needed: their order, and each one's place in it. A
// judgement of any of its submissions then finds it at once, and its result follows from what the judgement
// changed (see judgedWithin) instead of from every submission read again: judged oldest first, as a judge
// that lags behind does, 20,000 submissions of one cell took seconds each time the log was replayed. The
// index follows every change of the list: a submission added at the cell's end, one sent out of time order
// (put in its place), one replaced or deleted (taken out). Dropped and made again at each of those, it made a
// cell whose submissions came out of order quadratic: 20,000 took 9 s.

// bigCell is the number of submissions from which a cell is indexed.
const bigCell = 64

// cellIndex is the index of a big cell.
type cellIndex struct {
	refs []subRef          // the cell's submissions in (time, id) order
	at   map[uint64]subRef // a submission's id key → the submission
}

// place returns where s is, or goes, in the index's order.
func (x *cellIndex) place(b *Board, s *sub) int {
	i, _ := slices.BinarySearchFunc(x.refs, s, func(r subRef, s *sub) int { return subCmp(b.sub(r), s) })
	return i
}

// indexOf returns the index of cell ci, making it, when the cell has bigCell submissions or more (b.bigMin in
// tests); nil otherwise.
func (b *Board) indexOf(ci int) *cellIndex {
	c := &b.cells[ci]
	if int(c.n) < cmp.Or(b.bigMin, bigCell) {
		return nil
	}
	if x := b.big[int32(ci)]; x != nil {
		return x
	}
	x := &cellIndex{refs: b.subsOf(c, make([]subRef, 0, c.n+c.n/4)), at: make(map[uint64]subRef, c.n)}
	for _, r := range x.refs {
		x.at[b.sub(r).id] = r
	}
	if b.big == nil {
		b.big = make(map[int32]*cellIndex)
	}
	b.big[int32(ci)] = x
	return x
}

// appended records in cell ci's index, if it has one, submission r added at the cell's end.
func (b *Board) appended(ci int, r subRef) {
	if b.big == nil {
		return // no big cell: the usual case, on the hot path
	}
	if x := b.big[int32(ci)]; x != nil {
		x.at[b.sub(r).id] = r
		x.refs = append(x.refs, r)
	}
}

// find returns the submission with the id key in cell ci, or 0. A small cell is searched from its last
// submission: a judgement is usually of the latest one.
func (b *Board) find(ci int, key uint64) subRef {
	if x := b.indexOf(ci); x != nil {
		return x.at[key]
	}
	for r := b.cells[ci].tail; r != 0; r = b.sub(r).prev {
		if b.sub(r).id == key {
			return r
		}
	}
	return 0
}

// subsOf appends the submissions of cell c to buf in (time, id) order.
func (b *Board) subsOf(c *cell, buf []subRef) []subRef {
	from := len(buf)
	for r := c.tail; r != 0; r = b.sub(r).prev {
		buf = append(buf, r)
	}
	s := buf[from:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return buf
}

// insert puts s into cell ci in order; submissions mostly arrive in time order, so this is usually an append.
func (b *Board) insert(ci int, s sub) {
	c := &b.cells[ci]
	// After the walk, s goes between prev and next (0: the cell's end). An indexed cell finds them at once.
	var next subRef
	prev := c.tail
	x := b.big[int32(ci)]
	at := 0
	if x != nil && prev != 0 && subCmp(b.sub(prev), &s) > 0 {
		at = x.place(b, &s)
		next, prev = x.refs[at], 0
		if at > 0 {
			prev = x.refs[at-1]
		}
	}
	for prev != 0 && subCmp(b.sub(prev), &s) > 0 {
		next, prev = prev, b.sub(prev).prev
	}
	s.prev = prev
	r := b.newSub(s)
	if next == 0 {
		c.tail, c.last = r, s.time
		b.appended(ci, r)
	} else {
		b.sub(next).prev = r
		if x != nil {
			x.refs = slices.Insert(x.refs, at, r)
			x.at[s.id] = r
		}
	}
	c.n++
}

// take removes the submission with the id key from cell ci and returns it.
func (b *Board) take(ci int, key uint64) sub {
	c := &b.cells[ci]
	var next subRef
	r := c.tail
	for b.sub(r).id != key {
		next, r = r, b.sub(r).prev
	}
	s := *b.sub(r)
	if next == 0 {
		c.tail = s.prev
		if s.prev != 0 {
			c.last = b.sub(s.prev).time
		}
	} else {
		b.sub(next).prev = s.prev
	}
	c.n--
	if x := b.big[int32(ci)]; x != nil {
		if int(c.n) < cmp.Or(b.bigMin, bigCell) {
			delete(b.big, int32(ci)) // small again: read as small cells are (indexOf)
		} else {
			i := x.place(b, &s)
			x.refs = slices.Delete(x.refs, i, i+1)
			delete(x.at, key)
		}
	}
	s.prev = 0
	return s
}

// subCmp orders submissions within a cell: by time, then by id key.
func subCmp(x, y *sub) int {
	switch {
	case x.time < y.time:
		return -1
	case x.time > y.time:
		return 1
	case x.id < y.id:
		return -1
	case x.id > y.id:
		return 1
	}
	return 0
}

// gather copies a cell's submissions into the scratch buffer, in order, as the rules see them.
func (b *Board) gather(c *cell) []score.Sub {
	buf := b.subBuf[:0]
	ioi := b.contest.Rules == rankd.IOI
	for r := c.tail; r != 0; {
		s := b.sub(r)
		sub := score.Sub{Time: s.time, Verdict: b.jtypes[s.jtype].class, Score: s.score}
		if ioi {
			sub.Subtasks = b.subtasks[s.id]
		}
		buf = append(buf, sub)
		r = s.prev
	}
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	b.subBuf = buf
	return buf
}
