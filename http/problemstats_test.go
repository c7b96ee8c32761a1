package http_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The problem statistics of an OI contest count a solve only at full marks (its max_score, or its subtasks'
// sum): a partial score is an attempt, not a solve, and a problem without a known maximum has no solves.
func TestProblemStatsOfScoreContests(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, map[string]any{
		"contest": map[string]any{"id": "c1", "name": "OI", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_type": "score", "rankd": map[string]any{"rules": "oi"}},
		"problems": []any{
			map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0, "max_score": 100},
			map[string]any{"id": "B", "label": "B", "name": "Bananas", "ordinal": 1},
		},
		"teams": []any{map[string]any{"id": "t1", "name": "Alpha"}, map[string]any{"id": "t3", "name": "Charlie"}},
	}, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"WA","score":5,"start_contest_time":"0:31:00"}}`,
		`{"type":"submissions","data":{"id":"s2","team_id":"t3","problem_id":"A","contest_time":"1:00:00"}}`,
		`{"type":"judgements","data":{"id":"j2","submission_id":"s2","judgement_type_id":"AC","score":100,"start_contest_time":"1:01:00"}}`,
		`{"type":"submissions","data":{"id":"s3","team_id":"t1","problem_id":"B","contest_time":"0:40:00"}}`,
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"WA","score":30,"start_contest_time":"0:41:00"}}`,
	}, "\n")+"\n", nil)
	var out struct {
		Problems []struct {
			ID           string
			Solved       int
			Attempts     int
			FirstSolveMS *int64 `json:"first_solve_ms"`
		}
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/problems", "", nil, &out)
	if len(out.Problems) != 2 {
		t.Fatalf("got %d problems, want 2", len(out.Problems))
	}
	a, b := out.Problems[0], out.Problems[1]
	if a.Solved != 1 || a.Attempts != 2 || a.FirstSolveMS == nil || *a.FirstSolveMS != time.Hour.Milliseconds() {
		t.Errorf("A: got %d solved, %d attempts, first solve %v; want 1, 2, at 1:00:00", a.Solved, a.Attempts, a.FirstSolveMS)
	}
	if b.Solved != 0 || b.Attempts != 1 || b.FirstSolveMS != nil {
		t.Errorf("B: got %d solved, %d attempts, first solve %v; want 0, 1, none", b.Solved, b.Attempts, b.FirstSolveMS)
	}
}

// A rejected object is named by its own element (or line) in the answer's message, as in its item number:
// not by its place after the lines the server reads first (the contest's definition and state).
func TestRejectedLineNumbers(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var out struct {
		Results []struct {
			Item    int
			Message string
		}
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`[{"id":"s8","team_id":"t1","problem_id":"A","contest_time":"0:10:00"},{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"nonsense"}]`, &out)
	if len(out.Results) != 2 || out.Results[1].Item != 2 || !strings.HasPrefix(out.Results[1].Message, "item 2:") {
		t.Errorf("got %+v, want item 2 rejected with a message about item 2", out.Results)
	}
}

// A body of two JSON values is refused, not read as its first one: the second (a team to register, a later
// reveal step) would be dropped without a word.
func TestBodiesOfOneValue(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusBadRequest, "PATCH", "/api/v1/contests/c1", adminToken,
		`{"problems":[]} {"teams":[{"id":"t5","name":"Echo"}]}`, nil)
	e.SetNow(contestStart.Add(5*time.Hour + time.Minute))
	e.MustDo(t, http.StatusBadRequest, "POST", "/api/v1/contests/c1/reveal/next", adminToken, `{"step":1} {"step":2}`, nil)
}
