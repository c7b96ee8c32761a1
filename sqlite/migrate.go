package sqlite

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The schema's migrations, migrations/NNNN_name.sql, numbered from 1 without gaps. A migration, once
// released, is never edited: a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded migrations in version order. Reading them cannot fail at run time (they are
// compiled in), so a malformed set panics at start-up, which every test run sees.
var migrations = mustLoadMigrations(migrationFiles)

func mustLoadMigrations(fsys fs.FS) []migration {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		panic(err)
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			panic(fmt.Sprintf("sqlite: migration %s: name is not NNNN_name.sql", base))
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			panic(fmt.Sprintf("sqlite: migration %s: version %d, want %d", m.name, m.version, i+1))
		}
	}
	return ms
}

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
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fail(ctx, "migrate "+m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, now); err != nil {
			return fail(ctx, "migrate "+m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(ctx, "migrate", err)
	}
	return nil
}
