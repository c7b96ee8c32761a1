package board

import (
	"slices"

	"rankd"
	"rankd/rankindex"
	"rankd/score"
)

// begin starts applying an event: nothing is marked yet.
func (b *Board) begin() {
	b.epoch++
	for v := range b.views {
		b.views[v].dirty = b.views[v].dirty[:0]
	}
	b.change.Diffs = b.change.Diffs[:0]
}

// discard forgets the marks of an event that failed before changing anything.
func (b *Board) discard() {
	for v := range b.views {
		b.views[v].dirty = b.views[v].dirty[:0]
	}
}

// mark records that team t's row in view v changed in this event, and reports whether the view shows it. A
// team that is not ranked, and was not before this event, is not on the public board: changes of its row
// must not move the public sequence.
func (b *Board) mark(v int, t int32) bool {
	tm := &b.teams[t]
	if tm.dirty[v] == b.epoch {
		return true
	}
	if v == public && !b.ranked(t) && !b.views[public].all.Contains(t) {
		return false
	}
	tm.dirty[v] = b.epoch
	b.views[v].dirty = append(b.views[v].dirty, t)
	return true
}

// markMoved marks team t's row in view v as about to leave its place, capturing its rank first.
func (b *Board) markMoved(v int, t int32) {
	tm := &b.teams[t]
	if b.mark(v, t) && tm.known[v] != b.epoch {
		tm.known[v] = b.epoch
		tm.oldRank[v] = int32(b.rank(v, t))
	}
}

// touchAll marks every row of both views: the problem columns changed.
func (b *Board) touchAll() {
	for t := range b.teams {
		b.markAll(int32(t))
		b.teams[t].ownDirty = b.epoch
		b.teams[t].accOK = [2]bool{}
	}
}

func (b *Board) markAll(t int32) {
	for v := range b.views {
		b.markMoved(v, t)
	}
}

func (b *Board) rank(v int, t int32) int {
	return b.views[v].all.Rank(t)
}

// commit brings the rows marked in this event up to date, moves those whose place changed in the indexes,
// and numbers and describes the change of each view that changed.
func (b *Board) commit() {
	for v := range b.views {
		vw := &b.views[v]
		if len(vw.dirty) == 0 {
			continue
		}
		// Old ranks first, while every index still holds the old order. A row that alone moves, ranked
		// before and after and not leaving, learns both ranks from its move instead.
		var mover int32 = -1
		moves := 0
		for _, t := range vw.dirty {
			tm := &b.teams[t]
			var agg rowAgg
			if tm.accOK[v] && (b.contest.Rules == rankd.ICPC || b.contest.Rules == rankd.CTF) {
				agg = tm.acc[v]
				agg.key = b.key(&agg)
			} else {
				agg = b.computeRow(v, t, false)
				tm.acc[v], tm.accOK[v] = agg, true
			}
			if agg.key != tm.rows[v].key || tm.known[v] == b.epoch || b.ranked(t) != vw.all.Contains(t) {
				tm.moved[v] = b.epoch
				moves++
				mover = t
			}
			tm.rows[v] = agg
		}
		newRank, bulk := 0, false
		if tm := &b.teams[max(mover, 0)]; moves == 1 && tm.known[v] != b.epoch && tm.leave != b.epoch && b.ranked(mover) && vw.all.Contains(mover) {
			k := toIndexKey(tm.rows[v].key)
			old, cur := vw.all.Move(mover, k)
			tm.oldRank[v], newRank = int32(old), cur
			for _, g := range tm.groups {
				b.groupIndex(v, g).Set(mover, k)
			}
		} else if moves > 0 && (b.alwaysBulk || moves >= bulkMin && moves*bulkShare >= vw.all.Len()) {
			mover = -1
			bulk = true
			b.reindexBulk(v)
		} else if moves > 0 {
			mover = -1
			for _, t := range vw.dirty {
				if tm := &b.teams[t]; tm.moved[v] == b.epoch && tm.known[v] != b.epoch {
					tm.oldRank[v] = int32(b.rank(v, t))
				}
			}
			// Renamed rows leave before any row is placed: placing compares names.
			for _, t := range vw.dirty {
				if tm := &b.teams[t]; tm.leave == b.epoch {
					b.unindexView(v, t, tm.leaveGroups)
				}
			}
			for _, t := range vw.dirty {
				if b.teams[t].moved[v] == b.epoch {
					b.reindex(v, t)
				}
			}
		}
		vw.seq++
		rows := vw.rowBuf[:0]
		for _, t := range vw.dirty {
			tm := &b.teams[t]
			rc := RowChange{TeamID: tm.id}
			if tm.moved[v] == b.epoch {
				rc.Moved, rc.OldRank = true, int(tm.oldRank[v])
				switch {
				case t == mover:
					rc.NewRank = newRank
				case bulk:
					rc.NewRank = int(vw.newRank[t])
				default:
					rc.NewRank = b.rank(v, t)
				}
			}
			rows = append(rows, rc)
		}
		vw.rowBuf = rows
		b.change.Diffs = append(b.change.Diffs, Diff{View: rankd.View{Kind: rankd.ViewKind(v)}, Seq: vw.seq, BaseSeq: vw.seq - 1, Rows: rows})
	}
	// A team sees its own verdicts: a change of its own cells that the public view did not show moves its
	// team view alone. Changes of other rows (first-to-solve marks, CTF values) never do, so the team view
	// learns nothing about hidden events of others.
	b.teamRows = b.teamRows[:0]
	for _, t := range b.views[jury].dirty {
		tm := &b.teams[t]
		if tm.ownDirty == b.epoch && tm.dirty[public] != b.epoch {
			b.ownSeq[t]++
			b.teamRows = append(b.teamRows, RowChange{TeamID: tm.id, Moved: true, NewRank: b.teamRank(t)})
		}
	}
	for i := range b.teamRows {
		id := b.teamRows[i].TeamID
		seq := b.Seq(rankd.TeamView(id))
		b.change.Diffs = append(b.change.Diffs, Diff{View: rankd.TeamView(id), Seq: seq, BaseSeq: seq - 1, Rows: b.teamRows[i : i+1]})
	}
}

// A view in which at least bulkMin rows and 1/bulkShare of its ranked rows moved in one event (a CTF value
// changed for thousands of solvers) is reindexed as a whole, in O(n), rather than row by row in O(moves log
// n) with a far larger constant.
const (
	bulkMin   = 64
	bulkShare = 16
)

// reindexBulk puts every row of view v that moved in this event where it now belongs, in every index of the
// view at once: one walk of the old order reads the old ranks and keeps the rows that did not move, the
// moved rows are sorted and merged in, and the merged order is loaded into the view's index and its group
// indexes. New ranks go to vw.newRank.
func (b *Board) reindexBulk(v int) {
	vw := &b.views[v]
	if len(vw.newRank) < len(b.teams) {
		vw.newRank = make([]int32, len(b.teams))
	}
	moved := vw.moveBuf[:0]
	keepIDs, keepKeys := vw.idBuf[:0], vw.keyBuf[:0]
	vw.all.Range(0, -1, func(t int32, k rankindex.Key, rank int) bool {
		if tm := &b.teams[t]; tm.moved[v] == b.epoch {
			if tm.known[v] != b.epoch {
				tm.oldRank[v] = int32(rank)
			}
			if b.ranked(t) {
				moved = append(moved, t)
			}
		} else {
			keepIDs, keepKeys = append(keepIDs, t), append(keepKeys, k)
		}
		return true
	})
	for _, t := range vw.dirty {
		tm := &b.teams[t]
		if tm.moved[v] != b.epoch {
			continue
		}
		vw.newRank[t] = 0
		if !vw.all.Contains(t) { // joining the view, or staying off it
			tm.oldRank[v] = 0
			if b.ranked(t) {
				moved = append(moved, t)
			}
		}
	}
	// Moved rows, taken in their old order, often keep it among themselves (CTF solvers whose value changed):
	// sorting them then costs little more than one pass.
	cmp := func(x, y int32) int { return b.rowCmp(v, x, toIndexKey(b.teams[x].rows[v].key), y) }
	slices.SortFunc(moved, cmp)

	ids, keys := vw.mergeIDs[:0], vw.mergeKeys[:0]
	i, j := 0, 0
	var prev rankindex.Key
	rank := 0
	for i < len(keepIDs) || j < len(moved) {
		var t int32
		var k rankindex.Key
		if j == len(moved) || i < len(keepIDs) && b.rowCmp(v, keepIDs[i], keepKeys[i], moved[j]) < 0 {
			t, k = keepIDs[i], keepKeys[i]
			i++
		} else {
			t = moved[j]
			k = toIndexKey(b.teams[t].rows[v].key)
			j++
		}
		if len(ids) == 0 || k != prev {
			prev, rank = k, len(ids)+1
		}
		if b.teams[t].moved[v] == b.epoch {
			vw.newRank[t] = int32(rank)
		}
		ids, keys = append(ids, t), append(keys, k)
	}
	vw.all.Load(ids, keys)

	// Group indexes: the merged order restricted to each group.
	for g := range vw.groupIDs {
		vw.groupIDs[g], vw.groupKeys[g] = vw.groupIDs[g][:0], vw.groupKeys[g][:0]
	}
	for len(vw.groupIDs) < len(vw.byGroup) {
		vw.groupIDs, vw.groupKeys = append(vw.groupIDs, nil), append(vw.groupKeys, nil)
	}
	for n, t := range ids {
		for _, g := range b.teams[t].groups {
			if gi := vw.groupIDs[g]; len(gi) == 0 || gi[len(gi)-1] != t { // a group listed twice
				vw.groupIDs[g], vw.groupKeys[g] = append(gi, t), append(vw.groupKeys[g], keys[n])
			}
		}
	}
	for g := range vw.byGroup {
		if len(vw.groupIDs[g]) > 0 || vw.byGroup[g] != nil {
			b.groupIndex(v, g).Load(vw.groupIDs[g], vw.groupKeys[g])
		}
	}
	vw.moveBuf, vw.idBuf, vw.keyBuf, vw.mergeIDs, vw.mergeKeys = moved, keepIDs, keepKeys, ids, keys
}

// rowCmp orders row x, at key kx, against row y at its current key in view v, as the indexes do.
func (b *Board) rowCmp(v int, x int32, kx rankindex.Key, y int32) int {
	ky := toIndexKey(b.teams[y].rows[v].key)
	switch {
	case kx != ky && kx.Less(ky):
		return -1
	case kx != ky:
		return 1
	}
	if c := b.tie(x, y); c != 0 {
		return c
	}
	return int(x - y)
}

// reindex puts team t's row of view v where it now belongs in the indexes, or takes it off them.
func (b *Board) reindex(v int, t int32) {
	tm := &b.teams[t]
	vw := &b.views[v]
	if !b.ranked(t) {
		if vw.all.Contains(t) {
			b.unindexView(v, t, tm.groups)
		}
		return
	}
	k := toIndexKey(tm.rows[v].key)
	vw.all.Set(t, k)
	for _, g := range tm.groups {
		b.groupIndex(v, g).Set(t, k)
	}
}

func (b *Board) unindexView(v int, t int32, groups []int) {
	vw := &b.views[v]
	vw.all.Remove(t)
	for _, g := range groups {
		if x := vw.byGroup[g]; x != nil {
			x.Remove(t)
		}
	}
}

func (b *Board) groupIndex(v, g int) *rankindex.Index {
	vw := &b.views[v]
	if vw.byGroup[g] == nil {
		vw.byGroup[g] = rankindex.New(b.tie)
	}
	return vw.byGroup[g]
}

func toIndexKey(k score.Key) rankindex.Key { return rankindex.Key(k) }

// computeRow computes team t's totals in view v from its cells. With own set (team view), the cells are the
// team's jury cells valued against the public view: what the team knows.
func (b *Board) computeRow(v int, t int32, own bool) rowAgg {
	var r rowAgg
	base := int(t) * len(b.problems)
	cv := v
	if own {
		cv = jury
	}
	for _, p := range b.order {
		res := &b.cells[base+p].res[cv]
		switch b.contest.Rules {
		case rankd.ICPC:
			if res.Solved {
				r.solved++
				r.penalty += res.Penalty
				r.time = max(r.time, res.Time)
			}
		case rankd.CTF:
			if res.Solved {
				r.solved++
				r.score += float64(b.ctfCellScore(v, t, p, res, own))
				r.time = max(r.time, res.Time)
			}
		default:
			if res.Solved {
				r.solved++
				r.score += res.Score
				r.time = max(r.time, res.Time)
			}
		}
	}
	r.key = b.key(&r)
	return r
}

// ctfCellScore is the value plus first-blood bonus of a solved CTF cell of team t in view v. For a team's
// own view (own), a solve the public does not see yet is valued as if it were added to the public solvers.
func (b *Board) ctfCellScore(v int, t int32, p int, res *score.Result, own bool) int64 {
	list := b.views[v].solvers[p]
	n := len(list)
	pos := -1
	if b.ranked(t) {
		if own {
			at, found := slices.BinarySearchFunc(list, t, func(x, _ int32) int {
				tx := b.cellAt(x, p).res[v].Time
				switch {
				case tx < res.Time:
					return -1
				case tx > res.Time:
					return 1
				}
				return b.tie(x, t)
			})
			if !found {
				n++ // its solve is not among the view's solvers yet
			}
			pos = at
		} else {
			pos = slices.Index(list[:min(n, len(b.contest.FirstBlood))], t)
		}
	}
	return b.ctfValue(p, n) + b.firstBlood(pos)
}

// key is the sort key of a row under the contest's rules.
func (b *Board) key(r *rowAgg) score.Key {
	switch b.contest.Rules {
	case rankd.ICPC:
		return score.ICPCKey(int(r.solved), r.penalty, r.time/60000)
	case rankd.CTF:
		return score.ScoreKey(r.score, r.time, true)
	}
	return score.ScoreKey(r.score, r.time, b.contest.TieByTime)
}

// rebuild recomputes every cell of both views, after a change of the rules or of what counts.
func (b *Board) rebuild() {
	b.views[jury].hideFrom = score.Never
	b.views[public].hideFrom = b.publicHideFrom()
	for v := range b.views {
		b.recomputeView(v)
	}
	b.touchAll()
}

// recomputeView recomputes every cell of view v and the problem state built on them, marking what changed.
func (b *Board) recomputeView(v int) {
	for t := range b.teams {
		for p := range b.problems {
			c := b.cellAt(int32(t), p)
			r := b.cellResult(b.gather(c), v, t*len(b.problems)+p)
			if r != c.res[v] {
				c.res[v] = r
				b.mark(v, int32(t))
				b.teams[t].accOK[v] = false
				if v == jury {
					b.teams[t].ownDirty = b.epoch
				}
			}
		}
	}
	for p := range b.problems {
		before := b.views[v].fts[p]
		b.recountFTS(v, p)
		b.markFTSHolders(v, p, before)
		if b.contest.Rules == rankd.CTF {
			b.recountSolvers(v, p)
		} else {
			b.views[v].solvers[p] = nil
		}
	}
}
