package postgres_test

import (
	"context"
	"reflect"
	"testing"

	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// TestFinalNotKeptWhole: final standings stored before each version was also kept whole (encoded, read in one
// go) read back from their rows as they do from the encoding.
func TestFinalNotKeptWhole(t *testing.T) {
	ctx := context.Background()
	u := pgtest.MustSchema(t)
	db := MustOpen(t, u)
	want := storetest.MustFinal(t, db, "c1")
	raw := MustRaw(t, u)
	var encoded int
	if err := raw.QueryRow(ctx, `SELECT count(*) FROM final_versions WHERE encoded IS NOT NULL`).Scan(&encoded); err != nil || encoded != 1 {
		t.Fatalf("versions kept whole: got %d (%v), want 1", encoded, err)
	}
	if _, err := raw.Exec(ctx, `UPDATE final_versions SET encoded = NULL`); err != nil {
		t.Fatal(err)
	}
	got, err := db.ActiveFinal(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from the rows: got %+v, want %+v", got, want)
	}
}
