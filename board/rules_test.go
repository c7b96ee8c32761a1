package board_test

import (
	"testing"
	"time"

	"rankd"
)

func scoreSetup(c rankd.Contest, teams ...string) []rankd.Event {
	evs := cat([]rankd.Event{contestEv(c)}, verdicts())
	p := problemEv("a", 0)
	p.Problem.Subtasks = []float64{40, 60}
	evs = append(evs, p, problemEv("b", 1))
	for _, t := range teams {
		evs = append(evs, teamEv(t, "Team "+t))
	}
	return evs
}

func TestOI(t *testing.T) {
	subs := cat(
		[]rankd.Event{subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(10), 60)},
		[]rankd.Event{subEv("2", "t1", "a", m(20)), scoreEv("j2", "2", m(20), 30)},
		[]rankd.Event{subEv("3", "t1", "b", m(30)), scoreEv("j3", "3", m(30), 40)},
		[]rankd.Event{subEv("4", "t2", "a", m(5)), scoreEv("j4", "4", m(5), 100)},
		[]rankd.Event{subEv("5", "t3", "a", m(50)), scoreEv("j5", "5", m(50), 100)},
	)
	for _, tt := range []struct {
		name string
		c    rankd.Contest
		want string
	}{
		{"best", rankd.Contest{Rules: rankd.OI}, "1 t1 100\n1 t2 100\n1 t3 100\n"},
		{"last", rankd.Contest{Rules: rankd.OI, OIMode: rankd.OILast}, "1 t2 100\n1 t3 100\n3 t1 70\n"},
		{"tie by time", rankd.Contest{Rules: rankd.OI, TieByTime: true}, "1 t2 100\n2 t1 100\n3 t3 100\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, scoreSetup(tt.c, "t1", "t2", "t3"), subs)
			if got := summary(MustStandings(t, b, rankd.PublicView), true); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// Under oi_mode last, a cell brought down to 0 changes the total when its submission came, as a cell brought
// down to 10 does: with tie_by_time, the total was reached then.
func TestOILastDownToZeroReachesTheTotalThen(t *testing.T) {
	c := rankd.Contest{Rules: rankd.OI, OIMode: rankd.OILast, TieByTime: true}
	b := MustBoard(t, scoreSetup(c, "t1", "t2"),
		[]rankd.Event{subEv("1", "t1", "b", m(10)), scoreEv("j1", "1", m(10), 50)},
		[]rankd.Event{subEv("2", "t1", "a", m(20)), scoreEv("j2", "2", m(20), 20)},
		[]rankd.Event{subEv("3", "t2", "b", m(10)), scoreEv("j3", "3", m(10), 60)},
		[]rankd.Event{subEv("4", "t2", "b", m(25)), scoreEv("j4", "4", m(25), 50)},
		[]rankd.Event{subEv("5", "t1", "a", m(30)), scoreEv("j5", "5", m(30), 0)},
	)
	if got, want := summary(MustStandings(t, b, rankd.PublicView), true), "1 t2 50\n2 t1 50\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s (t1's total of 50 reached at 0:30, t2's at 0:25)", got, want)
	}
}

func TestOIHiddenUntilEnd(t *testing.T) {
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.OI, HideUntilEnd: true}, "t1", "t2"),
		[]rankd.Event{subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(10), 60)})
	if c := cellOf(t, b, rankd.PublicView, "t1", "a"); c.Score != 0 || c.Pending != 1 {
		t.Fatalf("hidden OI public cell: got %+v, want pending", c)
	}
	if c := cellOf(t, b, rankd.TeamView("t1"), "t1", "a"); c.Score != 60 {
		t.Fatalf("hidden OI own cell: got %+v, want the team's own score", c)
	}
	end := time.Date(2026, 1, 1, 15, 0, 0, 0, time.UTC)
	mustApply(t, b, stateEv(rankd.State{Started: &end, Ended: &end}))
	if c := cellOf(t, b, rankd.PublicView, "t1", "a"); c.Score != 60 {
		t.Fatalf("after the end: got %+v, want the score", c)
	}
}

func TestIOI(t *testing.T) {
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.IOI}, "t1", "t2"),
		[]rankd.Event{subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(10), 40, 40, 0)},
		[]rankd.Event{subEv("2", "t1", "a", m(20)), scoreEv("j2", "2", m(20), 30, 0, 30)},
		[]rankd.Event{subEv("3", "t2", "a", m(30)), scoreEv("j3", "3", m(30), 60, 0, 60)},
	)
	if got, want := summary(MustStandings(t, b, rankd.PublicView), true), "1 t1 70\n2 t2 60\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A rejudge lowering a subtask lowers the total.
	mustApply(t, b, scoreEv("j9", "1", m(60), 20, 20, 0))
	if c := cellOf(t, b, rankd.PublicView, "t1", "a"); c.Score != 50 {
		t.Fatalf("after rejudge: got %v, want 50", c.Score)
	}
}

func ctfSetup(firstBlood []int64, teams ...string) []rankd.Event {
	evs := cat([]rankd.Event{contestEv(rankd.Contest{Rules: rankd.CTF, Duration: 48 * time.Hour, FirstBlood: firstBlood})}, verdicts(), []rankd.Event{
		ctfProblemEv("static", 0, 100, 0, 0, rankd.ValueStatic),
		ctfProblemEv("lin", 1, 500, 100, 100, rankd.ValueLinear),
		ctfProblemEv("log", 2, 500, 100, 10, rankd.ValueLogarithmic),
		ctfProblemEv("dc", 3, 0, 0, 0, rankd.ValueDEFCON),
	})
	for _, t := range teams {
		evs = append(evs, teamEv(t, "Team "+t))
	}
	return evs
}

func TestCTF(t *testing.T) {
	worthless := []rankd.Event{
		ctfProblemEv("zero", 4, 0, 0, 0, rankd.ValueStatic),
		ctfProblemEv("to0", 5, 100, 0, 100, rankd.ValueLinear), // 0 from its second solver on
	}
	for _, tt := range []struct {
		name       string
		firstBlood []int64
		evs        []rankd.Event
		want       string
	}{
		{"static, ties by time reached", nil, cat(submit("1", "t1", "static", m(20), "AC"), submit("2", "t2", "static", m(10), "AC")),
			"1 t2 100\n2 t1 100\n3 t3 0\n"},
		{"linear is retroactive", nil, cat(submit("1", "t1", "lin", m(10), "AC"), submit("2", "t2", "lin", m(20), "AC")),
			"1 t1 400\n2 t2 400\n3 t3 0\n"},
		{"logarithmic", nil, cat(submit("1", "t1", "log", m(10), "AC"), submit("2", "t2", "log", m(20), "AC"), submit("3", "t3", "log", m(30), "AC")),
			"1 t1 484\n2 t2 484\n3 t3 484\n"},
		{"defcon", nil, cat(submit("1", "t1", "dc", m(10), "AC"), submit("2", "t2", "dc", m(20), "AC")),
			"1 t1 460\n2 t2 460\n3 t3 0\n"},
		{"first blood", []int64{50, 20}, cat(submit("1", "t1", "static", m(20), "AC"), submit("2", "t2", "static", m(10), "AC"), submit("3", "t3", "static", m(30), "AC")),
			"1 t2 150\n2 t1 120\n3 t3 100\n"},
		{"first blood moves with an earlier solve arriving late", []int64{50}, cat(submit("1", "t1", "static", m(20), "AC"), submit("2", "t2", "static", m(30), "AC"), submit("3", "t3", "static", m(10), "AC")),
			"1 t3 150\n2 t1 100\n3 t2 100\n"},
		{"wrong flags cost nothing", nil, cat(submit("1", "t1", "static", m(10), "WA"), submit("2", "t1", "static", m(20), "AC"), submit("3", "t2", "static", m(15), "AC")),
			"1 t2 100\n2 t1 100\n3 t3 0\n"},
		{"a solve worth 0 does not move the time the score was reached", nil, cat(worthless, submit("1", "t1", "static", m(10), "AC"), submit("2", "t2", "static", m(20), "AC"), submit("3", "t1", "zero", m(30), "AC")),
			"1 t1 100\n2 t2 100\n3 t3 0\n"},
		{"a solve whose value decayed to 0 does not either", nil, cat(worthless, submit("1", "t1", "static", m(10), "AC"), submit("2", "t2", "static", m(20), "AC"), submit("3", "t1", "to0", m(30), "AC"), submit("4", "t3", "to0", m(40), "AC")),
			"1 t1 100\n2 t2 100\n3 t3 0\n"},
		{"banned solver does not count", nil, cat(submit("1", "t1", "lin", m(10), "AC"), submit("2", "t2", "lin", m(20), "AC"), []rankd.Event{banEv("t2", true)}),
			"1 t1 500\n2 t3 0\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, ctfSetup(tt.firstBlood, "t1", "t2", "t3"), tt.evs)
			if got := summary(MustStandings(t, b, rankd.PublicView), true); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestCTFFrozenSolveMovesNoPublicValue(t *testing.T) {
	c := rankd.Contest{Rules: rankd.CTF, Duration: 10 * time.Hour, FreezeDuration: time.Hour}
	evs := cat([]rankd.Event{contestEv(c)}, verdicts(), []rankd.Event{ctfProblemEv("lin", 0, 500, 100, 100, rankd.ValueLinear), teamEv("t1", "A"), teamEv("t2", "B")},
		submit("1", "t1", "lin", m(60), "AC"))
	b := MustBoard(t, evs)
	seq := b.Seq(rankd.PublicView)
	ch := mustApply(t, b, subEv("2", "t2", "lin", 9*time.Hour+m(30)))
	if b.Seq(rankd.PublicView) != seq+1 || len(ch.Diffs) < 1 {
		t.Fatalf("a frozen submission must show as pending")
	}
	seq = b.Seq(rankd.PublicView)
	mustApply(t, b, judgeEv("j2", "2", "AC", 9*time.Hour+m(31)))
	if b.Seq(rankd.PublicView) != seq {
		t.Fatalf("a frozen solve moved the public view")
	}
	if r, _ := b.Row(rankd.PublicView, "t1"); r.Score != 500 {
		t.Fatalf("public value after a frozen solve: got %v, want 500", r.Score)
	}
	if r, _ := b.Row(rankd.JuryView, "t1"); r.Score != 400 {
		t.Fatalf("jury value after a frozen solve: got %v, want 400", r.Score)
	}
	// The solver sees its own solve valued as the second solve, without learning anything the public does not.
	if r, _ := b.Row(rankd.TeamView("t2"), "t2"); r.Score != 400 || r.Rank != 2 {
		t.Fatalf("own view: got score %v rank %d, want 400 at rank 2 (t1 still shows 500)", r.Score, r.Rank)
	}
}
