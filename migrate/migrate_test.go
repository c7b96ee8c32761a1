package migrate_test

import (
	"testing"
	"testing/fstest"

	"rankd/migrate"
)

func TestMustLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_more.sql": {Data: []byte("ALTER x")},
		"m/0001_init.sql": {Data: []byte("CREATE x")},
		"m/README":        {Data: []byte("not a migration")},
	}
	ms := migrate.MustLoad(fsys, "m")
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].Name != "0001_init" || ms[1].SQL != "ALTER x" {
		t.Errorf("got %+v, want 0001_init then 0002_more", ms)
	}
}

func TestMustLoadRefusesBadSets(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"gap":      {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"bad name": {"m/first.sql": {}},
		"zero":     {"m/0000_a.sql": {}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			migrate.MustLoad(fsys, "m")
		})
	}
}
