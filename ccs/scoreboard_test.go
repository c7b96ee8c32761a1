package ccs_test

import (
	"encoding/json"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
	"rankd/ccs/ccstest"
)

var sbProblems = []rankd.Problem{{ID: "A", Label: "A"}, {ID: "B", Label: "B"}, {ID: "C", Label: "C"}}

func TestScoreboardICPC(t *testing.T) {
	start := MustTime(t, "2025-03-02T09:30:00.000Z")
	c := &rankd.Contest{ID: "c", Rules: rankd.ICPC, Start: start, Duration: 5 * time.Hour}
	st := rankd.Standings{Rows: []rankd.Row{
		{Rank: 1, TeamID: "t1", Solved: 2, Penalty: 85, Cells: []rankd.Cell{
			{ProblemID: "A", Solved: true, FirstToSolve: true, Judged: 2, Time: 23*time.Minute + 59*time.Second, Penalty: 43},
			{ProblemID: "B", Solved: true, Judged: 1, Time: 42 * time.Minute, Penalty: 42},
			{ProblemID: "C", Judged: 3, Pending: 1},
		}},
		// Cells out of order and one missing: matched by problem id.
		{Rank: 2, TeamID: "t2", Solved: 1, Penalty: 30, Cells: []rankd.Cell{
			{ProblemID: "C", Solved: true, Judged: 1, Time: 30 * time.Minute, Penalty: 30},
			{ProblemID: "A", Judged: 1},
		}},
		{Rank: 2, TeamID: "t3", Solved: 1, Penalty: 30, Cells: []rankd.Cell{{ProblemID: "A", Solved: true, Judged: 1, Time: 30 * time.Minute}}},
		{Rank: 0, TeamID: "hidden", Solved: 3},
	}}
	state := rankd.State{Started: &start}
	sb := ccs.Scoreboard(c, sbProblems, st, state, MustTime(t, "2025-03-02T11:00:30.250+01:00"))
	got, err := json.Marshal(sb)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2025-03-02T11:00:30.250+01:00","contest_time":"0:30:30.250",` +
		`"state":{"started":"2025-03-02T09:30:00.000Z","frozen":null,"ended":null,"thawed":null,"finalized":null,"end_of_updates":null},"rows":[` +
		`{"rank":1,"team_id":"t1","score":{"num_solved":2,"total_time":85},"problems":[` +
		`{"problem_id":"A","num_judged":2,"num_pending":0,"solved":true,"time":23,"first_to_solve":true},` +
		`{"problem_id":"B","num_judged":1,"num_pending":0,"solved":true,"time":42},` +
		`{"problem_id":"C","num_judged":3,"num_pending":1,"solved":false}]},` +
		`{"rank":2,"team_id":"t2","score":{"num_solved":1,"total_time":30},"problems":[` +
		`{"problem_id":"A","num_judged":1,"num_pending":0,"solved":false},` +
		`{"problem_id":"B","num_judged":0,"num_pending":0,"solved":false},` +
		`{"problem_id":"C","num_judged":1,"num_pending":0,"solved":true,"time":30}]},` +
		`{"rank":2,"team_id":"t3","score":{"num_solved":1,"total_time":30},"problems":[` +
		`{"problem_id":"A","num_judged":1,"num_pending":0,"solved":true,"time":30},` +
		`{"problem_id":"B","num_judged":0,"num_pending":0,"solved":false},` +
		`{"problem_id":"C","num_judged":0,"num_pending":0,"solved":false}]}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	ccstest.SchemaValidator(t, "scoreboard.json").Validate(t, got)
}

func TestScoreboardScore(t *testing.T) {
	start := MustTime(t, "2025-03-02T09:30:00.000Z")
	for _, rules := range []rankd.Rules{rankd.OI, rankd.IOI, rankd.CTF} {
		t.Run(rules.String(), func(t *testing.T) {
			c := &rankd.Contest{ID: "c", Rules: rules, Start: start, Duration: 5 * time.Hour}
			st := rankd.Standings{Rows: []rankd.Row{
				{Rank: 1, TeamID: "t1", Solved: 2, Score: 150.5, Time: 61*time.Minute + 59*time.Second, Cells: []rankd.Cell{
					{ProblemID: "A", Solved: true, Judged: 3, Time: 61 * time.Minute, Score: 100},
					{ProblemID: "B", Solved: true, Judged: 1, Time: 10 * time.Minute, Score: 50.5},
					{ProblemID: "C", Judged: 2, Pending: 1},
				}},
				{Rank: 2, TeamID: "t2", Cells: []rankd.Cell{{ProblemID: "A", Judged: 1}, {ProblemID: "B"}, {ProblemID: "C"}}},
			}}
			ended := start.Add(5 * time.Hour)
			sb := ccs.Scoreboard(c, sbProblems, st, rankd.State{Started: &start, Ended: &ended}, start.Add(6*time.Hour))
			got, err := json.Marshal(sb)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"time":"2025-03-02T15:30:00.000Z","contest_time":"5:00:00.000",` +
				`"state":{"started":"2025-03-02T09:30:00.000Z","frozen":null,"ended":"2025-03-02T14:30:00.000Z","thawed":null,"finalized":null,"end_of_updates":null},"rows":[` +
				`{"rank":1,"team_id":"t1","score":{"score":150.5,"time":61},"problems":[` +
				`{"problem_id":"A","num_judged":3,"num_pending":0,"score":100,"time":61},` +
				`{"problem_id":"B","num_judged":1,"num_pending":0,"score":50.5,"time":10},` +
				`{"problem_id":"C","num_judged":2,"num_pending":1,"score":0}]},` +
				`{"rank":2,"team_id":"t2","score":{"score":0},"problems":[` +
				`{"problem_id":"A","num_judged":1,"num_pending":0,"score":0},` +
				`{"problem_id":"B","num_judged":0,"num_pending":0,"score":0},` +
				`{"problem_id":"C","num_judged":0,"num_pending":0,"score":0}]}]}`
			if string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			ccstest.SchemaValidator(t, "scoreboard.json").Validate(t, got)
		})
	}
}

func TestScoreboardContestTime(t *testing.T) {
	start := MustTime(t, "2025-03-02T09:30:00.000Z")
	for _, tc := range []struct {
		name  string
		start time.Time
		now   time.Time
		want  string
	}{
		{"before the start", start, start.Add(-time.Hour), "0:00:00.000"},
		{"running", start, start.Add(2*time.Hour + 1500*time.Microsecond), "2:00:00.001"},
		{"after the end", start, start.Add(9 * time.Hour), "5:00:00.000"},
		{"no start", time.Time{}, start, "0:00:00.000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &rankd.Contest{ID: "c", Start: tc.start, Duration: 5 * time.Hour}
			sb := ccs.Scoreboard(c, nil, rankd.Standings{}, rankd.State{}, tc.now)
			if sb.ContestTime != tc.want {
				t.Errorf("contest_time = %q, want %q", sb.ContestTime, tc.want)
			}
			b, _ := json.Marshal(sb)
			ccstest.SchemaValidator(t, "scoreboard.json").Validate(t, b) // an empty board too: rows is [] not null
		})
	}
}

func TestStateJSON(t *testing.T) {
	v := ccstest.SchemaValidator(t, "state.json")
	empty, _ := json.Marshal(ccs.StateJSON(rankd.State{}))
	if want := `{"started":null,"frozen":null,"ended":null,"thawed":null,"finalized":null,"end_of_updates":null}`; string(empty) != want {
		t.Errorf("got %s, want %s", empty, want)
	}
	v.Validate(t, empty)
	s := rankd.State{
		Started: timePtr(t, "2024-04-18T11:47:59.000+02:00"), Frozen: timePtr(t, "2024-04-18T15:47:59.000+02:00"),
		Ended: timePtr(t, "2024-04-18T16:47:59.000+02:00"), Thawed: timePtr(t, "2024-04-18T19:00:00Z"),
		Finalized: timePtr(t, "2024-04-18T19:10:00.5Z"), EndOfUpdates: timePtr(t, "2024-04-18T19:10:00.5Z"),
	}
	full, _ := json.Marshal(ccs.StateJSON(s))
	want := `{"started":"2024-04-18T11:47:59.000+02:00","frozen":"2024-04-18T15:47:59.000+02:00","ended":"2024-04-18T16:47:59.000+02:00",` +
		`"thawed":"2024-04-18T19:00:00.000Z","finalized":"2024-04-18T19:10:00.500Z","end_of_updates":"2024-04-18T19:10:00.500Z"}`
	if string(full) != want {
		t.Errorf("got  %s\nwant %s", full, want)
	}
	v.Validate(t, full)
}

func TestAwards(t *testing.T) {
	v := ccstest.SchemaValidator(t, "award.json")
	awards := ccs.Awards([]rankd.Award{
		{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"41"}},
		{ID: "first-to-solve-C-ads-18-NYQQDO", Citation: "First to solve problem C", TeamIDs: []string{"2", "3"}},
		{ID: "gold-medal", Citation: "Gold medal"},
	})
	got, _ := json.Marshal(awards)
	want := `[{"id":"winner","citation":"Contest winner","team_ids":["41"]},` +
		`{"id":"first-to-solve-C-ads-18-NYQQDO","citation":"First to solve problem C","team_ids":["2","3"]},` +
		`{"id":"gold-medal","citation":"Gold medal","team_ids":[]}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, a := range awards {
		b, _ := json.Marshal(a)
		v.Validate(t, b)
	}
	if b, _ := json.Marshal(ccs.Awards(nil)); string(b) != "[]" {
		t.Errorf("no awards: got %s, want []", b)
	}
}
