package board_test

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"rankd"
	"rankd/board"
	"rankd/score"
)

// Properties the tests of property_test.go leave open: the team views and the CTF values against models, and
// changes of the configuration (rules, judgement types, problems, groups, submissions sent again) in the middle
// of a log.

// TestTeamViewsMatchModel checks every team view against a model: the public rows, with the team's own row (as
// Row gives it) in their stead, ordered by the rules and then by name and id, ranks shared by equal rows.
func TestTeamViewsMatchModel(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, states: true, rejudges: true})
				b := appliedBoard(t, g)
				checkTeamViews(t, &g.contest, b)
			})
		})
	}
}

// rowCmp orders two rows as the rules of c do, equal rows apart.
func rowCmp(c *rankd.Contest, x, y *rankd.Row) int {
	if c.Rules == rankd.ICPC {
		return cmp.Or(cmp.Compare(y.Solved, x.Solved), cmp.Compare(x.Penalty, y.Penalty),
			cmp.Compare(x.Time/time.Minute, y.Time/time.Minute))
	}
	if r := cmp.Compare(y.Score, x.Score); r != 0 || x.Score == 0 || (c.Rules != rankd.CTF && !c.TieByTime) {
		return r
	}
	return cmp.Compare(x.Time, y.Time)
}

func checkTeamViews(t *rapid.T, c *rankd.Contest, b *board.Board) {
	public := mustStandings(t, b, rankd.PublicView, "")
	names := map[string]string{}
	for _, tm := range b.Teams() {
		names[tm.ID] = tm.Name
	}
	for _, tm := range b.Teams() {
		v := rankd.TeamView(tm.ID)
		own := mustRow(t, b, v, tm.ID)
		var want []rankd.Row
		for _, r := range public.Rows {
			if r.TeamID == tm.ID {
				r = own
			}
			want = append(want, r)
		}
		slices.SortStableFunc(want, func(x, y rankd.Row) int {
			return cmp.Or(rowCmp(c, &x, &y), cmp.Compare(names[x.TeamID], names[y.TeamID]), cmp.Compare(x.TeamID, y.TeamID))
		})
		for i := range want {
			want[i].Rank = i + 1
			if i > 0 && rowCmp(c, &want[i-1], &want[i]) == 0 {
				want[i].Rank = want[i-1].Rank
			}
		}
		if got := mustStandings(t, b, v, "").Rows; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", v, got, want)
		}
		for _, w := range want {
			if got := mustRow(t, b, v, w.TeamID); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s row %s: got %+v, want %+v", v, w.TeamID, got, w)
			}
		}
	}
}

// TestCTFMatchesModel checks the CTF jury and public views against a model built on the naive ICPC cells:
// each challenge is worth its value for the number of ranked solvers in the view, plus the first-blood bonus
// of the solver's place among them (one more than the solvers before it: solvers of the same time share the
// better bonus, whatever their names), none while a submission of the challenge earlier than its solve is
// still pending in the view; rows by score, then the last solve worth points.
func TestCTFMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawLog(t, logOpts{rules: rankd.CTF, numericIDs: true, bad: true, rejudges: true})
		b := appliedBoard(t, g)
		var problems []rankd.Problem
		for _, ev := range g.setup {
			if ev.Problem != nil {
				problems = append(problems, *ev.Problem)
			}
		}
		for _, v := range []struct {
			view     rankd.View
			hideFrom time.Duration
		}{{rankd.JuryView, math.MaxInt64}, {rankd.PublicView, g.contest.FreezeTime()}} {
			naive := naiveICPC(t, g, v.hideFrom)
			want := make([]rankd.Row, len(naive))
			for i, r := range naive {
				want[i] = rankd.Row{TeamID: r.team, Cells: make([]rankd.Cell, len(problems))}
			}
			for p, pr := range problems {
				var solvers []int
				for i, r := range naive {
					if r.cells[p].solved {
						solvers = append(solvers, i)
					}
				}
				value := map[rankd.ValueFunc]int64{
					rankd.ValueStatic:      pr.Value,
					rankd.ValueLinear:      score.Linear(pr.Value, pr.Minimum, pr.Decay, len(solvers)),
					rankd.ValueLogarithmic: score.Logarithmic(pr.Value, pr.Minimum, pr.Decay, len(solvers)),
					rankd.ValueDEFCON:      score.DEFCON(len(solvers)),
				}[pr.Function]
				waiting := time.Duration(math.MaxInt64) // the earliest submission of the challenge still pending
				for _, r := range naive {
					waiting = min(waiting, r.cells[p].firstPending)
				}
				for _, i := range solvers {
					at, place := naive[i].cells[p].at, 0
					for _, o := range solvers {
						if naive[o].cells[p].at < at {
							place++
						}
					}
					points := value
					if place < len(g.contest.FirstBlood) && waiting >= at {
						points += g.contest.FirstBlood[place]
					}
					want[i].Cells[p].Score = float64(points)
					want[i].Score += float64(points)
					if points > 0 { // as in CTFd, a solve worth nothing does not move when the score was reached
						want[i].Time = max(want[i].Time, naive[i].cells[p].at)
					}
				}
			}
			names := map[string]string{}
			for _, r := range naive {
				names[r.team] = r.name
			}
			slices.SortStableFunc(want, func(x, y rankd.Row) int {
				return cmp.Or(rowCmp(&g.contest, &x, &y), cmp.Compare(names[x.TeamID], names[y.TeamID]), cmp.Compare(x.TeamID, y.TeamID))
			})
			got := mustStandings(t, b, v.view, "").Rows
			if len(got) != len(want) {
				t.Fatalf("%s: got %d rows, want %d", v.view, len(got), len(want))
			}
			for i, w := range want {
				r := got[i]
				if r.TeamID != w.TeamID || r.Score != w.Score {
					t.Fatalf("%s row %d: got %s with %v, want %s with %v", v.view, i, r.TeamID, r.Score, w.TeamID, w.Score)
				}
				for p := range problems {
					if r.Cells[p].Score != w.Cells[p].Score {
						t.Fatalf("%s team %s challenge %s: got %v, want %v", v.view, r.TeamID, problems[p].ID, r.Cells[p].Score, w.Cells[p].Score)
					}
				}
			}
		}
	})
}

// TestConfigChangesMidLog checks that changes of the configuration in the middle of a log (rules, freeze,
// penalty, judgement types that start or stop costing penalty, problem values and subtasks, hidden groups,
// submissions sent again with another time, team or problem) leave the board the log gives with the changes
// made at its end: each such change recomputes what depends on it.
func TestConfigChangesMidLog(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, states: true, rejudges: true})
				t.Logf("log:\n%s", logString(g))
				changes, after := drawConfigChanges(t, g)
				a := newBoard(t, g)
				next := 0
				for i := 0; i <= len(g.entries); i++ {
					for ; next < len(changes) && after[next] == i; next++ {
						applyChange(t, a, changes[next])
					}
					if i < len(g.entries) {
						apply(t, "board", a, &g.entries[i])
					}
				}
				b := newBoard(t, g)
				for i := range g.entries {
					apply(t, "board", b, &g.entries[i])
				}
				for _, ev := range changes {
					applyChange(t, b, ev)
				}
				compareBoards(t, "changes in the middle", a, b, false)
				compareBoards(t, "changes in the middle, restored", restore(t, a), b, false)
			})
		})
	}
}

// drawConfigChanges draws changes of g's configuration and, for each, the number of entries of g applied
// before it, in order. A submission sent again comes after every version of it in g.
func drawConfigChanges(t *rapid.T, g *genLog) ([]rankd.Event, []int) {
	var problems []rankd.Problem
	var teams []string
	for _, ev := range g.setup {
		if ev.Problem != nil {
			problems = append(problems, *ev.Problem)
		}
		if ev.Team != nil {
			teams = append(teams, ev.Team.ID)
		}
	}
	lastVersion := map[string]int{}
	var subs []rankd.Submission
	for i, e := range g.entries {
		if s := e.ev.Submission; s != nil && !e.bad {
			if _, ok := lastVersion[s.ID]; !ok {
				subs = append(subs, *s)
			}
			lastVersion[s.ID] = i + 1
		}
	}
	var changes []rankd.Event
	var after []int
	for range draw(t, "changes", 1, 5) {
		at := 0
		switch draw(t, "change", 0, 4) {
		case 0:
			changes = append(changes, jtEv(pick(t, "judgement type", []string{"CE", "WA", "TLE"}), false, rapid.Bool().Draw(t, "penalty")))
		case 1:
			c := g.contest
			c.PenaltyTime = pick(t, "penalty time", []time.Duration{0, 5 * time.Minute, 20 * time.Minute})
			c.FreezeDuration = pick(t, "freeze", []time.Duration{0, 30 * time.Minute, time.Hour})
			c.TieByTime = rapid.Bool().Draw(t, "tie by time")
			c.OIMode = pick(t, "oi mode", []rankd.OIMode{rankd.OIBest, rankd.OILast})
			c.HideUntilEnd = rapid.Bool().Draw(t, "hide until end")
			if c.Rules == rankd.CTF {
				c.FirstBlood = pick(t, "first blood", [][]int64{nil, {10}, {30, 20, 10}})
			}
			changes = append(changes, contestEv(c))
		case 2:
			p := pick(t, "problem", problems)
			p.Ordinal = draw(t, "ordinal", 0, 5)
			switch g.contest.Rules {
			case rankd.CTF:
				p.Function = pick(t, "function", []rankd.ValueFunc{rankd.ValueStatic, rankd.ValueLinear, rankd.ValueLogarithmic, rankd.ValueDEFCON})
				p.Value, p.Minimum, p.Decay = 500, 100, int64(draw(t, "decay", 1, 5))
			case rankd.IOI:
				p.Subtasks = pick(t, "subtasks", [][]float64{nil, {40, 60}, {20, 30, 50}})
			}
			changes = append(changes, rankd.Event{Type: rankd.EventProblem, ID: p.ID, Problem: &p})
		case 3:
			changes = append(changes, groupEv(pick(t, "group", []string{"g1", "g2"}), rapid.Bool().Draw(t, "hidden group")))
		default:
			if len(subs) == 0 {
				continue
			}
			s := pick(t, "submission", subs)
			s.Time = drawSubTime(t, &g.contest)
			s.TeamID = pick(t, "its team", teams)
			s.ProblemID = pick(t, "its problem", problems).ID
			changes = append(changes, rankd.Event{Type: rankd.EventSubmission, ID: s.ID, Submission: &s})
			at = lastVersion[s.ID]
		}
		if len(after) > 0 {
			at = max(at, after[len(after)-1])
		}
		after = append(after, draw(t, "after", at, len(g.entries)))
	}
	return changes, after
}

func applyChange(f fataler, b *board.Board, ev rankd.Event) {
	if _, err := b.Apply(&ev); err != nil {
		f.Fatalf("apply %s %s: %v", ev.Type, ev.ID, err)
	}
}
