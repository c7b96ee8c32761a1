package sqlite_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"rankd"
	"rankd/sqlite"
)

// firstSchema is migration 1 as the first rankd serve released it: the log one row per entry in a table
// events, the submissions list in a table submissions. Migration 1 was rewritten since (segments), so a
// store of that time says it has version 1 without having its tables.
const firstSchema = `
CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT;
INSERT INTO schema_migrations VALUES (1, '0001_init', 1);
CREATE TABLE contests (id TEXT NOT NULL PRIMARY KEY, created_at INTEGER NOT NULL) STRICT;
CREATE TABLE events (
	contest_id TEXT NOT NULL REFERENCES contests (id), pos INTEGER NOT NULL CHECK (pos > 0), type INTEGER NOT NULL,
	object_id TEXT NOT NULL, token TEXT NOT NULL DEFAULT '', hash TEXT NOT NULL, data BLOB NOT NULL,
	stored_at INTEGER NOT NULL, PRIMARY KEY (contest_id, pos)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX events_token ON events (contest_id, token) WHERE token <> '';
CREATE INDEX events_object ON events (contest_id, type, object_id, pos);
CREATE TABLE checkpoints (contest_id TEXT NOT NULL PRIMARY KEY, pos INTEGER NOT NULL CHECK (pos >= 0), data BLOB NOT NULL, saved_at INTEGER NOT NULL) STRICT;
CREATE TABLE submissions (
	contest_id TEXT NOT NULL REFERENCES contests (id), id TEXT NOT NULL, team_id TEXT NOT NULL, problem_id TEXT NOT NULL,
	time_ms INTEGER NOT NULL, pos INTEGER NOT NULL, PRIMARY KEY (contest_id, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX submissions_time ON submissions (contest_id, time_ms, id);
CREATE INDEX submissions_team ON submissions (contest_id, team_id, time_ms, id);
CREATE INDEX submissions_problem ON submissions (contest_id, problem_id, time_ms, id);
CREATE TABLE tokens (digest TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, contest_id TEXT NOT NULL DEFAULT '',
	team_id TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL) STRICT;
`

// oldSecret is a team token the old store issued; it kept its SHA-256 digest, oldSecretDigest.
const (
	oldSecret       = "an-old-team-secret-0123"
	oldSecretDigest = "5f26c63ea2db4538b232708a70fdd8ec590729676b60a0d1b10924b3d8b7ede9"
)

// oldEntry is a row of the first schema's events table.
type oldEntry struct {
	contest string
	pos     int64
	typ     rankd.EventType
	object  string
	token   string
	hash    string
	data    string
	stored  int64
}

// MustFirstSchemaStore writes, in dir, a store as the first rankd serve left it: the entries, the
// submissions list the old Append kept beside them (latest versions only, deleted ones gone), a checkpoint
// and an issued token.
func MustFirstSchemaStore(tb testing.TB, dir string, entries []oldEntry, subs [][6]any) {
	tb.Helper()
	raw := MustRaw(tb, dir)
	MustExec(tb, raw, firstSchema)
	for _, c := range []string{"c1", "c2"} {
		MustExec(tb, raw, `INSERT INTO contests VALUES (?, 1)`, c)
	}
	for _, e := range entries {
		MustExec(tb, raw, `INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			e.contest, e.pos, int(e.typ), e.object, e.token, e.hash, []byte(e.data), e.stored)
	}
	for _, s := range subs {
		MustExec(tb, raw, `INSERT INTO submissions VALUES (?, ?, ?, ?, ?, ?)`, s[:]...)
	}
	MustExec(tb, raw, `INSERT INTO checkpoints VALUES ('c1', 3, x'0102', 1)`)
	MustExec(tb, raw, `INSERT INTO tokens VALUES (?, 'team', 'c1', 't1', '', 1)`, oldSecretDigest)
	if err := raw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestFirstSchemaStoreOpens: a data directory written by the first rankd serve opens with this one, its
// log, submissions list, duplicates, checkpoint and tokens intact, and takes new entries after its own.
// It was refused ("no such table: segments"), after this rankd had marked later migrations applied to it.
func TestFirstSchemaStoreOpens(t *testing.T) {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	t0, t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC).UnixNano(), time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC).UnixNano()
	entries := []oldEntry{
		{"c1", 1, rankd.EventContest, "c1", "k1", "00aa", `{"type":"contests","data":{"id":"c1"}}`, t0},
		{"c1", 2, rankd.EventSubmission, "s1", "k2", "00bb", `{"type":"submissions","id":"s1","v":1}`, t0},
		{"c1", 3, rankd.EventSubmission, "s2", "", "00cc", `{"type":"submissions","id":"s2"}`, t0},
		{"c1", 4, rankd.EventSubmission, "s1", "k4", "00dd", `{"type":"submissions","id":"s1","v":2}`, t1},
		{"c1", 5, rankd.EventSubmission, "s3", "", "00ee", `{"type":"submissions","id":"s3"}`, t1},
		{"c1", 6, rankd.EventSubmission, "s3", "", "00ff", `{"type":"submissions","id":"s3","data":null}`, t1},
		{"c1", 7, rankd.EventJudgement, "j1", "", "0011", `{"type":"judgements","id":"j1"}`, t1},
		{"c2", 1, rankd.EventContest, "c2", "", "0022", `{"type":"contests","data":{"id":"c2"}}`, t0},
	}
	subs := [][6]any{
		{"c1", "s1", "t2", "B", ms(7 * time.Minute), 4}, // its second version (team, problem and time changed)
		{"c1", "s2", "t1", "A", ms(3 * time.Minute), 3},
		// s3 was deleted: the old store removed it from the list
	}

	for _, tt := range []struct {
		name  string
		twice bool // opened once by a rankd that marked migrations 2 and 3 applied and then failed
	}{
		{"as the first rankd serve left it", false},
		{"after a failed open by a later rankd", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			MustFirstSchemaStore(t, dir, entries, subs)
			if tt.twice {
				raw := MustRaw(t, dir)
				MustExec(t, raw, `CREATE TABLE final_versions (contest_id TEXT NOT NULL, version INTEGER NOT NULL, pos INTEGER NOT NULL,
					built_at INTEGER NOT NULL, awards TEXT NOT NULL, jury_awards TEXT, PRIMARY KEY (contest_id, version)) STRICT`)
				MustExec(t, raw, `INSERT INTO schema_migrations VALUES (2, '0002_final', 2), (3, '0003_final_jury_awards', 2)`)
				if err := raw.Close(); err != nil {
					t.Fatal(err)
				}
			}
			db := MustOpen(t, dir)
			ctx := context.Background()

			ids, err := db.Contests(ctx)
			if err != nil || !slices.Equal(ids, []string{"c1", "c2"}) {
				t.Fatalf("Contests: got %v, %v; want [c1 c2]", ids, err)
			}
			for _, c := range []string{"c1", "c2"} {
				var got []oldEntry
				err := db.Replay(ctx, c, 0, func(e *rankd.LogEntry) error {
					got = append(got, oldEntry{contest: c, pos: e.Pos, token: e.Token, hash: e.Hash, data: string(e.Data), stored: e.Stored.UnixNano()})
					return nil
				})
				if err != nil {
					t.Fatalf("Replay %s: %v", c, err)
				}
				var want []oldEntry
				for _, e := range entries {
					if e.contest == c {
						e.typ, e.object = 0, ""
						want = append(want, e)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("Replay %s:\n got %v\nwant %v", c, got, want)
				}
			}

			list, err := db.Submissions(ctx, "c1", rankd.SubmissionFilter{})
			if err != nil {
				t.Fatalf("Submissions: %v", err)
			}
			want := []rankd.SubmissionRecord{
				{ID: "s2", TeamID: "t1", ProblemID: "A", Time: 3 * time.Minute, Pos: 3},
				{ID: "s1", TeamID: "t2", ProblemID: "B", Time: 7 * time.Minute, Pos: 4},
			}
			if !slices.Equal(list, want) {
				t.Errorf("Submissions:\n got %v\nwant %v", list, want)
			}

			cp, err := db.LatestCheckpoint(ctx, "c1")
			if err != nil || cp.Pos != 3 || string(cp.Data) != "\x01\x02" {
				t.Errorf("LatestCheckpoint: got %+v, %v; want position 3", cp, err)
			}
			if tok, err := db.LookupToken(ctx, oldSecret); err != nil || tok.TeamID != "t1" {
				t.Errorf("LookupToken of a token the old store issued: got %+v, %v; want team t1", tok, err)
			}

			// A token and a content stored by the old rankd are duplicates; a new entry follows the old log.
			res, err := db.Append(ctx, "c1", []rankd.LogEntry{
				{Event: rankd.Event{Type: rankd.EventSubmission, ID: "s1"}, Data: []byte("x"), Hash: "99", Token: "k2"},
				{Event: rankd.Event{Type: rankd.EventJudgement, ID: "j1"}, Data: []byte("y"), Hash: "0011"},
				{Event: rankd.Event{Type: rankd.EventJudgement, ID: "j2"}, Data: []byte("z"), Hash: "0033"},
			}, nil)
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
			wantRes := []rankd.AppendResult{{Pos: 2, Duplicate: true}, {Pos: 7, Duplicate: true}, {Pos: 8}}
			if !slices.EqualFunc(res, wantRes, func(a, b rankd.AppendResult) bool {
				return a.Pos == b.Pos && a.Duplicate == b.Duplicate && a.Err == nil
			}) {
				t.Errorf("Append after the upgrade: got %+v, want %+v", res, wantRes)
			}

			// Opened again, nothing is converted twice.
			MustClose(t, db)
			db = MustOpen(t, dir)
			var n int
			if err := db.Replay(ctx, "c1", 0, func(*rankd.LogEntry) error { n++; return nil }); err != nil || n != 8 {
				t.Errorf("Replay after reopening: %d entries, %v; want 8", n, err)
			}
			if v := sqlite.SchemaVersion(); v < 3 {
				t.Fatalf("SchemaVersion %d", v)
			}
		})
	}
}
