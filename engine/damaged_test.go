package engine_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// A contest whose log cannot be read back (a damaged store) is unavailable, with a message that says so;
// the other contests are restored and served, the server becomes ready, and the damaged contest is not
// redefined over its log.
func TestDamagedContestLeavesOthersServed(t *testing.T) {
	dir := t.TempDir()
	all := MustStoreContests(t, dir)

	raw, err := sql.Open("sqlite", filepath.Join(dir, "rankd.db"))
	if err != nil {
		t.Fatal(err)
	}
	// Contest a's checkpoint gone and a bit of its log flipped: its board can come only from the log.
	if _, err := raw.Exec(`DELETE FROM checkpoints WHERE contest_id = 'a'`); err != nil {
		t.Fatal(err)
	}
	var id int64
	var data []byte
	err = raw.QueryRow(`SELECT rowid, data FROM segments WHERE contest = (SELECT key FROM contests WHERE id = 'a')
		ORDER BY rowid LIMIT 1`).Scan(&id, &data)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if _, err := raw.Exec(`UPDATE segments SET data = ? WHERE rowid = ?`, data, id); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := MustOpenStore(t, dir)
	defer db.Close()
	e := engine.New(db, nil)
	if err := e.Open(context.Background()); err != nil {
		t.Fatalf("Open: got %v, want the other contests restored", err)
	}
	defer e.Close(context.Background())
	if !e.Ready() {
		t.Error("got not ready, want ready: contest b is served")
	}
	if got := MustStandings(t, e, "b"); len(got.Rows) == 0 {
		t.Error("contest b: got no rows, want its board")
	}
	err = e.Read("a", func(*board.Board, int64) error { return nil })
	if rankd.ErrorCode(err) != rankd.EUNAVAILABLE || !strings.Contains(rankd.ErrorMessage(err), "could not be read") {
		t.Errorf("reading contest a: got %v, want it unavailable, its log unreadable", err)
	}
	_, err = e.Submit(context.Background(), "a", all["a"][:1])
	if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("redefining contest a: got %v, want it unavailable", err)
	}
}
