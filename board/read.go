package board

import (
	"time"

	"rankd"
	"rankd/rankindex"
)

// Standings returns the page of view v starting at position offset with at most limit rows (limit < 0: all),
// ranked over the whole view.
func (b *Board) Standings(v rankd.View, offset, limit int) (rankd.Standings, error) {
	return b.page(v, "", offset, limit)
}

// GroupStandings returns a page of view v restricted to the teams of group, ranked within the group from 1.
func (b *Board) GroupStandings(v rankd.View, groupID string, offset, limit int) (rankd.Standings, error) {
	if _, ok := b.groupIdx[groupID]; !ok {
		return rankd.Standings{}, rankd.Errorf(rankd.ENOTFOUND, "unknown group %q", groupID)
	}
	return b.page(v, groupID, offset, limit)
}

func (b *Board) page(v rankd.View, groupID string, offset, limit int) (rankd.Standings, error) {
	if offset < 0 {
		return rankd.Standings{}, rankd.Errorf(rankd.EINVALID, "offset must not be negative")
	}
	b.Settle()
	st := rankd.Standings{ContestID: b.contest.ID, View: v, Seq: b.Seq(v), Offset: offset}
	vi := viewIndex(v.Kind)
	x := b.views[vi].all
	if groupID != "" {
		g := b.groupIdx[groupID]
		if x = b.views[vi].byGroup[g]; x == nil {
			return st, nil
		}
	}
	if v.Kind == rankd.ViewTeam {
		t, ok := b.teamIdx[v.TeamID]
		if !ok || !b.teams[t].defined {
			return rankd.Standings{}, rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", v.TeamID)
		}
		if x.Contains(t) {
			st.Total = x.Len()
			st.Rows = b.teamPage(t, x, offset, limit)
			return st, nil
		}
	}
	st.Total = x.Len()
	if limit < 0 || limit > st.Total {
		limit = st.Total
	}
	st.Rows = make([]rankd.Row, 0, max(0, min(limit, st.Total-offset)))
	x.Range(offset, limit, func(id int32, _ rankindex.Key, rank int) bool {
		st.Rows = append(st.Rows, b.row(vi, id, rank))
		return true
	})
	return st, nil
}

// teamPage returns a page of the view of team t: the public rows of index x (the whole view or a group),
// with t's own row, as the team knows it, at the place it takes among them.
func (b *Board) teamPage(t int32, x *rankindex.Index, offset, limit int) []rankd.Row {
	own := b.computeRow(public, t, true)
	ok := toIndexKey(own.key)
	pk, _ := x.Key(t)
	pubPos := x.Position(t)
	ownPos := x.CountBefore(ok, t) // among the others

	total := x.Len()
	if limit < 0 || limit > total {
		limit = total
	}
	end := min(offset+limit, total)
	if offset >= end {
		return nil
	}
	rows := make([]rankd.Row, 0, end-offset)
	// rank of another row in the team view: its public rank, without t's public key, with t's own key.
	adjust := func(k rankindex.Key, rank int) int {
		if pk.Less(k) {
			rank--
		}
		if ok.Less(k) {
			rank++
		}
		return rank
	}
	ownRow := func() rankd.Row { return b.ownRow(t, own, x.CountLess(ok)-boolInt(pk.Less(ok))+1) }
	// The others occupy team positions [0, ownPos) and (ownPos, total); walk x from the first one needed.
	first := offset
	if offset > ownPos {
		first = offset - 1
	}
	if pubPos >= 0 && first >= pubPos {
		first++
	}
	pos := offset
	if pos == ownPos {
		rows = append(rows, ownRow())
		pos++
	}
	x.Range(first, -1, func(id int32, k rankindex.Key, rank int) bool {
		if pos >= end {
			return false
		}
		if id == t {
			return true
		}
		rows = append(rows, b.row(public, id, adjust(k, rank)))
		pos++
		if pos == ownPos && pos < end {
			rows = append(rows, ownRow())
			pos++
		}
		return true
	})
	return rows
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// teamRank is the rank of team t in its own view.
func (b *Board) teamRank(t int32) int {
	if !b.ranked(t) {
		return 0
	}
	x := b.views[public].all
	own := toIndexKey(b.computeRow(public, t, true).key)
	pk, _ := x.Key(t)
	return x.CountLess(own) - boolInt(pk.Less(own)) + 1
}

// Row returns the row of a team in view v, with its rank. A team that is not ranked (hidden, banned) has a
// row, with rank 0, in the jury view and in its own team view only.
func (b *Board) Row(v rankd.View, teamID string) (rankd.Row, error) {
	t, ok := b.teamIdx[teamID]
	if !ok || !b.teams[t].defined {
		return rankd.Row{}, rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", teamID)
	}
	b.Settle()
	if v.Kind == rankd.ViewTeam && v.TeamID == teamID {
		return b.ownRow(t, b.computeRow(public, t, true), b.teamRank(t)), nil
	}
	vi := viewIndex(v.Kind)
	if vi == public && !b.ranked(t) {
		// Hidden and banned teams are on no public board, not even row by row: to the public they do not exist.
		return rankd.Row{}, rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", teamID)
	}
	r := b.row(vi, t, b.rank(vi, t))
	if v.Kind == rankd.ViewTeam && r.Rank > 0 {
		// Another team's row in a team view: ranked against the viewer's own row.
		if o, ok := b.teamIdx[v.TeamID]; ok && b.ranked(o) {
			k, _ := b.views[public].all.Key(t)
			pk, _ := b.views[public].all.Key(o)
			own := toIndexKey(b.computeRow(public, o, true).key)
			if pk.Less(k) {
				r.Rank--
			}
			if own.Less(k) {
				r.Rank++
			}
		}
	}
	return r, nil
}

// row renders team t's row of view v.
func (b *Board) row(v int, t int32, rank int) rankd.Row {
	return b.render(v, v, t, b.teams[t].rows[v], rank)
}

// ownRow renders team t's row as the team sees it: its jury cells, first-to-solve marks as public.
func (b *Board) ownRow(t int32, agg rowAgg, rank int) rankd.Row {
	return b.render(jury, public, t, agg, rank)
}

// render builds a row from the cells of view cv, with first-to-solve marks and CTF values of view mv.
func (b *Board) render(cv, mv int, t int32, agg rowAgg, rank int) rankd.Row {
	r := rankd.Row{
		Rank:    rank,
		TeamID:  b.teams[t].info.ID,
		Solved:  int(agg.solved),
		Penalty: agg.penalty,
		Score:   agg.score,
		Time:    time.Duration(agg.time) * time.Millisecond,
		Cells:   make([]rankd.Cell, 0, len(b.order)),
	}
	for _, p := range b.order {
		res := &b.cellAt(t, p).res[cv]
		c := rankd.Cell{
			ProblemID:    b.problems[p].info.ID,
			Solved:       res.Solved,
			FirstToSolve: b.firstToSolve(mv, t, p),
			Judged:       int(res.Judged),
			Pending:      int(res.Pending),
			Time:         time.Duration(res.Time) * time.Millisecond,
			Penalty:      res.Penalty,
			Score:        res.Score,
		}
		if b.contest.Rules == rankd.CTF && res.Solved {
			c.Score = float64(b.ctfCellScore(mv, t, p, res, cv != mv))
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// firstToSolve reports whether team t holds the first solve of problem p in view v. OI and IOI problems
// have scores, not solves: nobody is first to solve them.
func (b *Board) firstToSolve(v int, t int32, p int) bool {
	if !b.hasFirstToSolve() {
		return false
	}
	f := &b.views[v].fts[p]
	res := &b.cellAt(t, p).res[v]
	return f.awarded() && b.ranked(t) && res.Solved && res.Time == f.min
}

// FirstToSolve returns, per problem id, the teams holding its first solve in view v (several when they
// solved it at the same time); a problem not yet awarded, or with an earlier submission still pending, is
// absent, and so is every OI or IOI problem.
func (b *Board) FirstToSolve(v rankd.View) map[string][]string {
	vi := viewIndex(v.Kind)
	out := map[string][]string{}
	for _, p := range b.order {
		if !b.views[vi].fts[p].awarded() || !b.hasFirstToSolve() {
			continue
		}
		for t := range b.teams {
			if b.firstToSolve(vi, int32(t), p) {
				id := b.problems[p].info.ID
				out[id] = append(out[id], b.teams[t].info.ID)
			}
		}
	}
	return out
}

// ProblemValue returns the current value of CTF challenge problemID in view v: what each of its solvers holds
// now, before first-blood bonuses, for the number of ranked teams that solved it in that view (a static
// challenge: its value; a challenge nobody solved yet: its value for the first solve). A team view reads the
// public value: the team's own solve not shown publicly yet counts in its own cell only. It returns
// ENOTFOUND for a problem that is unknown or deleted, and EUNPROCESSABLE when the contest is not a CTF.
func (b *Board) ProblemValue(v rankd.View, problemID string) (int64, error) {
	p, ok := b.probIdx[problemID]
	if !ok || b.problems[p].deleted {
		return 0, rankd.Errorf(rankd.ENOTFOUND, "unknown problem %q", problemID)
	}
	if b.contest.Rules != rankd.CTF {
		return 0, rankd.Errorf(rankd.EUNPROCESSABLE, "problem %s: only CTF challenges have a value, this contest is %s", problemID, b.contest.Rules)
	}
	return b.ctfValue(p, len(b.views[viewIndex(v.Kind)].solvers[p])), nil
}
