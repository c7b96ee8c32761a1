package engine_test

import (
	"context"
	"testing"
	"time"

	"rankd"
	"rankd/board"
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

// The end rankd records says when the contest froze, as a CCS's state does: the feed's state line said frozen
// null, and a consumer saw a contest end that never froze. One hidden until its end has no freeze to say.
func TestRecordEndSaysFrozen(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		contest rankd.Contest
		want    *time.Time
	}{
		{rankd.Contest{ID: "c", Start: start, Duration: 5 * time.Hour, FreezeDuration: time.Hour}, new(start.Add(4 * time.Hour))},
		{rankd.Contest{ID: "c", Start: start, Duration: 5 * time.Hour}, nil},
		{rankd.Contest{ID: "c", Rules: rankd.OI, Start: start, Duration: 5 * time.Hour, FreezeDuration: time.Hour, HideUntilEnd: true}, nil},
	} {
		store := MustOpenStore(t, t.TempDir())
		e := MustOpenEngine(t, store)
		entry, err := engine.Entry(rankd.Event{Type: rankd.EventContest, ID: "c", Contest: &tt.contest})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Submit(ctx, "c", []rankd.LogEntry{entry}); err != nil {
			t.Fatal(err)
		}
		if err := e.RecordEnd(ctx, "c", start.Add(6*time.Hour)); err != nil {
			t.Fatal(err)
		}
		var st rankd.State
		if err := e.Read("c", func(b *board.Board, _ int64) error { st = b.State(); return nil }); err != nil {
			t.Fatal(err)
		}
		if st.Ended == nil || (st.Frozen == nil) != (tt.want == nil) || tt.want != nil && !st.Frozen.Equal(*tt.want) {
			t.Errorf("%+v: got state %+v, want ended and frozen at %v", tt.contest, st, tt.want)
		}
		e.Close(ctx)
		store.Close()
	}
}
