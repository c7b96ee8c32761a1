package sqlite_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"rankd"
	"rankd/sqlite"
	"rankd/storetest"
)

// MustOpen opens a store in dir and closes it when the test ends.
func MustOpen(tb testing.TB, dir string, opts ...sqlite.Option) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), dir, opts...)
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

// MustClose closes db (a second Close, at cleanup, does nothing).
func MustClose(tb testing.TB, db *sqlite.DB) {
	tb.Helper()
	if err := db.Close(); err != nil {
		tb.Fatalf("Close: %v", err)
	}
}

// MustRaw opens the database file of dir directly, to look at or tamper with what the store wrote.
func MustRaw(tb testing.TB, dir string) *sql.DB {
	tb.Helper()
	uri := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, sqlite.FileName))}
	raw, err := sql.Open("sqlite", uri.String())
	if err != nil {
		tb.Fatalf("open raw: %v", err)
	}
	tb.Cleanup(func() { raw.Close() })
	return raw
}

// MustExec runs statements on raw.
func MustExec(tb testing.TB, raw *sql.DB, query string, args ...any) {
	tb.Helper()
	if _, err := raw.Exec(query, args...); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return MustOpen(t, t.TempDir())
	})
}

// TestConformanceCollisions runs the suite with an index whose names nearly all collide (four hashes for
// every name): the index tells them apart by their bytes, and undoes a failed call all the same.
func TestConformanceCollisions(t *testing.T) {
	defer sqlite.SetKeyMask(3)()
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return MustOpen(t, t.TempDir())
	})
}

// TestBackgroundCheckpoint: what Append writes to the WAL is copied into the database file in the
// background, without a close.
func TestBackgroundCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, dir)
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, sqlite.FileName))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	tr := &storetest.Traffic{}
	for range 150 { // about 40 MB of events, 8 MB stored
		storetest.MustAppend(t, db, "c1", tr.Entries(1000)...)
	}
	for deadline := time.Now().Add(10 * time.Second); size() < before+4<<20; {
		if time.Now().After(deadline) {
			t.Fatalf("database file: got %d bytes, want at least %d: no checkpoint", size(), before+4<<20)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fixedClock returns a clock that reads t.
func fixedClock(t time.Time) sqlite.Option {
	return sqlite.WithNow(func() time.Time { return t })
}

// TestReopen: what was acknowledged survives a close, and the log goes on where it was.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	at := time.Date(2026, 3, 2, 13, 30, 0, 123456789, time.FixedZone("CET", 3600))
	db := MustOpen(t, dir, fixedClock(at))
	entries := []rankd.LogEntry{
		storetest.WithToken(storetest.Submission("s1", "t1", "A", time.Minute), "tok1"),
		storetest.Entry(rankd.EventJudgement, "j1", "j1 v1"),
	}
	storetest.MustAppend(t, db, "c1", entries...)
	// A repeat under a new token: the token names the judgement's event from then on.
	storetest.MustAppend(t, db, "c1", storetest.WithToken(storetest.Entry(rankd.EventJudgement, "j1", "j1 v1"), "tok2"))
	if err := db.SaveCheckpoint(ctx, "c1", rankd.Checkpoint{Pos: 2, Data: []byte("board")}); err != nil {
		t.Fatalf("SaveCheckpoint: %v", err)
	}
	if err := db.SaveToken(ctx, rankd.Token{Secret: "s3cret", Role: rankd.RoleJudge, Name: "j"}); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	MustClose(t, db)

	db = MustOpen(t, dir, fixedClock(at.Add(time.Hour)))
	log := storetest.MustReplay(t, db, "c1", 0)
	if len(log) != len(entries) {
		t.Fatalf("got %d entries, want %d", len(log), len(entries))
	}
	for i, e := range log {
		w := entries[i]
		if e.Pos != int64(i+1) || !bytes.Equal(e.Data, w.Data) || e.Hash != w.Hash || e.Token != w.Token {
			t.Errorf("entry %d: got {%d %q %q %q}, want {%d %q %q %q}", i, e.Pos, e.Data, e.Hash, e.Token,
				i+1, w.Data, w.Hash, w.Token)
		}
		// Stored is the injected clock's time, to the nanosecond, in UTC.
		if !e.Stored.Equal(at) || e.Stored.Location() != time.UTC {
			t.Errorf("entry %d: got stored %v, want %v in UTC", i, e.Stored, at)
		}
	}
	if ids, err := db.Contests(ctx); err != nil || !slices.Equal(ids, []string{"c1"}) {
		t.Errorf("Contests: got %q, %v; want [c1]", ids, err)
	}
	if cp, err := db.LatestCheckpoint(ctx, "c1"); err != nil || cp.Pos != 2 || string(cp.Data) != "board" {
		t.Errorf("LatestCheckpoint: got %+v, %v; want {2 board}", cp, err)
	}
	if tok, err := db.LookupToken(ctx, "s3cret"); err != nil || tok.Role != rankd.RoleJudge {
		t.Errorf("LookupToken: got %+v, %v; want a judge token", tok, err)
	}
	if subs := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{}); len(subs) != 1 || subs[0].ID != "s1" {
		t.Errorf("Submissions: got %+v, want s1", subs)
	}

	// Deduplication knows the log from before, and positions go on.
	res := storetest.MustAppend(t, db, "c1",
		storetest.WithToken(storetest.Submission("s1", "t1", "A", 2*time.Minute), "tok1"),
		storetest.Entry(rankd.EventJudgement, "j1", "j1 v1"),
		storetest.Entry(rankd.EventJudgement, "j1", "j1 v2"))
	want := []rankd.AppendResult{{Pos: 1, Duplicate: true}, {Pos: 2, Duplicate: true}, {Pos: 3}}
	if !slices.Equal(res, want) {
		t.Errorf("Append after reopening: got %+v, want %+v", res, want)
	}
	// The index, read back from the log and the aliases, knows which object each token came with.
	res = storetest.MustAppend(t, db, "c1", storetest.WithToken(storetest.Entry(rankd.EventJudgement, "j9", "other"), "tok1"),
		storetest.WithToken(storetest.Entry(rankd.EventJudgement, "j9", "other"), "tok2"))
	if !errors.Is(res[0].Err, rankd.ErrTokenTaken) || !errors.Is(res[1].Err, rankd.ErrTokenTaken) {
		t.Errorf("tok1 and tok2 with another object after reopening: got %+v, want the tokens taken", res)
	}
	if log := storetest.MustReplay(t, db, "c1", 2); len(log) != 1 || !log[0].Stored.Equal(at.Add(time.Hour)) {
		t.Errorf("entry appended after reopening: got %+v, want stored at %v", log, at.Add(time.Hour))
	}
}

// TestMigrations: a new database gets every migration once; opening it again applies none.
func TestMigrations(t *testing.T) {
	dir := t.TempDir()
	for range 3 {
		MustClose(t, MustOpen(t, dir))
	}
	raw := MustRaw(t, dir)
	rows, err := raw.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	defer rows.Close()
	var got []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatalf("scan: %v", err)
		}
		got = append(got, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows: %v", err)
	}
	var want []int
	for v := 1; v <= sqlite.SchemaVersion(); v++ {
		want = append(want, v)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("applied migrations: got %v, want %v", got, want)
	}
	for _, table := range []string{"contests", "segments", "checkpoints", "tokens", "token_aliases"} {
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: got %d, %v; want it there", table, n, err)
		}
	}
}

// TestNewerSchemaRefused: a database a newer rankd migrated is not opened, and not touched.
func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	MustClose(t, MustOpen(t, dir))
	raw := MustRaw(t, dir)
	newer := sqlite.SchemaVersion() + 1
	MustExec(t, raw, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 0)`, newer)

	db, err := sqlite.Open(context.Background(), dir)
	if err == nil {
		_ = db.Close()
		t.Fatalf("Open of a newer schema: got no error")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema: got %q, want it to say the schema is newer", err)
	}
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, newer).Scan(&n); err != nil || n != 1 {
		t.Errorf("the newer version's row: got %d, %v; want it kept", n, err)
	}
}

// TestOpen: Open creates the directory, the file is where Path says, in WAL mode.
func TestOpen(t *testing.T) {
	// Characters a URI would take for its own are only part of the name.
	dir := filepath.Join(t.TempDir(), "data", "a b?c#d%20e&f")
	db := MustOpen(t, dir)
	if want := filepath.Join(dir, sqlite.FileName); db.Path() != want {
		t.Errorf("Path: got %s, want %s", db.Path(), want)
	}
	if names, err := os.ReadDir(dir); err != nil || len(names) == 0 || names[0].Name() != sqlite.FileName {
		t.Errorf("directory: got %v, %v; want %s first", names, err, sqlite.FileName)
	}
	if _, err := os.Stat(db.Path()); err != nil {
		t.Errorf("database file: %v", err)
	}
	var mode string
	if err := MustRaw(t, dir).QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode: got %q, %v; want wal", mode, err)
	}

	if _, err := sqlite.Open(context.Background(), ""); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Errorf("Open without a directory: got %v, want code %s", err, rankd.EINVALID)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := sqlite.Open(context.Background(), file); err == nil {
		_ = db.Close()
		t.Errorf("Open of a file as the directory: got no error")
	}
}

// TestSecretNotStored: the database holds a token's digest, never its secret.
func TestSecretNotStored(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, dir)
	const secret = "rankd-test-secret-5f1c0b7e"
	if err := db.SaveToken(context.Background(), rankd.Token{Secret: secret, Role: rankd.RoleAdmin}); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	MustClose(t, db)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
	sum := sha256.Sum256([]byte(secret))
	var digest string
	if err := MustRaw(t, dir).QueryRow(`SELECT digest FROM tokens`).Scan(&digest); err != nil || digest != hex.EncodeToString(sum[:]) {
		t.Errorf("digest: got %q, %v; want the hex SHA-256 of the secret", digest, err)
	}
}

// TestAppendFailureRollsBack: when a statement fails midway, the whole call is undone, and the error shows
// users nothing of the driver.
func TestAppendFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := MustOpen(t, dir)
	storetest.MustAppend(t, db, "c1", storetest.Submission("s1", "t1", "A", time.Minute))
	// A fault to order: the insert of the segment that holds object "boom" fails. The call's entries
	// before it are large, so that it is not the call's first segment.
	MustExec(t, MustRaw(t, dir), `CREATE TRIGGER boom BEFORE INSERT ON segments
		WHEN instr(NEW.keys, CAST('boom' AS BLOB)) > 0 BEGIN SELECT RAISE(ABORT, 'driver detail'); END`)
	large := strings.Repeat("x", 700_000)

	for _, contestID := range []string{"c1", "c2"} {
		entries := []rankd.LogEntry{
			storetest.Submission("s2", "t1", "A", 2*time.Minute),
			storetest.Delete(rankd.EventSubmission, "s1"),
			storetest.Entry(rankd.EventJudgement, "j1", large),
			storetest.Entry(rankd.EventJudgement, "j1", large+"2"),
			storetest.Entry(rankd.EventJudgement, "boom", "x"),
			storetest.Entry(rankd.EventJudgement, "j2", "y"),
		}
		_, err := db.Append(ctx, contestID, entries, nil)
		if err == nil {
			t.Fatalf("%s: Append: got no error", contestID)
		}
		if code, msg := rankd.ErrorCode(err), rankd.ErrorMessage(err); code != rankd.EINTERNAL || strings.Contains(msg, "driver detail") {
			t.Errorf("%s: got code %q, message %q; want %q without the driver's words", contestID, code, msg, rankd.EINTERNAL)
		}
	}
	if log := storetest.MustReplay(t, db, "c1", 0); len(log) != 1 {
		t.Errorf("c1: got %d entries, want 1", len(log))
	}
	if subs := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{}); len(subs) != 1 || subs[0].ID != "s1" {
		t.Errorf("c1 submissions: got %+v, want s1 alone", subs)
	}
	if ids, err := db.Contests(ctx); err != nil || !slices.Equal(ids, []string{"c1"}) {
		t.Errorf("Contests: got %q, %v; want [c1]", ids, err)
	}
	res := storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, "j2", "y"))
	if want := (rankd.AppendResult{Pos: 2}); res[0] != want {
		t.Errorf("Append after the failure: got %+v, want %+v", res[0], want)
	}
}

// TestReplayWhileAppending: reads do not wait for writes: an Append from inside Replay's fn completes, and
// the replay goes on over its snapshot.
func TestReplayWhileAppending(t *testing.T) {
	db := MustOpen(t, t.TempDir())
	storetest.MustAppend(t, db, "c1", storetest.Entry(rankd.EventJudgement, "j1", "a"),
		storetest.Entry(rankd.EventJudgement, "j2", "b"))
	var seen []int64
	err := db.Replay(context.Background(), "c1", 0, func(e *rankd.LogEntry) error {
		seen = append(seen, e.Pos)
		_, err := db.Append(context.Background(), "c1",
			[]rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "new", string(rune('a'+e.Pos)))}, nil)
		return err
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if !slices.Equal(seen, []int64{1, 2}) {
		t.Errorf("replayed %v, want [1 2]", seen)
	}
	if log := storetest.MustReplay(t, db, "c1", 0); len(log) != 4 {
		t.Errorf("got %d entries, want 4", len(log))
	}
}

// TestClosed: a closed store fails its calls rather than panicking.
func TestClosed(t *testing.T) {
	db := MustOpen(t, t.TempDir())
	MustClose(t, db)
	if _, err := db.Append(context.Background(), "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "j1", "a")}, nil); err == nil {
		t.Errorf("Append after Close: got no error")
	}
	if _, err := db.LatestCheckpoint(context.Background(), "c1"); rankd.ErrorCode(err) != rankd.EINTERNAL {
		t.Errorf("LatestCheckpoint after Close: got %v, want code %s", err, rankd.EINTERNAL)
	}
}

// TestTwoStores: two stores open on one file (two processes) see each other's appends: deduplication,
// positions and the submissions list follow the log, not what each store appended itself.
func TestTwoStores(t *testing.T) {
	dir := t.TempDir()
	a, b := MustOpen(t, dir), MustOpen(t, dir)
	j1 := storetest.WithToken(storetest.Entry(rankd.EventJudgement, "j1", "v1"), "tok1")
	storetest.MustAppend(t, a, "c1", storetest.Submission("s1", "t1", "A", time.Minute), j1)
	ids := func(db *sqlite.DB) []string {
		var ids []string
		for _, s := range storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{}) {
			ids = append(ids, s.ID)
		}
		return ids
	}
	if got := ids(b); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("b's submissions after a's append: got %q, want [s1]", got)
	}
	res := storetest.MustAppend(t, b, "c1", j1, storetest.Entry(rankd.EventJudgement, "j1", "v1"),
		storetest.Submission("s2", "t2", "B", 2*time.Minute))
	want := []rankd.AppendResult{{Pos: 2, Duplicate: true}, {Pos: 2, Duplicate: true}, {Pos: 3}}
	if !slices.Equal(res, want) {
		t.Errorf("b's append: got %+v, want %+v", res, want)
	}
	// a's index was read before b appended: it catches up.
	res = storetest.MustAppend(t, a, "c1", storetest.Submission("s2", "t2", "B", 2*time.Minute),
		storetest.Delete(rankd.EventSubmission, "s1"))
	want = []rankd.AppendResult{{Pos: 3, Duplicate: true}, {Pos: 4}}
	if !slices.Equal(res, want) {
		t.Errorf("a's append: got %+v, want %+v", res, want)
	}
	for name, db := range map[string]*sqlite.DB{"a": a, "b": b} {
		if got := ids(db); !slices.Equal(got, []string{"s2"}) {
			t.Errorf("%s's submissions: got %q, want [s2]", name, got)
		}
		if log := storetest.MustReplay(t, db, "c1", 0); len(log) != 4 {
			t.Errorf("%s's log: got %d entries, want 4", name, len(log))
		}
	}
}

// TestLargeCall: a call of more data than a segment holds is stored in several, and read back whole,
// from any position.
func TestLargeCall(t *testing.T) {
	db := MustOpen(t, t.TempDir())
	line := strings.Repeat("x", 100_000)
	var entries []rankd.LogEntry
	for i := range 50 {
		entries = append(entries, storetest.Entry(rankd.EventJudgement, fmt.Sprint("j", i), fmt.Sprint(i, line)))
	}
	storetest.MustAppend(t, db, "c1", entries...)
	for _, after := range []int64{0, 9, 10, 11, 25, 49, 50} {
		log := storetest.MustReplay(t, db, "c1", after)
		if len(log) != 50-int(after) {
			t.Fatalf("after %d: got %d entries, want %d", after, len(log), 50-after)
		}
		for i, e := range log {
			if w := entries[int(after)+i]; e.Pos != after+int64(i)+1 || string(e.Data) != string(w.Data) || e.Hash != w.Hash {
				t.Fatalf("after %d: entry %d: got pos %d, want %d and its data", after, i, e.Pos, after+int64(i)+1)
			}
		}
	}
	var segments int
	if err := MustRaw(t, filepath.Dir(db.Path())).QueryRow(`SELECT COUNT(*) FROM segments`).Scan(&segments); err != nil || segments < 2 {
		t.Errorf("segments: got %d, %v; want several", segments, err)
	}
	// Every entry is known to deduplication.
	res := storetest.MustAppend(t, db, "c1", entries[0], entries[49])
	if !res[0].Duplicate || !res[1].Duplicate {
		t.Errorf("entries sent again: got %+v, want duplicates", res)
	}
}

// TestEarlierSegmentFormats: a log whose segments are in the formats earlier versions of rankd wrote —
// data uncompressed, or compressed without a checksum, keys without a checksum — reads back the same, and
// its entries are known to deduplication.
func TestEarlierSegmentFormats(t *testing.T) {
	dir := t.TempDir()
	db := MustOpen(t, dir)
	tr := &storetest.Traffic{}
	entries := tr.Entries(3000)
	for i := 0; i < len(entries); i += 500 { // a segment each
		storetest.MustAppend(t, db, "c1", entries[i:i+500]...)
	}
	want := storetest.MustReplay(t, db, "c1", 0)
	MustClose(t, db)

	raw := MustRaw(t, dir)
	rows, err := raw.Query(`SELECT rowid, keys, data FROM segments`)
	if err != nil {
		t.Fatal(err)
	}
	type columns struct{ keys, data []byte }
	earlier := map[int64]columns{}
	for rows.Next() {
		var id int64
		var keys, data []byte
		if err := rows.Scan(&id, &keys, &data); err != nil {
			t.Fatal(err)
		}
		if keys[0] != 2 || data[0] != 3 {
			t.Fatalf("segment %d: got formats %d and %d, want 2 and 3 (with checksums)", id, keys[0], data[0])
		}
		d, err := s2.Decode(nil, data[5:])
		if err != nil {
			t.Fatal(err)
		}
		keys = append([]byte{1}, keys[1:len(keys)-4]...)
		switch id % 3 {
		case 0:
			earlier[id] = columns{keys, append([]byte{1}, d...)}
		case 1:
			earlier[id] = columns{keys, append([]byte{2}, s2.Encode(nil, d)...)}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(earlier) != 4 {
		t.Fatalf("got %d segments of 6 in earlier formats, want 4", len(earlier))
	}
	for id, c := range earlier {
		MustExec(t, raw, `UPDATE segments SET keys = ?, data = ? WHERE rowid = ?`, c.keys, c.data, id)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db = MustOpen(t, dir)
	got := storetest.MustReplay(t, db, "c1", 0)
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Pos != want[i].Pos || string(got[i].Data) != string(want[i].Data) || got[i].Hash != want[i].Hash {
			t.Fatalf("entry %d: got pos %d %q, want pos %d %q", i, got[i].Pos, got[i].Data, want[i].Pos, want[i].Data)
		}
	}
	if res := storetest.MustAppend(t, db, "c1", entries[0], entries[2999]); !res[0].Duplicate || !res[1].Duplicate {
		t.Errorf("entries sent again: got %+v, want duplicates", res)
	}
}

// MustDamagedSegment returns a data directory whose contest c1 has 1000 entries in two segments, the column
// (keys or data) of the second one damaged.
func MustDamagedSegment(tb testing.TB, column string, damage func([]byte) []byte) string {
	tb.Helper()
	dir := tb.TempDir()
	db := MustOpen(tb, dir)
	entries := (&storetest.Traffic{}).Entries(1000)
	storetest.MustAppend(tb, db, "c1", entries[:500]...)
	storetest.MustAppend(tb, db, "c1", entries[500:]...)
	MustClose(tb, db)

	raw := MustRaw(tb, dir)
	var id int64
	var b []byte
	if err := raw.QueryRow(`SELECT rowid, `+column+` FROM segments ORDER BY rowid DESC LIMIT 1`).Scan(&id, &b); err != nil {
		tb.Fatal(err)
	}
	MustExec(tb, raw, `UPDATE segments SET `+column+` = ? WHERE rowid = ?`, damage(b), id)
	if err := raw.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// TestDamagedSegment: a segment whose compressed data is damaged fails the replay with an error that says
// where, and no entry of it is handed on; the segments before it are read.
func TestDamagedSegment(t *testing.T) {
	tests := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"bytes flipped", func(d []byte) []byte {
			for i := len(d) / 2; i < len(d)/2+16; i++ {
				d[i] ^= 0x5a
			}
			return d
		}},
		// The last byte of the block is in a literal (a JSON line's end): without a checksum it decodes, wrong.
		{"one bit flipped", func(d []byte) []byte { d[len(d)-1] ^= 1; return d }},
		{"cut short", func(d []byte) []byte { return d[:len(d)/2] }},
		{"length of 4 GiB", func(d []byte) []byte { return append([]byte{2, 0xff, 0xff, 0xff, 0xff, 0x0f}, d[6:]...) }},
		{"unknown format", func(d []byte) []byte { d[0] = 9; return d }},
		{"empty", func([]byte) []byte { return []byte{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpen(t, MustDamagedSegment(t, "data", tt.damage))
			defer MustClose(t, db)
			var got int
			err := db.Replay(context.Background(), "c1", 0, func(*rankd.LogEntry) error { got++; return nil })
			if err == nil || !strings.Contains(err.Error(), "segment at 501") || !strings.Contains(err.Error(), "damaged") {
				t.Errorf("replay: got error %v, want the damaged segment at 501", err)
			}
			if got != 500 {
				t.Errorf("got %d entries before the damage, want 500", got)
			}
		})
	}
}

// TestDamagedSegmentKeys: a segment whose keys (what the index is built from: ids, tokens, hashes, the
// submissions list) are damaged is refused when the index reads it, rather than giving a wrong index.
func TestDamagedSegmentKeys(t *testing.T) {
	dir := MustDamagedSegment(t, "keys", func(keys []byte) []byte { keys[len(keys)/2] ^= 1; return keys })
	db := MustOpen(t, dir)
	defer MustClose(t, db)
	_, err := db.Append(context.Background(), "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "new", "x")}, nil)
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("append after damaged keys: got error %v, want a damaged segment", err)
	}
}

// An Append that fails after catching its index up with the log (the first after a start, or after another
// process appended) keeps what the catch-up indexed: the log's entries sent again are duplicates.
func TestFailedAppendAfterCatchUp(t *testing.T) {
	failing := func(t *testing.T, db *sqlite.DB) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		_, err := db.Append(ctx, "c1", []rankd.LogEntry{storetest.Entry(rankd.EventJudgement, "new", "x")},
			func(int) error { cancel(); return nil }) // cancelled while deciding, as a commit timeout would
		if err == nil {
			t.Fatal("Append cancelled midway: got no error")
		}
	}
	t.Run("reopened", func(t *testing.T) {
		dir := t.TempDir()
		db := MustOpen(t, dir)
		var entries []rankd.LogEntry
		for i := range 10 {
			entries = append(entries, storetest.WithToken(storetest.Entry(rankd.EventJudgement, fmt.Sprint("j", i), fmt.Sprint("v", i)), fmt.Sprint("tok", i)))
		}
		storetest.MustAppend(t, db, "c1", entries...)
		MustClose(t, db)
		db = MustOpen(t, dir)
		defer MustClose(t, db)
		failing(t, db)
		for i, r := range storetest.MustAppend(t, db, "c1", entries...) {
			if !r.Duplicate || r.Pos != int64(i+1) {
				t.Errorf("entry %d sent again: got %+v, want a duplicate at %d", i, r, i+1)
			}
		}
	})
	t.Run("another process appended", func(t *testing.T) {
		dir := t.TempDir()
		a, b := MustOpen(t, dir), MustOpen(t, dir)
		defer MustClose(t, a)
		defer MustClose(t, b)
		storetest.MustAppend(t, a, "c1", storetest.Entry(rankd.EventJudgement, "j1", "v1"))
		x := storetest.Entry(rankd.EventJudgement, "x1", "vx")
		storetest.MustAppend(t, b, "c1", x) // at 2
		failing(t, a)
		storetest.MustAppend(t, a, "c1", storetest.Entry(rankd.EventJudgement, "zz", "vz")) // at 3
		if res := storetest.MustAppend(t, a, "c1", x); !res[0].Duplicate || res[0].Pos != 2 {
			t.Errorf("x1 sent again: got %+v, want a duplicate at 2", res[0])
		}
	})
}

// A submission's replaced version is kept in the tokens table (a repeat of it is a duplicate); when the new
// version comes with a token whose key that kept version took, both stay found. Every name collides here.
func TestTokenAfterKeptVersion(t *testing.T) {
	defer sqlite.SetKeyMask(0)()
	db := MustOpen(t, t.TempDir())
	first := storetest.Submission("s1", "t1", "A", time.Minute)
	storetest.MustAppend(t, db, "c1", first)
	storetest.MustAppend(t, db, "c1", storetest.WithToken(storetest.Submission("s1", "t1", "A", 2*time.Minute), "tok"))
	res := storetest.MustAppend(t, db, "c1", first, storetest.WithToken(storetest.Submission("s1", "t1", "A", time.Hour), "tok"))
	want := []rankd.AppendResult{{Pos: 1, Duplicate: true}, {Pos: 2, Duplicate: true}}
	if !slices.Equal(res, want) {
		t.Errorf("the first version again, then the token again: got %+v, want %+v", res, want)
	}
}
