package ccs

import (
	"time"

	"rankd"
)

// ScoreboardJSON is the Contest API 2023-06 scoreboard object; json.Marshal gives the wire form.
type ScoreboardJSON struct {
	Time        string          `json:"time"`
	ContestTime string          `json:"contest_time"`
	State       StateObject     `json:"state"`
	Rows        []ScoreboardRow `json:"rows"`
}

// ScoreboardRow is one ranked team of a scoreboard.
type ScoreboardRow struct {
	Rank     int                 `json:"rank"`
	TeamID   string              `json:"team_id"`
	Score    ScoreboardScore     `json:"score"`
	Problems []ScoreboardProblem `json:"problems"`
}

// ScoreboardScore is a row's total: NumSolved and TotalTime for pass-fail contests, Score (and Time once it is
// positive) for score contests. Times are whole minutes. The pointers let zero values show while absent
// members stay absent, as the schema tells the two kinds apart by which members are present.
type ScoreboardScore struct {
	NumSolved *int     `json:"num_solved,omitempty"`
	TotalTime *int64   `json:"total_time,omitempty"`
	Score     *float64 `json:"score,omitempty"`
	Time      *int64   `json:"time,omitempty"`
}

// ScoreboardProblem is a team's result on one problem: Solved for pass-fail contests, Score for score
// contests, with Time (whole minutes) once solved or scored. FirstToSolve is not in the 2023-06 schema but is
// what DOMjudge and the ICPC tools send.
type ScoreboardProblem struct {
	ProblemID    string   `json:"problem_id"`
	NumJudged    int      `json:"num_judged"`
	NumPending   int      `json:"num_pending"`
	Solved       *bool    `json:"solved,omitempty"`
	Score        *float64 `json:"score,omitempty"`
	Time         *int64   `json:"time,omitempty"`
	FirstToSolve bool     `json:"first_to_solve,omitempty"`
}

// StateObject is the Contest API state object: absolute times, nil (null) for steps not reached.
type StateObject struct {
	Started      *string `json:"started"`
	Frozen       *string `json:"frozen"`
	Ended        *string `json:"ended"`
	Thawed       *string `json:"thawed"`
	Finalized    *string `json:"finalized"`
	EndOfUpdates *string `json:"end_of_updates"`
}

// AwardObject is the Contest API award object.
type AwardObject struct {
	ID       string   `json:"id"`
	Citation string   `json:"citation"`
	TeamIDs  []string `json:"team_ids"`
}

// Scoreboard returns the 2023-06 scoreboard of a page of standings: a row for every ranked row (Rank ≥ 1),
// with one problem result per problem in the order given. The contest's rules choose pass-fail (ICPC) or
// score (OI, IOI, CTF) members. now is the time of the scoreboard; contest_time is now - the contest's start
// (rankd.StartOf), kept within the contest.
func Scoreboard(c *rankd.Contest, problems []rankd.Problem, st rankd.Standings, state rankd.State, now time.Time) ScoreboardJSON {
	var elapsed time.Duration
	if start := rankd.StartOf(c, state); !start.IsZero() {
		elapsed = max(now.Sub(start), 0)
		if c.Duration > 0 {
			elapsed = min(elapsed, c.Duration)
		}
	}
	sb := ScoreboardJSON{
		Time:        FormatTime(now),
		ContestTime: FormatRelTime(elapsed),
		State:       StateJSON(state),
		Rows:        make([]ScoreboardRow, 0, len(st.Rows)),
	}
	ranked := 0
	for _, row := range st.Rows {
		if row.Rank >= 1 {
			ranked++
		}
	}
	// One allocation per kind of value for the whole board instead of one per pointer: each slab is sized for
	// every value it will hold, so appending never moves it.
	pass := c.Rules == rankd.ICPC
	mins := make([]int64, 0, ranked*(len(problems)+2))
	var ints []int
	var bools []bool
	var scores []float64
	if pass {
		ints = make([]int, 0, ranked)
		bools = make([]bool, 0, ranked*len(problems))
	} else {
		scores = make([]float64, 0, ranked*(len(problems)+1))
	}
	cells := make([]ScoreboardProblem, 0, ranked*len(problems))
	minute := func(d time.Duration) *int64 {
		mins = append(mins, int64(d/time.Minute))
		return &mins[len(mins)-1]
	}
	for _, row := range st.Rows {
		if row.Rank < 1 {
			continue
		}
		out := ScoreboardRow{Rank: row.Rank, TeamID: row.TeamID}
		if pass {
			ints = append(ints, row.Solved)
			mins = append(mins, row.Penalty)
			out.Score = ScoreboardScore{NumSolved: &ints[len(ints)-1], TotalTime: &mins[len(mins)-1]}
		} else {
			scores = append(scores, row.Score)
			out.Score = ScoreboardScore{Score: &scores[len(scores)-1]}
			if row.Score > 0 {
				out.Score.Time = minute(row.Time)
			}
		}
		first := len(cells)
		for i, p := range problems {
			cell := findCell(row.Cells, i, p.ID)
			res := ScoreboardProblem{ProblemID: p.ID, NumJudged: cell.Judged, NumPending: cell.Pending}
			if pass {
				bools = append(bools, cell.Solved)
				res.Solved = &bools[len(bools)-1]
				if cell.Solved {
					res.Time = minute(cell.Time)
					res.FirstToSolve = cell.FirstToSolve
				}
			} else {
				scores = append(scores, cell.Score)
				res.Score = &scores[len(scores)-1]
				if cell.Score > 0 {
					res.Time = minute(cell.Time)
				}
			}
			cells = append(cells, res)
		}
		out.Problems = cells[first:len(cells):len(cells)]
		sb.Rows = append(sb.Rows, out)
	}
	return sb
}

// findCell returns the cell of problem id, looking first at index i (cells normally follow the problem
// order); a row without one gets an empty cell.
func findCell(cells []rankd.Cell, i int, id string) rankd.Cell {
	if i < len(cells) && cells[i].ProblemID == id {
		return cells[i]
	}
	for _, c := range cells {
		if c.ProblemID == id {
			return c
		}
	}
	return rankd.Cell{ProblemID: id}
}

// StateJSON returns the 2023-06 state object of s, every member present and null when unset (the schema
// requires started, ended, finalized and end_of_updates).
func StateJSON(s rankd.State) StateObject {
	at := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		f := FormatTime(*t)
		return &f
	}
	return StateObject{
		Started: at(s.Started), Frozen: at(s.Frozen), Ended: at(s.Ended),
		Thawed: at(s.Thawed), Finalized: at(s.Finalized), EndOfUpdates: at(s.EndOfUpdates),
	}
}

// Awards returns the 2023-06 award objects of awards, in the same order; team_ids is always an array.
func Awards(awards []rankd.Award) []AwardObject {
	out := make([]AwardObject, len(awards))
	for i, a := range awards {
		ids := a.TeamIDs
		if ids == nil {
			ids = []string{}
		}
		out[i] = AwardObject{ID: a.ID, Citation: a.Citation, TeamIDs: ids}
	}
	return out
}
