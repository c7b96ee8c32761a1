package sqlite

import (
	"context"
	"database/sql"

	"rankd"
)

// deleteContestQueries delete everything stored of a contest (each takes its id), the rows that reference
// others first: segments and token_aliases reference the contests row, final_rows and final_active a
// final_versions row.
var deleteContestQueries = []string{
	`DELETE FROM segments WHERE contest = (SELECT key FROM contests WHERE id = ?)`,
	`DELETE FROM token_aliases WHERE contest = (SELECT key FROM contests WHERE id = ?)`,
	`DELETE FROM contests WHERE id = ?`,
	`DELETE FROM checkpoints WHERE contest_id = ?`,
	`DELETE FROM tokens WHERE role = '` + string(rankd.RoleTeam) + `' AND contest_id = ?`,
	`DELETE FROM final_active WHERE contest_id = ?`,
	`DELETE FROM final_rows WHERE contest_id = ?`,
	`DELETE FROM final_versions WHERE contest_id = ?`,
}

// DeleteContest removes a contest and everything stored of it in one transaction; see rankd.ContestDeleter.
// A contest of which nothing is stored: ENOTFOUND. The contest's index is dropped: a later Append starts a
// new log, with nothing of the old one to take its entries for repeats.
func (db *DB) DeleteContest(ctx context.Context, contestID string) error {
	// The writer's connection is kept until the index is dropped: an Append, which queues for it, runs
	// wholly before the deletion or after the drop, never with the index of the deleted log.
	if err := db.checkFile(); err != nil {
		return err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return failWrite(ctx, "delete contest", err)
	}
	defer func() { _ = conn.Close() }() // gives the connection back to the pool; nothing to report
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return failWrite(ctx, "delete contest", err)
	}
	defer rollback(tx)
	var deleted int64
	for _, q := range deleteContestQueries {
		n, err := execCount(ctx, tx, q, contestID)
		if err != nil {
			return failWrite(ctx, "delete contest", err)
		}
		deleted += n
	}
	if deleted == 0 {
		return rankd.Errorf(rankd.ENOTFOUND, "contest %q not found", contestID)
	}
	err = tx.Commit()
	// The contest's next log may get the deleted one's key (SQLite gives a new row the rowid after the
	// largest), and Append reads again only an index whose log part is ahead of the log: one that Submissions
	// made, its list ahead, would pass for the new log's. The index goes even when the commit failed, which
	// may have happened all the same; a dropped index is only read again.
	db.mu.Lock()
	delete(db.indexes, contestID)
	db.mu.Unlock()
	if err != nil {
		return failWrite(ctx, "delete contest", err)
	}
	return nil
}

// execCount runs a statement in tx and returns the number of rows it changed.
func execCount(ctx context.Context, tx *sql.Tx, query string, args ...any) (int64, error) {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
