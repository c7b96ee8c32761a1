package score_test

import (
	"math"
	"testing"

	"rankd/score"
)

func TestValueFormulas(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  int64
		want int64
	}{
		{"linear first solver keeps initial", score.Linear(500, 100, 50, 1), 500},
		{"linear no solver", score.Linear(500, 100, 50, 0), 500},
		{"linear second", score.Linear(500, 100, 50, 2), 450},
		{"linear floored", score.Linear(500, 100, 50, 100), 100},
		{"linear huge decay does not overflow", score.Linear(500, 100, 1<<62, 5), 100},
		{"logarithmic first", score.Logarithmic(500, 100, 10, 1), 500},
		{"logarithmic second rounds up", score.Logarithmic(500, 100, 10, 2), 496},
		{"logarithmic at decay+1", score.Logarithmic(500, 100, 10, 11), 100},
		{"logarithmic beyond floored", score.Logarithmic(500, 100, 10, 50), 100},
		{"logarithmic rounding", score.Logarithmic(1000, 100, 7, 3), 927}, // 1000 - 900/49*4 = 926.53
		{"logarithmic zero decay counts as 1, as in CTFd", score.Logarithmic(500, 100, 0, 3), 100},
		{"logarithmic zero decay first solver", score.Logarithmic(500, 100, 0, 1), 500},
		// Exactly 51: CTFd's order of operations gives 51, (a·x)·x gives 51.00000000000001, rounded up to 52.
		{"logarithmic rounds as CTFd, exact", score.Logarithmic(100, 0, 30, 22), 51},
		// 36 exactly, but CTFd computes 36.00000000000001 and gives 37: the board must agree with CTFd.
		{"logarithmic rounds as CTFd, above", score.Logarithmic(100, 0, 35, 29), 37},
		{"logarithmic rounds as CTFd, at the minimum", score.Logarithmic(100, 0, 3, 4), 0},
		{"defcon 1", score.DEFCON(1), 500},
		{"defcon 0 counts as 1", score.DEFCON(0), 500},
		{"defcon 2", score.DEFCON(2), 460},
		{"defcon 10", score.DEFCON(10), 240},
		{"defcon 100", score.DEFCON(100), 110},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

var open = score.Window{Duration: 300 * 60000, HideFrom: score.Never}

func TestICPC(t *testing.T) {
	for _, tt := range []struct {
		name string
		subs []score.Sub
		w    score.Window
		want score.Result
	}{
		{"empty", nil, open, score.Result{FirstPending: score.Never}},
		{"solved after two tries and a free one", []score.Sub{{Time: 60000, Verdict: score.Rejected}, {Time: 120000, Verdict: score.Free}, {Time: 180000, Verdict: score.Rejected}, {Time: 600000, Verdict: score.Accepted}},
			open, score.Result{Solved: true, Judged: 3, Time: 600000, Penalty: 40, FirstPending: score.Never}},
		{"pending first", []score.Sub{{Time: 60000}, {Time: 120000, Verdict: score.Accepted}},
			open, score.Result{Solved: true, Judged: 1, Pending: 1, Time: 120000, Penalty: 2, FirstPending: 60000}},
		{"frozen verdicts pending", []score.Sub{{Time: 60000, Verdict: score.Rejected}, {Time: 240 * 60000, Verdict: score.Accepted}, {Time: 250 * 60000, Verdict: score.Free}},
			score.Window{Duration: 300 * 60000, HideFrom: 240 * 60000}, score.Result{Judged: 1, Pending: 2, FirstPending: 240 * 60000}},
		{"frozen submission after a solve still shows pending", []score.Sub{{Time: 60000, Verdict: score.Accepted}, {Time: 250 * 60000, Verdict: score.Rejected}, {Time: 300 * 60000}},
			score.Window{Duration: 300 * 60000, HideFrom: 240 * 60000}, score.Result{Solved: true, Judged: 1, Pending: 1, Time: 60000, Penalty: 1, FirstPending: score.Never}},
		{"outside the contest", []score.Sub{{Time: -1, Verdict: score.Accepted}, {Time: 300 * 60000, Verdict: score.Accepted}},
			open, score.Result{FirstPending: score.Never}},
	} {
		if got := score.ICPC(tt.subs, tt.w, 15); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestOI(t *testing.T) {
	subs := []score.Sub{{Time: 1000, Verdict: score.Rejected, Score: 30}, {Time: 2000, Verdict: score.Rejected, Score: 70}, {Time: 3000, Verdict: score.Rejected, Score: 50}, {Time: 4000}}
	if got, want := score.OI(subs, open, false), (score.Result{Solved: true, Judged: 3, Pending: 1, Time: 2000, Score: 70, FirstPending: 4000}); got != want {
		t.Errorf("best: got %+v, want %+v", got, want)
	}
	if got, want := score.OI(subs, open, true), (score.Result{Solved: true, Judged: 3, Pending: 1, Time: 3000, Score: 50, FirstPending: 4000}); got != want {
		t.Errorf("last: got %+v, want %+v", got, want)
	}
	hidden := score.Window{Duration: open.Duration, HideFrom: math.MinInt64}
	if got, want := score.OI(subs, hidden, false), (score.Result{Pending: 4, FirstPending: 1000}); got != want {
		t.Errorf("hidden: got %+v, want %+v", got, want)
	}
}

func TestIOI(t *testing.T) {
	subs := []score.Sub{
		{Time: 1000, Verdict: score.Rejected, Subtasks: []float64{20, 0, 0}},
		{Time: 2000, Verdict: score.Rejected, Subtasks: []float64{0, 30, 0}},
		{Time: 3000, Verdict: score.Rejected, Subtasks: []float64{20, 30}}, // reaches nothing new
		{Time: 4000, Verdict: score.Rejected, Subtasks: []float64{10, 0, 25}},
	}
	best := make([]float64, 3)
	if got, want := score.IOI(subs, open, 3, best), (score.Result{Solved: true, Judged: 4, Time: 4000, Score: 75, FirstPending: score.Never}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, want := score.IOI(subs[:3], open, 3, best), (score.Result{Solved: true, Judged: 3, Time: 2000, Score: 50, FirstPending: score.Never}); got != want {
		t.Errorf("time reached: got %+v, want %+v", got, want)
	}
	// A judge that gives a total only: the submission counts as a whole, beside the others' subtasks.
	whole := []score.Sub{
		{Time: 1000, Verdict: score.Rejected, Subtasks: []float64{20, 0, 0}},
		{Time: 2000, Verdict: score.Rejected, Score: 45},
		{Time: 3000, Verdict: score.Rejected, Subtasks: []float64{0, 30, 0}},
	}
	if got, want := score.IOI(whole[:2], open, 3, best), (score.Result{Solved: true, Judged: 2, Time: 2000, Score: 45, FirstPending: score.Never}); got != want {
		t.Errorf("a total only: got %+v, want %+v", got, want)
	}
	if got, want := score.IOI(whole, open, 3, best), (score.Result{Solved: true, Judged: 3, Time: 3000, Score: 50, FirstPending: score.Never}); got != want {
		t.Errorf("subtasks beyond a total: got %+v, want %+v", got, want)
	}
}

func TestKeys(t *testing.T) {
	less := func(a, b score.Key) bool { return a.Hi < b.Hi || a.Hi == b.Hi && a.Lo < b.Lo }
	for _, tt := range []struct {
		name          string
		better, worse score.Key
	}{
		{"more solved", score.ICPCKey(3, 500, 200), score.ICPCKey(2, 10, 10)},
		{"less penalty", score.ICPCKey(2, 100, 90), score.ICPCKey(2, 101, 50)},
		{"earlier last accepted", score.ICPCKey(2, 100, 50), score.ICPCKey(2, 100, 51)},
		{"higher score", score.ScoreKey(10.5, 900, true), score.ScoreKey(10.25, 1, true)},
		{"earlier reached", score.ScoreKey(10, 1, true), score.ScoreKey(10, 2, true)},
	} {
		if !less(tt.better, tt.worse) || less(tt.worse, tt.better) {
			t.Errorf("%s: %v should order before %v", tt.name, tt.better, tt.worse)
		}
	}
	if score.ScoreKey(10, 1, false) != score.ScoreKey(10, 2, false) {
		t.Errorf("without tie by time equal scores must share a key")
	}
}
