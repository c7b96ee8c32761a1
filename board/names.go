package board

import (
	"encoding/binary"
	"strings"

	"rankd/rankindex"
)

// Teams whose rows are equal are listed by the name they are shown by (rankd.Team.ShownName), then id. Comparing names on every step of an index update
// costs more than the update itself, so each team holds a label, a number that orders teams as (name, id)
// do: comparing two labels is the tie-break. Labels are spaced apart, so a team added or renamed usually gets
// one between its neighbours' without touching anyone else's; when there is no room left, every label is
// dealt again, in order. Relabelling keeps the order of the other teams, so the indexes stay valid.

// labelGap is the spacing of labels dealt in order, and the step past the last one: 2³² teams fit.
const labelGap = 1 << 32

// nameKey is the first 16 bytes of a name as a Key, zero-padded: keys compare as their names do, except
// that names sharing those bytes have equal keys and are told apart by the names index's tie.
func nameKey(name string) rankindex.Key {
	var buf [16]byte
	copy(buf[:], name)
	return rankindex.Key{Hi: binary.BigEndian.Uint64(buf[:8]), Lo: binary.BigEndian.Uint64(buf[8:])}
}

// nameTie orders teams by name, then id: the order of the names index among equal keys.
func (b *Board) nameTie(x, y int32) int {
	tx, ty := &b.teams[x].info, &b.teams[y].info
	if c := strings.Compare(tx.ShownName(), ty.ShownName()); c != 0 {
		return c
	}
	return strings.Compare(tx.ID, ty.ID)
}

// tie orders teams with equal keys by name, then id, through their labels.
func (b *Board) tie(x, y int32) int {
	lx, ly := b.labels[x], b.labels[y]
	switch {
	case lx < ly:
		return -1
	case lx > ly:
		return 1
	}
	return 0
}

// placeName gives team t the label of its current name, after it was added or renamed. A team on the rank
// indexes must be off them while its label changes (setTeam and commit see to it).
func (b *Board) placeName(t int32) {
	x := b.names
	x.Remove(t)
	x.Set(t, nameKey(b.teams[t].info.ShownName()))
	pos := x.Position(t)
	var lo, hi uint64
	hasLo, hasHi := pos > 0, pos+1 < x.Len()
	if hasLo {
		id, _ := x.At(pos - 1)
		lo = b.labels[id]
	}
	if hasHi {
		id, _ := x.At(pos + 1)
		hi = b.labels[id]
	}
	switch {
	case !hasLo && !hasHi:
		b.labels[t] = labelGap
	case !hasHi && lo <= ^uint64(0)-labelGap:
		b.labels[t] = lo + labelGap // appended: names often come in order
	case !hasLo && hi > labelGap:
		b.labels[t] = hi - labelGap
	case hasLo && hasHi && hi-lo >= 2:
		b.labels[t] = lo + (hi-lo)/2
	case !hasLo && hi >= 2:
		b.labels[t] = hi / 2
	default:
		b.relabel()
	}
}

// relabel deals every label again, in name order, labelGap apart.
func (b *Board) relabel() {
	var l uint64
	b.names.Range(0, -1, func(id int32, _ rankindex.Key, _ int) bool {
		l += labelGap
		b.labels[id] = l
		return true
	})
}
