package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Append's statements that handle one row.
const (
	stmtMaxPos = iota
	stmtInsertContest
	stmtDeleteSubmission
	numStmts
)

var stmtSQL = [numStmts]string{
	stmtMaxPos:           `SELECT COALESCE(MAX(pos), 0) FROM events WHERE contest_id = ?`,
	stmtInsertContest:    `INSERT INTO contests (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
	stmtDeleteSubmission: `DELETE FROM submissions WHERE contest_id = ? AND id = ?`,
}

// Append's statements that handle many rows at once: a statement costs far more to run, through
// database/sql and the driver, than the index probe or insert it does, so a batch of thousands of entries
// is looked up and stored 64 rows per statement. Each comes in every size of chunkSizes. Parameters are
// anonymous, bound in the order they appear: the driver looks each parameter's name up in a list as long
// as the statement's named ones, which would make binding quadratic.
const (
	multiTokenPos          = iota // (token)... contest → (i, pos) of the tokens in the log
	multiLatest                   // (type, object_id)... contest contest → (i, pos, hash) of the latest versions
	multiInsertEvents             // (contest, stored_at, pos, type, object_id, token, hash, data)...
	multiUpsertSubmissions        // (contest, id, team_id, problem_id, time_ms, pos)...
	numMulti
)

// chunkSizes are the sizes of the multi-row statements. Any number of rows is a sum of them, largest first,
// with few statements: 1000 rows take 20.
var chunkSizes = [...]int{64, 8, 1}

// multiSQL returns the statement of a kind for a number of rows.
func multiSQL(kind, rows int) string {
	switch kind {
	case multiTokenPos:
		// "e.token <> ''" lets the planner use the partial index events_token.
		return `WITH k (i, token) AS (VALUES ` + values(rows, 1, true) + `)
			SELECT k.i, e.pos FROM k JOIN events AS e INDEXED BY events_token
			ON e.contest_id = ? AND e.token = k.token AND e.token <> ''`
	case multiLatest:
		// The hint keeps the planner, which has no statistics, from walking the contest's whole log
		// backwards by its primary key to find the latest version of an object that is not in it.
		return `WITH k (i, type, object_id) AS (VALUES ` + values(rows, 2, true) + `)
			SELECT k.i, e.pos, e.hash FROM k JOIN events AS e ON e.contest_id = ? AND e.pos = (
				SELECT MAX(pos) FROM events INDEXED BY events_object
				WHERE contest_id = ? AND type = k.type AND object_id = k.object_id)`
	case multiInsertEvents:
		return `INSERT INTO events (contest_id, stored_at, pos, type, object_id, token, hash, data) VALUES ` +
			values(rows, 8, false)
	case multiUpsertSubmissions:
		return `INSERT INTO submissions (contest_id, id, team_id, problem_id, time_ms, pos) VALUES ` +
			values(rows, 6, false) + `
			ON CONFLICT (contest_id, id) DO UPDATE SET team_id = excluded.team_id,
				problem_id = excluded.problem_id, time_ms = excluded.time_ms, pos = excluded.pos`
	}
	panic(fmt.Sprintf("sqlite: unknown statement kind %d", kind))
}

// values returns the tuples of a VALUES clause: rows of cols parameters, each preceded by the row's index
// in the chunk when indexed.
func values(rows, cols int, indexed bool) string {
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		if indexed {
			b.WriteString(strconv.Itoa(r))
			b.WriteString(", ")
		}
		b.WriteString(strings.Repeat("?, ", cols-1))
		b.WriteString("?)")
	}
	return b.String()
}

// eachChunk calls fn for consecutive chunks [lo, lo+size) covering [0, n), each of a size of chunkSizes
// (the size's index is s), largest first. It stops at fn's first error.
func eachChunk(n int, fn func(lo, size, s int) error) error {
	lo := 0
	for s, size := range chunkSizes {
		for ; n-lo >= size; lo += size {
			if err := fn(lo, size, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// stmts are Append's statements, prepared once on the writer's connection: a transaction reuses them
// (sql.Tx.StmtContext finds them prepared on its connection) instead of compiling them per call.
type stmts struct {
	one  [numStmts]*sql.Stmt
	many [numMulti][len(chunkSizes)]*sql.Stmt
}

// prepare prepares the statements on db.
func (s *stmts) prepare(ctx context.Context, db *sql.DB) error {
	prep := func(q string) (*sql.Stmt, error) {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("sqlite: prepare %.60q: %w", q, err)
		}
		return st, nil
	}
	var err error
	for k, q := range stmtSQL {
		if s.one[k], err = prep(q); err != nil {
			return err
		}
	}
	for k := range s.many {
		for i, size := range chunkSizes {
			if s.many[k][i], err = prep(multiSQL(k, size)); err != nil {
				return err
			}
		}
	}
	return nil
}

// close closes the prepared statements.
func (s *stmts) close() error {
	var errs []error
	closeStmt := func(st *sql.Stmt) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, st := range s.one {
		closeStmt(st)
	}
	for _, sized := range s.many {
		for _, st := range sized {
			closeStmt(st)
		}
	}
	return errors.Join(errs...)
}

// txStmts are the statements of stmts bound to one transaction, as it uses them.
type txStmts struct {
	ctx  context.Context
	tx   *sql.Tx
	from *stmts
	stmts
}

// in returns the statements bound to tx; they close with it.
func (s *stmts) in(ctx context.Context, tx *sql.Tx) *txStmts {
	return &txStmts{ctx: ctx, tx: tx, from: s}
}

// single returns statement k.
func (t *txStmts) single(k int) *sql.Stmt {
	if t.one[k] == nil {
		t.one[k] = t.tx.StmtContext(t.ctx, t.from.one[k])
	}
	return t.one[k]
}

// multi returns the statement of kind k for chunkSizes[s] rows.
func (t *txStmts) multi(k, s int) *sql.Stmt {
	if t.many[k][s] == nil {
		t.many[k][s] = t.tx.StmtContext(t.ctx, t.from.many[k][s])
	}
	return t.many[k][s]
}
