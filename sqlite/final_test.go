package sqlite_test

import (
	"context"
	"reflect"
	"testing"

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
