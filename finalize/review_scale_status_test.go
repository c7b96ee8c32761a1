package finalize_test

import (
	"context"
	"testing"
	"time"

	"rankd/finalize"
)

// TestStatusReadsNoStandings: once a finalization is done, its status (which "rankd finalize" asks for five
// times a second) says the version without reading the final standings whole, seconds for 10,000 teams; a
// later version is the one it says.
func TestStatusReadsNoStandings(t *testing.T) {
	s, counting, e := MustCountedDone(t)
	for _, want := range []int64{1, 2} {
		if want == 2 {
			MustLateRun(t, e, s) // a new version
			MustReachVersion(t, s, want)
		}
		counting.reads.Store(0)
		got, err := s.Status(context.Background(), "c")
		if err != nil {
			t.Fatal(err)
		}
		if got.State != finalize.Done || got.Version != want {
			t.Errorf("got %s version %d, want %s version %d", got.State, got.Version, finalize.Done, want)
		}
		if n := counting.reads.Load(); n != 0 {
			t.Errorf("status read the final standings %d times, want 0", n)
		}
	}
}

// MustReachVersion waits for a contest's finalization to be done with version want.
func MustReachVersion(tb testing.TB, s *finalize.Service, want int64) {
	tb.Helper()
	var got finalize.Status
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if got, err = s.Status(context.Background(), "c"); err != nil {
			tb.Fatal(err)
		}
		if got.State == finalize.Done && got.Version == want {
			return
		}
	}
	tb.Fatalf("got %+v, want done with version %d", got, want)
}
