// Package migrate reads the schema migrations a store embeds: files dir/NNNN_name.sql, numbered from 1
// without gaps. A migration, once released, is never edited: a change is a new file. Each store applies them
// its own way, in one transaction.
package migrate

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one step of a schema.
type Migration struct {
	Version int
	Name    string // the file's name without .sql
	SQL     string
}

// MustLoad returns the migrations in dir of fsys, in version order. Migrations are compiled into the binary,
// so a malformed set is a programming error: it panics, at start-up, which every test run sees.
func MustLoad(fsys fs.FS, dir string) []Migration {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		panic(err)
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			panic(fmt.Sprintf("migration %s: name is not NNNN_name.sql", name))
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(base, ".sql"), SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			panic(fmt.Sprintf("migration %s: version %d, want %d", m.Name, m.Version, i+1))
		}
	}
	return ms
}
