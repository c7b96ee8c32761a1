package engine_test

import (
	"context"
	"testing"

	"rankd/engine"
	"rankd/postgres"
	"rankd/postgres/pgtest"
)

// MustOpenPostgres opens an engine of its own (not shared) over the PostgreSQL schema at url.
func MustOpenPostgres(tb testing.TB, url string) *engine.Engine {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	e := MustOpenEngine(tb, db)
	tb.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// A server that keeps its board to itself over PostgreSQL, whose log another server appended to all the same
// (while the first had lost its hold of the database), applies those entries before its own: its board stays
// the log's.
func TestOthersEntriesBeforeOwn(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	entries := contestEntries(t)
	first := MustOpenPostgres(t, u)
	if _, err := first.Submit(ctx, "c", entries[:300]); err != nil {
		t.Fatal(err)
	}
	second := MustOpenPostgres(t, u)
	if _, err := second.Submit(ctx, "c", entries[300:400]); err != nil {
		t.Fatal(err)
	}
	res, err := first.Submit(ctx, "c", entries[400:])
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != engine.StatusAccepted {
			t.Fatalf("entry %d: got %+v, want accepted", 400+i, r)
		}
	}
	if got, want := MustStandings(t, first, "c"), offlineStandings(t, entries); !equalStandings(got, want) {
		t.Errorf("board after another server appended: seq %d, want the log's (seq %d)", got.Seq, want.Seq)
	}
}
