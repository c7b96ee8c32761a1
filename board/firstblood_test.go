package board_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/score"
)

// bloodSetup is a CTF contest of 5 hours frozen at 4:00, with the bonuses, a static challenge S worth 100 and
// a linear one N (500, minimum 100, 50 less per solve), and the teams, each named as its id in capitals.
func bloodSetup(firstBlood []int64, teams ...string) []rankd.Event {
	c := rankd.Contest{Rules: rankd.CTF, Duration: 5 * time.Hour, FreezeDuration: time.Hour, FirstBlood: firstBlood}
	evs := cat([]rankd.Event{contestEv(c)}, verdicts(), []rankd.Event{
		ctfProblemEv("S", 0, 100, 0, 0, rankd.ValueStatic),
		ctfProblemEv("N", 1, 500, 100, 50, rankd.ValueLinear),
	})
	for _, t := range teams {
		evs = append(evs, teamEv(t, string(rune(t[0]-'a'+'A'))+t[1:]))
	}
	return evs
}

// cellScores returns "team:score" of a challenge's cells in a view, with a "*" for first to solve.
func cellScores(tb testing.TB, b *board.Board, v rankd.View, problem string, teams ...string) []string {
	tb.Helper()
	var out []string
	for _, t := range teams {
		c := cellOf(tb, b, v, t, problem)
		s := t + ":" + strconv.FormatFloat(c.Score, 'g', -1, 64)
		if c.FirstToSolve {
			s += "*"
		}
		out = append(out, s)
	}
	return out
}

func wantScores(tb testing.TB, what string, got []string, want ...string) {
	tb.Helper()
	if !slices.Equal(got, want) {
		tb.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestFirstBloodTiesShareTheBetterBonus: solvers of the same time share the better bonus (1, 1, 3), whatever
// their names; a rename moves no points.
func TestFirstBloodTiesShareTheBetterBonus(t *testing.T) {
	b := MustBoard(t, bloodSetup([]int64{50, 30, 10}, "c1", "c2", "c3", "c4"),
		submit("1", "c1", "S", m(1), "AC"), submit("2", "c2", "S", m(1), "AC"),
		submit("3", "c3", "S", m(2), "AC"), submit("4", "c4", "S", m(3), "AC"))
	want := []string{"c1:150*", "c2:150*", "c3:110", "c4:100"}
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView, rankd.TeamView("c2")} {
		wantScores(t, v.String(), cellScores(t, b, v, "S", "c1", "c2", "c3", "c4"), want...)
	}
	mustApply(t, b, teamEv("c1", "Zulu"))
	wantScores(t, "after renaming c1 Zulu", cellScores(t, b, rankd.JuryView, "S", "c1", "c2", "c3", "c4"), want...)
	compareBoards(t, "replayed", restore(t, b), b, true)
}

// TestFirstBloodWaitsForEarlierPending: a solver gets no bonus while a submission of the challenge earlier
// than its solve is pending in the view, as first to solve waits for it; the verdict of that submission
// releases the bonus, in the diff of the solver's row.
func TestFirstBloodWaitsForEarlierPending(t *testing.T) {
	for _, tt := range []struct {
		verdict string
		want    []string
	}{
		{"WA", []string{"a:0", "b:550*"}},
		{"AC", []string{"a:500*", "b:480"}},
	} {
		t.Run(tt.verdict, func(t *testing.T) {
			b := MustBoard(t, bloodSetup([]int64{50, 30}, "a", "b"),
				[]rankd.Event{subEv("1", "a", "N", m(10))}, submit("2", "b", "N", m(20), "AC"))
			for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView, rankd.TeamView("b")} {
				wantScores(t, v.String()+" while a's earlier submission is pending", cellScores(t, b, v, "N", "a", "b"), "a:0", "b:500")
			}
			seq := b.Seq(rankd.JuryView)
			ch := mustApply(t, b, judgeEv("j1", "1", tt.verdict, m(30)))
			for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView, rankd.TeamView("b")} {
				wantScores(t, v.String()+" after its verdict", cellScores(t, b, v, "N", "a", "b"), tt.want...)
			}
			listed := false
			for _, d := range ch.Diffs {
				if d.View.Kind == rankd.ViewJury {
					listed = d.Seq == seq+1 && slices.ContainsFunc(d.Rows, func(r board.RowChange) bool { return r.TeamID == "b" })
				}
			}
			if !listed {
				t.Errorf("jury diffs %+v: got no diff with seq %d listing b, want one", ch.Diffs, seq+1)
			}
			compareBoards(t, "replayed", restore(t, b), b, true)
		})
	}
}

// TestFirstBloodFrozenAndRevealed: a solve before the freeze keeps its bonus on the frozen public board
// (submissions pending after the freeze are later); a team sees its own frozen solve's bonus only when no
// earlier submission is pending for it; during the reveal, a solve revealed while an earlier one is still
// hidden gets its bonus only once that one is revealed.
func TestFirstBloodFrozenAndRevealed(t *testing.T) {
	b := MustBoard(t, bloodSetup([]int64{50, 30}, "a", "b", "c", "d"),
		submit("1", "c", "S", m(60), "AC"), submit("2", "d", "S", m(245), "WA"),
		submit("3", "a", "N", m(250), "AC"), submit("4", "b", "N", m(270), "AC"))

	wantScores(t, "public S", cellScores(t, b, rankd.PublicView, "S", "c", "d"), "c:150*", "d:0")
	wantScores(t, "public N", cellScores(t, b, rankd.PublicView, "N", "a", "b"), "a:0", "b:0")
	wantScores(t, "jury N", cellScores(t, b, rankd.JuryView, "N", "a", "b"), "a:500*", "b:480")
	// Its own solve counted with the public ones: the first, for a; for b, a's earlier one is pending.
	wantScores(t, "a's own N", cellScores(t, b, rankd.TeamView("a"), "N", "a"), "a:550")
	wantScores(t, "b's own N", cellScores(t, b, rankd.TeamView("b"), "N", "b"), "b:500")

	mustApply(t, b, stateEv(endedState))
	for _, want := range []struct {
		cell board.RevealCell
		n    []string
	}{
		{board.RevealCell{TeamID: "d", ProblemID: "S"}, []string{"a:0", "b:0"}},
		{board.RevealCell{TeamID: "b", ProblemID: "N"}, []string{"a:0", "b:500"}}, // a's 4:10 still hidden
		{board.RevealCell{TeamID: "a", ProblemID: "N"}, []string{"a:500*", "b:480"}},
	} {
		got, _ := MustRevealNext(t, b)
		if got != want.cell {
			t.Fatalf("revealed %+v, want %+v", got, want.cell)
		}
		wantScores(t, "public N after revealing "+got.TeamID+"/"+got.ProblemID, cellScores(t, b, rankd.PublicView, "N", "a", "b"), want.n...)
		wantScores(t, "public S after revealing "+got.TeamID+"/"+got.ProblemID, cellScores(t, b, rankd.PublicView, "S", "c", "d"), "c:150*", "d:0")
		compareBoards(t, "replayed", restore(t, b), b, true)
	}
}

// checkBonuses checks the CTF cells of view v against what the rows show: each solved cell is worth the value
// for the view's solvers plus either nothing or the bonus of its place (one more than the solvers of the
// challenge before it), and a cell with a bonus waits for no earlier submission, so its challenge has its first
// to solve awarded; the first to solve holds the first bonus.
func checkBonuses(f fataler, b *board.Board, v rankd.View) {
	c := b.Contest()
	if c.Rules != rankd.CTF || v.Kind == rankd.ViewTeam {
		return
	}
	rows := mustStandings(f, b, v, "").Rows
	for p, pr := range b.Problems() {
		var times []time.Duration
		awarded := false
		for _, r := range rows {
			if r.Cells[p].Solved {
				times = append(times, r.Cells[p].Time)
			}
			awarded = awarded || r.Cells[p].FirstToSolve
		}
		n := len(times)
		value := map[rankd.ValueFunc]int64{
			rankd.ValueStatic:      pr.Value,
			rankd.ValueLinear:      score.Linear(pr.Value, pr.Minimum, pr.Decay, n),
			rankd.ValueLogarithmic: score.Logarithmic(pr.Value, pr.Minimum, pr.Decay, n),
			rankd.ValueDEFCON:      score.DEFCON(n),
		}[pr.Function]
		for _, r := range rows {
			cell := r.Cells[p]
			if !cell.Solved {
				continue
			}
			place := 0
			for _, at := range times {
				if at < cell.Time {
					place++
				}
			}
			var full int64
			if place < len(c.FirstBlood) {
				full = c.FirstBlood[place]
			}
			bonus := int64(cell.Score) - value
			if (bonus != 0 && bonus != full) || (bonus != 0 && !awarded) || (cell.FirstToSolve && bonus != full) {
				f.Fatalf("%s team %s challenge %s solved at %v (place %d of %d, first to solve %v, awarded %v): got %v, want %d plus 0 or %d",
					v, r.TeamID, pr.ID, cell.Time, place+1, n, cell.FirstToSolve, awarded, cell.Score, value, full)
			}
		}
	}
}
