package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"rankd"
)

// errRefused is what the suite's accept functions refuse entries with.
var errRefused = errors.New("refused by the test")

// call is one Append of a table test: its entries, the ones accept refuses, and the results wanted.
type call struct {
	entries []rankd.LogEntry
	refuse  []int
	want    []rankd.AppendResult // an Err wanted is errRefused, or rankd.ErrTokenTaken
}

// Short names for the tables' entries.
var (
	judgement = func(id, data string) rankd.LogEntry { return Entry(rankd.EventJudgement, id, data) }
	problem   = func(id, data string) rankd.LogEntry { return Entry(rankd.EventProblem, id, data) }
	stored    = func(pos int64) rankd.AppendResult { return rankd.AppendResult{Pos: pos} }
	dup       = func(pos int64) rankd.AppendResult { return rankd.AppendResult{Pos: pos, Duplicate: true} }
	refused   = rankd.AppendResult{Err: errRefused}
	taken     = rankd.AppendResult{Err: rankd.ErrTokenTaken}
	hashed    = func(e rankd.LogEntry, hash string) rankd.LogEntry { e.Hash = hash; return e }
)

func testAppend(t *testing.T, s Store) {
	tests := []struct {
		name    string
		calls   []call
		wantLog []string // the Data of the log's entries, in order
	}{
		{
			name: "positions continue across calls",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "a"), judgement("j2", "b"), judgement("j3", "c")},
					want: []rankd.AppendResult{stored(1), stored(2), stored(3)}},
				{entries: []rankd.LogEntry{judgement("j4", "d")}, want: []rankd.AppendResult{stored(4)}},
			},
			wantLog: []string{"a", "b", "c", "d"},
		},
		{
			name: "token already in the log",
			calls: []call{
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "a"), "t1")}, want: []rankd.AppendResult{stored(1)}},
				// The same object, other content (its line written anew): the token makes it a duplicate.
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "b"), "t1")}, want: []rankd.AppendResult{dup(1)}},
				// Another object: not a repeat of the token's event, and not to be lost as one.
				{entries: []rankd.LogEntry{WithToken(problem("j1", "c"), "t1"), WithToken(judgement("j2", "d"), "t1")},
					want: []rankd.AppendResult{taken, taken}},
			},
			wantLog: []string{"a"},
		},
		{
			name: "token earlier in the call",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j0", "z"), WithToken(judgement("j1", "a"), "t1"),
					WithToken(judgement("j1", "a2"), "t1"), WithToken(judgement("j2", "b"), "t1")},
					want: []rankd.AppendResult{stored(1), stored(2), dup(2), taken}},
			},
			wantLog: []string{"z", "a"},
		},
		{
			name: "same content as the latest version",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "a")}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{judgement("j1", "a")}, want: []rankd.AppendResult{dup(1)}},
			},
			wantLog: []string{"a"},
		},
		{
			name: "new token, same content as the latest version",
			calls: []call{
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "a"), "t1")}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "a"), "t2")}, want: []rankd.AppendResult{dup(1)}},
				// The duplicate's token names the event it repeats, from then on: in the same call too.
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "a"), "t3"), WithToken(judgement("j1", "b"), "t3"),
					WithToken(judgement("j2", "b"), "t3")}, want: []rankd.AppendResult{dup(1), dup(1), taken}},
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "b"), "t2"), WithToken(judgement("j2", "b"), "t2")},
					want: []rankd.AppendResult{dup(1), taken}},
			},
			wantLog: []string{"a"},
		},
		{
			// A feed that sent a line twice, under two tokens, and then deleted its object, read again from its
			// start: the second line is a repeat, not a re-creation of what the log deleted since.
			name: "a repeat's token after its object is deleted",
			calls: []call{
				{entries: []rankd.LogEntry{Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f1")),
					Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f2"))}, want: []rankd.AppendResult{stored(1), dup(1)}},
				{entries: []rankd.LogEntry{Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f3"))},
					want: []rankd.AppendResult{stored(2)}},
				{entries: []rankd.LogEntry{Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f1")),
					Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f2")),
					Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f3"))},
					want: []rankd.AppendResult{dup(1), dup(1), dup(2)}},
			},
			wantLog: []string{string(Submission("s1", "t1", "A", 60e9).Data), string(Delete(rankd.EventSubmission, "s1").Data)},
		},
		{
			name: "A, B, A are three versions of a problem; only a repeat of the latest is a duplicate",
			calls: []call{
				{entries: []rankd.LogEntry{problem("p1", "A")}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{problem("p1", "B")}, want: []rankd.AppendResult{stored(2)}},
				{entries: []rankd.LogEntry{problem("p1", "A")}, want: []rankd.AppendResult{stored(3)}},
				{entries: []rankd.LogEntry{problem("p1", "A")}, want: []rankd.AppendResult{dup(3)}},
				{entries: []rankd.LogEntry{problem("p1", "B")}, want: []rankd.AppendResult{stored(4)}},
			},
			wantLog: []string{"A", "B", "A", "B"},
		},
		{
			name: "versions of a problem within one call",
			calls: []call{
				{entries: []rankd.LogEntry{problem("p1", "A"), problem("p1", "A"), problem("p1", "B"),
					problem("p1", "A"), problem("p1", "A")},
					want: []rankd.AppendResult{stored(1), dup(1), stored(2), stored(3), dup(3)}},
			},
			wantLog: []string{"A", "B", "A"},
		},
		{
			name: "a version of the log, then the same in a call after another version",
			calls: []call{
				{entries: []rankd.LogEntry{problem("p1", "A")}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{problem("p1", "B"), problem("p1", "A"), problem("p1", "A")},
					want: []rankd.AppendResult{stored(2), stored(3), dup(3)}},
			},
			wantLog: []string{"A", "B", "A"},
		},
		{
			// A judge retrying a batch that held two versions of a judgement must not set it back.
			name: "an earlier version of a judgement is a repeat",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "A"), judgement("j1", "B")}, want: []rankd.AppendResult{stored(1), stored(2)}},
				{entries: []rankd.LogEntry{judgement("j1", "A"), judgement("j1", "B")}, want: []rankd.AppendResult{dup(1), dup(2)}},
				{entries: []rankd.LogEntry{judgement("j1", "C"), judgement("j1", "B"), judgement("j1", "A")},
					want: []rankd.AppendResult{stored(3), dup(2), dup(1)}},
			},
			wantLog: []string{"A", "B", "C"},
		},
		{
			name: "versions of a judgement within one call",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "A"), judgement("j1", "A"), judgement("j1", "B"),
					judgement("j1", "A"), judgement("j1", "B")},
					want: []rankd.AppendResult{stored(1), dup(1), stored(2), dup(1), dup(2)}},
			},
			wantLog: []string{"A", "B"},
		},
		{
			name: "same content, another object",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("x", "a"), judgement("y", "a"), problem("x", "a")},
					want: []rankd.AppendResult{stored(1), stored(2), stored(3)}},
				{entries: []rankd.LogEntry{problem("x", "a"), judgement("y", "a")},
					want: []rankd.AppendResult{dup(3), dup(2)}},
			},
			wantLog: []string{"a", "a", "a"},
		},
		{
			name: "deletions are versions too",
			calls: []call{
				{entries: []rankd.LogEntry{Submission("s1", "t1", "A", 60e9)}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{Delete(rankd.EventSubmission, "s1"), Delete(rankd.EventSubmission, "s1")},
					want: []rankd.AppendResult{stored(2), dup(2)}},
				// The submission as it was before its deletion is a repeat; a new version is not.
				{entries: []rankd.LogEntry{Delete(rankd.EventSubmission, "s1"), Submission("s1", "t1", "A", 60e9),
					Submission("s1", "t1", "A", 61e9)},
					want: []rankd.AppendResult{dup(2), dup(1), stored(3)}},
			},
			wantLog: []string{
				string(Submission("s1", "t1", "A", 60e9).Data),
				string(Delete(rankd.EventSubmission, "s1").Data),
				string(Submission("s1", "t1", "A", 61e9).Data),
			},
		},
		{
			// A feed sends again, under a new token, an object it deleted (rankd's public feed, for a team
			// hidden and shown again), or deletes it again: stored. Another earlier version stays a repeat, token
			// or not: a feed read again must not set the object back. Entries are marked as the engine marks them.
			name: "an earlier version deleting or re-creating an object",
			calls: []call{
				{entries: []rankd.LogEntry{Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f1")),
					Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f2")), Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f3"))},
					want: []rankd.AppendResult{stored(1), stored(2), stored(3)}},
				{entries: []rankd.LogEntry{Marked(WithToken(judgement("j1", "A"), "f4")), Marked(WithToken(judgement("j1", "B"), "f5")),
					Marked(WithToken(judgement("j1", "A"), "f6"))},
					want: []rankd.AppendResult{stored(4), stored(5), dup(4)}},
				{entries: []rankd.LogEntry{Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f7"))},
					want: []rankd.AppendResult{stored(6)}},
				// The feed read again: its tokens are repeats; without a token an earlier version still is.
				{entries: []rankd.LogEntry{Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f1")),
					Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f2")), Marked(WithToken(Submission("s1", "t1", "A", 60e9), "f3")),
					Marked(WithToken(Delete(rankd.EventSubmission, "s1"), "f7")), Marked(WithToken(judgement("j1", "B"), "f5")),
					Marked(WithToken(judgement("j1", "A"), "f6")), judgement("j1", "C"), judgement("j1", "A")},
					want: []rankd.AppendResult{dup(1), dup(2), dup(3), dup(6), dup(5), dup(4), stored(7), dup(4)}},
			},
			wantLog: []string{
				string(Submission("s1", "t1", "A", 60e9).Data),
				string(Delete(rankd.EventSubmission, "s1").Data),
				string(Submission("s1", "t1", "A", 60e9).Data),
				"A", "B",
				string(Delete(rankd.EventSubmission, "s1").Data),
				"C",
			},
		},
		{
			// An admin's thaw sets the state back as an earlier thaw left it, after a freeze since: a decision,
			// stored; a judge sending an earlier state again is not.
			name: "the server's own earlier version",
			calls: []call{
				{entries: []rankd.LogEntry{Entry(rankd.EventState, "", "thawed"), Entry(rankd.EventState, "", "frozen")},
					want: []rankd.AppendResult{stored(1), stored(2)}},
				{entries: []rankd.LogEntry{Own(Entry(rankd.EventState, "", "thawed")), Own(Entry(rankd.EventState, "", "thawed"))},
					want: []rankd.AppendResult{stored(3), dup(3)}},
				{entries: []rankd.LogEntry{Entry(rankd.EventState, "", "frozen")}, want: []rankd.AppendResult{dup(2)}},
			},
			wantLog: []string{"thawed", "frozen", "thawed"},
		},
		{
			name: "hashes are opaque",
			calls: []call{
				{entries: []rankd.LogEntry{hashed(judgement("j1", "a"), "ABCD"), hashed(judgement("j2", "b"), "abcd"),
					hashed(judgement("j3", "c"), "abc"), hashed(judgement("j4", "d"), "not hex \x00\xff")},
					want: []rankd.AppendResult{stored(1), stored(2), stored(3), stored(4)}},
				{entries: []rankd.LogEntry{hashed(judgement("j1", "x"), "ABCD"), hashed(judgement("j2", "y"), "ABCD"),
					hashed(judgement("j3", "z"), "abc"), hashed(judgement("j4", "w"), "not hex \x00\xff")},
					want: []rankd.AppendResult{dup(1), stored(5), dup(3), dup(4)}},
			},
			wantLog: []string{"a", "b", "c", "d", "y"},
		},
		{
			name: "no hash is never a duplicate",
			calls: []call{
				{entries: []rankd.LogEntry{{Event: rankd.Event{Type: rankd.EventState}, Data: []byte("s")},
					{Event: rankd.Event{Type: rankd.EventState}, Data: []byte("s")}},
					want: []rankd.AppendResult{stored(1), stored(2)}},
			},
			wantLog: []string{"s", "s"},
		},
		{
			name: "refused entries take no position",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "a"), judgement("j2", "b"), judgement("j3", "c")},
					refuse: []int{1},
					want:   []rankd.AppendResult{stored(1), refused, stored(2)}},
				{entries: []rankd.LogEntry{judgement("j4", "d"), judgement("j5", "e")},
					refuse: []int{0, 1},
					want:   []rankd.AppendResult{refused, refused}},
				{entries: []rankd.LogEntry{judgement("j2", "b")}, want: []rankd.AppendResult{stored(3)}},
			},
			wantLog: []string{"a", "c", "b"},
		},
		{
			name: "later entries do not see a refused token",
			calls: []call{
				{entries: []rankd.LogEntry{WithToken(judgement("j1", "a"), "t1"), WithToken(judgement("j2", "b"), "t1")},
					refuse: []int{0},
					want:   []rankd.AppendResult{refused, stored(1)}},
			},
			wantLog: []string{"b"},
		},
		{
			name: "later entries do not see a refused version",
			calls: []call{
				{entries: []rankd.LogEntry{judgement("j1", "A")}, want: []rankd.AppendResult{stored(1)}},
				{entries: []rankd.LogEntry{judgement("j1", "B"), judgement("j1", "A"), judgement("j1", "B")},
					refuse: []int{0},
					want:   []rankd.AppendResult{refused, dup(1), stored(2)}},
			},
			wantLog: []string{"A", "B"},
		},
	}
	ctx := context.Background()
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contestID := fmt.Sprintf("contest-%d", n) // one store for the table: contests do not see each other
			for c, cl := range tt.calls {
				var accepted []int
				res, err := s.Append(ctx, contestID, cl.entries, func(i int) error {
					accepted = append(accepted, i)
					if slices.Contains(cl.refuse, i) {
						return errRefused
					}
					return nil
				})
				if err != nil {
					t.Fatalf("call %d: Append: %v", c, err)
				}
				checkResults(t, fmt.Sprintf("call %d", c), res, cl.want)
				// accept sees every entry that is not a duplicate (nor has a token taken), in order, once.
				var wantAccepted []int
				for i, w := range cl.want {
					if !w.Duplicate && !errors.Is(w.Err, rankd.ErrTokenTaken) {
						wantAccepted = append(wantAccepted, i)
					}
				}
				if !slices.Equal(accepted, wantAccepted) {
					t.Errorf("call %d: accept called with %v, want %v", c, accepted, wantAccepted)
				}
			}
			log := MustReplay(t, s, contestID, 0)
			var got []string
			for i, e := range log {
				got = append(got, string(e.Data))
				if e.Pos != int64(i+1) {
					t.Errorf("entry %d: got pos %d, want %d", i, e.Pos, i+1)
				}
			}
			if !slices.Equal(got, tt.wantLog) {
				t.Errorf("log: got %q, want %q", got, tt.wantLog)
			}
		})
	}
}

// checkResults compares Append's results with those wanted.
func checkResults(t *testing.T, what string, got, want []rankd.AppendResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d results, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Pos != w.Pos || g.Duplicate != w.Duplicate || g.TokenDropped != w.TokenDropped || (g.Err == nil) != (w.Err == nil) ||
			(w.Err != nil && !errors.Is(g.Err, w.Err)) {
			t.Errorf("%s: result %d: got %+v, want %+v", what, i, g, w)
		}
	}
}

// testAppendDropTakenToken: an entry that asks for it (DropTakenToken) whose token names another object is
// taken as one without a token: stored, or a duplicate by its content, and said so; stored without the token,
// which still names its own event. An entry that does not ask is refused.
func testAppendDropTakenToken(t *testing.T, s Store) {
	drop := func(e rankd.LogEntry) rankd.LogEntry {
		e.DropTakenToken = true
		return e
	}
	dropped := func(r rankd.AppendResult) rankd.AppendResult {
		r.TokenDropped = true
		return r
	}
	MustAppend(t, s, "c1", WithToken(Submission("s1", "t1", "A", time.Minute), "x1"))
	other := WithToken(Submission("s2", "t1", "A", 2*time.Minute), "x1")
	checkResults(t, "another object under the token, dropped", MustAppend(t, s, "c1", drop(other), drop(other)),
		[]rankd.AppendResult{dropped(stored(2)), dropped(dup(2))})
	checkResults(t, "the same, not dropped; the token's own object", MustAppend(t, s, "c1", other,
		drop(WithToken(Submission("s1", "t1", "A", time.Minute), "x1"))), []rankd.AppendResult{taken, dup(1)})
	// In one call: a token new to the log, then another object under it.
	checkResults(t, "one call", MustAppend(t, s, "c1", WithToken(Submission("s3", "t1", "A", 3*time.Minute), "x2"),
		drop(WithToken(Submission("s4", "t1", "A", 4*time.Minute), "x2"))), []rankd.AppendResult{stored(3), dropped(stored(4))})
	log := MustReplay(t, s, "c1", 0)
	if len(log) != 4 {
		t.Fatalf("the log: got %d entries, want 4", len(log))
	}
	for i, want := range []string{"x1", "", "x2", ""} {
		if log[i].Token != want {
			t.Errorf("entry %d: got token %q, want %q", i+1, log[i].Token, want)
		}
	}

	// A token that names a version of the same object: a version the log does not hold, under it, is a new
	// one (a feed numbered anew); a version it holds is a repeat of the token's event (a feed read again).
	checkResults(t, "versions", MustAppend(t, s, "c2",
		WithToken(judgement("j1", "pending"), "y1"), WithToken(Entry(rankd.EventTeam, "t1", "A"), "y2")),
		[]rankd.AppendResult{stored(1), stored(2)})
	checkResults(t, "new versions under their tokens", MustAppend(t, s, "c2",
		drop(WithToken(judgement("j1", "AC"), "y1")), drop(WithToken(Entry(rankd.EventTeam, "t1", "B"), "y2"))),
		[]rankd.AppendResult{dropped(stored(3)), dropped(stored(4))})
	checkResults(t, "read again", MustAppend(t, s, "c2",
		drop(WithToken(judgement("j1", "pending"), "y1")), drop(WithToken(Entry(rankd.EventTeam, "t1", "A"), "y2")),
		drop(WithToken(judgement("j1", "AC"), "y1")), drop(WithToken(Entry(rankd.EventTeam, "t1", "B"), "y2"))),
		[]rankd.AppendResult{dup(1), dup(2), dup(1), dup(2)})
	checkResults(t, "not asking", MustAppend(t, s, "c2", WithToken(judgement("j1", "WA"), "y1")),
		[]rankd.AppendResult{dup(1)})
}

func testAppendEmpty(t *testing.T, s Store) {
	ctx := context.Background()
	res, err := s.Append(ctx, "c1", nil, func(int) error { return nil })
	if err != nil || len(res) != 0 {
		t.Fatalf("Append of nothing: got %v, %v; want no results, no error", res, err)
	}
	if ids, err := s.Contests(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Contests after appending nothing: got %q, %v; want none", ids, err)
	}
}

func testAppendNoContest(t *testing.T, s Store) {
	_, err := s.Append(context.Background(), "", []rankd.LogEntry{judgement("j1", "a")}, nil)
	checkCode(t, "Append without a contest id", err, rankd.EINVALID)
}

// testAppendNilAccept: a nil accept function accepts every entry.
func testAppendNilAccept(t *testing.T, s Store) {
	res, err := s.Append(context.Background(), "c1", []rankd.LogEntry{judgement("j1", "a"), judgement("j1", "a")}, nil)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	checkResults(t, "Append", res, []rankd.AppendResult{stored(1), dup(1)})
}

// testAppendDecided: Append calls the function of rankd.WithDecided once, after accept has seen every entry
// to store and before they are durable (the log does not hold them yet); the engine lets the public view's
// readers in then.
func testAppendDecided(t *testing.T, s Store) {
	ctx := context.Background()
	MustAppend(t, s, "c1", judgement("j1", "a"))
	var accepted []int
	calls := 0
	ctx = rankd.WithDecided(ctx, func() {
		calls++
		if !slices.Equal(accepted, []int{1, 2}) {
			t.Errorf("decided after accepting entries %v, want after 1 and 2 (0 is a duplicate)", accepted)
		}
		n := 0
		err := s.Replay(context.Background(), "c1", 0, func(*rankd.LogEntry) error { n++; return nil })
		if err != nil || n != 1 {
			t.Errorf("the log when decided: got %d entries (%v), want the 1 stored before the call", n, err)
		}
	})
	_, err := s.Append(ctx, "c1", []rankd.LogEntry{judgement("j1", "a"), judgement("j2", "b"), judgement("j3", "c")},
		func(i int) error { accepted = append(accepted, i); return nil })
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if calls != 1 {
		t.Errorf("got the decided function called %d times, want once", calls)
	}
}

// testAppendCanceled: a call whose context ends midway stores nothing, not even the entries accept approved
// before.
func testAppendCanceled(t *testing.T, s Store) {
	MustAppend(t, s, "c1", Submission("s1", "t1", "A", 60e9))
	for _, contestID := range []string{"c1", "c2"} { // a contest with a log, and one that would get its first
		t.Run(contestID, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			entries := []rankd.LogEntry{Submission("s2", "t1", "A", 70e9), judgement("j1", "a"),
				Delete(rankd.EventSubmission, "s1"), judgement("j2", "b")}
			_, err := s.Append(ctx, contestID, entries, func(i int) error {
				if i == 2 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Append cancelled midway: got error %v, want context.Canceled", err)
			}
			_, err = s.Append(ctx, contestID, []rankd.LogEntry{judgement("j3", "c")}, nil)
			if err == nil {
				t.Errorf("Append with a cancelled context: got no error")
			}
		})
	}
	if log := MustReplay(t, s, "c1", 0); len(log) != 1 {
		t.Errorf("c1: got %d entries, want 1", len(log))
	}
	if log := MustReplay(t, s, "c2", 0); len(log) != 0 {
		t.Errorf("c2: got %d entries, want 0", len(log))
	}
	if subs := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); len(subs) != 1 || subs[0].ID != "s1" {
		t.Errorf("c1 submissions: got %+v, want s1 alone", subs)
	}
	if ids, err := s.Contests(context.Background()); err != nil || !slices.Equal(ids, []string{"c1"}) {
		t.Errorf("Contests: got %q, %v; want [c1]", ids, err)
	}
	// The log goes on from where it was.
	checkResults(t, "Append after", MustAppend(t, s, "c1", judgement("j1", "a")), []rankd.AppendResult{stored(2)})
}

// testAppendConcurrent: concurrent calls, for one contest and for several, lose nothing and leave no gap;
// an entry sent by every caller is stored once.
func testAppendConcurrent(t *testing.T, s Store) {
	const (
		workers = 8
		calls   = 10
		size    = 5
	)
	contests := []string{"c1", "c2"}
	type outcome struct {
		contest string
		token   string
		res     rankd.AppendResult
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
		wg       sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			for c := range calls {
				contestID := contests[(w+c)%len(contests)]
				var entries []rankd.LogEntry
				for k := range size {
					id := fmt.Sprintf("w%d-c%d-k%d", w, c, k)
					entries = append(entries, WithToken(judgement(id, id), id))
				}
				// Every worker sends this one: one of them stores it.
				entries = append(entries, WithToken(judgement("shared", "shared"), "shared"))
				res, err := s.Append(context.Background(), contestID, entries, nil)
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				mu.Lock()
				for i, r := range res {
					outcomes = append(outcomes, outcome{contestID, entries[i].Token, r})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, contestID := range contests {
		log := MustReplay(t, s, contestID, 0)
		pos := make(map[string]int64)
		for i, e := range log {
			if e.Pos != int64(i+1) {
				t.Fatalf("%s: entry %d has pos %d, want %d", contestID, i, e.Pos, i+1)
			}
			if _, ok := pos[e.Token]; ok {
				t.Errorf("%s: token %s stored twice", contestID, e.Token)
			}
			pos[e.Token] = e.Pos
		}
		var kept, dups int
		for _, o := range outcomes {
			if o.contest != contestID {
				continue
			}
			if o.res.Duplicate {
				dups++
			} else {
				kept++
			}
			if o.res.Err != nil || pos[o.token] != o.res.Pos {
				t.Errorf("%s: token %s: got result %+v, log has it at %d", contestID, o.token, o.res, pos[o.token])
			}
		}
		if kept != len(log) {
			t.Errorf("%s: %d entries reported stored, log has %d", contestID, kept, len(log))
		}
		if want := workers*calls/len(contests)*size + 1; len(log) != want {
			t.Errorf("%s: got %d entries, want %d", contestID, len(log), want)
		}
		if want := workers*calls/len(contests) - 1; dups != want {
			t.Errorf("%s: got %d duplicates, want %d", contestID, dups, want)
		}
	}
}

func testReplay(t *testing.T, s Store) {
	entries := []rankd.LogEntry{
		WithToken(Submission("s1", "t1", "A", 60e9), "tok1"),
		judgement("j1", "a"),
		WithToken(judgement("j2", "b"), "tok3"),
		Delete(rankd.EventSubmission, "s1"),
		problem("p1", "\x00binary\xff"),
		hashed(problem("p2", "x"), "ABCDEF"), // stores treat hashes as opaque strings
		hashed(problem("p3", "y"), "abc"),
		hashed(problem("p4", "z"), ""),
	}
	MustAppend(t, s, "c1", entries...)
	MustAppend(t, s, "c2", judgement("other", "other"))

	all := MustReplay(t, s, "c1", 0)
	if len(all) != len(entries) {
		t.Fatalf("got %d entries, want %d", len(all), len(entries))
	}
	for i, e := range all {
		w := entries[i]
		if e.Pos != int64(i+1) || string(e.Data) != string(w.Data) || e.Hash != w.Hash || e.Token != w.Token {
			t.Errorf("entry %d: got pos %d, data %q, hash %q, token %q; want %d, %q, %q, %q",
				i, e.Pos, e.Data, e.Hash, e.Token, i+1, w.Data, w.Hash, w.Token)
		}
		if e.Stored.IsZero() {
			t.Errorf("entry %d: Stored is zero", i)
		}
		// The log's truth is Data: the event is not decoded.
		if e.Event.Type != rankd.EventUnknown || e.Event.ID != "" || e.Event.Submission != nil {
			t.Errorf("entry %d: got event %+v, want it zero", i, e.Event)
		}
	}
	if again := MustReplay(t, s, "c1", 0); !again[0].Stored.Equal(all[0].Stored) {
		t.Errorf("Stored read twice: got %v and %v", all[0].Stored, again[0].Stored)
	}

	tests := []struct {
		after int64
		want  []int64
	}{
		{-1, []int64{1, 2, 3, 4, 5, 6, 7, 8}},
		{0, []int64{1, 2, 3, 4, 5, 6, 7, 8}},
		{1, []int64{2, 3, 4, 5, 6, 7, 8}},
		{7, []int64{8}},
		{8, nil},
		{100, nil},
	}
	for _, tt := range tests {
		var got []int64
		for _, e := range MustReplay(t, s, "c1", tt.after) {
			got = append(got, e.Pos)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Replay after %d: got positions %v, want %v", tt.after, got, tt.want)
		}
	}
	if got := MustReplay(t, s, "unknown", 0); len(got) != 0 {
		t.Errorf("Replay of an unknown contest: got %d entries, want none", len(got))
	}
}

// testReplayStops: Replay stops at fn's first error and returns it.
func testReplayStops(t *testing.T, s Store) {
	MustAppend(t, s, "c1", judgement("j1", "a"), judgement("j2", "b"), judgement("j3", "c"))
	errStop := errors.New("stop")
	var calls int
	err := s.Replay(context.Background(), "c1", 0, func(e *rankd.LogEntry) error {
		calls++
		if e.Pos == 2 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Errorf("got error %v, want %v", err, errStop)
	}
	if calls != 2 {
		t.Errorf("got %d calls, want 2", calls)
	}
}

func testContests(t *testing.T, s Store) {
	ctx := context.Background()
	for _, id := range []string{"b", "a", "c", "B"} {
		MustAppend(t, s, id, judgement("j1", "a"))
	}
	MustAppend(t, s, "a", judgement("j2", "b"))
	// Nothing stored, no log.
	if _, err := s.Append(ctx, "d", []rankd.LogEntry{judgement("j1", "a")}, func(int) error { return errRefused }); err != nil {
		t.Fatalf("Append: %v", err)
	}
	ids, err := s.Contests(ctx)
	if err != nil {
		t.Fatalf("Contests: %v", err)
	}
	// Bytewise order, whatever the database's collation.
	if want := []string{"B", "a", "b", "c"}; !slices.Equal(ids, want) {
		t.Errorf("got %q, want %q", ids, want)
	}
}
