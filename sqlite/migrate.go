package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"time"

	"rankd"
	"rankd/migrate"
)

// The schema's migrations, migrations/NNNN_name.sql, numbered from 1 without gaps. A migration, once
// released, is never edited: a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the embedded migrations in version order.
var migrations = migrate.MustLoad(migrationFiles, "migrations")

// SchemaVersion is the schema version this build writes: the number of its latest migration.
func SchemaVersion() int { return len(migrations) }

// migrate brings the schema up to date in one transaction: a failed migration leaves the database as it
// was. The write lock is taken first, so two processes opening one new file do not both migrate it.
func (db *DB) migrate(ctx context.Context) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fail(ctx, "migrate", err)
	}
	defer rollback(tx)
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER NOT NULL PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fail(ctx, "migrate", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fail(ctx, "migrate", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("sqlite: %s has schema version %d, newer than this rankd knows (%d): run a newer rankd",
			db.path, current, len(migrations))
	}
	converted, err := convertEntryLog(ctx, tx)
	if err != nil {
		return fail(ctx, "migrate: convert the log of the first schema to segments", err)
	}
	if current == len(migrations) && !converted {
		return nil
	}
	now := unixNano(db.now())
	for _, m := range migrations[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fail(ctx, "migrate "+m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, now); err != nil {
			return fail(ctx, "migrate "+m.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(ctx, "migrate", err)
	}
	return nil
}

// Migration 1 was rewritten after the first rankd serve was released: that one kept the log one row per
// entry in a table events, and the submissions list in a table submissions. A store it wrote says it has
// version 1 (or more, had a later rankd marked migrations 2 and 3 applied before failing on it), yet has
// neither contests.key nor segments. The statements below give it migration 1's tables as they are now.
var firstSchemaConversion = []string{
	// events and submissions follow the rename: they refer to contests_v0 until dropped.
	`ALTER TABLE contests RENAME TO contests_v0`,
	`CREATE TABLE contests (
		key        INTEGER PRIMARY KEY,
		id         TEXT    NOT NULL UNIQUE,
		created_at INTEGER NOT NULL
	) STRICT`,
	`INSERT INTO contests (id, created_at) SELECT id, created_at FROM contests_v0 ORDER BY id`,
	`CREATE TABLE segments (
		contest   INTEGER NOT NULL REFERENCES contests (key),
		first_pos INTEGER NOT NULL CHECK (first_pos > 0),
		count     INTEGER NOT NULL CHECK (count > 0),
		stored_at INTEGER NOT NULL,
		keys      BLOB    NOT NULL,
		data      BLOB    NOT NULL
	) STRICT`,
	`CREATE UNIQUE INDEX segments_pos ON segments (contest, first_pos)`,
	// The list's entries are found by log position while the log is read.
	`CREATE INDEX submissions_v0_pos ON submissions (contest_id, pos)`,
}

// convertEntryLog converts, inside tx, a log of the first schema (see firstSchemaConversion) into
// segments: entries stored at one time go in one segment, as Append would have stored them. A submission's
// entry puts it in the list when the old list holds it at that position: its latest version, unless
// deleted since. It reports whether there was such a log.
func convertEntryLog(ctx context.Context, tx *sql.Tx) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'events'`).
		Scan(&n); err != nil || n == 0 {
		return false, err
	}
	for _, q := range firstSchemaConversion {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.key, c.id, e.pos, e.type, e.object_id, e.token, e.hash, e.data, e.stored_at,
			s.id, s.team_id, s.problem_id, s.time_ms
		FROM events AS e JOIN contests AS c ON c.id = e.contest_id
		LEFT JOIN submissions AS s ON e.type = ? AND s.contest_id = e.contest_id AND s.pos = e.pos
		ORDER BY e.contest_id, e.pos`, int(rankd.EventSubmission))
	if err != nil {
		return false, err
	}
	defer closeRows(rows)
	var w segmentWriter
	w.reset()
	var key, first, stored, last int64
	flush := func() error {
		if w.count == 0 {
			return nil
		}
		keys, data := w.columns()
		_, err := tx.ExecContext(ctx, `INSERT INTO segments (contest, first_pos, count, stored_at, keys, data)
			VALUES (?, ?, ?, ?, ?, ?)`, key, first, w.count, stored, keys, data)
		w.reset()
		return err
	}
	for rows.Next() {
		var e rankd.LogEntry
		var k, at int64
		var id, hash string
		var typ int
		var sub struct {
			id, team, problem sql.NullString
			ms                sql.NullInt64
		}
		if err := rows.Scan(&k, &id, &e.Pos, &typ, &e.Event.ID, &e.Token, &hash, &e.Data, &at,
			&sub.id, &sub.team, &sub.problem, &sub.ms); err != nil {
			return false, err
		}
		if k != key {
			if err := flush(); err != nil {
				return false, err
			}
			key, last = k, 0
		}
		if e.Pos != last+1 {
			return false, fmt.Errorf("contest %s: log position %d follows %d", id, e.Pos, last)
		}
		if at != stored || len(w.data) >= maxSegmentBytes {
			if err := flush(); err != nil {
				return false, err
			}
		}
		if w.count == 0 {
			first, stored = e.Pos, at
		}
		e.Event.Type = rankd.EventType(typ)
		if sub.id.Valid {
			e.Event.Submission = &rankd.Submission{ID: sub.id.String, TeamID: sub.team.String, ProblemID: sub.problem.String,
				Time: time.Duration(sub.ms.Int64) * time.Millisecond}
		}
		w.add(&e, string(appendHash(nil, hash)))
		last = e.Pos
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if err := flush(); err != nil {
		return false, err
	}
	for _, q := range []string{`DROP TABLE events`, `DROP TABLE submissions`, `DROP TABLE contests_v0`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, err
		}
	}
	return true, nil
}
