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
	if v == public && !b.ranked(t) && !tm.indexed[public] {
		return false
	}
	tm.dirty[v] = b.epoch
	b.views[v].dirty = append(b.views[v].dirty, t)
	return true
}

// markMoved marks team t's row in view v as about to leave its place: commit puts it back where it then
// belongs.
func (b *Board) markMoved(v int, t int32) {
	if b.mark(v, t) {
		b.teams[t].replace[v] = b.epoch
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

// commit brings the rows marked in this event up to date and numbers and describes the change of each view
// that changed. A row whose key changed, and nothing else about its place, is not moved in the indexes now:
// it joins the view's unsettled rows, which settle puts in place in one pass before the board is read (see
// Settle). A row that joins or leaves a view, or whose place changes otherwise (a new name, new groups), is
// placed at once, after settling the others: what mark and later events read of the indexes (who is on a
// view) stays exact.
func (b *Board) commit() {
	for v := range b.views {
		vw := &b.views[v]
		if len(vw.dirty) == 0 {
			continue
		}
		now := false
		for _, t := range vw.dirty {
			tm := &b.teams[t]
			row := &tm.rows[v]
			if !tm.accOK[v] || b.contest.Rules != rankd.ICPC && b.contest.Rules != rankd.CTF {
				// Copied field by field, as results are (see sameShown); the key stays the old one here.
				a := b.computeRow(v, t, false)
				row.solved, row.penalty, row.score, row.time = a.solved, a.penalty, a.score, a.time
				tm.accOK[v] = true
			}
			key := b.key(row)
			if key != row.key || tm.replace[v] == b.epoch || b.ranked(t) != tm.indexed[v] {
				tm.moved[v] = b.epoch
				now = now || tm.replace[v] == b.epoch || !b.ranked(t) || !tm.indexed[v]
				b.unsettle(v, t)
			}
			row.key = key
		}
		if now {
			// Renamed rows leave before any row is placed: placing compares names.
			for _, t := range vw.dirty {
				if tm := &b.teams[t]; tm.leave == b.epoch {
					b.unindexView(v, t, tm.leaveGroups)
				}
			}
			b.settleView(v)
		}
		vw.seq++
		rows := vw.rowBuf[:0]
		for _, t := range vw.dirty {
			rows = append(rows, RowChange{TeamID: b.teams[t].id, Moved: b.teams[t].moved[v] == b.epoch})
		}
		vw.rowBuf = rows
		b.addDiff(rankd.View{Kind: rankd.ViewKind(v)}, vw.seq, rows)
	}
	// A team sees its own verdicts: a change of its own cells that the public view did not show moves its
	// team view alone. Changes of other rows (first-to-solve marks, CTF values) never do, so the team view
	// learns nothing about hidden events of others.
	b.teamRows = b.teamRows[:0]
	first := len(b.change.Diffs)
	for _, t := range b.views[jury].dirty {
		tm := &b.teams[t]
		if tm.ownDirty == b.epoch && tm.dirty[public] != b.epoch {
			b.ownSeq[t]++
			seq := b.views[public].seq + b.ownSeq[t]
			b.teamRows = append(b.teamRows, RowChange{TeamID: tm.id, Moved: true})
			b.addDiff(rankd.TeamView(tm.id), seq, nil)
		}
	}
	// Each team's diff holds its row, once teamRows has stopped growing.
	for i := range b.teamRows {
		b.change.Diffs[first+i].Rows = b.teamRows[i : i+1]
	}
}

// addDiff adds the diff of view to sequence number seq. It is written in place, field by field: a Diff made
// on the stack and copied is read back with wider loads than it was written with (see sameShown).
func (b *Board) addDiff(view rankd.View, seq uint64, rows []RowChange) {
	b.change.Diffs = append(b.change.Diffs, Diff{})
	d := &b.change.Diffs[len(b.change.Diffs)-1]
	d.View, d.Seq, d.BaseSeq, d.Rows = view, seq, seq-1, rows
}

// unsettle records that team t's row of view v is not where it belongs in the view's indexes.
func (b *Board) unsettle(v int, t int32) {
	if tm := &b.teams[t]; !tm.unsettled[v] {
		tm.unsettled[v] = true
		b.views[v].unsettled = append(b.views[v].unsettled, t)
		b.settled.Store(false)
	}
}

// Settle puts every row in its place in the indexes of its views. Apply leaves rows whose key changed where
// they were (see commit), so that a batch of events moves each row once, not once per event: the owner of a
// board calls Settle after applying a batch, before readers come. The read methods settle too, so a board
// read by one goroutine needs no call; boards read concurrently must be settled by their writer first, since
// settling writes.
func (b *Board) Settle() {
	if b.settled.Load() {
		return
	}
	b.settleMu.Lock()
	defer b.settleMu.Unlock()
	if b.settled.Load() {
		return
	}
	for v := range b.views {
		b.settleView(v)
	}
	b.settled.Store(true)
}

// settleView puts the unsettled rows of view v in their places: one by one in O(log n) each, or, when many
// moved, the whole view at once in O(n) (a CTF value changed for thousands of solvers, a batch of a whole
// contest).
func (b *Board) settleView(v int) {
	vw := &b.views[v]
	if len(vw.unsettled) == 0 {
		return
	}
	if b.alwaysBulk || len(vw.unsettled) >= bulkMin && len(vw.unsettled)*bulkShare >= vw.all.Len() {
		b.reindexBulk(v)
	} else {
		for _, t := range vw.unsettled {
			b.reindex(v, t)
		}
	}
	for _, t := range vw.unsettled {
		b.teams[t].unsettled[v] = false
	}
	vw.unsettled = vw.unsettled[:0]
}

// A view in which at least bulkMin rows and 1/bulkShare of its ranked rows are unsettled is reindexed as a
// whole, in O(n), rather than row by row in O(moves log n) with a far larger constant.
const (
	bulkMin   = 64
	bulkShare = 16
)

// reindexBulk puts every unsettled row of view v where it now belongs, in every index of the view at once:
// one walk of the old order keeps the rows that stay, the unsettled ranked rows are sorted and merged in,
// and the merged order is loaded into the view's index and its group indexes.
func (b *Board) reindexBulk(v int) {
	vw := &b.views[v]
	moved := vw.moveBuf[:0]
	keepIDs, keepKeys := vw.idBuf[:0], vw.keyBuf[:0]
	vw.all.Range(0, -1, func(t int32, k rankindex.Key, _ int) bool {
		if !b.teams[t].unsettled[v] {
			keepIDs, keepKeys = append(keepIDs, t), append(keepKeys, k)
		}
		return true
	})
	for _, t := range vw.unsettled {
		ranked := b.ranked(t)
		if ranked {
			moved = append(moved, t)
		}
		b.teams[t].indexed[v] = ranked // once loaded below
	}
	// Moved rows, in the order they first moved, often keep their order among themselves (CTF solvers whose
	// value changed): sorting them then costs little more than one pass.
	cmp := func(x, y int32) int { return b.rowCmp(v, x, toIndexKey(b.teams[x].rows[v].key), y) }
	slices.SortFunc(moved, cmp)

	ids, keys := vw.mergeIDs[:0], vw.mergeKeys[:0]
	i, j := 0, 0
	for i < len(keepIDs) || j < len(moved) {
		if j == len(moved) || i < len(keepIDs) && b.rowCmp(v, keepIDs[i], keepKeys[i], moved[j]) < 0 {
			ids, keys = append(ids, keepIDs[i]), append(keys, keepKeys[i])
			i++
		} else {
			ids, keys = append(ids, moved[j]), append(keys, toIndexKey(b.teams[moved[j]].rows[v].key))
			j++
		}
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
		if tm.indexed[v] {
			b.unindexView(v, t, tm.groups)
		}
		return
	}
	k := toIndexKey(tm.rows[v].key)
	vw.all.Set(t, k)
	tm.indexed[v] = true
	for _, g := range tm.groups {
		b.groupIndex(v, g).Set(t, k)
	}
}

func (b *Board) unindexView(v int, t int32, groups []int) {
	vw := &b.views[v]
	vw.all.Remove(t)
	b.teams[t].indexed[v] = false
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
				worth := b.ctfCellScore(v, t, p, res, own)
				r.score += float64(worth)
				if worth > 0 {
					// The score was reached by solves worth points: a later one worth none (a challenge of 0
					// points, or decayed to 0) leaves the row's time as it was, as in CTFd.
					r.time = max(r.time, res.Time)
				}
			}
		default:
			if res.Solved {
				r.solved++
				r.score += res.Score
			}
			// When the cell's score was reached, a score of 0 too: under oi_mode last, a cell brought down
			// to 0 changed the total then, as one brought down to 10 does.
			r.time = max(r.time, res.Time)
		}
	}
	if b.contest.Rules == rankd.OI || b.contest.Rules == rankd.IOI {
		r.score = score.Round(r.score)
	}
	r.key = b.key(&r)
	return r
}

// ctfCellScore is the value plus first-blood bonus of a solved CTF cell of team t in view v. For a team's
// own view (own), a solve the public does not see yet is valued as if it were added to the public solvers.
func (b *Board) ctfCellScore(v int, t int32, p int, res *score.Result, own bool) int64 {
	n := len(b.views[v].solvers[p])
	if !b.ranked(t) {
		return b.ctfValue(p, n) // not among the solvers: the value they hold, no bonus
	}
	if own && !b.cellAt(t, p).res[v].Solved {
		n++ // its solve is not among the view's solvers yet
	}
	return b.ctfValue(p, n) + b.bonus(v, t, p, res.Time, own)
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
			b.views[v].solvers[p], b.views[v].waiting[p] = nil, nil
		}
	}
}
