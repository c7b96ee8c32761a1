package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"rankd"
)

// SaveCheckpoint stores cp as the contest's latest checkpoint, replacing the one before unless that one is
// at a later position. A negative position is refused with EINVALID.
func (db *DB) SaveCheckpoint(ctx context.Context, contestID string, cp rankd.Checkpoint) error {
	if contestID == "" {
		return rankd.Errorf(rankd.EINVALID, "no contest id given")
	}
	if cp.Pos < 0 {
		return rankd.Errorf(rankd.EINVALID, "checkpoint position %d is negative", cp.Pos)
	}
	data := cp.Data
	if data == nil {
		data = []byte{}
	}
	if err := db.checkFile(); err != nil {
		return err
	}
	_, err := db.write.ExecContext(ctx, `INSERT INTO checkpoints (contest_id, pos, data, saved_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (contest_id) DO UPDATE SET pos = excluded.pos, data = excluded.data, saved_at = excluded.saved_at
		WHERE excluded.pos >= checkpoints.pos`,
		contestID, cp.Pos, data, unixNano(db.now()))
	if err != nil {
		return failWrite(ctx, "save checkpoint", err)
	}
	return nil
}

// LatestCheckpoint returns the contest's latest checkpoint, or an error with code ENOTFOUND.
func (db *DB) LatestCheckpoint(ctx context.Context, contestID string) (rankd.Checkpoint, error) {
	var cp rankd.Checkpoint
	var saved int64
	err := db.read.QueryRowContext(ctx, `SELECT pos, data, saved_at FROM checkpoints WHERE contest_id = ?`, contestID).
		Scan(&cp.Pos, &cp.Data, &saved)
	cp.Saved = time.Unix(0, saved).UTC()
	if errors.Is(err, sql.ErrNoRows) {
		return rankd.Checkpoint{}, rankd.Errorf(rankd.ENOTFOUND, "contest %q has no checkpoint", contestID)
	}
	if err != nil {
		return rankd.Checkpoint{}, fail(ctx, "latest checkpoint", err)
	}
	return cp, nil
}
