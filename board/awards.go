package board

import (
	"fmt"

	"rankd"
	"rankd/rankindex"
)

// Awards returns the awards of view v: the winner, medals when the contest configures them, first to solve
// of each problem, and the winner of each group. Only teams that solved something (or scored) win anything.
// The awards that go by rank (winner, medals, group winners) are not the public's while its board hides a
// verdict: they would name teams that the hidden results may still pass (certificates printed from a frozen
// board, a winner changing at each reveal step); first to solve is given only once certain.
func (b *Board) Awards(v rankd.View) []rankd.Award {
	b.Settle()
	vi := viewIndex(v.Kind)
	if vi == public && b.anyHidden() {
		return b.firstToSolveAwards(v, nil)
	}
	x := b.views[vi].all
	var awards []rankd.Award
	if w := b.upTo(vi, x, 1); len(w) > 0 {
		awards = append(awards, rankd.Award{ID: "winner", Citation: "Contest winner", TeamIDs: w})
	}
	m := b.contest.Medals
	for _, medal := range []struct {
		id, citation string
		from, to     int
	}{
		{"gold-medal", "Gold medal winner", 1, m.Gold},
		{"silver-medal", "Silver medal winner", m.Gold + 1, m.Gold + m.Silver},
		{"bronze-medal", "Bronze medal winner", m.Gold + m.Silver + 1, m.Gold + m.Silver + m.Bronze},
	} {
		if medal.to < medal.from {
			continue
		}
		var ids []string
		for _, id := range b.upTo(vi, x, medal.to) {
			if t := b.teamIdx[id]; b.rank(vi, t) >= medal.from {
				ids = append(ids, id)
			}
		}
		awards = append(awards, rankd.Award{ID: medal.id, Citation: medal.citation, TeamIDs: ids})
	}
	awards = b.firstToSolveAwards(v, awards)
	for _, g := range b.Groups() {
		gx := b.views[vi].byGroup[b.groupIdx[g.ID]]
		if g.Hidden || gx == nil {
			continue
		}
		if w := b.upTo(vi, gx, 1); len(w) > 0 {
			awards = append(awards, rankd.Award{ID: "group-winner-" + g.ID, Citation: "Winner(s) of group " + g.Name, TeamIDs: w})
		}
	}
	return awards
}

// firstToSolveAwards appends the first-to-solve awards of view v to awards.
func (b *Board) firstToSolveAwards(v rankd.View, awards []rankd.Award) []rankd.Award {
	fts := b.FirstToSolve(v)
	for _, p := range b.order {
		pr := &b.problems[p].info
		if ids := fts[pr.ID]; len(ids) > 0 {
			awards = append(awards, rankd.Award{ID: "first-to-solve-" + pr.ID, Citation: fmt.Sprintf("First to solve problem %s", pr.Label), TeamIDs: ids})
		}
	}
	return awards
}

// anyHidden reports whether the public board hides the verdict of a submission of a ranked team.
func (b *Board) anyHidden() bool {
	for t := range b.teams {
		if !b.ranked(int32(t)) {
			continue
		}
		for p := range b.problems {
			if b.hidden(int32(t), p) {
				return true
			}
		}
	}
	return false
}

// upTo returns the teams of index x ranked at most maxRank (ranks within x) that solved or scored something.
func (b *Board) upTo(v int, x *rankindex.Index, maxRank int) []string {
	var ids []string
	x.Range(0, -1, func(id int32, _ rankindex.Key, rank int) bool {
		if rank > maxRank {
			return false
		}
		if r := &b.teams[id].rows[v]; r.solved > 0 || r.score > 0 {
			ids = append(ids, b.teams[id].info.ID)
		}
		return true
	})
	return ids
}
