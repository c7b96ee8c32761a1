package board_test

import (
	"testing"

	"rankd"
)

// Totals that are equal in decimal are equal on the board: 0.1 + 0.2 and 0.3 share a rank (the rules: equal
// totals share a rank), though their float64 sums differ in the last bit. Subtask sums count the same way.
func TestEqualDecimalTotalsShareARank(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules rankd.Rules
		evs   []rankd.Event
	}{
		{"OI, two problems against one", rankd.OI, []rankd.Event{
			subEv("1", "t1", "A", m(10)), scoreEv("j1", "1", m(11), 0.1),
			subEv("2", "t1", "B", m(10)), scoreEv("j2", "2", m(11), 0.2),
			subEv("3", "t2", "A", m(10)), scoreEv("j3", "3", m(11), 0.3),
		}},
		{"IOI, subtasks against a whole score", rankd.IOI, []rankd.Event{
			subEv("1", "t1", "A", m(10)), scoreEv("j1", "1", m(11), 0.3, 0.1, 0.2),
			subEv("3", "t2", "A", m(10)), scoreEv("j3", "3", m(11), 0.3),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup := []rankd.Event{contestEv(rankd.Contest{Rules: tc.rules}), jtEv("AC", true, false), jtEv("WA", false, true)}
			for i, id := range []string{"A", "B"} {
				ev := problemEv(id, i+1)
				if tc.rules == rankd.IOI {
					ev.Problem.Subtasks = []float64{50, 50}
				}
				setup = append(setup, ev)
			}
			setup = append(setup, teamEv("t1", "One"), teamEv("t2", "Two"))
			b := MustBoard(t, setup, tc.evs)
			for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
				got := summary(MustStandings(t, b, v), true)
				if want := "1 t1 0.3\n1 t2 0.3\n"; got != want {
					t.Errorf("%s view: got\n%swant\n%s", v, got, want)
				}
			}
		})
	}
}
