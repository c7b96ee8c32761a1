package sqlite

import (
	"context"
	"embed"
	"fmt"

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
	if current == len(migrations) {
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
