package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"rankd"
)

// SaveCheckpoint stores cp as the contest's latest checkpoint, replacing the one before unless that one is
// at a later position. A negative position or an empty contest id is refused with EINVALID.
func (db *DB) SaveCheckpoint(ctx context.Context, contestID string, cp rankd.Checkpoint) error {
	if contestID == "" {
		return rankd.Errorf(rankd.EINVALID, "no contest id given")
	}
	if err := checkText("contest id", contestID); err != nil {
		return err
	}
	if cp.Pos < 0 {
		return rankd.Errorf(rankd.EINVALID, "checkpoint position %d is negative", cp.Pos)
	}
	data := cp.Data
	if data == nil {
		data = []byte{}
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO checkpoints (contest_id, pos, data) VALUES ($1, $2, $3)
		ON CONFLICT (contest_id) DO UPDATE SET pos = excluded.pos, data = excluded.data, saved_at = excluded.saved_at
		WHERE excluded.pos >= checkpoints.pos`,
		contestID, cp.Pos, data)
	if err != nil {
		return fail(ctx, "save checkpoint", err)
	}
	return nil
}

// LatestCheckpoint returns the contest's latest checkpoint, or an error with code ENOTFOUND.
func (db *DB) LatestCheckpoint(ctx context.Context, contestID string) (rankd.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return rankd.Checkpoint{}, fail(ctx, "latest checkpoint", err)
	}
	var cp rankd.Checkpoint
	err := pgx.ErrNoRows // an id PostgreSQL cannot hold has no checkpoint
	if rankd.ValidText(contestID) {
		err = db.pool.QueryRow(ctx, `SELECT pos, data, saved_at FROM checkpoints WHERE contest_id = $1`, contestID).
			Scan(&cp.Pos, &cp.Data, &cp.Saved)
		cp.Saved = cp.Saved.UTC()
	}
	if errNoRows(err) {
		return rankd.Checkpoint{}, rankd.Errorf(rankd.ENOTFOUND, "contest %q has no checkpoint", contestID)
	}
	if err != nil {
		return rankd.Checkpoint{}, fail(ctx, "latest checkpoint", err)
	}
	return cp, nil
}
