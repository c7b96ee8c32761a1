package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// A judgement scoring more than its problem allows is refused when it is sent, but a log that stored one
// before the rule came still restores, with the score it had.
func TestOverLimitScoreRefusedNotReplayed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	problem := rankd.Problem{ID: "A", Label: "A", Name: "A", MaxScore: 100}
	setup := mustEntries(t,
		rankd.Event{Type: rankd.EventContest, ID: "c", Contest: &rankd.Contest{ID: "c", Name: "OI", Rules: rankd.OI, Duration: 5 * time.Hour}},
		rankd.Event{Type: rankd.EventJudgementType, ID: "AC", JudgementType: &rankd.JudgementType{ID: "AC", Name: "correct", Solved: true}},
		rankd.Event{Type: rankd.EventProblem, ID: "A", Problem: &problem},
		rankd.Event{Type: rankd.EventTeam, ID: "t1", Team: &rankd.Team{ID: "t1", Name: "Alpha"}},
		rankd.Event{Type: rankd.EventSubmission, ID: "s1", Submission: &rankd.Submission{ID: "s1", TeamID: "t1", ProblemID: "A", Time: time.Minute}},
		rankd.Event{Type: rankd.EventSubmission, ID: "s2", Submission: &rankd.Submission{ID: "s2", TeamID: "t1", ProblemID: "A", Time: 2 * time.Minute}})
	over := func(id, sub string) rankd.Event {
		return rankd.Event{Type: rankd.EventJudgement, ID: id, Judgement: &rankd.Judgement{ID: id, SubmissionID: sub,
			TypeID: "AC", StartTime: 3 * time.Minute, Score: 150}}
	}
	store := MustOpenStore(t, dir)
	if _, err := store.Append(ctx, "c", append(setup, mustEntries(t, over("j1", "s1"))...), nil); err != nil {
		t.Fatal(err) // as a server before the rule stored it
	}
	e := MustOpenEngine(t, store)
	score := func() float64 {
		var got float64
		err := e.Read("c", func(b *board.Board, _ int64) error {
			st, err := b.Standings(rankd.JuryView, 0, -1)
			if err == nil {
				got = st.Rows[0].Score
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := score(); got != 150 {
		t.Fatalf("restored from a log stored before the rule: got score %v, want 150", got)
	}
	if res := MustSubmitOne(t, e, "c", over("j2", "s2")); res.Status != engine.StatusRejected || res.Code != rankd.EUNPROCESSABLE {
		t.Errorf("a judgement above the maximum sent now: got %+v, want it rejected as %s", res, rankd.EUNPROCESSABLE)
	}
}
