package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd"
	"rankd/engine"
)

// The final standings of an OI contest hidden from the public until its end show the public its scores: the
// board reads no clock, so the end the clock reached is recorded in the log first (nothing else may have
// said it: a contest run through the API gets no state events of its own).
func TestFinalRecordsTheEnd(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e.Now = func() time.Time { return start.Add(5*time.Hour + time.Minute) }
	var entries []rankd.LogEntry
	for _, ev := range []rankd.Event{
		{Type: rankd.EventContest, ID: "oi", Contest: &rankd.Contest{ID: "oi", Rules: rankd.OI, Start: start,
			Duration: 5 * time.Hour, HideUntilEnd: true}},
		{Type: rankd.EventJudgementType, ID: "AC", JudgementType: &rankd.JudgementType{ID: "AC", Solved: true}},
		{Type: rankd.EventProblem, ID: "A", Problem: &rankd.Problem{ID: "A", Label: "A"}},
		{Type: rankd.EventTeam, ID: "t1", Team: &rankd.Team{ID: "t1", Name: "One"}},
		{Type: rankd.EventTeam, ID: "t2", Team: &rankd.Team{ID: "t2", Name: "Two"}},
		{Type: rankd.EventSubmission, ID: "s1", Submission: &rankd.Submission{ID: "s1", TeamID: "t2", ProblemID: "A", Time: time.Hour}},
		{Type: rankd.EventJudgement, ID: "j1", Judgement: &rankd.Judgement{ID: "j1", SubmissionID: "s1", TypeID: "AC", Score: 40}},
	} {
		entry, err := engine.Entry(ev)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry)
	}
	if _, err := e.Submit(ctx, "oi", entries); err != nil {
		t.Fatal(err)
	}
	f, err := e.Final(ctx, "oi")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Public) != 2 || f.Public[0].TeamID != "t2" || f.Public[0].Score != 40 || f.Public[0].Rank != 1 {
		t.Errorf("public final rows: got %+v, want t2 first with 40", f.Public)
	}
	if f.Pos != int64(len(entries))+1 {
		t.Errorf("built from position %d, want %d: the log and the end recorded", f.Pos, len(entries)+1)
	}
	// Recorded once: a second finalization builds from the same log.
	if again, err := e.Final(ctx, "oi"); err != nil || again.Pos != f.Pos {
		t.Errorf("again: got position %d, %v; want %d", again.Pos, err, f.Pos)
	}
}
