package board

import "rankd/score"

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
