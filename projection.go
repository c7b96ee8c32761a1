package rankd

import "context"

// A projection is a shared, read-only copy of the contests' jury and public boards that many servers read
// (Redis in distributed mode). The servers write it from their boards, which replay the same log and so
// agree row for row: an update carries whole rows as a board holds them at a log position, and a projection
// applies it only when that position is past its own. An update that arrives late, from a server that lags
// or retries, changes nothing; none is lost as long as every server that moves past the projection's
// position sends the rows it changed since the last position it knows the projection holds.

// ProjectionUpdate is one atomic step of a contest's projection: the rows that changed, in each view that
// changed, as the board holds them at log position Pos.
type ProjectionUpdate struct {
	ContestID string
	Pos       int64
	// After is the position the sender knows the projection reached (0: none): an update carries the rows
	// changed since then only, so a projection found behind it lost rows and must be rebuilt (ECONFLICT).
	After int64
	// Replace, for Rebuild only, is the position of a projection found to hold another log's rows (a database
	// restored from an older dump, or a new one, beside the Redis of the old): Rebuild replaces a projection
	// still at that position though it is further on, and drops what else it holds of the contest (final
	// standings). 0: none.
	Replace int64
	// Contest and Problems define the row layout and the sort order (scoring, penalty, duration).
	Contest  Contest
	Problems []Problem
	Views    []ViewUpdate
}

// ViewUpdate is what changed in one view (jury or public) of a contest.
type ViewUpdate struct {
	View View
	// Seq is the view's sequence number at the update's position.
	Seq uint64
	// Rows are the ranked rows whose content or place changed, whole (Rank is ignored: a projection works
	// ranks out from the order).
	Rows []ProjectedRow
	// Removed are the teams no longer ranked in the view (banned, hidden, deleted).
	Removed []string
}

// ProjectedRow is a ranked row with what orders it among its equals and the groups it is ranked in.
type ProjectedRow struct {
	Row
	// Name is the team's shown name (Team.ShownName): rows with equal scores are listed by it, then team id
	// (bytewise).
	Name   string
	Groups []string
}

// ProjectionQuery selects a page of a projected view.
type ProjectionQuery struct {
	ContestID string
	View      View   // jury or public
	GroupID   string // "" for the whole board
	Offset    int
	Limit     int
}

// Projection is what a server needs of a shared projection.
type Projection interface {
	// Project applies u when u.Pos is past the projection's position for the contest, atomically, and
	// reports whether it did. A projection that lost its data (a restarted or flushed Redis) answers with
	// an error of code ECONFLICT until it is rebuilt.
	Project(ctx context.Context, u ProjectionUpdate) (applied bool, err error)
	// Rebuild replaces a contest's projection with full, which holds every ranked row of both views,
	// without readers ever seeing a partial board: it is built aside and switched to at once.
	Rebuild(ctx context.Context, full ProjectionUpdate) error
	// Position returns the log position a contest's projection is at; 0 when it has none.
	Position(ctx context.Context, contestID string) (int64, error)
	// Standings reads a page of a view with its sequence number; ENOTFOUND when the contest has no
	// projection.
	Standings(ctx context.Context, q ProjectionQuery) (Standings, error)
}
