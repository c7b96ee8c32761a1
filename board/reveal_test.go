package board_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"rankd"
	"rankd/board"
)

func revealEv(step int, team, problem string) rankd.Event {
	return rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(step), Reveal: &rankd.Reveal{Step: step, TeamID: team, ProblemID: problem}}
}

// MustRevealNext makes the next reveal step of b and returns the cell it revealed and its public diff.
func MustRevealNext(tb testing.TB, b *board.Board) (board.RevealCell, *board.Diff) {
	tb.Helper()
	step, next, _ := b.Reveal()
	if next == nil {
		tb.Fatalf("reveal step %d: nothing is hidden", step+1)
	}
	ch := mustApply(tb, b, revealEv(step+1, next.TeamID, next.ProblemID))
	for _, d := range copyDiffs(ch) {
		if d.View.Kind == rankd.ViewPublic {
			return *next, &d
		}
	}
	tb.Fatalf("reveal step %d (%+v): no public diff", step+1, *next)
	return board.RevealCell{}, nil
}

// rowsOf returns the rows of a standings page without what differs between views.
func rowsOf(st rankd.Standings) []rankd.Row { return st.Rows }

// TestRevealOrder checks the Resolver's order on hand-built frozen contests: the lowest-ranked team with a
// hidden cell first, its leftmost hidden cell first, the rows moving after each step; and that once nothing is
// hidden the public board is the jury's.
func TestRevealOrder(t *testing.T) {
	end := stateEv(endedState)
	icpcEvs := cat(icpcSetup(), []rankd.Event{teamEv("t1", "Ant"), teamEv("t2", "Bee"), teamEv("t3", "Cat"), teamEv("t4", "Dog")},
		// Before the freeze (4:00): t2 solves a and b, t1 a.
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(20), "AC"), submit("3", "t2", "b", m(30), "AC"),
		// Frozen: t3 solves a and c, t1 solves b, t2 fails c; t4, last, has nothing hidden.
		submit("4", "t1", "b", m(250), "AC"), submit("5", "t3", "c", m(260), "AC"), submit("6", "t3", "a", m(245), "AC"),
		submit("7", "t2", "c", m(270), "WA"), []rankd.Event{end})

	ctf := rankd.Contest{Rules: rankd.CTF, Duration: 10 * time.Hour, FreezeDuration: time.Hour}
	ctfEvs := cat([]rankd.Event{contestEv(ctf)}, verdicts(),
		[]rankd.Event{ctfProblemEv("static", 0, 100, 0, 0, rankd.ValueStatic), ctfProblemEv("lin", 1, 500, 100, 100, rankd.ValueLinear),
			teamEv("t1", "Team t1"), teamEv("t2", "Team t2"), teamEv("t3", "Team t3")},
		submit("1", "t1", "lin", time.Hour, "AC"), submit("2", "t2", "static", 2*time.Hour, "AC"),
		// Frozen (from 9:00): two more solvers of lin, whose value falls for every solver.
		submit("3", "t3", "lin", 9*time.Hour+m(10), "AC"), submit("4", "t2", "lin", 9*time.Hour+m(20), "AC"), []rankd.Event{end})

	oiEvs := cat(scoreSetup(rankd.Contest{Rules: rankd.OI, FreezeDuration: time.Hour}, "t1", "t2", "t3"),
		[]rankd.Event{subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(10), 60), subEv("2", "t2", "b", m(20)), scoreEv("j2", "2", m(20), 50)},
		// Frozen: t3 scores on a and b, t1 on b.
		[]rankd.Event{subEv("3", "t1", "b", m(250)), scoreEv("j3", "3", m(251), 30), subEv("4", "t3", "a", m(260)), scoreEv("j4", "4", m(261), 100)},
		[]rankd.Event{subEv("5", "t3", "b", m(270)), scoreEv("j5", "5", m(271), 20), end})

	for _, tt := range []struct {
		name  string
		score bool
		evs   []rankd.Event
		// before is the public board before the reveal; steps the cells revealed, each with the public board
		// after it.
		before string
		steps  []struct{ cell, board string }
	}{
		{"icpc", false, icpcEvs, "1 t2 2/50\n2 t1 1/10\n3 t3 0/0\n3 t4 0/0\n", []struct{ cell, board string }{
			// t4 is last but has nothing hidden: t3 goes first, with a (left of c).
			{"t3 a", "1 t2 2/50\n2 t1 1/10\n3 t3 1/245\n4 t4 0/0\n"},
			// t3 is still the lowest with a hidden cell; solving c takes it above t1.
			{"t3 c", "1 t2 2/50\n2 t3 2/505\n3 t1 1/10\n4 t4 0/0\n"},
			{"t1 b", "1 t2 2/50\n2 t1 2/260\n3 t3 2/505\n4 t4 0/0\n"},
			// A rejection moves nothing, but is a step all the same.
			{"t2 c", "1 t2 2/50\n2 t1 2/260\n3 t3 2/505\n4 t4 0/0\n"},
		}},
		{"ctf", true, ctfEvs, "1 t1 500\n2 t2 100\n3 t3 0\n", []struct{ cell, board string }{
			{"t3 lin", "1 t1 400\n2 t3 400\n3 t2 100\n"},
			{"t2 lin", "1 t2 400\n2 t1 300\n3 t3 300\n"},
		}},
		{"oi", true, oiEvs, "1 t1 60\n2 t2 50\n3 t3 0\n", []struct{ cell, board string }{
			{"t3 a", "1 t3 100\n2 t1 60\n3 t2 50\n"},
			// t2, now last, has nothing hidden.
			{"t1 b", "1 t3 100\n2 t1 90\n3 t2 50\n"},
			{"t3 b", "1 t3 120\n2 t1 90\n3 t2 50\n"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, tt.evs)
			if got := summary(MustStandings(t, b, rankd.PublicView), tt.score); got != tt.before {
				t.Fatalf("before the reveal: got\n%s\nwant\n%s", got, tt.before)
			}
			for i, want := range tt.steps {
				if b.RevealDone() {
					t.Fatalf("before step %d: the reveal says it is done", i+1)
				}
				step, next, remaining := b.Reveal()
				if step != i || remaining != len(tt.steps)-i {
					t.Fatalf("before step %d: got step %d, %d remaining; want step %d, %d remaining", i+1, step, remaining, i, len(tt.steps)-i)
				}
				if got := next.TeamID + " " + next.ProblemID; got != want.cell {
					t.Fatalf("step %d: next is %s, want %s", i+1, got, want.cell)
				}
				before := publicRows(t, b)
				seq := b.Seq(rankd.PublicView)
				cell, diff := MustRevealNext(t, b)
				if got := cell.TeamID + " " + cell.ProblemID; got != want.cell {
					t.Fatalf("step %d: revealed %s, want %s", i+1, got, want.cell)
				}
				checkPublicDiff(t, fmt.Sprintf("step %d", i+1), b, []board.Diff{*diff}, seq, before)
				if got := summary(MustStandings(t, b, rankd.PublicView), tt.score); got != want.board {
					t.Fatalf("after step %d (%s): got\n%s\nwant\n%s", i+1, want.cell, got, want.board)
				}
				// Its verdicts are the jury's; not its first-to-solve mark and CTF value, which hang on cells
				// still hidden.
				pub, jury := cellOf(t, b, rankd.PublicView, cell.TeamID, cell.ProblemID), cellOf(t, b, rankd.JuryView, cell.TeamID, cell.ProblemID)
				pub.FirstToSolve, jury.FirstToSolve = false, false
				if tt.name == "ctf" {
					pub.Score, jury.Score = 0, 0
				}
				if pub != jury {
					t.Fatalf("step %d: revealed cell %+v, want the jury's %+v", i+1, pub, jury)
				}
			}
			if step, next, remaining := b.Reveal(); step != len(tt.steps) || next != nil || remaining != 0 {
				t.Fatalf("after the last step: got step %d, next %v, %d remaining; want %d, nil, 0", step, next, remaining, len(tt.steps))
			}
			if !b.RevealDone() || !restore(t, b).RevealDone() {
				t.Fatalf("after the last step: the reveal (of the board, %v; restored from its checkpoint, %v) does not say it is done", b.RevealDone(), restore(t, b).RevealDone())
			}
			if pub, jury := rowsOf(MustStandings(t, b, rankd.PublicView)), rowsOf(MustStandings(t, b, rankd.JuryView)); !reflect.DeepEqual(pub, jury) {
				t.Fatalf("after the reveal, the public board\n%+v\ndiffers from the jury's\n%+v", pub, jury)
			}
			if pub, jury := b.FirstToSolve(rankd.PublicView), b.FirstToSolve(rankd.JuryView); !reflect.DeepEqual(pub, jury) {
				t.Fatalf("after the reveal: public first to solve %v, jury %v", pub, jury)
			}
			if err := b.CheckReveal(time.Time{}); rankd.ErrorCode(err) != rankd.ECONFLICT {
				t.Fatalf("with nothing hidden: got %v, want %s", err, rankd.ECONFLICT)
			}
		})
	}
}

// TestRevealFirstToSolve: a frozen solve earns its first-to-solve mark at the step that reveals it, unless a
// cell still hidden holds an earlier submission of the problem.
func TestRevealFirstToSolve(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t3"),
		// t1 has a pre-freeze solve and ranks first; t2 and t3 both solve c during the freeze, t3 earlier.
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "c", m(250), "AC"), submit("3", "t3", "c", m(245), "AC"),
		[]rankd.Event{stateEv(endedState)})
	// t2 and t3 share the last place, t2 listed first (by name): t3 goes first.
	cell, _ := MustRevealNext(t, b)
	if cell.TeamID != "t3" || !cellOf(t, b, rankd.PublicView, "t3", "c").FirstToSolve {
		t.Fatalf("step 1 revealed %+v; t3's c: %+v, want it first to solve", cell, cellOf(t, b, rankd.PublicView, "t3", "c"))
	}
	b = MustBoard(t, icpcSetup("t1", "t2", "t3"),
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "c", m(245), "AC"), submit("3", "t3", "c", m(250), "AC"),
		[]rankd.Event{stateEv(endedState)})
	// Now t2 solved first but is revealed last: t3's solve waits for it.
	MustRevealNext(t, b)
	if c := cellOf(t, b, rankd.PublicView, "t3", "c"); !c.Solved || c.FirstToSolve {
		t.Fatalf("t3's c while t2's earlier submission is hidden: got %+v, want solved, not first", c)
	}
	MustRevealNext(t, b)
	if c3, c2 := cellOf(t, b, rankd.PublicView, "t3", "c"), cellOf(t, b, rankd.PublicView, "t2", "c"); c3.FirstToSolve || !c2.FirstToSolve {
		t.Fatalf("after both steps: t3 %+v, t2 %+v; want t2 first to solve", c3, c2)
	}
}

// A contest whose end has come by the clock, its log not saying so yet, counts as ended for CheckReveal: a
// step records the end first (the jury was told the step was blocked, and the step then went through).
func TestCheckRevealByTheClock(t *testing.T) {
	started := rankd.State{Started: &stateStart}
	b := MustBoard(t, cat(icpcSetup("t1", "t2"), []rankd.Event{stateEv(started)}, submit("1", "t1", "a", m(250), "AC")))
	for _, tt := range []struct {
		now  time.Time
		code string
	}{
		{time.Time{}, rankd.EUNPROCESSABLE},
		{stateEnd.Add(-time.Millisecond), rankd.EUNPROCESSABLE},
		{stateEnd, ""},
		{stateEnd.Add(time.Hour), ""},
	} {
		if got := rankd.ErrorCode(b.CheckReveal(tt.now)); got != tt.code {
			t.Errorf("at %v: got code %q, want %q", tt.now, got, tt.code)
		}
	}
}

// An OI contest hidden until its end has nothing to reveal once its end is recorded (it shows everything): the
// clock's end does not make its next step possible.
func TestCheckRevealHiddenUntilEnd(t *testing.T) {
	started := rankd.State{Started: &stateStart}
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.OI, HideUntilEnd: true}, "t1"),
		[]rankd.Event{stateEv(started), subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(10), 60)})
	if _, next, _ := b.Reveal(); next == nil {
		t.Fatal("nothing hidden before the end: the test tests nothing")
	}
	if err := b.CheckReveal(stateEnd.Add(time.Hour)); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Errorf("after the end by the clock: got %v, want code %s (the recorded end shows everything)", err, rankd.EUNPROCESSABLE)
	}
}

// TestRevealRefused: steps the board refuses, each changing nothing; CheckReveal says the same of the next
// step before the event comes.
func TestRevealRefused(t *testing.T) {
	setup := cat(icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(250), "AC"),
		submit("3", "t2", "b", m(260), "WA"))
	ended := cat(setup, []rankd.Event{stateEv(endedState)})
	for _, tt := range []struct {
		name  string
		evs   []rankd.Event
		ev    rankd.Event
		code  string
		check string // CheckReveal's code before the event
	}{
		{"running contest", setup, revealEv(1, "t2", "a"), rankd.EUNPROCESSABLE, rankd.EUNPROCESSABLE},
		{"before the contest", nil, revealEv(1, "t2", "a"), rankd.EUNPROCESSABLE, rankd.EUNPROCESSABLE},
		{"step 2 before step 1", ended, revealEv(2, "t2", "a"), rankd.ECONFLICT, ""},
		{"another cell than the next", ended, revealEv(1, "t2", "b"), rankd.ECONFLICT, ""},
		{"another team", ended, revealEv(1, "t1", "a"), rankd.ECONFLICT, ""},
		{"an unknown team", ended, revealEv(1, "t9", "a"), rankd.ECONFLICT, ""},
		{"a retry of step 1 naming another cell", cat(ended, []rankd.Event{revealEv(1, "t2", "a")}), revealEv(1, "t2", "b"), rankd.ECONFLICT, ""},
		{"nothing hidden after the thaw", cat(setup, []rankd.Event{stateEv(thawedState)}), revealEv(1, "t2", "a"), rankd.ECONFLICT, rankd.ECONFLICT},
		{"nothing hidden after the last step", cat(ended, []rankd.Event{revealEv(1, "t2", "a"), revealEv(2, "t2", "b")}), revealEv(3, "t1", "a"), rankd.ECONFLICT, rankd.ECONFLICT},
		{"no frozen submission", cat(icpcSetup("t1"), submit("1", "t1", "a", m(10), "AC"), []rankd.Event{stateEv(endedState)}), revealEv(1, "t1", "a"), rankd.ECONFLICT, rankd.ECONFLICT},
		{"a submission of the cell without a verdict", cat(ended, []rankd.Event{subEv("4", "t2", "a", m(245))}), revealEv(1, "t2", "a"), rankd.ECONFLICT, rankd.ECONFLICT},
		{"step 0", ended, revealEv(0, "t2", "a"), rankd.EINVALID, ""},
		{"id not the step", ended, rankd.Event{Type: rankd.EventReveal, ID: "01", Reveal: &rankd.Reveal{Step: 1, TeamID: "t2", ProblemID: "a"}}, rankd.EINVALID, ""},
		{"no cell", ended, revealEv(1, "", ""), rankd.EINVALID, ""},
		{"no object", ended, rankd.Event{Type: rankd.EventReveal, ID: "1"}, rankd.EINVALID, ""},
		{"deleting a step", cat(ended, []rankd.Event{revealEv(1, "t2", "a")}), rankd.Event{Type: rankd.EventReveal, ID: "1", Delete: true}, rankd.EUNPROCESSABLE, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, tt.evs)
			if err := b.CheckReveal(time.Time{}); rankd.ErrorCode(err) != tt.check {
				t.Errorf("CheckReveal: got %v, want code %q", err, tt.check)
			} else if tt.name == "a submission of the cell without a verdict" && !strings.Contains(err.Error(), "Team t2 (team t2), problem A (a)") {
				t.Errorf("CheckReveal: got %v, want it to name the team and the problem as the board shows them", err)
			}
			before, seqsBefore := boardContents(t, b), seqs(b)
			// As a server applies what it is sent: Admit first.
			err := b.Admit(&tt.ev)
			if err == nil {
				var ch *board.Change
				ch, err = b.Apply(&tt.ev)
				if err != nil && len(ch.Diffs) != 0 {
					t.Errorf("refused step: got diffs %+v, want none", ch.Diffs)
				}
			}
			if got := rankd.ErrorCode(err); got != tt.code {
				t.Fatalf("got %v, want an error with code %s", err, tt.code)
			}
			if !reflect.DeepEqual(boardContents(t, b), before) || !reflect.DeepEqual(seqs(b), seqsBefore) {
				t.Errorf("a refused step changed the board")
			}
		})
	}
}

// A log replays the steps it holds, though the rule would now choose another cell (a rankd that listed tied
// rows otherwise made them): a log with reveal steps failed to load after such an upgrade. A server still
// refuses a new step that is not the rule's (Admit).
func TestRevealReplaysStepsOfAnotherRule(t *testing.T) {
	ended := cat(icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(250), "AC"),
		submit("3", "t2", "b", m(260), "WA"), []rankd.Event{stateEv(endedState)})
	b := MustBoard(t, ended)
	other := revealEv(1, "t2", "b") // the rule chooses t2's a first
	if err := b.Admit(&other); rankd.ErrorCode(err) != rankd.ECONFLICT {
		t.Errorf("Admit: got %v, want code %s", err, rankd.ECONFLICT)
	}
	MustApply(t, b, other, revealEv(2, "t2", "a"))
	if step, next, _ := b.Reveal(); step != 2 || next != nil {
		t.Errorf("got step %d, next %v; want 2 steps, nothing left", step, next)
	}
}

// TestRevealIdempotent: a step applied again changes nothing (a retry), and the step after it goes on.
func TestRevealIdempotent(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(250), "AC"), submit("2", "t2", "b", m(260), "AC"),
		[]rankd.Event{stateEv(endedState)})
	first, _ := MustRevealNext(t, b)
	want := seqs(b)
	for range 2 {
		ch := mustApply(t, b, revealEv(1, first.TeamID, first.ProblemID))
		if len(ch.Diffs) != 0 || !reflect.DeepEqual(seqs(b), want) {
			t.Fatalf("step 1 again: got diffs %+v, want none and the same sequence numbers", ch.Diffs)
		}
	}
	if got, ok := b.RevealStep(1); !ok || got != first {
		t.Fatalf("RevealStep(1): got %+v %v, want %+v", got, ok, first)
	}
	if _, ok := b.RevealStep(2); ok {
		t.Fatal("RevealStep(2) before step 2: got a cell")
	}
	MustRevealNext(t, b)
	if step, next, remaining := b.Reveal(); step != 2 || next != nil || remaining != 0 {
		t.Fatalf("got step %d, next %v, %d remaining; want 2, nil, 0", step, next, remaining)
	}
}

// TestRevealThenThaw: a thaw in the middle of the reveal shows everything at once.
func TestRevealThenThaw(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t3"), submit("1", "t1", "a", m(250), "AC"), submit("2", "t2", "b", m(260), "AC"),
		submit("3", "t3", "c", m(270), "WA"), []rankd.Event{stateEv(endedState)})
	MustRevealNext(t, b)
	seq := b.Seq(rankd.PublicView)
	mustApply(t, b, stateEv(thawedState))
	if b.Seq(rankd.PublicView) != seq+1 {
		t.Fatalf("the thaw: public seq %d, want %d", b.Seq(rankd.PublicView), seq+1)
	}
	if pub, jury := rowsOf(MustStandings(t, b, rankd.PublicView)), rowsOf(MustStandings(t, b, rankd.JuryView)); !reflect.DeepEqual(pub, jury) {
		t.Fatalf("after the thaw, the public board\n%+v\ndiffers from the jury's\n%+v", pub, jury)
	}
	if step, next, remaining := b.Reveal(); step != 1 || next != nil || remaining != 0 {
		t.Fatalf("after the thaw: got step %d, next %v, %d remaining; want 1, nil, 0", step, next, remaining)
	}
}

// TestRevealedCellStaysPublic: a rejudge of a revealed cell shows at once, one of a hidden cell does not.
func TestRevealedCellStaysPublic(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(250), "WA"), submit("2", "t2", "a", m(260), "WA"),
		[]rankd.Event{stateEv(endedState)})
	cell, _ := MustRevealNext(t, b)
	other := map[string]string{"t1": "t2", "t2": "t1"}[cell.TeamID]
	subOf := map[string]string{"t1": "1", "t2": "2"}
	seq := b.Seq(rankd.PublicView)
	mustApply(t, b, judgeEv("r"+cell.TeamID, subOf[cell.TeamID], "AC", 6*time.Hour))
	if c := cellOf(t, b, rankd.PublicView, cell.TeamID, "a"); !c.Solved || b.Seq(rankd.PublicView) != seq+1 {
		t.Fatalf("rejudge of the revealed cell: got %+v at seq %d, want solved at %d", c, b.Seq(rankd.PublicView), seq+1)
	}
	if jt, _, _ := b.Verdict(rankd.PublicView, subOf[cell.TeamID]); jt != "AC" {
		t.Fatalf("public verdict of the revealed submission: got %q, want AC", jt)
	}
	mustApply(t, b, judgeEv("r"+other, subOf[other], "AC", 6*time.Hour))
	if c := cellOf(t, b, rankd.PublicView, other, "a"); c.Solved || b.Seq(rankd.PublicView) != seq+1 {
		t.Fatalf("rejudge of the hidden cell: got %+v at seq %d, want pending at %d", c, b.Seq(rankd.PublicView), seq+1)
	}
	if jt, _, _ := b.Verdict(rankd.PublicView, subOf[other]); jt != "" {
		t.Fatalf("public verdict of the hidden submission: got %q, want none", jt)
	}
}

// TestRevealCheckpoint: a board restored in the middle of the reveal equals the original, sequence numbers
// included, and both go on with the same steps and diffs.
func TestRevealCheckpoint(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t3"), submit("1", "t1", "a", m(250), "AC"), submit("2", "t2", "b", m(260), "AC"),
		submit("3", "t3", "c", m(270), "WA"), submit("4", "t3", "a", m(30), "AC"), []rankd.Event{stateEv(endedState)})
	MustRevealNext(t, b)
	r := restore(t, b)
	compareBoards(t, "restored mid-reveal", r, b, true)
	for i := 2; ; i++ {
		_, next, _ := b.Reveal()
		if next == nil {
			break
		}
		ev := revealEv(i, next.TeamID, next.ProblemID)
		want := copyDiffs(mustApply(t, b, ev))
		if got := copyDiffs(mustApply(t, r, ev)); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: restored board's diffs %+v, want %+v", i, got, want)
		}
		compareBoards(t, fmt.Sprintf("after step %d", i), r, b, true)
	}
	compareBoards(t, "restored after the reveal", restore(t, b), b, true)
}

// TestRevealEqualsThaw checks on random frozen contests (with hidden and banned teams, redefinitions and
// refused events) that revealing step by step, each step's public diff naming exactly the rows that changed,
// ends with the public board equal to the thawed one and to the jury's; and that replaying the log, the reveal
// steps included, straight or from a checkpoint taken on the way, gives the same board and the same sequence
// numbers.
func TestRevealEqualsThaw(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, bad: true})
				t.Logf("log:\n%s", logString(g))
				a := newBoard(t, g)
				var log []rankd.Event
				subsOf := map[string][]string{} // submission ids by cell
				for i := range g.entries {
					e := &g.entries[i]
					apply(t, "A", a, e)
					log = append(log, e.ev)
					if s := e.ev.Submission; s != nil && !e.bad {
						subsOf[e.cell] = append(subsOf[e.cell], s.ID)
					}
				}
				applyAll := func(b *board.Board, evs ...rankd.Event) {
					for i := range evs {
						_, _ = b.Apply(&evs[i]) // as A took them: the refused ones refused
					}
				}
				end := stateEv(endedState)
				applyAll(a, end)
				log = append(log, end)

				judged, steps := 0, 0
				for guard := 0; ; guard++ {
					if guard > 1000 {
						t.Fatalf("the reveal does not end")
					}
					step, next, remaining := a.Reveal()
					if step != steps {
						t.Fatalf("got step %d, want %d", step, steps)
					}
					if next == nil {
						if remaining != 0 {
							t.Fatalf("nothing next, but %d cells hidden", remaining)
						}
						break
					}
					if err := a.CheckReveal(time.Time{}); err != nil {
						// A submission of the next cell has no verdict yet: judge them all.
						if rankd.ErrorCode(err) != rankd.ECONFLICT {
							t.Fatalf("next %+v: %v", *next, err)
						}
						for _, id := range subsOf[next.TeamID+"/"+next.ProblemID] {
							judged++
							ev := judgeEv(fmt.Sprintf("final%d", judged), id, pick(t, "final verdict", []string{"AC", "WA", "CE"}), 100*time.Hour+time.Duration(judged)*time.Millisecond)
							ev.Judgement.Score = pick(t, "final score", []float64{0, 50, 100})
							applyAll(a, ev)
							log = append(log, ev)
						}
						// Judged, the cell blocks no more; the next cell may be another now, as judging a
						// submission from before the freeze moves the public board.
						for _, c := range mustRow(t, a, rankd.JuryView, next.TeamID).Cells {
							if c.ProblemID == next.ProblemID && c.Pending != 0 {
								t.Fatalf("next %+v after judging its submissions: %+v", *next, c)
							}
						}
						continue
					}
					ev := revealEv(step+1, next.TeamID, next.ProblemID)
					before := publicRows(t, a)
					seq := a.Seq(rankd.PublicView)
					ch, err := a.Apply(&ev)
					if err != nil {
						t.Fatalf("step %d %+v: %v", step+1, *next, err)
					}
					diffs := copyDiffs(ch)
					checkPublicDiff(t, fmt.Sprintf("step %d %+v", step+1, *next), a, diffs, seq, before)
					checkBonuses(t, a, rankd.PublicView)
					if a.Seq(rankd.PublicView) != seq+1 {
						t.Fatalf("step %d: public seq %d, want %d", step+1, a.Seq(rankd.PublicView), seq+1)
					}
					if _, _, left := a.Reveal(); left != remaining-1 {
						t.Fatalf("step %d: %d cells hidden, want %d", step+1, left, remaining-1)
					}
					steps++
					log = append(log, ev)
				}
				t.Logf("%d steps, %d judgements added", steps, judged)

				if pub, jury := rowsOf(mustStandings(t, a, rankd.PublicView, "")), rowsOf(mustStandings(t, a, rankd.JuryView, "")); !reflect.DeepEqual(pub, jury) {
					t.Fatalf("after the reveal, the public board\n%+v\ndiffers from the jury's\n%+v", pub, jury)
				}
				thawed := newBoard(t, g)
				for _, ev := range log {
					if ev.Type != rankd.EventReveal {
						applyAll(thawed, ev)
					}
				}
				applyAll(thawed, stateEv(thawedState))
				got, want := publicContents(t, a), publicContents(t, thawed)
				for _, c := range []map[string]any{got, want} {
					delete(c, "seq") // the steps took numbers of their own
					for k, v := range c {
						if st, ok := v.(rankd.Standings); ok {
							st.Seq = 0
							c[k] = st
						}
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("revealed step by step\n%+v\nthawed\n%+v", got, want)
				}

				replayed := newBoard(t, g)
				applyAll(replayed, log...)
				compareBoards(t, "replayed", replayed, a, true)

				cut := draw(t, "checkpoint at", 0, len(log))
				straight, restored := newBoard(t, g), newBoard(t, g)
				applyAll(straight, log[:cut]...)
				applyAll(restored, log[:cut]...)
				restored = restore(t, restored)
				for i := cut; i < len(log); i++ {
					chS, errS := straight.Apply(&log[i])
					diffsS := copyDiffs(chS)
					chR, errR := restored.Apply(&log[i])
					if rankd.ErrorCode(errR) != rankd.ErrorCode(errS) {
						t.Fatalf("event %d after a checkpoint at %d: got error %v, want %v", i, cut, errR, errS)
					}
					if diffsR := copyDiffs(chR); !reflect.DeepEqual(diffsR, diffsS) {
						t.Fatalf("event %d after a checkpoint at %d: diffs\n%+v\nwant\n%+v", i, cut, diffsR, diffsS)
					}
				}
				compareBoards(t, fmt.Sprintf("restored at %d of %d", cut, len(log)), restored, a, true)
			})
		})
	}
}

// BenchmarkReveal measures what GET /reveal costs: where the reveal of a board of 10k teams stands, and the
// cell of its next step.
func BenchmarkReveal(b *testing.B) {
	bd, err := benchmarkBoard()
	if err != nil {
		b.Fatal(err)
	}
	if _, next, remaining := bd.Reveal(); next == nil || remaining == 0 {
		b.Fatal("nothing hidden on the benchmark board")
	}
	b.ReportAllocs()
	for b.Loop() {
		bd.Reveal()
	}
}

// A board whose public view hides nothing once the contest ended (no submission after the freeze) is done
// with its reveal though no step was made: as the reveal's last step leaves it. One with a frozen
// submission is not, judged or not, until that cell is revealed; before the end nothing is done.
func TestRevealDoneWithNothingHidden(t *testing.T) {
	base := cat(icpcSetup(), []rankd.Event{teamEv("t1", "Ant"), teamEv("t2", "Bee")},
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "b", m(30), "WA"))
	for _, tt := range []struct {
		name string
		evs  []rankd.Event
		want bool
	}{
		{"running", nil, false},
		{"ended, nothing after the freeze", []rankd.Event{stateEv(endedState)}, true},
		{"ended, a frozen submission", cat([]rankd.Event{subEv("3", "t2", "a", m(250)), stateEv(endedState)}), false},
		{"ended, a frozen submission judged", cat(submit("3", "t2", "a", m(250), "AC"), []rankd.Event{stateEv(endedState)}), false},
		{"ended, a frozen submission of a team banned", cat(submit("3", "t2", "a", m(250), "AC"),
			[]rankd.Event{banEv("t2", true), stateEv(endedState)}), true},
		{"ended, then a frozen submission judged after the end", cat([]rankd.Event{stateEv(endedState)},
			submit("3", "t2", "a", m(250), "AC")), false},
		{"reopened", []rankd.Event{stateEv(endedState), stateEv(rankd.State{Started: &stateStart})}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, base, tt.evs)
			if got := b.RevealDone(); got != tt.want {
				t.Errorf("got done %t, want %t", got, tt.want)
			}
			if got := restore(t, b).RevealDone(); got != tt.want {
				t.Errorf("restored from its checkpoint: got done %t, want %t", got, tt.want)
			}
		})
	}
}
