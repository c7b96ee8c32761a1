package board

import (
	"rankd"
	"rankd/rankindex"
)

// Projected returns team teamID's row in view v (jury or public) as a projection holds it: with the team's
// name and the groups it is ranked in. ok is false when the team is not ranked in that view.
func (b *Board) Projected(v rankd.View, teamID string) (r rankd.ProjectedRow, ok bool) {
	b.Settle()
	t, found := b.teamIdx[teamID]
	vi := viewIndex(v.Kind)
	if !found || !b.teams[t].defined || !b.views[vi].all.Contains(t) {
		return rankd.ProjectedRow{}, false
	}
	return b.projected(vi, t, b.rank(vi, t)), true
}

// ProjectedRows returns every ranked row of view v (jury or public), in order.
func (b *Board) ProjectedRows(v rankd.View) []rankd.ProjectedRow {
	b.Settle()
	vi := viewIndex(v.Kind)
	x := b.views[vi].all
	rows := make([]rankd.ProjectedRow, 0, x.Len())
	x.Range(0, x.Len(), func(t int32, _ rankindex.Key, rank int) bool {
		rows = append(rows, b.projected(vi, t, rank))
		return true
	})
	return rows
}

func (b *Board) projected(vi int, t int32, rank int) rankd.ProjectedRow {
	tm := &b.teams[t]
	r := rankd.ProjectedRow{Row: b.row(vi, t, rank), Name: tm.info.ShownName()}
	for _, g := range tm.groups {
		if x := b.views[vi].byGroup[g]; x != nil && x.Contains(t) {
			r.Groups = append(r.Groups, b.groups[g].info.ID)
		}
	}
	return r
}
