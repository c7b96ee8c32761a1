package board_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// TestScoreAboveMaximumRefused: a judgement scoring more than its problem allows (max_score, the subtasks'
// number, maximums and sum) is refused as unprocessable, naming the limit, and changes nothing; one within
// the limits, or on a problem without a known maximum, counts. A log stored before the rule still replays.
func TestScoreAboveMaximumRefused(t *testing.T) {
	setup := func(rules rankd.Rules) []rankd.Event {
		oi := problemEv("oi", 0)
		oi.Problem.MaxScore = 100
		ioi := problemEv("ioi", 1)
		ioi.Problem.Subtasks = []float64{20, 30, 50}
		thirds := problemEv("thirds", 2)
		thirds.Problem.Subtasks = []float64{33.333333, 33.333333, 33.333334}
		evs := cat(scoreSetup(rankd.Contest{Rules: rules}, "t1"), []rankd.Event{oi, ioi, thirds, problemEv("free", 3)})
		for _, p := range []string{"oi", "ioi", "thirds", "free"} {
			evs = append(evs, subEv(p, "t1", p, m(10)))
		}
		return evs
	}
	for _, tt := range []struct {
		name  string
		rules rankd.Rules
		ev    rankd.Event
		limit string // in the message of the refusal; "" for none
		score float64
	}{
		{"OI score above max_score", rankd.OI, scoreEv("j", "oi", m(11), 150), "maximum score 100", 0},
		{"OI score at max_score", rankd.OI, scoreEv("j", "oi", m(11), 100), "", 100},
		{"OI score without a known maximum", rankd.OI, scoreEv("j", "free", m(11), 150), "", 150},
		{"IOI subtask above its maximum", rankd.IOI, scoreEv("j", "ioi", m(11), 0, 25, 30, 50), "subtask 1 above its maximum 20", 0},
		{"IOI more subtask scores than subtasks", rankd.IOI, scoreEv("j", "ioi", m(11), 0, 20, 30, 50, 10), "4 subtask scores, but problem ioi has 3 subtasks", 0},
		{"IOI whole score above the subtasks' sum", rankd.IOI, scoreEv("j", "ioi", m(11), 105), "maximum score 100", 0},
		{"IOI full marks", rankd.IOI, scoreEv("j", "ioi", m(11), 0, 20, 30, 50), "", 100},
		{"IOI fewer subtask scores", rankd.IOI, scoreEv("j", "ioi", m(11), 0, 20), "", 20},
		{"IOI full marks of subtasks summing to 99.99999999999999", rankd.IOI, scoreEv("j", "thirds", m(11), 100), "", 100},
		{"IOI score without a known maximum", rankd.IOI, scoreEv("j", "free", m(11), 150), "", 150},
		// A type that neither solves nor counts as a try is a compile error: its score would not count.
		{"OI score of a free type", rankd.OI, typed(scoreEv("j", "oi", m(11), 40), "CE"), "neither solves nor counts as a try", 0},
		{"IOI subtask scores of a free type", rankd.IOI, typed(scoreEv("j", "ioi", m(11), 0, 20), "CE"), "neither solves nor counts as a try", 0},
		{"OI free type scoring nothing", rankd.OI, typed(scoreEv("j", "oi", m(11), 0), "CE"), "", 0},
		// What counts is the subtasks' sum: a whole score saying otherwise was listed as the submission's.
		{"IOI score other than its subtasks' sum", rankd.IOI, scoreEv("j", "ioi", m(11), 100, 20), "not the sum 20 of its subtask scores", 0},
		{"IOI score the sum of its subtasks", rankd.IOI, scoreEv("j", "ioi", m(11), 50, 20, 30), "", 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, setup(tt.rules))
			seq := b.Seq(rankd.JuryView)
			err := admitApply(b, &tt.ev)
			problem := tt.ev.Judgement.SubmissionID
			if tt.limit != "" {
				if _, err := MustBoard(t, setup(tt.rules)).Apply(&tt.ev); err != nil {
					t.Errorf("replayed from a log stored before: got error %v, want it applied", err)
				}
				if rankd.ErrorCode(err) != rankd.EUNPROCESSABLE || !strings.Contains(err.Error(), tt.limit) {
					t.Fatalf("got error %v, want %s naming %q", err, rankd.EUNPROCESSABLE, tt.limit)
				}
				if got := b.Seq(rankd.JuryView); got != seq {
					t.Errorf("jury sequence after a refusal: got %d, want %d", got, seq)
				}
			} else if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if c := cellOf(t, b, rankd.JuryView, "t1", problem); c.Score != tt.score {
				t.Errorf("cell %s: got score %v, want %v", problem, c.Score, tt.score)
			}
		})
	}
}

// TestDEFCONBoundsFixed: the DEF CON formula fixes its bounds, so a value or minimum other than its own is
// refused rather than silently ignored; its own, or none, are taken.
func TestDEFCONBoundsFixed(t *testing.T) {
	for _, tt := range []struct {
		name           string
		value, minimum int64
		refused        bool
	}{
		{"none", 0, 0, false},
		{"the formula's own", 500, 100, false},
		{"the formula's initial value alone", 500, 0, false},
		{"another value", 1000, 0, true},
		{"another minimum", 500, 50, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := MustBoard(t, ctfSetup(nil))
			ev := ctfProblemEv("d", 9, tt.value, tt.minimum, 0, rankd.ValueDEFCON)
			err := admitApply(b, &ev)
			if _, err := MustBoard(t, ctfSetup(nil)).Apply(&ev); err != nil {
				t.Errorf("replayed from a log stored before: got error %v, want it applied", err)
			}
			switch {
			case tt.refused && (rankd.ErrorCode(err) != rankd.EINVALID || !strings.Contains(err.Error(), "fixed (100 to 500)")):
				t.Fatalf("got error %v, want %s saying the bounds are fixed (100 to 500)", err, rankd.EINVALID)
			case !tt.refused && err != nil:
				t.Fatalf("got error %v, want none", err)
			}
			if got := len(b.Problems()); got != 4+boolInt(!tt.refused) {
				t.Errorf("got %d problems, want %d", got, 4+boolInt(!tt.refused))
			}
		})
	}
}

// A bad CTF value is refused naming its field and value.
func TestCTFValueRefusals(t *testing.T) {
	for _, tt := range []struct {
		ev   rankd.Event
		want string
	}{
		{ctfProblemEv("d", 9, -5, 0, 0, rankd.ValueStatic), "value -5: must not be negative"},
		{ctfProblemEv("d", 9, 500, -1, 10, rankd.ValueLinear), "minimum -1: must not be negative"},
		{ctfProblemEv("d", 9, 500, 100, -4, rankd.ValueLogarithmic), "decay -4: must not be negative"},
		{ctfProblemEv("d", 9, 100, 200, 10, rankd.ValueLinear), "minimum 200 above the initial value 100"},
	} {
		_, err := MustBoard(t, ctfSetup(nil)).Apply(&tt.ev)
		if rankd.ErrorCode(err) != rankd.EINVALID || !strings.Contains(err.Error(), "problem d: "+tt.want) {
			t.Errorf("got error %v, want %s saying %q", err, rankd.EINVALID, tt.want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestProblemValue: a challenge's value in a view is what its solvers hold there, before bonuses: the public
// view does not count a frozen solve, the jury's does, a team view reads the public value.
func TestProblemValue(t *testing.T) {
	b := MustBoard(t, bloodSetup([]int64{50}, "a", "b", "c"), submit("1", "a", "N", m(10), "AC"), submit("2", "b", "N", m(250), "AC"))
	for _, tt := range []struct {
		view    rankd.View
		problem string
		want    int64
		code    string
	}{
		{rankd.JuryView, "N", 450, ""},
		{rankd.PublicView, "N", 500, ""},
		{rankd.TeamView("b"), "N", 500, ""},
		{rankd.JuryView, "S", 100, ""},
		{rankd.JuryView, "nope", 0, rankd.ENOTFOUND},
	} {
		got, err := b.ProblemValue(tt.view, tt.problem)
		if got != tt.want || rankd.ErrorCode(err) != tt.code {
			t.Errorf("%s %s: got %d, %v; want %d, code %q", tt.view, tt.problem, got, err, tt.want, tt.code)
		}
	}
	icpcBoard := MustBoard(t, icpcSetup("t1"))
	if _, err := icpcBoard.ProblemValue(rankd.JuryView, "a"); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Errorf("ICPC problem: got %v, want %s", err, rankd.EUNPROCESSABLE)
	}
}

// admitApply applies ev as a server applies an event it is sent: if Admit takes it.
func admitApply(b *board.Board, ev *rankd.Event) error {
	if err := b.Admit(ev); err != nil {
		return err
	}
	_, err := b.Apply(ev)
	return err
}

// A server refuses a new team, problem, group, organization or judgement type whose id is not a CCS
// identifier (the API's addresses, query parameters and ETags name them as they are); one the board holds
// already, from a log stored before the rule, may be sent again.
func TestAdmitIDs(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "odd id"))
	for _, tt := range []struct {
		ev   rankd.Event
		code string
	}{
		{teamEv("t2", "Two"), ""},
		{teamEv("A_b-1.c", "Dots"), ""},
		{teamEv("odd id", "Known already"), ""},
		{teamEv("..", "Dots"), rankd.EINVALID},
		{teamEv(".t", "Dot"), rankd.EINVALID},
		{teamEv("-t", "Dash"), rankd.EINVALID},
		{teamEv("t.", "Dot"), rankd.EINVALID},
		{teamEv("a,b", "Comma"), rankd.EINVALID},
		{teamEv("a b", "Space"), rankd.EINVALID},
		{teamEv("é", "Accent"), rankd.EINVALID},
		{teamEv("", "Empty"), rankd.EINVALID},
		{teamEv(strings.Repeat("x", 36), "Long"), ""},
		{teamEv(strings.Repeat("x", 37), "Too long"), rankd.EINVALID},
		{problemEv("p/1", 5), rankd.EINVALID},
		{problemEv("p1", 5), ""},
		{rankd.Event{Type: rankd.EventGroup, ID: "g?", Group: &rankd.Group{ID: "g?", Name: "G"}}, rankd.EINVALID},
		{rankd.Event{Type: rankd.EventOrganization, ID: "o#1", Organization: &rankd.Organization{ID: "o#1", Name: "O"}}, rankd.EINVALID},
		{rankd.Event{Type: rankd.EventJudgementType, ID: "W A", JudgementType: &rankd.JudgementType{ID: "W A", Penalty: true}}, rankd.EINVALID},
	} {
		err := b.Admit(&tt.ev)
		if rankd.ErrorCode(err) != tt.code {
			t.Errorf("%s %q: got %v, want code %q", tt.ev.Type, tt.ev.ID, err, tt.code)
		}
	}
}

// typed returns judgement ev with judgement type typ.
func typed(ev rankd.Event, typ string) rankd.Event {
	ev.Judgement.TypeID = typ
	return ev
}

// A problem's maximums are refused when negative, and a max_score other than the sum of its subtasks' (a
// judgement within the subtasks showed 100 on a 50-point problem).
func TestAdmitProblemScores(t *testing.T) {
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.IOI}, "t1"))
	problem := func(max float64, subtasks ...float64) rankd.Event {
		ev := problemEv("z", 5)
		ev.Problem.MaxScore, ev.Problem.Subtasks = max, subtasks
		return ev
	}
	for _, tt := range []struct {
		ev      rankd.Event
		message string // in the refusal; "" for none
	}{
		{problem(100, 40, 60), ""},
		{problem(0, 40, 60), ""},
		{problem(100), ""},
		{problem(100, 33.333333, 33.333333, 33.333334), ""},
		{problem(-10), "max_score -10: want 0 or more"},
		{problem(0, -5, 10), "subtask 1 has the maximum -5"},
		{problem(50, 40, 60), "max_score 50 is not the sum 100"},
	} {
		err := b.Admit(&tt.ev)
		if tt.message == "" && err != nil || tt.message != "" && (rankd.ErrorCode(err) != rankd.EINVALID || !strings.Contains(err.Error(), tt.message)) {
			t.Errorf("max_score %g, subtasks %v: got %v, want %q", tt.ev.Problem.MaxScore, tt.ev.Problem.Subtasks, err, tt.message)
		}
	}
}

// CTF values and first-blood bonuses are bounded: a value of 2^63-1 overflowed into negative totals.
func TestAdmitCTFPoints(t *testing.T) {
	b := MustBoard(t, ctfSetup(nil, "t1"))
	contest := func(bonus ...int64) rankd.Event {
		return rankd.Event{Type: rankd.EventContest, ID: "c", Contest: &rankd.Contest{ID: "c", Rules: rankd.CTF,
			Duration: 5 * time.Hour, FirstBlood: bonus}}
	}
	for _, tt := range []struct {
		ev   rankd.Event
		code string
	}{
		{ctfProblemEv("big", 9, board.MaxPoints, 0, 0, rankd.ValueStatic), ""},
		{ctfProblemEv("huge", 9, board.MaxPoints+1, 0, 0, rankd.ValueStatic), rankd.EINVALID},
		{ctfProblemEv("huge", 9, math.MaxInt64, 1, 1, rankd.ValueLinear), rankd.EINVALID},
		{contest(board.MaxPoints, 5), ""},
		{contest(math.MaxInt64, 5), rankd.EINVALID},
	} {
		if err := b.Admit(&tt.ev); rankd.ErrorCode(err) != tt.code {
			t.Errorf("%s %s: got %v, want code %q", tt.ev.Type, tt.ev.ID, err, tt.code)
		}
	}
}

// A problem sent again with another test data count (a contest system's test data changed) keeps the count,
// and moves nothing: no row shows it, and every row's diff for it went to every follower of a big board.
func TestProblemTestDataCountMovesNothing(t *testing.T) {
	b := MustBoard(t, scoreSetup(rankd.Contest{Rules: rankd.ICPC}, "t1", "t2"))
	jury, public := b.Seq(rankd.JuryView), b.Seq(rankd.PublicView)
	ev := problemEv("b", 1)
	ev.Problem.TestDataCount = 41
	if ch := mustApply(t, b, ev); len(ch.Diffs) != 0 {
		t.Errorf("got diffs %+v, want none", ch.Diffs)
	}
	if b.Seq(rankd.JuryView) != jury || b.Seq(rankd.PublicView) != public {
		t.Errorf("sequence numbers: got %d and %d, want %d and %d as before", b.Seq(rankd.JuryView), b.Seq(rankd.PublicView), jury, public)
	}
	if got := b.Problems()[1]; got.ID != "b" || got.TestDataCount != 41 {
		t.Errorf("got problem %+v, want b with 41 test data sets", got)
	}
}
