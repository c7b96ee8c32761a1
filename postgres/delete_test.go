package postgres_test

import (
	"context"
	"errors"
	"testing"

	"rankd"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// TestAppendAfterDeleted: a server whose board applied a log that was deleted since (by another server) is
// refused its append, with ENOTFOUND caused by rankd.ErrContestDeleted: nothing is stored, no contest is
// created, neither tail nor accept is called. So is it when the contest has a new log that does not reach its
// board's position; a board at that log's end or before appends as usual.
func TestAppendAfterDeleted(t *testing.T) {
	u := pgtest.MustSchema(t)
	a, b := MustOpen(t, u), MustOpen(t, u)
	ctx := context.Background()
	storetest.MustAppend(t, a, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"), storetest.Entry(rankd.EventTeam, "t2", "t2"))
	if err := a.DeleteContest(ctx, "c1"); err != nil {
		t.Fatalf("DeleteContest: %v", err)
	}
	appendAfter := func(after int64) ([]rankd.AppendResult, bool, error) {
		called := false
		res, err := b.AppendAfter(ctx, "c1", after, func([]rankd.LogEntry) error { called = true; return nil },
			[]rankd.LogEntry{storetest.Entry(rankd.EventTeam, "t3", "t3")}, func(int) error { called = true; return nil })
		return res, called, err
	}
	checkDeleted := func(what string, wantLog int) {
		t.Helper()
		res, called, err := appendAfter(2)
		if rankd.ErrorCode(err) != rankd.ENOTFOUND || !errors.Is(err, rankd.ErrContestDeleted) {
			t.Errorf("%s: got %v (code %q), want code %s caused by %v", what, err, rankd.ErrorCode(err), rankd.ENOTFOUND,
				rankd.ErrContestDeleted)
		}
		if res != nil || called {
			t.Errorf("%s: got results %+v, tail or accept called: %v; want neither", what, res, called)
		}
		if log := storetest.MustReplay(t, a, "c1", 0); len(log) != wantLog {
			t.Errorf("%s: got %d entries, want %d", what, len(log), wantLog)
		}
	}

	checkDeleted("no log", 0)
	if ids, err := a.Contests(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Contests after an append to a deleted contest: got %q, %v; want none", ids, err)
	}
	storetest.MustAppend(t, a, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"))
	checkDeleted("a new log, shorter", 1)

	res, called, err := appendAfter(1)
	if err != nil || !called || len(res) != 1 || res[0].Pos != 2 || res[0].Duplicate {
		t.Errorf("at the new log's end: got %+v, %v (accept called: %v); want stored at 2", res, err, called)
	}
}

// TestReplayChecksLogKey: a Replay given a log key reads entries of that log only; one given 0 learns the key
// of the log it reads; one that reads no entry leaves the key as it is.
func TestReplayChecksLogKey(t *testing.T) {
	u := pgtest.MustSchema(t)
	db := MustOpen(t, u)
	ctx := context.Background()
	replay := func(key *int64, after int64) (int, error) {
		n := 0
		err := db.Replay(rankd.WithLogKey(ctx, key), "c1", after, func(*rankd.LogEntry) error { n++; return nil })
		return n, err
	}
	storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"), storetest.Entry(rankd.EventTeam, "t2", "t2"))
	var old int64
	if n, err := replay(&old, 0); n != 2 || err != nil || old == 0 {
		t.Fatalf("a first read: got %d entries, key %d, %v; want 2 entries and the log's key", n, old, err)
	}
	if err := db.DeleteContest(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventTeam, "t3", "t3"))
	key := old
	n, err := replay(&key, 0)
	if rankd.ErrorCode(err) != rankd.ENOTFOUND || !errors.Is(err, rankd.ErrContestDeleted) || n != 0 || key != old {
		t.Errorf("the old log's key, reading the new log: got %d entries, key %d, %v; want none, the key kept, %s (contest deleted)",
			n, key, err, rankd.ENOTFOUND)
	}
	if n, err := replay(&key, 1); n != 0 || err != nil || key != old {
		t.Errorf("nothing to read: got %d entries, key %d, %v; want none and the key kept", n, key, err)
	}
	var fresh int64
	if n, err := replay(&fresh, 0); n != 1 || err != nil || fresh == 0 || fresh == old {
		t.Errorf("the new log: got %d entries, key %d (old %d), %v; want 1 entry and a new key", n, fresh, old, err)
	}
}

// TestDeleteContestLeavesNothing: no table keeps a row of a deleted contest.
func TestDeleteContestLeavesNothing(t *testing.T) {
	ctx := context.Background()
	u := pgtest.MustSchema(t)
	db := MustOpen(t, u)
	storetest.MustFillContest(t, db, "c1")
	if err := db.DeleteContest(ctx, "c1"); err != nil {
		t.Fatalf("DeleteContest: %v", err)
	}
	raw := MustRaw(t, u)
	for table, want := range map[string]int{"contests": 0, "events": 0, "submissions": 0, "token_aliases": 0,
		"checkpoints": 0, "tokens": 1, "final_versions": 0, "final_rows": 0, "final_active": 0} {
		var n int
		if err := raw.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != want {
			t.Errorf("%s: got %d rows, want %d", table, n, want)
		}
	}
}
