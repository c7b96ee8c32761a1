package http_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// MustCTFContest creates a 5-hour CTF frozen for its last hour (the clock of MustOpen reads 4:30): a linear
// challenge with first-blood bonuses, and solves before and after the freeze.
func (e *env) MustCTFContest(tb testing.TB) {
	tb.Helper()
	c := map[string]any{
		"contest": map[string]any{"id": "c1", "name": "CTF", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_freeze_duration": "1:00:00", "scoreboard_type": "score",
			"rankd": map[string]any{"rules": "ctf", "first_blood": []int{50}}},
		"problems": []any{
			map[string]any{"id": "A", "label": "A", "name": "Lin", "ordinal": 0, "rankd": map[string]any{"value": 500, "minimum": 100, "decay": 100, "function": "linear"}},
			map[string]any{"id": "B", "label": "B", "name": "Static", "ordinal": 1, "rankd": map[string]any{"value": 200}},
		},
		"teams": []any{
			map[string]any{"id": "t1", "name": "Alpha"},
			map[string]any{"id": "t2", "name": "Bravo"},
			map[string]any{"id": "t3", "name": "Charlie"},
		},
	}
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
	feed := strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"0:31:00"}}`,
		`{"type":"submissions","data":{"id":"s2","team_id":"t2","problem_id":"A","contest_time":"1:00:00"}}`,
		`{"type":"judgements","data":{"id":"j2","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:01:00"}}`,
		`{"type":"submissions","data":{"id":"s3","team_id":"t3","problem_id":"A","contest_time":"4:10:00"}}`,
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}}`,
	}, "\n") + "\n"
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, feed, nil)
}

// A CTF board in the browser: dynamic values with the first-blood bonus in the public and jury views, and
// each cell's label (its title, what a screen reader says) reads as a sentence.
func TestBrowserReviewModesCTF(t *testing.T) {
	e := MustOpen(t)
	e.MustCTFContest(t)
	b := MustBrowser(t)
	public := b.Tab(t, e.URL)
	public.Go("/contests/c1")
	// Two public solvers of A: 500-100 = 400, and Alpha's first blood.
	public.WaitRows("1 Alpha 450 [solved first|450|1 try] [||]", "2 Bravo 400 [solved|400|1 try] [||]", "3 Charlie 0 [pending|?|1] [||]")
	jury := b.Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
	jury.Go("/contests/c1?view=jury")
	jury.WaitRows("1 Alpha 350 [solved first differs|350|1 try] [||]", "2 Bravo 300 [solved differs|300|1 try] [||]",
		"3 Charlie 300 [solved differs|300|1 try] [||]")

	labels := `[...document.querySelectorAll(".rows > .row")].map((el) => el.querySelector(".prob").title)`
	got := evalJS[[]string](public, labels)
	want := []string{"A: first to solve for 450 points, 1 try", "A: solved for 400 points, 1 try", "A: pending, 1 pending"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the labels of the public cells of A: got %q, want %q", got, want)
	}
	if got, want := evalJS[string](jury, `document.querySelectorAll(".rows > .row")[2].querySelector(".prob").title`),
		"A: solved for 300 points, 1 try (public: A: pending, 1 pending)"; got != want {
		t.Errorf("the label of a jury cell the public sees pending: got %q, want %q", got, want)
	}
}

// The problem statistics of a CTF contest give each challenge's current value in the view: what its
// solvers hold now, the frozen solve counted by the jury only.
func TestCTFProblemCurrentValue(t *testing.T) {
	e := MustOpen(t)
	e.MustCTFContest(t)
	for _, tt := range []struct {
		query, token string
		want         map[string]int64
	}{
		{"", "", map[string]int64{"A": 400, "B": 200}},
		{"?view=jury", adminToken, map[string]int64{"A": 300, "B": 200}},
	} {
		var out struct {
			Problems []struct {
				ID           string `json:"id"`
				Value        int64  `json:"value"`
				CurrentValue *int64 `json:"current_value"`
			}
		}
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/problems"+tt.query, tt.token, nil, &out)
		for _, p := range out.Problems {
			if p.CurrentValue == nil || *p.CurrentValue != tt.want[p.ID] {
				t.Errorf("%q, problem %s: got current value %v, want %d", tt.query, p.ID, p.CurrentValue, tt.want[p.ID])
			}
		}
	}
}
