package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// stmts are Append's statements, prepared once on the writer's connection: a transaction reuses them
// (sql.Tx.StmtContext finds them prepared on its connection) instead of compiling them per call.
type stmts struct {
	contest       *sql.Stmt // contestQuery
	insertContest *sql.Stmt // (id, created_at)
	insertSegment *sql.Stmt // (contest, first_pos, count, stored_at, keys, data)
	insertAlias   *sql.Stmt // (contest, token, pos, type, object_id)
}

// prepare prepares the statements on db.
func (s *stmts) prepare(ctx context.Context, db *sql.DB) error {
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&s.contest, contestQuery},
		{&s.insertContest, `INSERT INTO contests (id, created_at) VALUES (?, ?)`},
		{&s.insertSegment, `INSERT INTO segments (contest, first_pos, count, stored_at, keys, data)
			VALUES (?, ?, ?, ?, ?, ?)`},
		// An alias whose commit failed, yet happened, is in the table but not in the index: given again, it
		// is already there.
		{&s.insertAlias, `INSERT OR IGNORE INTO token_aliases (contest, token, pos, type, object_id) VALUES (?, ?, ?, ?, ?)`},
	} {
		st, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			return fmt.Errorf("sqlite: prepare %.60q: %w", p.q, err)
		}
		*p.st = st
	}
	return nil
}

// close closes the prepared statements.
func (s *stmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.contest, s.insertContest, s.insertSegment, s.insertAlias} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}
