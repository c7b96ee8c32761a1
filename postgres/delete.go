package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"rankd"
)

// DeleteContest removes a contest and everything stored of it in one transaction; see rankd.ContestDeleter.
// A contest of which nothing is stored: ENOTFOUND. The transaction locks the contest's row first, as Append
// does, so that an Append of the contest, from any node, runs wholly before or after it; and takes SaveFinal's
// lock of the contest, so that a finalization does too.
func (db *DB) DeleteContest(ctx context.Context, contestID string) error {
	notFound := rankd.Errorf(rankd.ENOTFOUND, "contest %q not found", contestID)
	if !rankd.ValidText(contestID) {
		return notFound // no row holds such text, which PostgreSQL would refuse to compare
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fail(ctx, "delete contest", err)
	}
	defer rollback(ctx, tx)
	var key int64
	err = tx.QueryRow(ctx, `SELECT key FROM contests WHERE id = $1 FOR UPDATE`, contestID).Scan(&key)
	if err != nil && !errNoRows(err) {
		return fail(ctx, "delete contest", err)
	}
	var b pgx.Batch
	b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, finalLock, contestID)
	// The rows that reference others go first: events, submissions and token_aliases reference the contests
	// row, final_rows and final_active a final_versions row.
	var deleted int64
	count := func(tag pgconn.CommandTag) error {
		deleted += tag.RowsAffected()
		return nil
	}
	if key != 0 {
		b.Queue(`DELETE FROM events WHERE contest = $1`, key).Exec(count)
		b.Queue(`DELETE FROM submissions WHERE contest = $1`, key).Exec(count)
		b.Queue(`DELETE FROM token_aliases WHERE contest = $1`, key).Exec(count)
		b.Queue(`DELETE FROM contests WHERE key = $1`, key).Exec(count)
	}
	b.Queue(`DELETE FROM checkpoints WHERE contest_id = $1`, contestID).Exec(count)
	b.Queue(`DELETE FROM tokens WHERE role = $1 AND contest_id = $2`, string(rankd.RoleTeam), contestID).Exec(count)
	b.Queue(`DELETE FROM final_active WHERE contest_id = $1`, contestID).Exec(count)
	b.Queue(`DELETE FROM final_rows WHERE contest_id = $1`, contestID).Exec(count)
	b.Queue(`DELETE FROM final_versions WHERE contest_id = $1`, contestID).Exec(count)
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return fail(ctx, "delete contest", err)
	}
	if deleted == 0 {
		return notFound
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(ctx, "delete contest", err)
	}
	return nil
}
