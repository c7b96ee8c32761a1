package redis_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/gen"
	"rankd/redis"
)

// The projection, fed as a server feeds it (a rebuild, then the rows each event changed), reads page for
// page as the board it was fed from, in every view and group, under every rules: ties, first-to-solve marks,
// frozen cells, CTF values that move every solver, a ban, a lift of the ban and a team renamed and regrouped
// included.
func TestMatchesBoard(t *testing.T) {
	p, _ := MustOpen(t)
	tests := []struct {
		rules     rankd.Rules
		tieByTime bool // OI and IOI: ordered as CTF is, by score then time, with their own layout
	}{{rankd.ICPC, false}, {rankd.OI, false}, {rankd.OI, true}, {rankd.IOI, false}, {rankd.IOI, true}, {rankd.CTF, false}}
	for _, tt := range tests {
		rules := tt.rules
		name := rules.String()
		if tt.tieByTime {
			name += "-by-time"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := board.New()
			var pos int64
			apply := func(ev rankd.Event) error {
				if ev.Contest != nil {
					c := *ev.Contest
					c.TieByTime = tt.tieByTime
					ev.Contest = &c
				}
				ch, err := b.Apply(&ev)
				if err != nil {
					return err
				}
				pos++
				if pos == 1 {
					return p.Rebuild(ctx, rankd.ProjectionUpdate{ContestID: b.Contest().ID, Pos: pos, Contest: b.Contest()})
				}
				if u, ok := changed(b, pos, ch); ok {
					if applied, err := p.Project(ctx, u); err != nil || !applied {
						t.Fatalf("project at %d: applied %v, %v", pos, applied, err)
					}
				}
				return nil
			}
			cfg := gen.Config{Seed: 7, ContestID: "board-" + name, Rules: rules, Teams: 150, Submissions: 2500, Groups: 3, HiddenTeams: 3}
			err := gen.Generate(cfg, func(ev rankd.Event) error {
				if err := apply(ev); err != nil {
					return err
				}
				switch pos {
				case 1000:
					teams := b.Teams()
					renamed := teams[7]
					renamed.Name, renamed.GroupIDs = "Aaaa", []string{b.Groups()[0].ID, b.Groups()[2].ID}
					if err := apply(rankd.Event{Type: rankd.EventTeam, ID: renamed.ID, Team: &renamed}); err != nil {
						return err
					}
					return apply(rankd.Event{Type: rankd.EventBan, ID: teams[3].ID, Ban: &rankd.Ban{TeamID: teams[3].ID, Banned: true}})
				case 1800:
					id := b.Teams()[3].ID
					return apply(rankd.Event{Type: rankd.EventBan, ID: id, Ban: &rankd.Ban{TeamID: id, Banned: false}})
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			MustMatchBoard(t, p, b)
		})
	}
}

// changed returns the update of the rows that a change of board b, now at pos, touched.
func changed(b *board.Board, pos int64, ch *board.Change) (rankd.ProjectionUpdate, bool) {
	u := rankd.ProjectionUpdate{ContestID: b.Contest().ID, Pos: pos, Contest: b.Contest(), Problems: b.Problems()}
	if ch == nil {
		return u, false
	}
	for _, d := range ch.Diffs {
		if d.View.Kind == rankd.ViewTeam {
			continue
		}
		vu := rankd.ViewUpdate{View: d.View, Seq: d.Seq}
		for _, rc := range d.Rows {
			if r, ok := b.Projected(d.View, rc.TeamID); ok {
				vu.Rows = append(vu.Rows, r)
			} else {
				vu.Removed = append(vu.Removed, rc.TeamID)
			}
		}
		u.Views = append(u.Views, vu)
	}
	return u, len(u.Views) > 0
}

// MustMatchBoard checks every page of the projection of b's contest against b's, in pages that cut through
// ties.
func MustMatchBoard(tb testing.TB, p *redis.Projection, b *board.Board) {
	tb.Helper()
	const limit = 17
	groups := []string{""}
	for _, g := range b.Groups() {
		groups = append(groups, g.ID)
	}
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		for _, g := range groups {
			for offset := 0; ; offset += limit {
				want, err := b.Standings(v, offset, limit)
				if g != "" {
					want, err = b.GroupStandings(v, g, offset, limit)
				}
				if err != nil {
					tb.Fatal(err)
				}
				got := MustStandings(tb, p, rankd.ProjectionQuery{ContestID: b.Contest().ID, View: v, GroupID: g, Offset: offset, Limit: limit})
				if got.Total != want.Total || got.Seq != want.Seq {
					tb.Fatalf("%v, group %q, offset %d: got total %d, seq %d; want %d, %d", v, g, offset, got.Total, got.Seq, want.Total, want.Seq)
				}
				if !reflect.DeepEqual(got.Rows, want.Rows) {
					MustEqualRows(tb, got.Rows, want.Rows)
				}
				if offset+limit >= want.Total {
					break
				}
			}
		}
	}
}

// The projection reads as the board for OI and IOI ordered by score then time, whatever the scores the judges
// give: thirds of a point, and totals that floating point tells apart though they read alike.
func TestMatchesBoardScores(t *testing.T) {
	p, _ := MustOpen(t)
	type judged struct {
		team, problem string
		minute        int
		score         float64
		subtasks      []float64
	}
	tests := []struct {
		name   string
		rules  rankd.Rules
		scores []judged
	}{
		{"oi thirds", rankd.OI, []judged{{"t1", "a", 10, 100.0 / 3, nil}, {"t2", "a", 20, 100.0 / 3, nil}, {"t3", "b", 5, 200.0 / 3, nil}, {"t4", "a", 30, 66.67, nil}}},
		{"oi sums apart", rankd.OI, []judged{{"t1", "a", 10, 0.1, nil}, {"t1", "b", 20, 0.2, nil}, {"t2", "a", 5, 0.3, nil}, {"t3", "b", 1, 0.3, nil}}},
		{"ioi subtasks in thirds", rankd.IOI, []judged{
			{"t1", "a", 10, 0, []float64{100.0 / 3, 0}}, {"t1", "a", 20, 0, []float64{0, 100.0 / 3}},
			{"t2", "a", 15, 0, []float64{100.0 / 3, 100.0 / 3}}, {"t3", "b", 15, 0, []float64{200.0 / 3}},
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c := rankd.Contest{ID: fmt.Sprintf("scores%d", i), Rules: tt.rules, Duration: 5 * time.Hour, TieByTime: true}
			evs := []rankd.Event{
				{Type: rankd.EventContest, ID: c.ID, Contest: &c},
				{Type: rankd.EventJudgementType, ID: "WA", JudgementType: &rankd.JudgementType{ID: "WA", Penalty: true}},
				{Type: rankd.EventProblem, ID: "a", Problem: &rankd.Problem{ID: "a", Ordinal: 0, MaxScore: 100, Subtasks: []float64{50, 50}}},
				{Type: rankd.EventProblem, ID: "b", Problem: &rankd.Problem{ID: "b", Ordinal: 1, MaxScore: 100}},
			}
			for _, team := range []string{"t1", "t2", "t3", "t4"} {
				evs = append(evs, rankd.Event{Type: rankd.EventTeam, ID: team, Team: &rankd.Team{ID: team, Name: "Team " + team}})
			}
			for j, s := range tt.scores {
				id, at := fmt.Sprint(j), time.Duration(s.minute)*time.Minute
				evs = append(evs,
					rankd.Event{Type: rankd.EventSubmission, ID: id, Submission: &rankd.Submission{ID: id, TeamID: s.team, ProblemID: s.problem, Time: at}},
					rankd.Event{Type: rankd.EventJudgement, ID: id, Judgement: &rankd.Judgement{ID: id, SubmissionID: id, TypeID: "WA", StartTime: at, Score: s.score, SubtaskScores: s.subtasks}})
			}
			b := board.New()
			var reached int64
			for j := range evs {
				ch, err := b.Apply(&evs[j])
				if err != nil {
					t.Fatalf("apply %s %s: %v", evs[j].Type, evs[j].ID, err)
				}
				pos := int64(j + 1)
				if pos == 1 {
					if err := p.Rebuild(ctx, rankd.ProjectionUpdate{ContestID: c.ID, Pos: pos, Contest: b.Contest()}); err != nil {
						t.Fatal(err)
					}
					reached = pos
					continue
				}
				if u, ok := changed(b, pos, ch); ok {
					u.After = reached
					MustProject(t, p, u, true)
					reached = pos
				}
			}
			MustMatchBoard(t, p, b)
		})
	}
}
