package ccs_test

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/gen"
)

// A reveal step is written as rankd's "reveal" type and read back equal; the 2020-03 style reads too.
func TestRevealLines(t *testing.T) {
	ev := rankd.Event{Type: rankd.EventReveal, ID: "3", Reveal: &rankd.Reveal{Step: 3, TeamID: "t\"7", ProblemID: "B"}}
	line := string(mustLine(t, ev))
	if want := `{"type":"reveal","id":"3","data":{"id":"3","step":3,"team_id":"t\"7","problem_id":"B"}}`; line != want {
		t.Fatalf("got %s, want %s", line, want)
	}
	for _, tc := range []struct{ name, line string }{
		{"as written", line},
		{"without the envelope id", `{"type":"reveal","data":{"id":"3","step":3,"team_id":"t\"7","problem_id":"B"}}`},
		{"without the step", `{"type":"reveal","id":"3","data":{"team_id":"t\"7","problem_id":"B"}}`},
		{"2020-03", `{"id":"e1","type":"reveal","op":"create","data":{"id":"3","step":3,"team_id":"t\"7","problem_id":"B"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, errs, _ := readAll(t, tc.line)
			if len(errs) > 0 || len(evs) != 1 {
				t.Fatalf("got %d events and errors %v, want one event", len(evs), errs)
			}
			got := evs[0]
			got.Token = ""
			if !sameEvent(got, ev) {
				t.Fatalf("got %s, want %s", show(got), show(ev))
			}
		})
	}
	evs, errs, _ := readAll(t, `{"type":"reveal","id":"3","data":null}`)
	if len(errs) > 0 || len(evs) != 1 || !evs[0].Delete || evs[0].ID != "3" {
		t.Fatalf("a deletion: got %v %v, want the deletion of step 3", evs, errs)
	}
}

func TestRevealReaderErrors(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"step 0", `{"type":"reveal","id":"0","data":{"step":0,"team_id":"t","problem_id":"A"}}`, `line 1: reveal: "step": want a step number from 1, got 0`},
		{"id not the step", `{"type":"reveal","id":"03","data":{"step":3,"team_id":"t","problem_id":"A"}}`, `line 1: reveal: "id": "03" is not the step number 3`},
		{"no step, id not a number", `{"type":"reveal","id":"x","data":{"team_id":"t","problem_id":"A"}}`, `line 1: reveal: "step": required (the id "x" is not a step number)`},
		{"step not a number", `{"type":"reveal","id":"3","data":{"step":"3","team_id":"t","problem_id":"A"}}`, `line 1: reveal: "step": want an integer, got string`},
		{"no team", `{"type":"reveal","id":"3","data":{"step":3,"problem_id":"A"}}`, `line 1: reveal: "team_id": required`},
		{"no problem", `{"type":"reveal","id":"3","data":{"step":3,"team_id":"t"}}`, `line 1: reveal: "problem_id": required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, _ := readAll(t, tc.line)
			if len(errs) != 1 || rankd.ErrorCode(errs[0]) != rankd.EINVALID || rankd.ErrorMessage(errs[0]) != tc.want {
				t.Fatalf("got %v, want the invalid error %q", errs, tc.want)
			}
		})
	}
	for _, ev := range []rankd.Event{
		{Type: rankd.EventReveal, Reveal: &rankd.Reveal{Step: 0, TeamID: "t", ProblemID: "A"}},
		{Type: rankd.EventReveal, Reveal: &rankd.Reveal{Step: 1, ProblemID: "A"}},
		{Type: rankd.EventReveal, ID: "2", Reveal: &rankd.Reveal{Step: 1, TeamID: "t", ProblemID: "A"}},
		{Type: rankd.EventReveal, ID: "1"},
	} {
		if _, err := ccs.AppendEvent(nil, ev); rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("writing %s: got %v, want an invalid error", show(ev), err)
		}
	}
}

// At a reveal step the public feed gets the withheld judgements of the revealed cell, in log order, and then
// the step; nothing of the cells still hidden.
func TestFeedFilterReveal(t *testing.T) {
	const (
		contest = `{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00.000Z","duration":"5:00:00.000","scoreboard_freeze_duration":"1:00:00.000","penalty_time":20}}`
		probA   = `{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"Apples","ordinal":0}}`
		probB   = `{"type":"problems","id":"B","data":{"id":"B","label":"B","name":"Bananas","ordinal":1}}`
		team1   = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha"}}`
		team2   = `{"type":"teams","id":"t2","data":{"id":"t2","name":"Bravo"}}`
		s1      = `{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"4:10:00.000"}}`
		j1      = `{"type":"judgements","id":"j1","data":{"id":"j1","submission_id":"s1","judgement_type_id":"WA","start_contest_time":"4:11:00.000"}}`
		s2      = `{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t1","problem_id":"A","contest_time":"4:20:00.000"}}`
		j2      = `{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"4:21:00.000"}}`
		s3      = `{"type":"submissions","id":"s3","data":{"id":"s3","team_id":"t1","problem_id":"B","contest_time":"4:30:00.000"}}`
		j3      = `{"type":"judgements","id":"j3","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:31:00.000"}}`
		s4      = `{"type":"submissions","id":"s4","data":{"id":"s4","team_id":"t2","problem_id":"A","contest_time":"4:40:00.000"}}`
		j4      = `{"type":"judgements","id":"j4","data":{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:41:00.000"}}`
		ended   = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z"}}`
		thawed  = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z","thawed":"2026-03-01T16:00:00.000Z"}}`
		step1   = `{"type":"reveal","id":"1","data":{"id":"1","step":1,"team_id":"t1","problem_id":"A"}}`
		step2   = `{"type":"reveal","id":"2","data":{"id":"2","step":2,"team_id":"t1","problem_id":"B"}}`
	)
	got := MustFilter(t, []string{contest, probA, probB, team1, team2, s1, j2, s2, j1, s3, j3, s4, j4, ended, step1, step2, thawed})
	want := []string{"contest", "problems A", "problems B", "teams t1", "teams t2", "submissions s1", "submissions s2",
		"submissions s3", "submissions s4", "state",
		// Step 1, t1's A: its two judgements in log order, then the step; B and t2's A stay hidden.
		"judgements j2", "judgements j1", "reveal 1",
		"judgements j3", "reveal 2",
		// The thaw sends what is left.
		"state thawed", "judgements j4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
}

// A client that imports the public feed of a generated frozen contest revealed step by step has, after every
// entry, the public board, and never a verdict the public view hides; it takes the feed's reveal steps as
// they come, which it could not without the revealed cells' verdicts.
func TestFeedFilterRevealGivesThePublicBoard(t *testing.T) {
	for _, cfg := range []gen.Config{
		{Seed: 5, Teams: 15, Problems: 5, Submissions: 250, HiddenTeams: 1},
		{Seed: 6, Rules: rankd.CTF, Teams: 16, Problems: 4, Submissions: 200},
	} {
		t.Run(cfg.Rules.String(), func(t *testing.T) {
			truth, public := board.New(), board.New()
			f := ccs.NewFeedFilter()
			var log [][]byte
			f.Fetch = func(pos int64) ([]byte, error) { return log[pos-1], nil }
			var src oneLine
			rd := ccs.NewReader(&src)
			steps := 0
			add := func(ev rankd.Event) {
				t.Helper()
				if _, err := truth.Apply(&ev); err != nil {
					return // refused: the engine would not log it
				}
				log = append(log, mustLine(t, ev))
				pos := int64(len(log))
				err := f.Add(pos, log[pos-1], func(line []byte) error {
					src.b = line
					pev, err := rd.Next()
					if err != nil {
						return err
					}
					if pev.Type == rankd.EventJudgement && pev.Judgement.TypeID != "" {
						pub, _, _ := truth.Verdict(rankd.PublicView, pev.Judgement.SubmissionID)
						jury, _, _ := truth.Verdict(rankd.JuryView, pev.Judgement.SubmissionID)
						if pub != jury {
							t.Errorf("entry %d: the public feed sends judgement %s, whose verdict the public view hides", pos, pev.Judgement.ID)
						}
					}
					if _, err := public.Apply(&pev); err != nil {
						t.Fatalf("entry %d: the public feed's line does not apply: %v: %s", pos, err, line)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("entry %d: %v", pos, err)
				}
				if got, want := rowsOf(t, public, rankd.PublicView), rowsOf(t, truth, rankd.PublicView); !reflect.DeepEqual(got, want) {
					t.Fatalf("entry %d (%s): the public feed's board differs from the public view:\ngot  %+v\nwant %+v", pos, log[pos-1], got, want)
				}
			}
			err := gen.Generate(cfg, func(ev rankd.Event) error {
				add(ev.Clone())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for {
				step, next, _ := truth.Reveal()
				if next == nil || truth.CheckReveal(time.Time{}) != nil {
					break
				}
				add(rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(step + 1), Reveal: &rankd.Reveal{Step: step + 1, TeamID: next.TeamID, ProblemID: next.ProblemID}})
				steps++
			}
			if steps < 10 {
				t.Fatalf("%d steps, want a reveal of some length", steps)
			}
			if _, next, _ := truth.Reveal(); next != nil {
				t.Fatalf("the reveal stopped at %+v: %v", *next, truth.CheckReveal(time.Time{}))
			}
			if got, want := rowsOf(t, public, rankd.PublicView), rowsOf(t, truth, rankd.JuryView); !reflect.DeepEqual(got, want) {
				t.Fatalf("after the reveal, the imported public board\n%+v\ndiffers from the jury's\n%+v", got, want)
			}
			t.Logf("%d log entries, %d steps", len(log), steps)
		})
	}
}
