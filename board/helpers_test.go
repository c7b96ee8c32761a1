package board_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// Event builders: short names keep the rule tables readable.

func contestEv(c rankd.Contest) rankd.Event {
	if c.ID == "" {
		c.ID = "c"
	}
	if c.Duration == 0 {
		c.Duration = 5 * time.Hour
	}
	return rankd.Event{Type: rankd.EventContest, ID: c.ID, Contest: &c}
}

func icpc() rankd.Event {
	return contestEv(rankd.Contest{Rules: rankd.ICPC, FreezeDuration: time.Hour, PenaltyTime: rankd.DefaultPenaltyTime})
}

func jtEv(id string, solved, penalty bool) rankd.Event {
	return rankd.Event{Type: rankd.EventJudgementType, ID: id, JudgementType: &rankd.JudgementType{ID: id, Solved: solved, Penalty: penalty}}
}

// verdicts defines the usual judgement types: AC solves, WA/TLE cost penalty, CE is free.
func verdicts() []rankd.Event {
	return []rankd.Event{jtEv("AC", true, false), jtEv("WA", false, true), jtEv("TLE", false, true), jtEv("CE", false, false)}
}

func problemEv(id string, ordinal int) rankd.Event {
	return rankd.Event{Type: rankd.EventProblem, ID: id, Problem: &rankd.Problem{ID: id, Label: strings.ToUpper(id), Ordinal: ordinal}}
}

func ctfProblemEv(id string, ordinal int, value, minimum, decay int64, f rankd.ValueFunc) rankd.Event {
	ev := problemEv(id, ordinal)
	ev.Problem.Value, ev.Problem.Minimum, ev.Problem.Decay, ev.Problem.Function = value, minimum, decay, f
	return ev
}

func teamEv(id, name string, groups ...string) rankd.Event {
	return rankd.Event{Type: rankd.EventTeam, ID: id, Team: &rankd.Team{ID: id, Name: name, GroupIDs: groups}}
}

func hiddenTeamEv(id, name string) rankd.Event {
	ev := teamEv(id, name)
	ev.Team.Hidden = true
	return ev
}

func banEv(team string, banned bool) rankd.Event {
	return rankd.Event{Type: rankd.EventBan, ID: team, Ban: &rankd.Ban{TeamID: team, Banned: banned}}
}

func subEv(id, team, problem string, at time.Duration) rankd.Event {
	return rankd.Event{Type: rankd.EventSubmission, ID: id, Submission: &rankd.Submission{ID: id, TeamID: team, ProblemID: problem, Time: at}}
}

func judgeEv(id, sub, typ string, start time.Duration) rankd.Event {
	return rankd.Event{Type: rankd.EventJudgement, ID: id, Judgement: &rankd.Judgement{ID: id, SubmissionID: sub, TypeID: typ, StartTime: start}}
}

func judgeDeleteEv(id string) rankd.Event {
	return rankd.Event{Type: rankd.EventJudgement, ID: id, Delete: true}
}

func scoreEv(id, sub string, start time.Duration, score float64, subtasks ...float64) rankd.Event {
	ev := judgeEv(id, sub, "WA", start)
	if score == 100 {
		ev.Judgement.TypeID = "AC"
	}
	ev.Judgement.Score, ev.Judgement.SubtaskScores = score, subtasks
	return ev
}

func stateEv(s rankd.State) rankd.Event {
	return rankd.Event{Type: rankd.EventState, State: &s}
}

// submit is a submission and its judgement one second later, the usual pair.
func submit(id, team, problem string, at time.Duration, verdict string) []rankd.Event {
	return []rankd.Event{subEv(id, team, problem, at), judgeEv("j"+id, id, verdict, at+time.Second)}
}

func m(minutes float64) time.Duration { return time.Duration(minutes * float64(time.Minute)) }

// MustBoard returns a board with the events applied, failing the test on any error.
func MustBoard(tb testing.TB, evs ...[]rankd.Event) *board.Board {
	tb.Helper()
	b := board.New()
	for _, list := range evs {
		for i := range list {
			if _, err := b.Apply(&list[i]); err != nil {
				tb.Fatalf("apply %s %s: %v", list[i].Type, list[i].ID, err)
			}
		}
	}
	return b
}

// MustStandings returns the whole of view v.
func MustStandings(tb testing.TB, b *board.Board, v rankd.View) rankd.Standings {
	tb.Helper()
	st, err := b.Standings(v, 0, -1)
	if err != nil {
		tb.Fatalf("standings %s: %v", v, err)
	}
	return st
}

// summary renders rows as "rank team solved/penalty" (ICPC) or "rank team score" lines, for comparisons
// that read well in failures.
func summary(st rankd.Standings, score bool) string {
	var sb strings.Builder
	for _, r := range st.Rows {
		if score {
			fmt.Fprintf(&sb, "%d %s %g\n", r.Rank, r.TeamID, r.Score)
		} else {
			fmt.Fprintf(&sb, "%d %s %d/%d\n", r.Rank, r.TeamID, r.Solved, r.Penalty)
		}
	}
	return sb.String()
}

func cellOf(tb testing.TB, b *board.Board, v rankd.View, team, problem string) rankd.Cell {
	tb.Helper()
	r, err := b.Row(v, team)
	if err != nil {
		tb.Fatalf("row %s: %v", team, err)
	}
	for _, c := range r.Cells {
		if c.ProblemID == problem {
			return c
		}
	}
	tb.Fatalf("row %s has no cell %s", team, problem)
	return rankd.Cell{}
}

func cat(lists ...[]rankd.Event) []rankd.Event {
	var out []rankd.Event
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
