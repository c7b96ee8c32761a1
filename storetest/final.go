package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"rankd"
)

// finalStandings returns final standings of contest id built at pos, with rows that tell versions apart: of
// the log s holds, whose entry at pos they name.
func finalStandings(tb testing.TB, s rankd.EventLog, id string, pos int64) rankd.FinalStandings {
	tb.Helper()
	row := func(rank int, team string, solved int) rankd.Row {
		return rankd.Row{Rank: rank, TeamID: team, Solved: solved, Penalty: pos, Score: 1.5, Time: 61 * time.Minute,
			Cells: []rankd.Cell{
				{ProblemID: "A", Solved: true, FirstToSolve: true, Judged: 2, Time: 61*time.Minute + 123*time.Millisecond, Penalty: 81},
				{ProblemID: "B", Judged: 1, Pending: 3, Score: 0.25},
			}}
	}
	return rankd.FinalStandings{
		ContestID: id,
		Pos:       pos,
		Stored:    MustEntryAt(tb, s, id, pos).Stored,
		Jury:      []rankd.Row{row(1, "t1", 2), row(2, "t2", 1), row(2, "t3", 1)},
		Public:    []rankd.Row{row(1, "t2", 1), row(2, "t1", 0)},
		// A citation is made of event data: of any text, a NUL included.
		Awards: []rankd.Award{{ID: "winner", Citation: "Contest winner \x00 ✓", TeamIDs: []string{"t2"}}},
		// The jury's differ until a thaw.
		JuryAwards: []rankd.Award{{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t1"}}},
	}
}

// MustEntryAt returns the entry at pos of a contest's log, and fails tb when it has none.
func MustEntryAt(tb testing.TB, l rankd.EventLog, contestID string, pos int64) rankd.LogEntry {
	tb.Helper()
	log := MustReplay(tb, l, contestID, pos-1)
	if len(log) == 0 || log[0].Pos != pos {
		tb.Fatalf("contest %s's log has no entry at %d", contestID, pos)
	}
	return log[0]
}

// mustGrowLog appends submissions to a contest's log until it has n entries.
func mustGrowLog(tb testing.TB, l rankd.EventLog, contestID string, n int64) {
	tb.Helper()
	var entries []rankd.LogEntry
	for i := int64(len(MustReplay(tb, l, contestID, 0))); i < n; i++ {
		entries = append(entries, Submission(fmt.Sprint("grown", i), "t1", "A", time.Duration(i)*time.Second))
	}
	MustAppend(tb, l, contestID, entries...)
}

func MustSaveFinal(tb testing.TB, s rankd.FinalStore, f rankd.FinalStandings) int64 {
	tb.Helper()
	v, err := s.SaveFinal(context.Background(), f)
	if err != nil {
		tb.Fatalf("SaveFinal: %v", err)
	}
	return v
}

// MustFinal stores final standings of contest id (a log of 10 entries, grown to that when shorter) and returns
// them as ActiveFinal reads them back, for a store's own tests of how it keeps them.
func MustFinal(tb testing.TB, s Store, id string) rankd.FinalStandings {
	tb.Helper()
	mustGrowLog(tb, s, id, 10)
	f := finalStandings(tb, s, id, 10)
	MustSaveFinal(tb, s, f)
	got, err := s.ActiveFinal(context.Background(), id)
	if err != nil {
		tb.Fatalf("ActiveFinal: %v", err)
	}
	if !equalFinal(got, f) {
		tb.Fatalf("read back: got %+v, want %+v", got, f)
	}
	return got
}

// MustFinalVersions stores n versions of contest id's final standings (a log of n entries, grown to that when
// shorter), for a store's own tests of how many it keeps.
func MustFinalVersions(tb testing.TB, s Store, id string, n int) {
	tb.Helper()
	mustGrowLog(tb, s, id, int64(n))
	for pos := range int64(n) {
		MustSaveFinal(tb, s, finalStandings(tb, s, id, pos+1))
	}
}

// equalFinal compares final standings without Version and Built, which the store assigns, and Stored, which
// it checks.
func equalFinal(got, want rankd.FinalStandings) bool {
	got.Version, got.Built, want.Version, want.Built = 0, time.Time{}, 0, time.Time{}
	got.Stored, want.Stored = time.Time{}, time.Time{}
	return reflect.DeepEqual(got, want)
}

func testFinal(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.ActiveFinal(ctx, "c1"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Fatalf("no final standings yet: got %v, want %s", err, rankd.ENOTFOUND)
	}
	mustGrowLog(t, s, "c1", 100)
	first := finalStandings(t, s, "c1", 100)
	if v := MustSaveFinal(t, s, first); v != 1 {
		t.Errorf("first version: got %d, want 1", v)
	}
	got, err := s.ActiveFinal(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !equalFinal(got, first) || got.Version != 1 || got.Built.IsZero() {
		t.Fatalf("read back: got %+v, want %+v", got, first)
	}
	// The same position again, or an older one: nothing new.
	for _, pos := range []int64{100, 50} {
		if v := MustSaveFinal(t, s, finalStandings(t, s, "c1", pos)); v != 1 {
			t.Errorf("built again at %d: got version %d, want 1", pos, v)
		}
	}
	if got, _ := s.ActiveFinal(ctx, "c1"); !equalFinal(got, first) {
		t.Errorf("after builds that changed nothing: got %+v, want %+v", got, first)
	}
	// A later position (a rejudge after the end): a new version, active at once.
	mustGrowLog(t, s, "c1", 120)
	later := finalStandings(t, s, "c1", 120)
	later.Public, later.Awards, later.JuryAwards = nil, nil, nil
	if v := MustSaveFinal(t, s, later); v != 2 {
		t.Errorf("later build: got version %d, want 2", v)
	}
	if got, _ := s.ActiveFinal(ctx, "c1"); !equalFinal(got, later) || got.Version != 2 {
		t.Errorf("after a later build: got %+v, want %+v", got, later)
	}
	// Contests are apart.
	if _, err := s.ActiveFinal(ctx, "c2"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("another contest: got %v, want %s", err, rankd.ENOTFOUND)
	}
	if _, err := s.SaveFinal(ctx, rankd.FinalStandings{}); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Errorf("no contest id: got %v, want %s", err, rankd.EINVALID)
	}
}

// Final standings are stored only while their contest's log is the one they were built from, which names
// the entry at their position: not after the contest was deleted, nor for a contest created again with the id.
func testFinalOfAnotherLog(t *testing.T, s Store) {
	ctx := context.Background()
	mustGrowLog(t, s, "c1", 3)
	old := finalStandings(t, s, "c1", 3)
	beyond := old
	beyond.Pos = 4
	unnamed := old
	unnamed.Stored = time.Time{}
	if err := s.DeleteContest(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.SaveFinal(ctx, old)
	checkDeleted(t, "deleted", err)
	mustGrowLog(t, s, "c1", 3) // created again: stored later
	for _, c := range []struct {
		what string
		f    rankd.FinalStandings
	}{
		{"the contest created again", old},
		{"a position beyond the log", beyond},
		{"no entry named", unnamed},
	} {
		_, err := s.SaveFinal(ctx, c.f)
		checkDeleted(t, c.what, err)
	}
	if _, err := s.ActiveFinal(ctx, "c1"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("after refused saves: got %v, want %s", err, rankd.ENOTFOUND)
	}
	if v := MustSaveFinal(t, s, finalStandings(t, s, "c1", 3)); v != 1 {
		t.Errorf("the new log's: got version %d, want 1", v)
	}
}

// checkDeleted fails t unless err is SaveFinal's for standings of another log.
func checkDeleted(t *testing.T, what string, err error) {
	t.Helper()
	if rankd.ErrorCode(err) != rankd.ENOTFOUND || !errors.Is(err, rankd.ErrContestDeleted) {
		t.Errorf("SaveFinal, %s: got %v, want %s (contest deleted)", what, err, rankd.ENOTFOUND)
	}
}

// Finalizations racing, as on several servers at once, give one version per position.
func testFinalConcurrent(t *testing.T, s Store) {
	mustGrowLog(t, s, "c1", 100)
	f := finalStandings(t, s, "c1", 100)
	var wg sync.WaitGroup
	versions := make([]int64, 8)
	for i := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.SaveFinal(context.Background(), f)
			if err != nil {
				t.Error(err)
			}
			versions[i] = v
		}()
	}
	wg.Wait()
	for i, v := range versions {
		if v != 1 {
			t.Errorf("call %d: got version %d, want 1", i, v)
		}
	}
}
