package storetest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"rankd"
)

// contestState is what a store gives back of a contest: its log, checkpoint, submissions list, active final
// standings, and the token of its team t1 (secret "team-" + id).
type contestState struct {
	Log         []rankd.LogEntry
	Checkpoint  rankd.Checkpoint
	Submissions []rankd.SubmissionRecord
	Final       rankd.FinalStandings
	Token       rankd.Token
}

// mustState reads the state of contest id, and fails tb on an error.
func mustState(tb testing.TB, s Store, id string) contestState {
	tb.Helper()
	ctx := context.Background()
	st := contestState{Log: MustReplay(tb, s, id, 0), Submissions: MustSubmissions(tb, s, id, rankd.SubmissionFilter{})}
	var err error
	if st.Checkpoint, err = s.LatestCheckpoint(ctx, id); err != nil {
		tb.Fatalf("LatestCheckpoint(%s): %v", id, err)
	}
	if st.Final, err = s.ActiveFinal(ctx, id); err != nil {
		tb.Fatalf("ActiveFinal(%s): %v", id, err)
	}
	if st.Token, err = s.LookupToken(ctx, "team-"+id); err != nil {
		tb.Fatalf("LookupToken(team-%s): %v", id, err)
	}
	return st
}

// checkContests fails t unless the store lists the contests want.
func checkContests(t *testing.T, s Store, want ...string) {
	t.Helper()
	if ids, err := s.Contests(context.Background()); err != nil || !slices.Equal(ids, want) {
		t.Errorf("Contests: got %q, %v; want %q", ids, err, want)
	}
}

// testDeleteContest: a deleted contest leaves nothing behind and other contests keep everything; its id is
// free again, for a new log from position 1 that nothing of the old one makes entries repeats in.
func testDeleteContest(t *testing.T, s Store) {
	ctx := context.Background()
	// b's log first: a's is the latest created (a store may give a new log the number of a deleted one).
	MustAppend(t, s, "b", WithToken(Submission("s1", "t1", "A", time.Minute), "tok1"), judgement("j1", "x"))
	MustAppend(t, s, "a", WithToken(Submission("s1", "t1", "A", time.Minute), "tok1"), judgement("j1", "x"),
		Submission("s2", "t2", "B", 2*time.Minute))
	// A repeat under a new token: the token names the judgement's event from then on.
	checkResults(t, "a repeat in a", MustAppend(t, s, "a", WithToken(judgement("j1", "x"), "tok2")),
		[]rankd.AppendResult{dup(2)})
	for _, id := range []string{"a", "b"} {
		if err := s.SaveCheckpoint(ctx, id, rankd.Checkpoint{Pos: 2, Data: []byte("board " + id)}); err != nil {
			t.Fatalf("SaveCheckpoint(%s): %v", id, err)
		}
		if err := s.SaveToken(ctx, rankd.Token{Secret: "team-" + id, Role: rankd.RoleTeam, ContestID: id, TeamID: "t1"}); err != nil {
			t.Fatalf("SaveToken(team-%s): %v", id, err)
		}
		MustSaveFinal(t, s, finalStandings(t, s, id, 2))
	}
	MustSaveFinal(t, s, finalStandings(t, s, "a", 3)) // a second version
	if err := s.SaveToken(ctx, rankd.Token{Secret: "admin", Role: rankd.RoleAdmin}); err != nil {
		t.Fatalf("SaveToken(admin): %v", err)
	}
	mustState(t, s, "a") // read, so that what a store keeps in memory of it is there
	b := mustState(t, s, "b")

	if err := s.DeleteContest(ctx, "a"); err != nil {
		t.Fatalf("DeleteContest(a): %v", err)
	}
	checkContests(t, s, "b")
	if log := MustReplay(t, s, "a", 0); len(log) != 0 {
		t.Errorf("Replay(a): got %d entries, want none", len(log))
	}
	_, err := s.LatestCheckpoint(ctx, "a")
	checkCode(t, "LatestCheckpoint(a)", err, rankd.ENOTFOUND)
	if subs := MustSubmissions(t, s, "a", rankd.SubmissionFilter{}); len(subs) != 0 {
		t.Errorf("Submissions(a): got %+v, want none", subs)
	}
	_, err = s.LookupToken(ctx, "team-a")
	checkCode(t, "LookupToken(team-a)", err, rankd.ENOTFOUND)
	_, err = s.ActiveFinal(ctx, "a")
	checkCode(t, "ActiveFinal(a)", err, rankd.ENOTFOUND)
	if _, err := s.LookupToken(ctx, "admin"); err != nil {
		t.Errorf("LookupToken(admin): got %v, want the token", err)
	}
	if got := mustState(t, s, "b"); !reflect.DeepEqual(got, b) {
		t.Errorf("b after deleting a: got %+v, want %+v", got, b)
	}
	// Deleted already, never stored, or an id no store could hold: unknown.
	for _, id := range []string{"a", "unknown", "", "bad\xff"} {
		checkCode(t, fmt.Sprintf("DeleteContest(%q)", id), s.DeleteContest(ctx, id), rankd.ENOTFOUND)
	}

	// A new log. Its first entry repeats the old log's second: stored, at 1. The old log's alias of that
	// event names it in the new one only once the new one holds the event; its first token is free again.
	res := MustAppend(t, s, "a", judgement("j1", "x"), WithToken(judgement("j1", "x"), "tok2"),
		WithToken(Submission("s1", "t1", "A", time.Minute), "tok1"))
	checkResults(t, "a new log", res, []rankd.AppendResult{stored(1), dup(1), stored(2)})
	want := []rankd.SubmissionRecord{{ID: "s1", TeamID: "t1", ProblemID: "A", Time: time.Minute, Pos: 2}}
	if subs := MustSubmissions(t, s, "a", rankd.SubmissionFilter{}); !slices.Equal(subs, want) {
		t.Errorf("Submissions(a) of the new log: got %+v, want %+v", subs, want)
	}
	// Nor do the old final standings number the new ones.
	if v := MustSaveFinal(t, s, finalStandings(t, s, "a", 2)); v != 1 {
		t.Errorf("final standings of the new log: got version %d, want 1", v)
	}
	checkContests(t, s, "a", "b")
	if got := mustState(t, s, "b"); !reflect.DeepEqual(got, b) {
		t.Errorf("b after a new log of a: got %+v, want %+v", got, b)
	}

	// A contest of which a checkpoint alone is stored (final standings need its log).
	if err := s.SaveCheckpoint(ctx, "checkpoint only", rankd.Checkpoint{Pos: 1}); err != nil {
		t.Fatalf("SaveCheckpoint: %v", err)
	}
	if err := s.DeleteContest(ctx, "checkpoint only"); err != nil {
		t.Errorf("DeleteContest(checkpoint only): %v", err)
	}
	checkCode(t, "DeleteContest(checkpoint only) again", s.DeleteContest(ctx, "checkpoint only"), rankd.ENOTFOUND)
	_, err = s.LatestCheckpoint(ctx, "checkpoint only")
	checkCode(t, "LatestCheckpoint after deleting", err, rankd.ENOTFOUND)
}

// testDeleteContestConcurrent: a contest deleted again and again while entries are appended to it and its
// submissions are read. Each Append runs wholly before or after a deletion: the log is the one after the
// last deletion, from position 1 without gaps, and what the store knows of it (repeats, submissions) is
// that log's.
func testDeleteContestConcurrent(t *testing.T, s Store) {
	ctx := context.Background()
	const calls = 40
	// Every call sends this entry first: stored at 1 in a new log, a repeat of that entry otherwise.
	first := WithToken(judgement("j", "same"), "tok")
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for c := range calls {
			res, err := s.Append(ctx, "c1", []rankd.LogEntry{first, Submission(fmt.Sprint("s", c), "t1", "A", time.Duration(c)*time.Second)}, nil)
			if err != nil {
				t.Errorf("call %d: Append: %v", c, err)
				return
			}
			if res[0].Pos != 1 || res[0].Err != nil {
				t.Errorf("call %d: first entry: got %+v, want position 1", c, res[0])
			}
			if r := res[1]; r.Duplicate || r.Err != nil || r.Pos < 2 || (!res[0].Duplicate && r.Pos != 2) {
				t.Errorf("call %d: submission: got %+v after %+v, want stored after position 1 (at 2 in a new log)", c, r, res[0])
			}
		}
	})
	// Each of the others goes on until the appends are done, and makes one call at least.
	wg.Go(func() {
		for {
			if err := s.DeleteContest(ctx, "c1"); err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND {
				t.Errorf("DeleteContest: %v", err)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Go(func() {
		for {
			if _, err := s.Submissions(ctx, "c1", rankd.SubmissionFilter{}); err != nil {
				t.Errorf("Submissions: %v", err)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()

	// One call more, after the last deletion (which may have left no log).
	want := []rankd.AppendResult{stored(1), stored(2)}
	if n := len(MustReplay(t, s, "c1", 0)); n > 0 {
		want = []rankd.AppendResult{dup(1), stored(int64(n + 1))}
	}
	checkResults(t, "Append after", MustAppend(t, s, "c1", first, Submission("last", "t1", "A", time.Hour)), want)
	log := MustReplay(t, s, "c1", 0)
	for i, e := range log {
		if e.Pos != int64(i+1) {
			t.Fatalf("entry %d: got pos %d, want %d", i, e.Pos, i+1)
		}
		if (e.Token == first.Token) != (i == 0) {
			t.Errorf("entry %d: got token %q, want %q at position 1 alone", i, e.Token, first.Token)
		}
	}
	// Every entry after the first is a submission, in the list at its position.
	subs := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{})
	if len(subs) != len(log)-1 {
		t.Fatalf("Submissions: got %d, want %d, one per entry after the first", len(subs), len(log)-1)
	}
	for _, sub := range subs {
		if sub.Pos < 2 || sub.Pos > int64(len(log)) || !bytes.Contains(log[sub.Pos-1].Data, fmt.Appendf(nil, `"id":%q`, sub.ID)) {
			t.Errorf("submission %+v: not the log's entry at its position", sub)
		}
	}
}

// MustFillContest stores something of contest id in every table a deletion empties: a log of two entries (and
// a repeat of the first under a new token: an alias), a checkpoint, a team token, and two versions of final
// standings (the first no longer active); and an admin token, which no deletion removes.
func MustFillContest(tb testing.TB, s Store, id string) {
	tb.Helper()
	ctx := context.Background()
	MustAppend(tb, s, id, WithToken(Submission("s1", "t1", "A", time.Minute), "tok1"))
	MustAppend(tb, s, id, WithToken(Submission("s1", "t1", "A", time.Minute), "tok2"))
	MustAppend(tb, s, id, Submission("s2", "t1", "B", time.Minute)) // a second entry, for a later final version
	if err := s.SaveCheckpoint(ctx, id, rankd.Checkpoint{Pos: 1, Data: []byte("board")}); err != nil {
		tb.Fatal(err)
	}
	for _, tok := range []rankd.Token{
		{Secret: "team", Role: rankd.RoleTeam, ContestID: id, TeamID: "t1"},
		{Secret: "admin", Role: rankd.RoleAdmin},
	} {
		if err := s.SaveToken(ctx, tok); err != nil {
			tb.Fatal(err)
		}
	}
	for pos := range int64(2) {
		MustSaveFinal(tb, s, rankd.FinalStandings{ContestID: id, Pos: pos + 1, Stored: MustEntryAt(tb, s, id, pos+1).Stored,
			Jury: []rankd.Row{{Rank: 1, TeamID: "t1"}}, Public: []rankd.Row{{Rank: 1, TeamID: "t1"}}})
	}
}
