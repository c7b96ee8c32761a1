package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"rankd"
	"rankd/postgres"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// MustOpen opens the store at u and closes it when the test ends.
func MustOpen(tb testing.TB, u string) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), u)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

// MustRaw connects to u directly, to look at or tamper with what the store wrote.
func MustRaw(tb testing.TB, u string) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return MustOpen(t, pgtest.MustSchema(t))
	})
}

// TestMultiNode: several stores over one database, as several rankd nodes hold, append to one contest at
// once; the log has every entry once, without gaps, and each store reads the same log.
func TestMultiNode(t *testing.T) {
	u := pgtest.MustSchema(t)
	const (
		nodes   = 3
		workers = 4 // per node
		calls   = 15
		size    = 7
	)
	dbs := make([]*postgres.DB, nodes)
	for i := range dbs {
		dbs[i] = MustOpen(t, u)
	}
	var (
		mu      sync.Mutex
		results = make(map[string][]rankd.AppendResult) // by token
		wg      sync.WaitGroup
	)
	for n, db := range dbs {
		for w := range workers {
			wg.Go(func() {
				for c := range calls {
					var entries []rankd.LogEntry
					for k := range size {
						id := fmt.Sprintf("n%d-w%d-c%d-k%d", n, w, c, k)
						entries = append(entries, storetest.WithToken(storetest.Entry(rankd.EventJudgement, id, id), id))
					}
					// Every node resends these (a judge system that posts to every node): stored once each.
					shared := fmt.Sprintf("shared-%d", c)
					entries = append(entries, storetest.WithToken(storetest.Entry(rankd.EventJudgement, shared, shared), shared))
					entries = append(entries, storetest.Submission(fmt.Sprint("s", c), "t1", "A", time.Duration(c)*time.Minute))
					res, err := db.Append(context.Background(), "c1", entries, nil)
					if err != nil {
						t.Errorf("node %d: Append: %v", n, err)
						return
					}
					mu.Lock()
					for i, r := range res {
						if tok := entries[i].Token; tok != "" {
							results[tok] = append(results[tok], r)
						}
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	logs := make([][]rankd.LogEntry, nodes)
	for n, db := range dbs {
		logs[n] = storetest.MustReplay(t, db, "c1", 0)
	}
	log := logs[0]
	at := make(map[string]int64)
	for i, e := range log {
		if e.Pos != int64(i+1) {
			t.Fatalf("entry %d has pos %d, want %d", i, e.Pos, i+1)
		}
		if e.Token == "" {
			continue
		}
		if _, ok := at[e.Token]; ok {
			t.Errorf("token %s stored twice", e.Token)
		}
		at[e.Token] = e.Pos
	}
	if want := nodes*workers*calls*size + calls; len(at) != want {
		t.Errorf("got %d entries with tokens, want %d", len(at), want)
	}
	// Every submission version is sent by every worker: stored once, the others are duplicates by content.
	if want := len(at) + calls; len(log) != want {
		t.Errorf("got %d entries, want %d", len(log), want)
	}
	for tok, rs := range results {
		kept := 0
		for _, r := range rs {
			if r.Pos != at[tok] {
				t.Errorf("token %s: got result %+v, log has it at %d", tok, r, at[tok])
			}
			if !r.Duplicate {
				kept++
			}
		}
		if kept != 1 {
			t.Errorf("token %s: reported stored %d times, want once", tok, kept)
		}
	}
	for n := 1; n < nodes; n++ {
		if len(logs[n]) != len(log) || logs[n][len(log)-1].Pos != log[len(log)-1].Pos {
			t.Errorf("node %d reads %d entries, node 0 %d", n, len(logs[n]), len(log))
		}
	}
	if subs := storetest.MustSubmissions(t, dbs[1], "c1", rankd.SubmissionFilter{}); len(subs) != calls {
		t.Errorf("got %d submissions, want %d", len(subs), calls)
	}
}

// TestMultiNodeNewContest: nodes that create one contest at once share its log.
func TestMultiNodeNewContest(t *testing.T) {
	u := pgtest.MustSchema(t)
	dbs := []*postgres.DB{MustOpen(t, u), MustOpen(t, u), MustOpen(t, u), MustOpen(t, u)}
	for round := range 5 {
		contestID := fmt.Sprint("new-", round)
		var wg sync.WaitGroup
		for n, db := range dbs {
			wg.Go(func() {
				e := storetest.Entry(rankd.EventJudgement, fmt.Sprint("j", n), fmt.Sprint("node ", n))
				if _, err := db.Append(context.Background(), contestID, []rankd.LogEntry{e}, nil); err != nil {
					t.Errorf("node %d: Append: %v", n, err)
				}
			})
		}
		wg.Wait()
		log := storetest.MustReplay(t, dbs[0], contestID, 0)
		if len(log) != len(dbs) {
			t.Errorf("%s: got %d entries, want %d", contestID, len(log), len(dbs))
		}
		for i, e := range log {
			if e.Pos != int64(i+1) {
				t.Errorf("%s: entry %d has pos %d", contestID, i, e.Pos)
			}
		}
	}
}

// TestMigrations: nodes opening a new database at once migrate it once; opening it again applies nothing.
func TestMigrations(t *testing.T) {
	u := pgtest.MustSchema(t)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			db, err := postgres.Open(context.Background(), u)
			if err != nil {
				t.Errorf("Open: %v", err)
				return
			}
			db.Close()
		})
	}
	wg.Wait()
	MustOpen(t, u)
	raw := MustRaw(t, u)
	rows, _ := raw.Query(context.Background(), `SELECT version FROM schema_migrations ORDER BY version`)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for v := range postgres.SchemaVersion() {
		want = append(want, int32(v+1))
	}
	if !slices.Equal(versions, want) {
		t.Errorf("got versions %v, want %v", versions, want)
	}
}

// TestNewerSchemaRefused: a database migrated by a newer rankd is not touched.
func TestNewerSchemaRefused(t *testing.T) {
	u := pgtest.MustSchema(t)
	MustOpen(t, u).Close()
	raw := MustRaw(t, u)
	if _, err := raw.Exec(context.Background(), `INSERT INTO schema_migrations (version, name) VALUES ($1, 'future')`,
		postgres.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(context.Background(), u)
	if err == nil {
		db.Close()
		t.Fatal("Open of a newer schema: got no error")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("got error %v, want one saying the schema is newer", err)
	}
}

// TestSecretNotStored: the database holds digests of token secrets, never the secrets.
func TestSecretNotStored(t *testing.T) {
	u := pgtest.MustSchema(t)
	db := MustOpen(t, u)
	const secret = "very-secret-token-value"
	if err := db.SaveToken(context.Background(), rankd.Token{Secret: secret, Role: rankd.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	var n int
	err := MustRaw(t, u).QueryRow(context.Background(),
		`SELECT count(*) FROM tokens WHERE position($1::bytea in digest) > 0 OR position($2 in name) > 0`,
		[]byte(secret), secret).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the secret is in the tokens table")
	}
}

// TestNotText: strings PostgreSQL cannot keep as text are refused with EINVALID, and reads with them find
// nothing.
func TestNotText(t *testing.T) {
	db := MustOpen(t, pgtest.MustSchema(t))
	ctx := context.Background()
	bad := []string{"a\x00b", "\xff"}
	for _, s := range bad {
		entries := [][]rankd.LogEntry{
			{storetest.Entry(rankd.EventJudgement, s, "x")},
			{storetest.WithToken(storetest.Entry(rankd.EventJudgement, "j1", "x"), s)},
			{storetest.Submission("s1", s, "A", time.Minute)},
		}
		for i, e := range entries {
			_, err := db.Append(ctx, "c1", e, nil)
			if rankd.ErrorCode(err) != rankd.EINVALID {
				t.Errorf("%q, case %d: got error %v, want code %s", s, i, err, rankd.EINVALID)
			}
		}
		if _, err := db.Append(ctx, s, []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "x")}, nil); rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("contest %q: got error %v, want code %s", s, err, rankd.EINVALID)
		}
		if log := storetest.MustReplay(t, db, s, 0); len(log) != 0 {
			t.Errorf("Replay(%q): got %d entries", s, len(log))
		}
		if subs := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{TeamID: s}); len(subs) != 0 {
			t.Errorf("Submissions of team %q: got %+v", s, subs)
		}
		if _, err := db.LatestCheckpoint(ctx, s); rankd.ErrorCode(err) != rankd.ENOTFOUND {
			t.Errorf("LatestCheckpoint(%q): got error %v, want code %s", s, err, rankd.ENOTFOUND)
		}
	}
	if ids, err := db.Contests(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Contests: got %q, %v; want none", ids, err)
	}
}

// TestUnavailable: a server that cannot be reached gives EUNAVAILABLE, with a message that says nothing of
// the driver, both at Open and for a store whose server goes away; once it is back, calls succeed and what
// failed was not stored.
func TestUnavailable(t *testing.T) {
	ctx := context.Background()
	t.Run("open", func(t *testing.T) {
		pgtest.MustServer(t)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err = postgres.Open(ctx, "postgres://rankd@"+addr+"/rankd?sslmode=disable&connect_timeout=5")
		checkUnavailable(t, err)
	})

	t.Run("running", func(t *testing.T) {
		u := pgtest.MustSchema(t)
		p := pgtest.MustProxy(t, u)
		db := MustOpen(t, p.URL)
		storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, "j1", "a"))

		p.Cut()
		_, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j2", "b")}, nil)
		checkUnavailable(t, err)
		_, err = db.Contests(ctx)
		checkUnavailable(t, err)

		p.Restore()
		res := storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, "j3", "c"))
		if res[0].Pos != 2 {
			t.Errorf("Append after the server came back: got pos %d, want 2", res[0].Pos)
		}
	})
}

// checkUnavailable fails t unless err has code EUNAVAILABLE and a message of our own.
func checkUnavailable(t *testing.T, err error) {
	t.Helper()
	if got := rankd.ErrorCode(err); got != rankd.EUNAVAILABLE {
		t.Fatalf("got error %v (code %q), want code %q", err, got, rankd.EUNAVAILABLE)
	}
	if msg := rankd.ErrorMessage(err); msg != "the database is unavailable" {
		t.Errorf("got message %q, want one without the driver's words", msg)
	}
}

// TestReplayWhileAppending: Replay reads a snapshot: entries appended while it runs are not seen, and what it
// sees has no gap.
func TestReplayWhileAppending(t *testing.T) {
	db := MustOpen(t, pgtest.MustSchema(t))
	for i := range 10 {
		storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, fmt.Sprint("j", i), fmt.Sprint(i)))
	}
	var n int
	err := db.Replay(context.Background(), "c1", 0, func(e *rankd.LogEntry) error {
		n++
		if e.Pos != int64(n) {
			return fmt.Errorf("got pos %d, want %d", e.Pos, n)
		}
		if n == 1 {
			storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, "late", "late"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("got %d entries, want the 10 of the snapshot", n)
	}
	if log := storetest.MustReplay(t, db, "c1", 0); len(log) != 11 {
		t.Errorf("after: got %d entries, want 11", len(log))
	}
}

// TestClosed: calls on a closed store fail.
func TestClosed(t *testing.T) {
	db := MustOpen(t, pgtest.MustSchema(t))
	db.Close()
	if _, err := db.Contests(context.Background()); err == nil {
		t.Error("Contests on a closed store: got no error")
	}
	if _, err := db.Append(context.Background(), "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j", "x")}, nil); err == nil {
		t.Error("Append on a closed store: got no error")
	}
}

// TestOpenInvalid: a malformed URL is refused without repeating it (it may hold a password).
func TestOpenInvalid(t *testing.T) {
	for _, u := range []string{"", "postgres://user:hunter2@host:notaport/db"} {
		_, err := postgres.Open(context.Background(), u)
		if rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("Open(%q): got error %v, want code %s", u, err, rankd.EINVALID)
		}
		if strings.Contains(rankd.ErrorMessage(err), "hunter2") {
			t.Errorf("Open(%q): the message %q shows the password", u, rankd.ErrorMessage(err))
		}
	}
	var e *rankd.Error
	if _, err := postgres.Open(context.Background(), "postgres://x:y@host:notaport/db"); !errors.As(err, &e) {
		t.Errorf("got %T, want *rankd.Error", err)
	}
}

// TestLargeCall: a call large enough to be written with COPY stores what a small one would, NULLs included.
func TestLargeCall(t *testing.T) {
	db := MustOpen(t, pgtest.MustSchema(t))
	var entries []rankd.LogEntry
	for i := range 3000 {
		var e rankd.LogEntry
		switch i % 3 {
		case 0:
			e = storetest.Submission(fmt.Sprint("s", i), "t1", "A", time.Duration(i)*time.Second)
		case 1:
			e = storetest.WithToken(storetest.Entry(rankd.EventJudgement, fmt.Sprint("j", i), fmt.Sprint("j", i)), fmt.Sprint("tok", i))
		default:
			e = rankd.LogEntry{Event: rankd.Event{Type: rankd.EventState}, Data: []byte{0, byte(i)}} // no hash, no token
		}
		entries = append(entries, e)
	}
	entries = append(entries, entries[1], entries[3]) // duplicates by token, by content
	res := storetest.MustAppend(t, db, "c1", entries...)
	if r := res[len(res)-2:]; !r[0].Duplicate || r[0].Pos != 2 || !r[1].Duplicate || r[1].Pos != 4 {
		t.Errorf("duplicates: got %+v", r)
	}
	log := storetest.MustReplay(t, db, "c1", 0)
	if len(log) != 3000 {
		t.Fatalf("got %d entries, want 3000", len(log))
	}
	for i, e := range log {
		w := entries[i]
		if e.Pos != int64(i+1) || string(e.Data) != string(w.Data) || e.Hash != w.Hash || e.Token != w.Token ||
			!e.Stored.Equal(log[0].Stored) {
			t.Fatalf("entry %d: got %+v, want %+v", i, e, w)
		}
	}
	if subs := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{Offset: 999}); len(subs) != 1 || subs[0].ID != "s2997" {
		t.Errorf("last submission: got %+v", subs)
	}
}

// One server at a time holds the database: a second one is refused until the first closes.
func TestHoldExclusive(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	first, second := MustOpen(t, u), MustOpen(t, u)
	if err := first.HoldExclusive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := second.HoldExclusive(ctx); rankd.ErrorCode(err) != rankd.ECONFLICT {
		t.Fatalf("second holder: got %v, want %s", err, rankd.ECONFLICT)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := second.HoldExclusive(ctx); err != nil {
		t.Errorf("after the first closed: got %v, want the lock", err)
	}
}

// Two servers over one log: AppendAfter hands each the entries the other stored, before its own are decided.
func TestAppendAfter(t *testing.T) {
	u := pgtest.MustSchema(t)
	a, b := MustOpen(t, u), MustOpen(t, u)
	ctx := context.Background()
	storetest.MustAppend(t, a, "c1", storetest.Entry(rankd.EventTeam, "t1", "t1"), storetest.Entry(rankd.EventTeam, "t2", "t2"))
	for _, tc := range []struct {
		after    int64
		wantTail []int64
	}{
		{after: 0, wantTail: []int64{1, 2}},
		{after: 2, wantTail: nil},
		{after: -1, wantTail: nil},
	} {
		var tail []int64
		accepted := false
		res, err := b.AppendAfter(ctx, "c1", tc.after, func(entries []rankd.LogEntry) error {
			for _, e := range entries {
				tail = append(tail, e.Pos)
			}
			return nil
		}, []rankd.LogEntry{storetest.Entry(rankd.EventTeam, "t2", "t2")}, func(int) error {
			accepted = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tail, tc.wantTail) {
			t.Errorf("after %d: got tail %v, want %v", tc.after, tail, tc.wantTail)
		}
		if !res[0].Duplicate || res[0].Pos != 2 || accepted {
			t.Errorf("after %d: got %+v (accept called: %v), want the duplicate of entry 2", tc.after, res[0], accepted)
		}
	}
	// A tail refused undoes the call.
	refused := errors.New("refused")
	_, err := b.AppendAfter(ctx, "c1", 1, func([]rankd.LogEntry) error { return refused },
		[]rankd.LogEntry{storetest.Entry(rankd.EventTeam, "t3", "t3")}, nil)
	if !errors.Is(err, refused) {
		t.Errorf("tail refused: got %v, want %v", err, refused)
	}
	if log := storetest.MustReplay(t, a, "c1", 0); len(log) != 2 {
		t.Errorf("after a refused tail: got %d entries, want 2", len(log))
	}
}
