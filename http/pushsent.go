package http

import "hash/maphash"

// sentRows is what a channel's frames left each row at, so that a frame carries only the cells that changed
// (a judgement changes one cell, not a whole row) and a team's view can tell which rows changed since a
// number: per team, by its slot among the contest's teams (teamSlots), a digest of each cell and the number
// of the last frame that listed it. Flat slices rather than a map of rows: a team's view is a channel of its
// own, and thousands of them each holding a map entry and a slice per team were most of their memory and
// pointers for the collector to scan.
type sentRows struct {
	width   int      // cells per row
	digests []uint64 // width per slot
	known   []bool   // per slot: the digests are of the row clients hold (else it goes whole)
	seqs    []uint64 // per slot: the number of the last frame that listed the team, 0 if none
}

// teamSlots numbers a contest's teams for the sentRows of its channels, in the order frames first list them.
type teamSlots map[string]int

func (ts teamSlots) slot(team string) int {
	i, ok := ts[team]
	if !ok {
		i = len(ts)
		ts[team] = i
	}
	return i
}

// cellSeed keys the cell digests; they never leave the process.
var cellSeed = maphash.MakeSeed()

// listed records that the frame seq lists the row of the team in slot with cells, and returns the cells that
// changed since the frame before that listed it: all of them when clients may not hold the row.
func (s *sentRows) listed(slot int, cells []cellJSON, seq uint64) []cellJSON {
	s.grow(slot)
	s.seqs[slot] = seq
	if len(cells) != s.width { // problems added or removed: every row goes whole once
		s.width = len(cells)
		s.digests = make([]uint64, len(s.seqs)*s.width)
		clear(s.known)
	}
	digests := s.digests[slot*s.width : (slot+1)*s.width]
	changed := cells[:0:0]
	for i, c := range cells {
		d := maphash.Comparable(cellSeed, c)
		if d != digests[i] {
			changed = append(changed, c)
		}
		digests[i] = d
	}
	if !s.known[slot] {
		s.known[slot] = true
		return cells
	}
	return changed
}

// removed records that the frame seq takes the team in slot out of the view: it comes back whole.
func (s *sentRows) removed(slot int, seq uint64) {
	s.grow(slot)
	s.seqs[slot] = seq
	s.known[slot] = false
}

// changedSince reports whether a frame after seq listed the team in slot.
func (s *sentRows) changedSince(slot int, seq uint64) bool {
	return slot < len(s.seqs) && s.seqs[slot] > seq
}

func (s *sentRows) grow(slot int) {
	for len(s.seqs) <= slot {
		s.seqs = append(s.seqs, 0)
		s.known = append(s.known, false)
	}
	if n := len(s.seqs) * s.width; len(s.digests) < n {
		s.digests = append(s.digests, make([]uint64, n-len(s.digests))...)
	}
}
