package sqlite_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"rankd"
	"rankd/storetest"
)

// TestDeleteContestListOnly: a contest whose index only Submissions made since the store was opened (its
// list read, its log part not), deleted; its new log, which may get the deleted one's key, has a list of its
// own.
func TestDeleteContestListOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := MustOpen(t, dir)
	storetest.MustAppend(t, db, "c1", storetest.Submission("s1", "t1", "A", time.Minute),
		storetest.Submission("s2", "t1", "A", 2*time.Minute))
	MustClose(t, db)

	db = MustOpen(t, dir)
	if subs := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{}); len(subs) != 2 {
		t.Fatalf("Submissions before deleting: got %+v, want s1 and s2", subs)
	}
	if err := db.DeleteContest(ctx, "c1"); err != nil {
		t.Fatalf("DeleteContest: %v", err)
	}
	storetest.MustAppend(t, db, "c1", storetest.Submission("s3", "t2", "B", 3*time.Minute))
	want := []rankd.SubmissionRecord{{ID: "s3", TeamID: "t2", ProblemID: "B", Time: 3 * time.Minute, Pos: 1}}
	if got := storetest.MustSubmissions(t, db, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want) {
		t.Errorf("Submissions of the new log: got %+v, want %+v", got, want)
	}
}

// TestDeleteContestLeavesNothing: no table keeps a row of a deleted contest.
func TestDeleteContestLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := MustOpen(t, dir)
	storetest.MustFillContest(t, db, "c1")
	if err := db.DeleteContest(ctx, "c1"); err != nil {
		t.Fatalf("DeleteContest: %v", err)
	}
	raw := MustRaw(t, dir)
	for table, want := range map[string]int{"contests": 0, "segments": 0, "token_aliases": 0, "checkpoints": 0,
		"tokens": 1, "final_versions": 0, "final_rows": 0, "final_active": 0} {
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != want {
			t.Errorf("%s: got %d rows, want %d", table, n, want)
		}
	}
}
