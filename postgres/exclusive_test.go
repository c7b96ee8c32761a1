package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/postgres"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// A server that held the database and lost its session (the server restarted, the line was cut, an idle
// connection was dropped) takes the lock again before it appends, and refuses to append while another server
// holds it: two servers whose boards never see each other's events never both append.
func TestHoldExclusiveAfterLostSession(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	p := pgtest.MustProxy(t, u)
	first := MustOpen(t, p.URL)
	if err := first.HoldExclusive(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.MustAppend(t, first, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"))

	t.Run("nobody took it", func(t *testing.T) {
		p.Cut()
		p.Restore()
		MustLockFree(t, u)
		if _, err := appendAfterCut(first, storetest.Entry(rankd.EventTeam, "t2", "t2")); err != nil {
			t.Fatalf("append after the session was lost: %v", err)
		}
		second := MustOpen(t, u)
		if err := second.HoldExclusive(ctx); rankd.ErrorCode(err) != rankd.ECONFLICT {
			t.Errorf("second holder after the first appended again: got %v, want %s", err, rankd.ECONFLICT)
		}
	})

	t.Run("another took it", func(t *testing.T) {
		p.Cut()
		p.Restore()
		MustLockFree(t, u)
		second := MustOpen(t, u)
		if err := second.HoldExclusive(ctx); err != nil {
			t.Fatal(err)
		}
		_, err := appendAfterCut(first, storetest.Entry(rankd.EventTeam, "t3", "t3"))
		if rankd.ErrorCode(err) != rankd.ECONFLICT {
			t.Errorf("append of a server whose lock another took: got %v, want %s", err, rankd.ECONFLICT)
		}
		if n := len(storetest.MustReplay(t, second, "c1", 0)); n != 2 {
			t.Errorf("log: got %d entries, want 2", n)
		}
	})
}

// appendAfterCut appends an entry to contest c1 of db, whose idle connections were cut: the pool may hand
// out a dead one first, which fails as unavailable.
func appendAfterCut(db *postgres.DB, e rankd.LogEntry) ([]rankd.AppendResult, error) {
	for range 3 {
		res, err := db.Append(context.Background(), "c1", []rankd.LogEntry{e}, nil)
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			return res, err
		}
	}
	return nil, rankd.Errorf(rankd.EUNAVAILABLE, "still unavailable")
}

// MustLockFree waits until no session holds an advisory lock of the test's schema.
func MustLockFree(tb testing.TB, u string) {
	tb.Helper()
	conn := MustRaw(tb, u)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var held bool
		err := conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'advisory' AND objid = hashtext(current_schema())::oid AND granted)`).Scan(&held)
		if err != nil {
			tb.Fatal(err)
		}
		if !held {
			return
		}
	}
	tb.Fatal("the lost session's lock is still held after 10 s")
}

// The servers of the distributed mode hold the lock together (shared); a server of its own (started without
// Redis), whose board would not follow theirs, is refused beside them, and they beside it; a shared holder
// that lost its session takes its share again before it appends, unless a server of its own took the lock.
func TestHoldShared(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	p := pgtest.MustProxy(t, u)
	first, second := MustOpen(t, p.URL), MustOpen(t, u)
	for _, db := range []*postgres.DB{first, second} {
		if err := db.HoldShared(ctx); err != nil {
			t.Fatalf("servers of the distributed mode: got %v, want them to hold it together", err)
		}
	}
	lone := MustOpen(t, u)
	if err := lone.HoldExclusive(ctx); rankd.ErrorCode(err) != rankd.ECONFLICT {
		t.Fatalf("a server of its own beside them: got %v, want %s", err, rankd.ECONFLICT)
	}
	storetest.MustAppend(t, first, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"))

	// first's session lost: it takes its share again beside second.
	p.Cut()
	p.Restore()
	if _, err := appendAfterCut(first, storetest.Entry(rankd.EventTeam, "t2", "t2")); err != nil {
		t.Fatalf("append after the session was lost: %v", err)
	}

	// Both gone, a server of its own holds it: a server of the distributed mode is refused, and first, whose
	// session is lost again, appends nothing.
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	p.Restore()
	MustLockFree(t, u)
	if err := lone.HoldExclusive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := MustOpen(t, u).HoldShared(ctx); rankd.ErrorCode(err) != rankd.ECONFLICT || !strings.Contains(err.Error(), "on its own") {
		t.Errorf("a server of the distributed mode beside one of its own: got %v, want %s saying so", err, rankd.ECONFLICT)
	}
	if _, err := appendAfterCut(first, storetest.Entry(rankd.EventTeam, "t3", "t3")); rankd.ErrorCode(err) != rankd.ECONFLICT {
		t.Errorf("append of a shared holder whose lock a server of its own took: got %v, want %s", err, rankd.ECONFLICT)
	}
}
