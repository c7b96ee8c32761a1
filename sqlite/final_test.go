package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"rankd"

	"rankd/storetest"
)

// TestFinalNotKeptWhole: final standings stored before each version was also kept whole (encoded, read in one
// go) read back from their rows as they do from the encoding.
func TestFinalNotKeptWhole(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, dir)
	want := storetest.MustFinal(t, db, "c1")
	raw := MustRaw(t, dir)
	var encoded int
	if err := raw.QueryRow(`SELECT count(*) FROM final_versions WHERE encoded IS NOT NULL`).Scan(&encoded); err != nil || encoded != 1 {
		t.Fatalf("versions kept whole: got %d (%v), want 1", encoded, err)
	}
	MustExec(t, raw, `UPDATE final_versions SET encoded = NULL`)
	got, err := db.ActiveFinal(context.Background(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from the rows: got %+v, want %+v", got, want)
	}
}

// Only the last rankd.FinalVersionsKept versions of a contest's final standings are kept, rows and all.
func TestFinalVersionsPruned(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, dir)
	const saved = rankd.FinalVersionsKept + 3
	storetest.MustFinalVersions(t, db, "c1", saved)
	raw := MustRaw(t, dir)
	for _, table := range []string{"final_versions", "final_rows"} {
		var n, oldest int
		if err := raw.QueryRow(`SELECT count(DISTINCT version), min(version) FROM `+table+` WHERE contest_id = 'c1'`).Scan(&n, &oldest); err != nil {
			t.Fatal(err)
		}
		if n != rankd.FinalVersionsKept || oldest != saved-rankd.FinalVersionsKept+1 {
			t.Errorf("%s: got %d versions from %d, want %d from %d", table, n, oldest, rankd.FinalVersionsKept, saved-rankd.FinalVersionsKept+1)
		}
	}
	if f, err := db.ActiveFinal(context.Background(), "c1"); err != nil || f.Version != saved {
		t.Errorf("active: got version %d (%v), want %d", f.Version, err, saved)
	}
}
