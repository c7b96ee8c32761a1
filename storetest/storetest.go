// Package storetest is the conformance suite of rankd's stores. Every store (the embedded sqlite one, the
// PostgreSQL one) runs it from its own tests, so that the engine finds the same behaviour over each:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Store { return MustOpen(t) })
//	}
//
// It checks the interfaces' documented semantics, not a store's internals (durability across a restart,
// migrations and the like are each store's own tests). The helpers it uses are exported for those tests.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"rankd"
)

// Store is everything a rankd store implements.
type Store interface {
	rankd.EventLog
	rankd.CheckpointStore
	rankd.SubmissionStore
	rankd.TokenStore
	rankd.FinalStore
	rankd.ContestDeleter
}

// Run runs the suite. open returns a new, empty store for each test it is called with, and closes it when
// the test ends (t.Cleanup). The tests do not run in parallel, so a store over a shared server can be
// emptied by open.
func Run(t *testing.T, open func(t *testing.T) Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, Store)
	}{
		{"Append", testAppend},
		{"AppendModel", testAppendModel},
		{"AppendDropTakenToken", testAppendDropTakenToken},
		{"AppendEmpty", testAppendEmpty},
		{"AppendNoContest", testAppendNoContest},
		{"AppendNilAccept", testAppendNilAccept},
		{"AppendDecided", testAppendDecided},
		{"AppendCanceled", testAppendCanceled},
		{"AppendConcurrent", testAppendConcurrent},
		{"Replay", testReplay},
		{"ReplayStops", testReplayStops},
		{"Contests", testContests},
		{"Began", testBegan},
		{"Checkpoints", testCheckpoints},
		{"Submissions", testSubmissions},
		{"SubmissionVersions", testSubmissionVersions},
		{"Tokens", testTokens},
		{"TokenInvalid", testTokenInvalid},
		{"Canceled", testCanceled},
		{"Final", testFinal},
		{"FinalConcurrent", testFinalConcurrent},
		{"FinalOfAnotherLog", testFinalOfAnotherLog},
		{"DeleteContest", testDeleteContest},
		{"DeleteContestConcurrent", testDeleteContestConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// Hash returns the hash the suite gives data: hex SHA-256. Stores treat hashes as opaque strings.
func Hash(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

// Entry returns a log entry of an object: its Event carries only the type and id (enough for the log's
// deduplication), Data is data, Hash is Hash(data).
func Entry(typ rankd.EventType, id, data string) rankd.LogEntry {
	return rankd.LogEntry{Event: rankd.Event{Type: typ, ID: id}, Data: []byte(data), Hash: Hash(data)}
}

// Submission returns the log entry of a submission, with an event-feed-like line as its data.
func Submission(id, teamID, problemID string, t time.Duration) rankd.LogEntry {
	data := fmt.Sprintf(`{"type":"submissions","id":%q,"data":{"id":%q,"team_id":%q,"problem_id":%q,"contest_time_ms":%d}}`,
		id, id, teamID, problemID, t.Milliseconds())
	e := Entry(rankd.EventSubmission, id, data)
	e.Event.Submission = &rankd.Submission{ID: id, TeamID: teamID, ProblemID: problemID, Time: t}
	return e
}

// Delete returns the log entry of the deletion of an object.
func Delete(typ rankd.EventType, id string) rankd.LogEntry {
	e := Entry(typ, id, fmt.Sprintf(`{"type":%q,"id":%q,"data":null}`, typ, id))
	e.Event.Delete = true
	return e
}

// Marked returns e marked with the hash of its object's deletion (see rankd.LogEntry.Deletion), as the engine
// marks a submission or judgement with a token.
func Marked(e rankd.LogEntry) rankd.LogEntry {
	e.Deletion = Delete(e.Event.Type, e.Event.ID).Hash
	return e
}

// Own returns e marked as the server's own event (see rankd.LogEntry.Own).
func Own(e rankd.LogEntry) rankd.LogEntry {
	e.Own = true
	return e
}

// WithToken returns e with token t.
func WithToken(e rankd.LogEntry, t string) rankd.LogEntry {
	e.Token = t
	e.Event.Token = t
	return e
}

// MustAppend appends entries, accepting each, and fails tb on an error.
func MustAppend(tb testing.TB, l rankd.EventLog, contestID string, entries ...rankd.LogEntry) []rankd.AppendResult {
	tb.Helper()
	res, err := l.Append(context.Background(), contestID, entries, func(int) error { return nil })
	if err != nil {
		tb.Fatalf("Append(%s, %d entries): %v", contestID, len(entries), err)
	}
	if len(res) != len(entries) {
		tb.Fatalf("Append(%s): got %d results, want %d", contestID, len(res), len(entries))
	}
	return res
}

// MustReplay returns the entries of a contest after position after, and fails tb on an error.
func MustReplay(tb testing.TB, l rankd.EventLog, contestID string, after int64) []rankd.LogEntry {
	tb.Helper()
	var entries []rankd.LogEntry
	err := l.Replay(context.Background(), contestID, after, func(e *rankd.LogEntry) error {
		entries = append(entries, *e)
		return nil
	})
	if err != nil {
		tb.Fatalf("Replay(%s, %d): %v", contestID, after, err)
	}
	return entries
}

// MustSubmissions returns a page of submissions, and fails tb on an error.
func MustSubmissions(tb testing.TB, s rankd.SubmissionStore, contestID string, f rankd.SubmissionFilter) []rankd.SubmissionRecord {
	tb.Helper()
	subs, err := s.Submissions(context.Background(), contestID, f)
	if err != nil {
		tb.Fatalf("Submissions(%s, %+v): %v", contestID, f, err)
	}
	return subs
}

// checkCode fails t unless err has the code.
func checkCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := rankd.ErrorCode(err); got != code {
		t.Errorf("%s: got error %v (code %q), want code %q", what, err, got, code)
	}
}
