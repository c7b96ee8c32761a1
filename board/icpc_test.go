package board_test

import (
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

func icpcSetup(teams ...string) []rankd.Event {
	evs := cat([]rankd.Event{icpc()}, verdicts(), []rankd.Event{problemEv("a", 0), problemEv("b", 1), problemEv("c", 2)})
	for _, t := range teams {
		evs = append(evs, teamEv(t, "Team "+t))
	}
	return evs
}

func TestICPCCell(t *testing.T) {
	for _, tt := range []struct {
		name string
		evs  []rankd.Event
		want rankd.Cell // ProblemID "a" is implied
	}{
		{"accepted first try", submit("1", "t1", "a", m(25.5), "AC"),
			rankd.Cell{Solved: true, Judged: 1, Time: m(25.5), Penalty: 25}},
		{"minute truncated", submit("1", "t1", "a", m(59)+59999*time.Millisecond, "AC"),
			rankd.Cell{Solved: true, Judged: 1, Time: m(59) + 59999*time.Millisecond, Penalty: 59}},
		{"rejections cost penalty", cat(submit("1", "t1", "a", m(10), "WA"), submit("2", "t1", "a", m(12), "TLE"), submit("3", "t1", "a", m(30), "AC")),
			rankd.Cell{Solved: true, Judged: 3, Time: m(30), Penalty: 70}},
		{"compile error is free and not counted", cat(submit("1", "t1", "a", m(5), "CE"), submit("2", "t1", "a", m(10), "AC")),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"after accepted nothing counts", cat(submit("1", "t1", "a", m(10), "AC"), submit("2", "t1", "a", m(20), "WA")),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"unsolved tries", cat(submit("1", "t1", "a", m(10), "WA"), submit("2", "t1", "a", m(20), "WA")),
			rankd.Cell{Judged: 2}},
		{"no verdict is pending", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("j1", "1", "", m(10))},
			rankd.Cell{Pending: 1}},
		{"before the start ignored", submit("1", "t1", "a", -time.Second, "AC"), rankd.Cell{}},
		{"at the end ignored", submit("1", "t1", "a", 5*time.Hour, "AC"), rankd.Cell{}},
		{"just before the end counts", submit("1", "t1", "a", 5*time.Hour-time.Millisecond, "AC"),
			rankd.Cell{Solved: true, Judged: 1, Time: 5*time.Hour - time.Millisecond, Penalty: 299}},
		{"rejudge to wrong answer", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeEv("j9", "1", "WA", m(60))}),
			rankd.Cell{Judged: 1}},
		{"rejudge to accepted", cat(submit("1", "t1", "a", m(10), "WA"), []rankd.Event{judgeEv("j9", "1", "AC", m(60))}),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"older judgement arriving late is ignored", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("j2", "1", "WA", m(60)), judgeEv("j1", "1", "AC", m(11))},
			rankd.Cell{Judged: 1}},
		{"rejudge without verdict keeps the old verdict", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeEv("j9", "1", "", m(60))}),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		// A later version replaces the earlier one: the judgement no longer gives a verdict (as a feed reader
		// of the same log sees it), so the submission is pending again, or the judgement before counts again.
		{"judgement sent again without its verdict: pending again", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeEv("j1", "1", "", m(10))}),
			rankd.Cell{Pending: 1}},
		{"rejudge sent again without its verdict: the judgement before counts again", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeEv("j9", "1", "WA", m(60)), judgeEv("j9", "1", "", m(60))}),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"verdict taken back, then given again", cat(submit("1", "t1", "a", m(10), "WA"), []rankd.Event{judgeEv("j1", "1", "", m(10)), judgeEv("j1", "1", "AC", m(11))}),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"same start time ordered by id numerically", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("10", "1", "WA", m(11)), judgeEv("9", "1", "AC", m(11))},
			rankd.Cell{Judged: 1}},
		{"pending before accepted", cat([]rankd.Event{subEv("1", "t1", "a", m(10))}, submit("2", "t1", "a", m(20), "AC")),
			rankd.Cell{Solved: true, Judged: 1, Pending: 1, Time: m(20), Penalty: 20, FirstToSolve: false}},
		{"out of order submissions", cat(submit("2", "t1", "a", m(20), "AC"), submit("1", "t1", "a", m(10), "WA")),
			rankd.Cell{Solved: true, Judged: 2, Time: m(20), Penalty: 40}},
		{"deleted judgement: pending again", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeDeleteEv("j1")}),
			rankd.Cell{Pending: 1}},
		{"deleted rejudge: the judgement before counts again", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{judgeEv("j9", "1", "WA", m(60)), judgeDeleteEv("j9")}),
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"deleted older judgement: nothing changes", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("j2", "1", "WA", m(60)), judgeEv("j1", "1", "AC", m(11)), judgeDeleteEv("j1")},
			rankd.Cell{Judged: 1}},
		{"deleted then the older one late: it counts", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("j2", "1", "WA", m(60)), judgeDeleteEv("j2"), judgeEv("j1", "1", "AC", m(11))},
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"unknown judgement deleted: nothing changes", cat(submit("1", "t1", "a", m(10), "WA"), []rankd.Event{judgeDeleteEv("j404")}),
			rankd.Cell{Judged: 1}},
		{"judgement sent again for another submission leaves the first", cat(submit("1", "t1", "a", m(10), "AC"), []rankd.Event{subEv("2", "t1", "a", m(20)), judgeEv("j1", "2", "WA", m(21))}),
			rankd.Cell{Judged: 1, Pending: 1}},
		{"counting judgement moved back to an earlier start", []rankd.Event{subEv("1", "t1", "a", m(10)), judgeEv("j1", "1", "AC", m(11)), judgeEv("j2", "1", "WA", m(60)), judgeEv("j2", "1", "WA", m(5))},
			rankd.Cell{Solved: true, Judged: 1, Time: m(10), Penalty: 10}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, icpcSetup("t1", "t2"), tt.evs)
			got := cellOf(t, b, rankd.JuryView, "t1", "a")
			tt.want.ProblemID = "a"
			tt.want.FirstToSolve = tt.want.Solved && tt.want.Pending == 0 // an earlier pending submission blocks it
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestICPCOrder(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t3", "t4", "t5"),
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t1", "b", m(50), "AC"), // 2 solved, 60
		submit("3", "t2", "a", m(20), "AC"), submit("4", "t2", "b", m(40), "AC"), // 2 solved, 60, last 40: ahead of t1
		submit("5", "t3", "a", m(5), "AC"), // 1 solved, 5
		submit("6", "t4", "c", m(5), "AC"), // 1 solved, 5: same as t3, shares the rank
	)
	want := "1 t2 2/60\n2 t1 2/60\n3 t3 1/5\n3 t4 1/5\n5 t5 0/0\n"
	if got := summary(MustStandings(t, b, rankd.JuryView), false); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEqualRowsListedByName(t *testing.T) {
	b := MustBoard(t, icpcSetup(), []rankd.Event{teamEv("1", "Zebra"), teamEv("2", "Alpha"), teamEv("3", "Mango")})
	want := "1 2 0/0\n1 3 0/0\n1 1 0/0\n"
	if got := summary(MustStandings(t, b, rankd.PublicView), false); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A rename moves the row among its equals.
	b = MustBoard(t, icpcSetup(), []rankd.Event{teamEv("1", "Zebra"), teamEv("2", "Alpha"), teamEv("3", "Mango"), teamEv("2", "Yak")})
	want = "1 3 0/0\n1 2 0/0\n1 1 0/0\n"
	if got := summary(MustStandings(t, b, rankd.PublicView), false); got != want {
		t.Fatalf("after rename got\n%s\nwant\n%s", got, want)
	}
}

func TestHiddenAndBannedUnranked(t *testing.T) {
	evs := cat(icpcSetup("t1", "t2", "t3"), []rankd.Event{hiddenTeamEv("h", "Hidden")},
		submit("1", "h", "a", m(1), "AC"), submit("2", "t2", "a", m(5), "AC"), submit("3", "t3", "a", m(9), "AC"),
		[]rankd.Event{banEv("t2", true)})
	b := MustBoard(t, evs)
	st := MustStandings(t, b, rankd.JuryView)
	if want := "1 t3 1/9\n2 t1 0/0\n"; summary(st, false) != want {
		t.Fatalf("got\n%s\nwant\n%s", summary(st, false), want)
	}
	if st.Total != 2 {
		t.Fatalf("got total %d, want 2", st.Total)
	}
	// First to solve goes to the first ranked team.
	if c := cellOf(t, b, rankd.JuryView, "t3", "a"); !c.FirstToSolve {
		t.Fatalf("t3 not first to solve after the earlier solvers were hidden and banned")
	}
	// Pages stay exact.
	page, err := b.Standings(rankd.JuryView, 1, 1)
	if err != nil || len(page.Rows) != 1 || page.Rows[0].TeamID != "t1" || page.Rows[0].Rank != 2 {
		t.Fatalf("page 2 of 1: got %+v, %v; want t1 at rank 2", page.Rows, err)
	}
	// Unban puts the team back at once, and first to solve moves back.
	if _, err := b.Apply(ptr(banEv("t2", false))); err != nil {
		t.Fatal(err)
	}
	if got, want := summary(MustStandings(t, b, rankd.JuryView), false), "1 t2 1/5\n2 t3 1/9\n3 t1 0/0\n"; got != want {
		t.Fatalf("after unban got\n%s\nwant\n%s", got, want)
	}
	if c := cellOf(t, b, rankd.JuryView, "t3", "a"); c.FirstToSolve {
		t.Fatalf("t3 still first to solve after t2 came back")
	}
	if r, _ := b.Row(rankd.JuryView, "h"); r.Rank != 0 {
		t.Fatalf("hidden team rank %d, want 0", r.Rank)
	}
}

func ptr[T any](v T) *T { return &v }

func TestGroupsRankedSeparately(t *testing.T) {
	evs := cat(icpcSetup(), []rankd.Event{teamEv("u1", "U1", "uni"), teamEv("u2", "U2", "uni"), teamEv("s1", "S1", "school", "all")},
		submit("1", "u1", "a", m(10), "AC"), submit("2", "s1", "a", m(5), "AC"), submit("3", "s1", "b", m(6), "AC"), submit("4", "u2", "a", m(30), "AC"))
	b := MustBoard(t, evs)
	for _, tt := range []struct{ group, want string }{
		{"uni", "1 u1 1/10\n2 u2 1/30\n"},
		{"school", "1 s1 2/11\n"},
		{"all", "1 s1 2/11\n"},
	} {
		st, err := b.GroupStandings(rankd.PublicView, tt.group, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(st, false); got != tt.want {
			t.Errorf("group %s: got\n%s\nwant\n%s", tt.group, got, tt.want)
		}
	}
	if _, err := b.GroupStandings(rankd.PublicView, "nope", 0, -1); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("unknown group: got %v, want not_found", err)
	}
}

func TestFirstToSolve(t *testing.T) {
	for _, tt := range []struct {
		name string
		evs  []rankd.Event
		want map[string]bool // team -> first to solve a
	}{
		{"earliest wins", cat(submit("1", "t1", "a", m(20), "AC"), submit("2", "t2", "a", m(10), "AC")),
			map[string]bool{"t1": false, "t2": true}},
		{"same time shared", cat(submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(10), "AC")),
			map[string]bool{"t1": true, "t2": true}},
		{"earlier pending blocks", cat([]rankd.Event{subEv("1", "t1", "a", m(5))}, submit("2", "t2", "a", m(10), "AC")),
			map[string]bool{"t2": false}},
		{"earlier pending judged wrong unblocks", cat([]rankd.Event{subEv("1", "t1", "a", m(5))}, submit("2", "t2", "a", m(10), "AC"), []rankd.Event{judgeEv("j1", "1", "WA", m(6))}),
			map[string]bool{"t1": false, "t2": true}},
		// The judged submission is not its cell's latest: the cell's earliest pending one is found among the others.
		{"pending at the same time still blocks", cat([]rankd.Event{subEv("1", "t1", "a", m(5)), subEv("3", "t1", "a", m(5))}, submit("2", "t2", "a", m(10), "AC"), []rankd.Event{judgeEv("j1", "1", "WA", m(6))}),
			map[string]bool{"t1": false, "t2": false}},
		{"later pending of the same cell still blocks", cat([]rankd.Event{subEv("1", "t1", "a", m(5)), subEv("3", "t1", "a", m(8))}, submit("2", "t2", "a", m(10), "AC"), []rankd.Event{judgeEv("j1", "1", "WA", m(6))}),
			map[string]bool{"t1": false, "t2": false}},
		{"every earlier pending judged unblocks", cat([]rankd.Event{subEv("1", "t1", "a", m(5)), subEv("3", "t1", "a", m(8)), subEv("4", "t1", "a", m(11))}, submit("2", "t2", "a", m(10), "AC"), []rankd.Event{judgeEv("j1", "1", "WA", m(6)), judgeEv("j3", "3", "CE", m(9))}),
			map[string]bool{"t1": false, "t2": true}},
		{"later pending does not block", cat(submit("2", "t2", "a", m(10), "AC"), []rankd.Event{subEv("1", "t1", "a", m(15))}),
			map[string]bool{"t2": true}},
		{"rejudge moves it", cat(submit("1", "t1", "a", m(5), "AC"), submit("2", "t2", "a", m(10), "AC"), []rankd.Event{judgeEv("j9", "1", "WA", m(60))}),
			map[string]bool{"t1": false, "t2": true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, icpcSetup("t1", "t2"), tt.evs)
			for team, want := range tt.want {
				if got := cellOf(t, b, rankd.JuryView, team, "a").FirstToSolve; got != want {
					t.Errorf("%s first to solve: got %v, want %v", team, got, want)
				}
			}
		})
	}
}

func TestFreeze(t *testing.T) {
	// Freeze at 4:00. t1 solves a before, t2 solves a after; t2 also gets a compile error after.
	b := MustBoard(t, icpcSetup("t1", "t2"),
		submit("1", "t1", "a", m(100), "AC"),
		submit("2", "t2", "a", m(250), "AC"),
		submit("3", "t2", "b", m(260), "CE"),
		submit("4", "t1", "b", m(239), "WA"),
	)
	pub := cellOf(t, b, rankd.PublicView, "t2", "a")
	if pub.Solved || pub.Pending != 1 || pub.Judged != 0 || pub.FirstToSolve {
		t.Fatalf("public frozen cell: got %+v, want 1 pending, nothing else", pub)
	}
	if c := cellOf(t, b, rankd.PublicView, "t2", "b"); c.Pending != 1 {
		t.Fatalf("public frozen compile error: got %+v, want pending", c)
	}
	if c := cellOf(t, b, rankd.PublicView, "t1", "b"); c.Judged != 1 || c.Pending != 0 {
		t.Fatalf("public cell before freeze: got %+v, want judged", c)
	}
	if c := cellOf(t, b, rankd.JuryView, "t2", "a"); !c.Solved || c.Pending != 0 {
		t.Fatalf("jury cell: got %+v, want solved", c)
	}
	if got, want := summary(MustStandings(t, b, rankd.PublicView), false), "1 t1 1/100\n2 t2 0/0\n"; got != want {
		t.Fatalf("public: got\n%s\nwant\n%s", got, want)
	}
	// A team sees its own verdicts, not others'.
	st := MustStandings(t, b, rankd.TeamView("t2"))
	if got, want := summary(st, false), "1 t1 1/100\n2 t2 1/250\n"; got != want {
		t.Fatalf("team view: got\n%s\nwant\n%s", got, want)
	}
	if c := cellOf(t, b, rankd.TeamView("t1"), "t2", "a"); c.Solved || c.Pending != 1 {
		t.Fatalf("t1 sees t2's frozen verdict: %+v", c)
	}
	// A verdict on a frozen submission does not move the public sequence; a new submission does (its count shows).
	pubSeq, jurySeq, t2Seq := b.Seq(rankd.PublicView), b.Seq(rankd.JuryView), b.Seq(rankd.TeamView("t2"))
	ch := mustApply(t, b, judgeEv("j9", "2", "WA", m(270)))
	if b.Seq(rankd.PublicView) != pubSeq || b.Seq(rankd.JuryView) != jurySeq+1 || b.Seq(rankd.TeamView("t2")) != t2Seq+1 {
		t.Fatalf("after a frozen rejudge: seqs public %d→%d jury %d→%d team %d→%d; want public unchanged, jury and team +1",
			pubSeq, b.Seq(rankd.PublicView), jurySeq, b.Seq(rankd.JuryView), t2Seq, b.Seq(rankd.TeamView("t2")))
	}
	for _, d := range ch.Diffs {
		if d.View.Kind == rankd.ViewPublic {
			t.Fatalf("frozen rejudge produced a public diff %+v", d)
		}
	}
	mustApply(t, b, subEv("5", "t1", "c", m(280)))
	if b.Seq(rankd.PublicView) != pubSeq+1 {
		t.Fatalf("a frozen submission did not move the public view")
	}
	// Thaw reveals everything.
	now := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
	mustApply(t, b, stateEv(rankd.State{Started: &now, Ended: &now, Thawed: &now}))
	if got, want := summary(MustStandings(t, b, rankd.PublicView), false), summary(MustStandings(t, b, rankd.JuryView), false); got != want {
		t.Fatalf("thawed public: got\n%s\nwant the jury view\n%s", got, want)
	}
}

func mustApply(tb testing.TB, b *board.Board, ev rankd.Event) *board.Change {
	tb.Helper()
	ch, err := b.Apply(&ev)
	if err != nil {
		tb.Fatalf("apply %s %s: %v", ev.Type, ev.ID, err)
	}
	return ch
}

func TestBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		ev   rankd.Event
		code string
	}{
		{"unknown team", subEv("9", "nobody", "a", m(1)), rankd.EUNPROCESSABLE},
		{"unknown problem", subEv("9", "t1", "zz", m(1)), rankd.EUNPROCESSABLE},
		{"unknown submission", judgeEv("j9", "404", "AC", m(1)), rankd.EUNPROCESSABLE},
		{"unknown judgement type", judgeEv("j9", "1", "XX", m(1)), rankd.EUNPROCESSABLE},
		{"ban of unknown team", banEv("nobody", true), rankd.EUNPROCESSABLE},
		{"submission without id", subEv("", "t1", "a", m(1)), rankd.EINVALID},
		{"contest without duration", rankd.Event{Type: rankd.EventContest, Contest: &rankd.Contest{ID: "c", Duration: -1}}, rankd.EINVALID},
		{"other contest", contestEv(rankd.Contest{ID: "other"}), rankd.ECONFLICT},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, icpcSetup("t1"), []rankd.Event{subEv("1", "t1", "a", m(1))})
			before := summary(MustStandings(t, b, rankd.JuryView), false)
			seq := b.Seq(rankd.JuryView)
			_, err := b.Apply(&tt.ev)
			if got := rankd.ErrorCode(err); got != tt.code {
				t.Fatalf("got code %q (%v), want %q", got, err, tt.code)
			}
			if after := summary(MustStandings(t, b, rankd.JuryView), false); after != before || b.Seq(rankd.JuryView) != seq {
				t.Fatalf("a refused event changed the board")
			}
		})
	}
	// Submissions before a contest exists are refused too.
	if _, err := board.New().Apply(ptr(subEv("1", "t", "a", 0))); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Fatalf("submission before contest: got %v", err)
	}
}

func TestIdempotent(t *testing.T) {
	evs := cat(icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "WA"), submit("2", "t1", "a", m(20), "AC"))
	b := MustBoard(t, evs)
	seqs := [2]uint64{b.Seq(rankd.PublicView), b.Seq(rankd.JuryView)}
	for i := range evs {
		ch, err := b.Apply(&evs[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Diffs) != 0 {
			t.Fatalf("re-applying %s %s changed the board: %+v", evs[i].Type, evs[i].ID, ch.Diffs)
		}
	}
	if got := [2]uint64{b.Seq(rankd.PublicView), b.Seq(rankd.JuryView)}; got != seqs {
		t.Fatalf("sequences moved on duplicates: got %v, want %v", got, seqs)
	}
}

func TestDiffs(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t3"), submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(20), "AC"))
	ch := mustApply(t, b, subEv("3", "t3", "b", m(5)))
	if len(ch.Diffs) != 2 {
		t.Fatalf("a new submission: got %d diffs, want public and jury", len(ch.Diffs))
	}
	ch = mustApply(t, b, judgeEv("j3", "3", "AC", m(6)))
	var jury *board.Diff
	for i := range ch.Diffs {
		if ch.Diffs[i].View.Kind == rankd.ViewJury {
			jury = &ch.Diffs[i]
		}
	}
	if jury == nil || len(jury.Rows) != 1 {
		t.Fatalf("got %+v, want one jury row", ch.Diffs)
	}
	if r := jury.Rows[0]; r.TeamID != "t3" || !r.Moved || jury.Seq != jury.BaseSeq+1 {
		t.Fatalf("got %+v seq %d base %d, want t3 moved", r, jury.Seq, jury.BaseSeq)
	}
	if row, err := b.Row(rankd.JuryView, "t3"); err != nil || row.Rank != 1 {
		t.Fatalf("t3: got rank %d (%v), want 1", row.Rank, err)
	}
}

// A freeze the state records (the CCS's frozen) freezes the public board from then, though the contest gives
// no freeze duration, or a later one: the public board showed every verdict while the state said frozen.
func TestStateFreezes(t *testing.T) {
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	frozen := start.Add(4 * time.Hour)
	for _, freeze := range []time.Duration{0, 30 * time.Minute} {
		b := MustBoard(t, cat([]rankd.Event{contestEv(rankd.Contest{Rules: rankd.ICPC, Start: start, FreezeDuration: freeze,
			PenaltyTime: rankd.DefaultPenaltyTime})}, verdicts(), []rankd.Event{problemEv("a", 0), teamEv("t1", "One"),
			stateEv(rankd.State{Started: &start, Frozen: &frozen})}),
			submit("1", "t1", "a", m(250), "AC"))
		for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
			c := MustStandings(t, b, v).Rows[0].Cells[0]
			if wantSolved := v.Kind == rankd.ViewJury; c.Solved != wantSolved || c.Pending != 1-boolInt(wantSolved) {
				t.Errorf("freeze duration %v, %s view: got %+v, want solved %v", freeze, v, c, wantSolved)
			}
		}
	}
}
