package storetest

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"rankd"
)

// finalStandings returns final standings of contest id built at pos, with rows that tell versions apart.
func finalStandings(id string, pos int64) rankd.FinalStandings {
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
		Jury:      []rankd.Row{row(1, "t1", 2), row(2, "t2", 1), row(2, "t3", 1)},
		Public:    []rankd.Row{row(1, "t2", 1), row(2, "t1", 0)},
		// A citation is made of event data: of any text, a NUL included.
		Awards: []rankd.Award{{ID: "winner", Citation: "Contest winner \x00 ✓", TeamIDs: []string{"t2"}}},
		// The jury's differ until a thaw.
		JuryAwards: []rankd.Award{{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t1"}}},
	}
}

func MustSaveFinal(tb testing.TB, s rankd.FinalStore, f rankd.FinalStandings) int64 {
	tb.Helper()
	v, err := s.SaveFinal(context.Background(), f)
	if err != nil {
		tb.Fatalf("SaveFinal: %v", err)
	}
	return v
}

// equalFinal compares final standings without Version and Built, which the store assigns.
func equalFinal(got, want rankd.FinalStandings) bool {
	got.Version, got.Built, want.Version, want.Built = 0, time.Time{}, 0, time.Time{}
	return reflect.DeepEqual(got, want)
}

func testFinal(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.ActiveFinal(ctx, "c1"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Fatalf("no final standings yet: got %v, want %s", err, rankd.ENOTFOUND)
	}
	first := finalStandings("c1", 100)
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
		if v := MustSaveFinal(t, s, finalStandings("c1", pos)); v != 1 {
			t.Errorf("built again at %d: got version %d, want 1", pos, v)
		}
	}
	if got, _ := s.ActiveFinal(ctx, "c1"); !equalFinal(got, first) {
		t.Errorf("after builds that changed nothing: got %+v, want %+v", got, first)
	}
	// A later position (a rejudge after the end): a new version, active at once.
	later := finalStandings("c1", 120)
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

// Finalizations racing, as on several servers at once, give one version per position.
func testFinalConcurrent(t *testing.T, s Store) {
	var wg sync.WaitGroup
	versions := make([]int64, 8)
	for i := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := s.SaveFinal(context.Background(), finalStandings("c1", 100))
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
