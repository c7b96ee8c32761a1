package board_test

import (
	"slices"
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

// A judgement's scores are counted to the millionth, as totals are: a judge's 0.30000000000000004 shows as
// 0.3 in the cell (it showed the float noise everywhere a cell is read), and 0.0000004 points are none: such a
// team tied with those at 0 no longer wins alone.
func TestJudgementScoresRounded(t *testing.T) {
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.IOI, Medals: rankd.Medals{Gold: 1}}, "t1", "t2", "t3"),
		[]rankd.Event{subEv("1", "t1", "b", m(10)), scoreEv("j1", "1", m(10), 0.1+0.2)},
		[]rankd.Event{subEv("2", "t2", "a", m(10)), scoreEv("j2", "2", m(10), 0, 0.1+0.2, 0)},
		[]rankd.Event{subEv("3", "t3", "b", m(10)), scoreEv("j3", "3", m(10), 4e-7)})
	for _, tt := range []struct {
		team, problem string
		want          float64
	}{{"t1", "b", 0.3}, {"t2", "a", 0.3}, {"t3", "b", 0}} {
		if got := cellOf(t, b, rankd.JuryView, tt.team, tt.problem).Score; got != tt.want {
			t.Errorf("%s %s: got score %v, want %v", tt.team, tt.problem, got, tt.want)
		}
	}
	tiny := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.IOI, Medals: rankd.Medals{Gold: 1}}, "t1", "t3"),
		[]rankd.Event{subEv("3", "t3", "b", m(10)), scoreEv("j3", "3", m(10), 4e-7)})
	for _, a := range tiny.Awards(rankd.JuryView) {
		if slices.Contains(a.TeamIDs, "t3") {
			t.Errorf("award %s: got %v, want no award for 0.0000004 points", a.ID, a.TeamIDs)
		}
	}
}
