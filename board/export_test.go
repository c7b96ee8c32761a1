package board

import (
	"fmt"

	"rankd"
	"rankd/score"
)

// IDKey exposes idKey to the external tests.
func IDKey(id string) uint64 {
	k, _ := idKey(id)
	return k
}

// AlwaysBulk makes b reindex the rows that move in an event as a whole however few they are, so that tests
// compare it with the row-by-row way.
func AlwaysBulk(b *Board) { b.alwaysBulk = true }

// IndexCellsFrom makes b index its cells from n submissions on, rather than from bigCell, so that tests
// compare the indexed way with the other.
func IndexCellsFrom(b *Board, n int) { b.bigMin = n }

// CellResults returns the results of the cell of team t and problem p in the jury's and the public view.
func CellResults(b *Board, t string, p string) [2]score.Result {
	ti, _ := b.teamOf(t)
	return b.cellAt(ti, b.probIdx[p]).res
}

// CheckInvariants checks, between events, what the hot path keeps instead of asking again: each row's flag of
// being in its view's index, the totals kept up to date cell by cell, and the sort key of every row a view
// shows.
func CheckInvariants(b *Board) error {
	for t := range b.teams {
		tm := &b.teams[t]
		for v := range b.views {
			if got, want := tm.indexed[v], b.views[v].all.Contains(int32(t)); got != want {
				return fmt.Errorf("team %s view %d: indexed %v, index holds it %v", tm.id, v, got, want)
			}
			if !tm.defined {
				continue // off every board; defined again, it is recomputed
			}
			r, c := tm.rows[v], b.computeRow(v, int32(t), false)
			same := c.solved == r.solved && c.penalty == r.penalty && c.score == r.score && c.time == r.time
			if tm.accOK[v] && (b.contest.Rules == rankd.ICPC || b.contest.Rules == rankd.CTF) && !same {
				return fmt.Errorf("team %s view %d: totals kept %+v, the cells give %+v", tm.id, v, r, c)
			}
			if (v == jury || b.ranked(int32(t))) && (!same || c.key != r.key) {
				return fmt.Errorf("team %s view %d: row shown %+v, the cells give %+v", tm.id, v, r, c)
			}
		}
	}
	return nil
}

// ReadFloor reads what applying ev must read, and changes nothing: its ids, the submission's place, the cell
// of its team and problem, the team's row and, for a judgement, the cell's last submission (the one a
// judgement usually judges). BenchmarkApplyFloor times it over a contest's events on the finished board: the
// least any board that finds its data as this one does could apply them in.
func ReadFloor(b *Board, ev *rankd.Event) int64 {
	var ci int
	var sum int64
	switch ev.Type {
	case rankd.EventSubmission:
		in := ev.Submission
		key, num := idKey(in.ID)
		at, _ := b.locateKey(in.ID, key, num)
		t, _ := b.teamOf(in.TeamID)
		ci = int(t)*len(b.problems) + b.probIdx[in.ProblemID]
		sum = int64(at) + ms(in.Time)
	case rankd.EventJudgement:
		j := ev.Judgement
		skey, snum := idKey(j.SubmissionID)
		ci, _ = b.locateKey(j.SubmissionID, skey, snum)
		jid, _ := idKey(j.ID)
		sum = int64(jid) + int64(b.jtypeIdx[j.TypeID]) + b.sub(b.cells[ci].tail).time
	default:
		return 0
	}
	return sum + b.cells[ci].last + int64(b.teams[ci/len(b.problems)].rows[jury].solved)
}
