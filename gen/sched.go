package gen

import (
	"math"
	"strconv"
	"time"
)

// timed is an entry of a timeHeap: ref (a cell, a judgement slot) is due at a time; tie orders entries of
// equal time, so that the order never depends on the heap's history.
type timed struct {
	at  time.Duration
	tie uint64
	ref int
}

func (t timed) before(o timed) bool { return t.at < o.at || t.at == o.at && t.tie < o.tie }

// timeHeap is a binary min-heap of timed entries. It is written out rather than built on container/heap,
// whose interface boxes every pushed value into an allocation.
type timeHeap struct{ s []timed }

func (h *timeHeap) len() int { return len(h.s) }

// top returns the earliest entry; the heap must not be empty.
func (h *timeHeap) top() timed { return h.s[0] }

func (h *timeHeap) push(x timed) {
	h.s = append(h.s, x)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.s[i].before(h.s[p]) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

func (h *timeHeap) pop() timed {
	x := h.s[0]
	n := len(h.s) - 1
	h.s[0] = h.s[n]
	h.s = h.s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.s[c+1].before(h.s[c]) {
			c++
		}
		if !h.s[c].before(h.s[i]) {
			break
		}
		h.s[i], h.s[c] = h.s[c], h.s[i]
		i = c
	}
	return x
}

// fenwick holds a non-negative integer weight per team and picks a team with probability proportional to its
// weight in O(log n), so that choosing among 10,000 teams a million times stays cheap.
type fenwick struct {
	tree  []int64 // 1-based partial sums
	step  int     // the highest power of two not above len(tree)-1
	total int64
}

func newFenwick(n int) fenwick {
	step := 1
	for step*2 <= n {
		step *= 2
	}
	return fenwick{tree: make([]int64, n+1), step: step}
}

func (f *fenwick) add(i int, delta int64) {
	f.total += delta
	for i++; i < len(f.tree); i += i & -i {
		f.tree[i] += delta
	}
}

// find returns the index i with prefix(i) <= r < prefix(i+1), for 0 <= r < total.
func (f *fenwick) find(r int64) int {
	pos := 0
	for step := f.step; step > 0; step /= 2 {
		if next := pos + step; next < len(f.tree) && f.tree[next] <= r {
			pos = next
			r -= f.tree[next]
		}
	}
	return pos
}

// idBlock is how many ids idSeq renders at once.
const idBlock = 256

// idSeq hands out the ids "1", "2", ... as substrings of one string per block of ids, so that a million ids
// cost a few thousand allocations instead of a million. A retained id keeps its block (about 2 KB) alive.
type idSeq struct {
	n     int
	block string
	ends  []int
	i     int
	buf   []byte
}

func (s *idSeq) next() string {
	if s.i == len(s.ends) {
		s.buf, s.ends = s.buf[:0], s.ends[:0]
		for range idBlock {
			s.n++
			s.buf = strconv.AppendInt(s.buf, int64(s.n), 10)
			s.ends = append(s.ends, len(s.buf))
		}
		s.block, s.i = string(s.buf), 0
	}
	start := 0
	if s.i > 0 {
		start = s.ends[s.i-1]
	}
	s.i++
	return s.block[start:s.ends[s.i-1]]
}

// Shape of the submission rate over the contest, relative to the middle part: it ramps up from rampFrom
// over the first rampShare of the contest (teams read before they code) and is busyRate in the last hour.
const (
	rampFrom  = 0.2
	rampShare = 0.1
	busyRate  = 1.65
)

// lastHour is the busy end of a contest of length d: an hour, or a quarter of a shorter contest.
func lastHour(d time.Duration) time.Duration { return min(time.Hour, d/4) }

// slotClock yields the times of n submissions in increasing order, distributed as n independent draws
// from the rate shape. It draws the order statistics one after the other (the next is the least of the
// remaining draws, all above the previous), so it needs no memory for the times it has handed out.
type slotClock struct {
	left int     // submissions still to time
	u    float64 // the previous order statistic of the uniform draws
	prev time.Duration
	last time.Duration // the latest allowed time, just below the end

	// The rate shape, in seconds: ramp ends at ramp, the busy hour starts at busy; mass* are the cumulative
	// integrals of the rate up to those points and to the end.
	ramp, busy           float64
	massRamp, massMiddle float64
	massTotal            float64
}

func newSlotClock(n int, d time.Duration) slotClock {
	sec := d.Seconds()
	ramp := sec * rampShare
	busy := sec - lastHour(d).Seconds()
	massRamp := ramp * (rampFrom + 1) / 2
	massMiddle := massRamp + (busy - ramp)
	return slotClock{
		left: n, last: (d - 1).Truncate(time.Millisecond),
		ramp: ramp, busy: busy, massRamp: massRamp, massMiddle: massMiddle,
		massTotal: massMiddle + (sec-busy)*busyRate,
	}
}

// next returns the next submission time, in whole milliseconds as CCS feeds have them.
func (c *slotClock) next(u01 float64) time.Duration {
	// The least of m uniforms on (u, 1) is u + (1-u)(1 - V^(1/m)) for a uniform V in (0, 1].
	c.u += (1 - c.u) * -math.Expm1(math.Log(1-u01)/float64(c.left))
	c.left--
	m := c.u * c.massTotal
	var s float64
	switch {
	case m < c.massRamp: // rate rampFrom + (1-rampFrom)·x/ramp: solve the quadratic integral for x
		k := (1 - rampFrom) / c.ramp
		s = (math.Sqrt(rampFrom*rampFrom+2*k*m) - rampFrom) / k
	case m < c.massMiddle:
		s = c.ramp + (m - c.massRamp)
	default:
		s = c.busy + (m-c.massMiddle)/busyRate
	}
	t := min(time.Duration(s*1e3)*time.Millisecond, c.last)
	t = max(t, c.prev) // rounding must never reorder
	c.prev = t
	return t
}
