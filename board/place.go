package board

import (
	"strconv"

	"rankd"
	"rankd/rankindex"
)

// Place returns where a team's row is in view v: its position in the view's order, from 0, and its sort
// key as text (rows with equal keys share a rank). ok is false when the row is not on that board (a hidden
// or banned team, an unknown one). With Place, a client that holds a copy of a view can put a changed row
// where it belongs and work out every rank, without being sent the rows it passed.
func (b *Board) Place(v rankd.View, teamID string) (pos int, key string, ok bool) {
	b.Settle()
	t, found := b.teamIdx[teamID]
	if !found || !b.teams[t].defined {
		return 0, "", false
	}
	if v.Kind != rankd.ViewTeam {
		x := b.views[viewIndex(v.Kind)].all
		k, in := x.Key(t)
		if !in {
			return 0, "", false
		}
		return x.Position(t), keyText(k), true
	}
	// A team view is the public one with the viewer's own row where its own verdicts put it.
	x := b.views[public].all
	o, found := b.teamIdx[v.TeamID]
	if !found || !b.teams[o].defined || !x.Contains(o) {
		k, in := x.Key(t)
		if !in {
			return 0, "", false
		}
		return x.Position(t), keyText(k), true
	}
	own := toIndexKey(b.computeRow(public, o, true).key)
	ownPos := x.CountBefore(own, o) // among the others
	if t == o {
		return ownPos, keyText(own), true
	}
	k, in := x.Key(t)
	if !in {
		return 0, "", false
	}
	a := x.Position(t) // among the others: the viewer's public row does not count
	if x.Position(o) < a {
		a--
	}
	if a >= ownPos {
		a++
	}
	return a, keyText(k), true
}

// keyText writes a key as fixed-width hex, so that texts compare as keys do.
func keyText(k rankindex.Key) string {
	b := make([]byte, 0, 32)
	for _, w := range [2]uint64{k.Hi, k.Lo} {
		s := strconv.FormatUint(w, 16)
		for range 16 - len(s) {
			b = append(b, '0')
		}
		b = append(b, s...)
	}
	return string(b)
}
