package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

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

// migrationLock is the first key of the advisory lock that migrations take (the second is the schema's):
// "rankd" in ASCII, so that it is recognisable in pg_locks and unlikely to meet another program's.
const migrationLock = 0x72616e6b

// migrate brings the schema up to date in one transaction: a failed migration leaves the database as it was.
// The transaction first takes an advisory lock of the schema, so that nodes starting together wait for the
// first one's migration and then find nothing to do.
func (db *DB) migrate(ctx context.Context) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fail(ctx, "migrate", err)
	}
	defer rollback(ctx, tx)
	var schema string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(current_schema(), '')`).Scan(&schema); err != nil {
		return fail(ctx, "migrate", err)
	}
	if schema == "" {
		return fmt.Errorf("postgres: migrate: the search_path names no schema that exists")
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, migrationLock, schema); err != nil {
		return fail(ctx, "migrate", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer NOT NULL PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT statement_timestamp()
	)`); err != nil {
		return fail(ctx, "migrate", err)
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fail(ctx, "migrate", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("postgres: schema %s has version %d, newer than this rankd knows (%d): run a newer rankd",
			schema, current, len(migrations))
	}
	if current == len(migrations) {
		return nil
	}
	for _, m := range migrations[current:] {
		// The simple protocol runs a file of several statements as one.
		if _, err := tx.Exec(ctx, m.SQL, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fail(ctx, "migrate "+m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
			return fail(ctx, "migrate "+m.Name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(ctx, "migrate", err)
	}
	return nil
}

// errNoRows reports whether err is pgx's "no rows".
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
