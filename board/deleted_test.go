package board_test

import (
	"bytes"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"rankd"
	"rankd/board"
)

// TestDeletedSubmissionKeepsItsJudgements: a submission deleted and created again (DOMjudge marks it invalid,
// then valid, sending no judgement again) counts the judgements it had, unless they were deleted or moved to
// another submission meanwhile; a checkpoint taken at any point keeps them.
func TestDeletedSubmissionKeepsItsJudgements(t *testing.T) {
	back := subEv("s1", "t1", "a", m(10))
	for _, tc := range []struct {
		name string
		evs  []rankd.Event
		want rankd.Cell // t1's cell of a in the jury view
	}{
		{"deleted", []rankd.Event{subDeleteEv("s1")},
			rankd.Cell{ProblemID: "a"}},
		{"created again", []rankd.Event{subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"created again at another time", []rankd.Event{subDeleteEv("s1"), subEv("s1", "t1", "a", m(12))},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(12), Penalty: 12}},
		{"its judgement deleted meanwhile", []rankd.Event{subDeleteEv("s1"), judgeDeleteEv("js1"), back},
			rankd.Cell{ProblemID: "a", Pending: 1}},
		{"its judgement moved to another submission meanwhile", []rankd.Event{subDeleteEv("s1"), subEv("s2", "t1", "a", m(20)),
			judgeEv("js1", "s2", "WA", m(21)), back},
			rankd.Cell{ProblemID: "a", Judged: 1, Pending: 1}},
		{"rejudged before: the latest counts", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Judged: 1}},
		{"rejudged before, the rejudge deleted meanwhile", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"),
			judgeDeleteEv("r1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"rejudged before, the rejudge deleted after", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"),
			back, judgeDeleteEv("r1")},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"deleted twice", []rankd.Event{subDeleteEv("s1"), back, subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := cat(icpcSetup("t1"), submit("s1", "t1", "a", m(10), "AC"), tc.evs)
			for split := 0; split <= len(all); split++ {
				b := MustBoard(t, all[:split])
				restored, err := board.Restore(MustCheckpoint(t, b))
				if err != nil {
					t.Fatalf("restore after %d events: %v", split, err)
				}
				for i := split; i < len(all); i++ {
					if _, err := restored.Apply(&all[i]); err != nil {
						t.Fatalf("apply %s %s: %v", all[i].Type, all[i].ID, err)
					}
				}
				if got := cellOf(t, restored, rankd.View{Kind: rankd.ViewJury}, "t1", "a"); got != tc.want {
					t.Fatalf("checkpoint after %d events: got %+v, want %+v", split, got, tc.want)
				}
			}
		})
	}
	// A judgement of a deleted submission sent again is still refused: the submission is not there.
	b := MustBoard(t, icpcSetup("t1"), submit("s1", "t1", "a", m(10), "AC"), []rankd.Event{subDeleteEv("s1")})
	ev := judgeEv("js1", "s1", "WA", m(11))
	if _, err := b.Apply(&ev); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Errorf("a judgement of a deleted submission: got %v, want %s", err, rankd.EUNPROCESSABLE)
	}
}

// TestDeletedSubmissionsCreatedAgain: random logs with submissions deleted and created again (at the same or
// another time, team or problem), judgements deleted, moved and sent again; a checkpoint taken at every
// point and the rest applied give the board (and the checkpoint's bytes) of the log applied at once.
func TestDeletedSubmissionsCreatedAgain(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, rejudges: true})
				var subsIdx []int
				for i, e := range g.entries {
					if e.ev.Type == rankd.EventSubmission && !e.ev.Delete && !e.bad {
						subsIdx = append(subsIdx, i)
					}
				}
				if len(subsIdx) > 0 {
					var origs []logEntry
					for _, i := range subsIdx {
						origs = append(origs, g.entries[i])
					}
					for range draw(t, "deletions", 1, 6) {
						orig := pick(t, "deleted sub", origs)
						si := 0
						for i, e := range g.entries {
							if e.ev.Type == rankd.EventSubmission && !e.ev.Delete && e.ev.Submission.ID == orig.ev.Submission.ID {
								si = i
								break
							}
						}
						pos := draw(t, "delete at", si+1, len(g.entries))
						del := logEntry{ev: subDeleteEv(orig.ev.Submission.ID)}
						g.entries = append(g.entries[:pos], append([]logEntry{del}, g.entries[pos:]...)...)
						if rapid.Bool().Draw(t, "created again") {
							back := orig
							back.cell = ""
							s := *orig.ev.Submission
							switch draw(t, "how", 0, 3) {
							case 1:
								s.Time += m(float64(draw(t, "shift", -30, 30)))
							case 2:
								var ps []string
								for _, ev := range g.setup {
									if ev.Type == rankd.EventProblem {
										ps = append(ps, ev.Problem.ID)
									}
								}
								s.ProblemID = pick(t, "other problem", ps)
							case 3:
								var ts []string
								for _, ev := range g.setup {
									if ev.Type == rankd.EventTeam {
										ts = append(ts, ev.Team.ID)
									}
								}
								s.TeamID = pick(t, "other team", ts)
							}
							back.ev.Submission = &s
							pos2 := draw(t, "back at", pos+1, len(g.entries))
							g.entries = append(g.entries[:pos2], append([]logEntry{back}, g.entries[pos2:]...)...)
						}
					}
				}
				// Judgements of deleted submissions are refused: the entries the board refuses are marked.
				a := newBoard(t, g)
				for i := range g.entries {
					_, err := a.Apply(&g.entries[i].ev)
					g.entries[i].bad = err != nil
				}
				t.Logf("log:\n%s", logString(g))
				want, err := a.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				for split := 0; split <= len(g.entries); split++ {
					b := newBoard(t, g)
					for i := range g.entries[:split] {
						apply(t, "B", b, &g.entries[i])
					}
					c := restore(t, b)
					for i := split; i < len(g.entries); i++ {
						apply(t, "C", c, &g.entries[i])
					}
					compareBoards(t, "restored after "+strconv.Itoa(split), c, a, true)
					got, err := c.Checkpoint()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("checkpoint after restoring at %d differs from the replay's", split)
					}
				}
			})
		})
	}
}
