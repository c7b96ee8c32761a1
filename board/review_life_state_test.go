package board_test

import (
	"testing"
	"time"

	"rankd"
)

// The CCS lets a contest be finalized before it is thawed (the World Finals finalize the results, then
// reveal them at the ceremony): finalized says the results are final, not that the public may see them.
// Until the thaw the public board stays frozen, and the stepwise reveal still has every frozen cell to show.
func TestFinalizedBeforeThawedStaysFrozen(t *testing.T) {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time {
		t := start.Add(d)
		return &t
	}
	b := MustBoard(t, []rankd.Event{icpc()}, verdicts(), []rankd.Event{problemEv("a", 0), teamEv("t1", "Alpha"), teamEv("t2", "Bravo")},
		submit("s1", "t1", "a", m(30), "AC"), submit("s2", "t2", "a", m(250), "AC"))
	for _, tc := range []struct {
		name       string
		state      rankd.State
		wantSolved int // t2's on the public board
		wantHidden int // cells the reveal has left to show
	}{
		{"ended", rankd.State{Started: at(0), Frozen: at(4 * time.Hour), Ended: at(5 * time.Hour)}, 0, 1},
		{"finalized, not thawed", rankd.State{Started: at(0), Frozen: at(4 * time.Hour), Ended: at(5 * time.Hour),
			Finalized: at(6 * time.Hour)}, 0, 1},
		{"finalized, then thawed", rankd.State{Started: at(0), Frozen: at(4 * time.Hour), Ended: at(5 * time.Hour),
			Finalized: at(6 * time.Hour), Thawed: at(7 * time.Hour)}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := stateEv(tc.state)
			if _, err := b.Apply(&ev); err != nil {
				t.Fatal(err)
			}
			if got := cellOf(t, b, rankd.PublicView, "t2", "a"); got.Solved != (tc.wantSolved == 1) {
				t.Errorf("public cell of t2: got solved %t, want %t", got.Solved, tc.wantSolved == 1)
			}
			if _, _, remaining := b.Reveal(); remaining != tc.wantHidden {
				t.Errorf("got %d cells left to reveal, want %d", remaining, tc.wantHidden)
			}
		})
	}
}
