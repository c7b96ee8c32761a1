package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/gen"
	"rankd/sqlite"
)

// failingStore is a store whose Append can be made to fail after it accepted the entries, as a disk that
// fails at commit would.
type failingStore struct {
	*sqlite.DB
	fail atomic.Bool
	// down makes reads fail too, as a store that cannot be reached.
	down atomic.Bool
	// slow is how long Replay takes for each entry (a store far away, a long log).
	slow atomic.Int64
	// slowApply is how long each entry of an Append takes to apply (a cell of many submissions).
	slowApply atomic.Int64
}

var errDisk = errors.New("disk on fire")

func (s *failingStore) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	if s.down.Load() {
		return errDisk
	}
	return s.DB.Replay(ctx, contestID, after, func(le *rankd.LogEntry) error {
		time.Sleep(time.Duration(s.slow.Load()))
		return fn(le)
	})
}

func (s *failingStore) LatestCheckpoint(ctx context.Context, contestID string) (rankd.Checkpoint, error) {
	if s.down.Load() {
		return rankd.Checkpoint{}, errDisk
	}
	return s.DB.LatestCheckpoint(ctx, contestID)
}

func (s *failingStore) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if d := time.Duration(s.slowApply.Load()); d > 0 {
		inner := accept
		accept = func(i int) error {
			time.Sleep(d)
			return inner(i)
		}
	}
	if s.fail.Load() {
		for i := range entries {
			if err := accept(i); err != nil {
				continue
			}
		}
		return nil, errDisk
	}
	return s.DB.Append(ctx, contestID, entries, accept)
}

// MustIngestCount returns rankd_ingest_events_total of a status, as reg gathers it.
func MustIngestCount(tb testing.TB, reg *prometheus.Registry, status string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "rankd_ingest_events_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" && l.GetValue() == status {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func MustOpenStore(tb testing.TB, dir string) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

func MustOpenEngine(tb testing.TB, store engine.Store) *engine.Engine {
	tb.Helper()
	e := engine.New(store, nil)
	e.CheckpointEvery = 500
	if err := e.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return e
}

// genEntries returns a generated contest as log entries.
func genEntries(tb testing.TB, cfg gen.Config) []rankd.LogEntry {
	tb.Helper()
	var entries []rankd.LogEntry
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		entries = append(entries, e)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return entries
}

// contestEntries returns a small generated contest as log entries.
func contestEntries(tb testing.TB) []rankd.LogEntry {
	tb.Helper()
	return genEntries(tb, gen.Config{Seed: 3, ContestID: "c", Teams: 20, Problems: 5, Submissions: 600})
}

// MustStandings returns the whole jury board of a contest and its sequence number.
func MustStandings(tb testing.TB, e *engine.Engine, id string) rankd.Standings {
	tb.Helper()
	var st rankd.Standings
	err := e.Read(id, func(b *board.Board, _ int64) error {
		var err error
		st, err = b.Standings(rankd.JuryView, 0, -1)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

func equalStandings(x, y rankd.Standings) bool {
	if x.Seq != y.Seq || x.Total != y.Total || len(x.Rows) != len(y.Rows) {
		return false
	}
	for i := range x.Rows {
		a, b := x.Rows[i], y.Rows[i]
		if a.Rank != b.Rank || a.TeamID != b.TeamID || a.Solved != b.Solved || a.Penalty != b.Penalty || len(a.Cells) != len(b.Cells) {
			return false
		}
		for j := range a.Cells {
			if a.Cells[j] != b.Cells[j] {
				return false
			}
		}
	}
	return true
}

// A commit that fails leaves the board as the log is: what was applied for it is undone, the caller
// is told to retry, and a retry succeeds.
func TestFailedCommitLeavesNothing(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	reg := prometheus.NewRegistry()
	e := engine.New(store, engine.NewMetrics(reg))
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	entries := contestEntries(t)
	half := len(entries) / 2
	if _, err := e.Submit(ctx, "c", entries[:half]); err != nil {
		t.Fatal(err)
	}
	before := MustStandings(t, e, "c")

	store.fail.Store(true)
	_, err := e.Submit(ctx, "c", entries[half:])
	if code := rankd.ErrorCode(err); code != rankd.EUNAVAILABLE {
		t.Fatalf("failed commit: got %v (code %q), want code %s", err, code, rankd.EUNAVAILABLE)
	}
	if after := MustStandings(t, e, "c"); !equalStandings(after, before) {
		t.Fatal("the board kept events whose commit failed")
	}
	// The metrics count them, as events not stored (they counted nowhere).
	if got, want := MustIngestCount(t, reg, "unavailable"), float64(len(entries)-half); got != want {
		t.Errorf("rankd_ingest_events_total{status=\"unavailable\"}: got %v, want %v", got, want)
	}

	store.fail.Store(false)
	res, err := e.Submit(ctx, "c", entries[half:])
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != engine.StatusAccepted && r.Status != engine.StatusDuplicate {
			t.Fatalf("retry, entry %d: got %+v", i, r)
		}
	}
}

// A board rebuilt after a failed commit from a log that takes longer to replay than a commit may take, the
// replay moving on all along, is rebuilt: given up at the commit's timeout, it was never rebuilt, and the
// contest answered 503 for good.
func TestSlowRebuildCompletes(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	e := engine.New(store, nil)
	e.CommitTimeout = 300 * time.Millisecond
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries[:len(entries)-1]); err != nil {
		t.Fatal(err)
	}
	store.slow.Store(int64(time.Millisecond)) // about 1.3 s to replay: four times the timeout
	store.fail.Store(true)
	if _, err := e.Submit(ctx, "c", entries[len(entries)-1:]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("failed commit: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	if err := e.Read("c", func(*board.Board, int64) error { return nil }); err != nil {
		t.Fatalf("after the rebuild: got %v, want the board readable", err)
	}
}

// A commit whose events take longer to apply than the commit timeout, the store answering all along, is
// stored: it failed, and its board was rebuilt (a batch of many submissions in one cell).
func TestSlowApplyCommits(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	e := engine.New(store, nil)
	e.CommitTimeout = 200 * time.Millisecond
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	store.slowApply.Store(int64(2 * time.Millisecond))
	entries := contestEntries(t)[:300] // about 0.6 s to apply: three times the timeout
	if _, err := e.Submit(ctx, "c", entries); err != nil {
		t.Fatalf("a commit slow to apply: got %v, want it stored", err)
	}
}

// A commit that fails while the store cannot be read either leaves a board nobody reads (it may hold the
// failed events) until the store is back: the next commit rebuilds it from the log first.
func TestStoreDownThenBack(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	e := MustOpenEngine(t, store)
	logPath := filepath.Join(t.TempDir(), "log") // a file: the engine's goroutines write it, the test reads it
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	e.Logger = slog.New(slog.NewTextHandler(logFile, nil))
	defer e.Close(ctx)
	entries := contestEntries(t)
	half := len(entries) / 2
	if _, err := e.Submit(ctx, "c", entries[:half]); err != nil {
		t.Fatal(err)
	}
	before := MustStandings(t, e, "c")

	store.fail.Store(true)
	store.down.Store(true)
	for range 3 { // then the board is still stale and the store still down
		if _, err := e.Submit(ctx, "c", entries[half:]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
			t.Fatalf("store down: got %v, want code %s", err, rankd.EUNAVAILABLE)
		}
	}
	// Each request's commit fails to rebuild the board: the log says so once, not per request.
	if logs, err := os.ReadFile(logPath); err != nil || strings.Count(string(logs), "rebuilding a board from the log failed") != 1 {
		t.Errorf("the rebuild's failure logged %d times (%v), want once:\n%s", strings.Count(string(logs), "rebuilding a board from the log failed"), err, logs)
	}
	err = e.Read("c", func(*board.Board, int64) error { return nil })
	if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("read while the board is stale: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}

	store.fail.Store(false)
	store.down.Store(false)
	if _, err := e.Submit(ctx, "c", entries[half:half+1]); err != nil {
		t.Fatal(err)
	}
	b := board.New()
	for i := range entries[:half+1] {
		if _, err := b.Apply(&entries[i].Event); err != nil {
			t.Fatal(err)
		}
	}
	want, err := b.Standings(rankd.JuryView, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := MustStandings(t, e, "c"); !equalStandings(got, want) || equalStandings(got, before) {
		t.Fatal("after the store came back: the board is not the log's")
	}
}

// Closing commits what is queued and checkpoints; opening again restores the same board from the
// checkpoint and the log after it, sequence numbers included.
func TestCloseAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := MustOpenStore(t, dir)
	e := MustOpenEngine(t, store)
	entries := contestEntries(t)
	var wg sync.WaitGroup
	// Concurrent submitters of the same events: group commit takes them together, duplicates change nothing.
	for range 4 {
		wg.Go(func() {
			for i := 0; i < len(entries); i += 100 {
				if _, err := e.Submit(ctx, "c", entries[i:min(i+100, len(entries))]); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	want := MustStandings(t, e, "c")
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(ctx, "c", entries[:1]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("submit after close: got %v, want %s", err, rankd.EUNAVAILABLE)
	}
	if _, err := store.LatestCheckpoint(ctx, "c"); err != nil {
		t.Fatalf("no checkpoint after close: %v", err)
	}
	store.Close()

	store = MustOpenStore(t, dir)
	defer store.Close()
	e = MustOpenEngine(t, store)
	defer e.Close(ctx)
	if !e.Ready() {
		t.Error("not ready after Open")
	}
	if got := MustStandings(t, e, "c"); !equalStandings(got, want) {
		t.Errorf("restored board differs: got seq %d, %d rows; want seq %d, %d rows", got.Seq, len(got.Rows), want.Seq, len(want.Rows))
	}
}

func TestUnknownContest(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	entries := contestEntries(t)
	// A submission of a contest nobody defined.
	if _, err := e.Submit(ctx, "nope", entries[len(entries)-1:]); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("got %v, want %s", err, rankd.ENOTFOUND)
	}
	// A contest event under another id.
	if _, err := e.Submit(ctx, "other", entries[:1]); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Errorf("got %v, want %s", err, rankd.EINVALID)
	}
	if err := e.Read("nope", func(*board.Board, int64) error { return nil }); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("read: got %v, want %s", err, rankd.ENOTFOUND)
	}
}

// Limits refuses an event that would leave the contest's definition beyond them; nothing of it is stored.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	e := engine.New(MustOpenStore(t, t.TempDir()), nil)
	e.Limits = func(c rankd.Contest, problems []rankd.Problem) error {
		if len(problems) > 2 || c.Duration > 5*time.Hour {
			return rankd.Errorf(rankd.EINVALID, "too big")
		}
		return nil
	}
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	contest := func(d time.Duration) rankd.Event {
		return rankd.Event{Type: rankd.EventContest, Contest: &rankd.Contest{ID: "c", Name: "C", Rules: rankd.ICPC,
			Start: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Duration: d, PenaltyTime: 20 * time.Minute}}
	}
	problem := func(id string) rankd.Event {
		return rankd.Event{Type: rankd.EventProblem, ID: id, Problem: &rankd.Problem{ID: id, Label: id, Name: id}}
	}
	for _, tc := range []struct {
		ev   rankd.Event
		want string
	}{
		{contest(5 * time.Hour), engine.StatusAccepted},
		{problem("A"), engine.StatusAccepted},
		{problem("B"), engine.StatusAccepted},
		{problem("C"), engine.StatusRejected},
		{problem("B"), engine.StatusDuplicate},
		{contest(6 * time.Hour), engine.StatusRejected},
		{rankd.Event{Type: rankd.EventProblem, ID: "B", Delete: true}, engine.StatusAccepted},
		{problem("C"), engine.StatusAccepted},
	} {
		entry, err := engine.Entry(tc.ev)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Submit(ctx, "c", []rankd.LogEntry{entry})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Status != tc.want {
			t.Errorf("%s %s: got %+v, want %s", tc.ev.Type, tc.ev.ID, res[0], tc.want)
		}
	}
}

// Checkpoints are taken while the contest goes on, behind the committer: each restores the board that the
// log up to its position builds, and the gap between two grows with the log (CheckpointEvery, then as many
// entries as the last checkpoint held, up to 8 times CheckpointEvery).
func TestCheckpointsBehindCommits(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store) // a checkpoint every 500 entries at first
	defer e.Close(ctx)
	entries := contestEntries(t)
	var saved []int64
	for i := 0; i < len(entries); i += 50 {
		res, err := e.Submit(ctx, "c", entries[i:min(i+50, len(entries))])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != engine.StatusAccepted {
				t.Fatalf("entry: got %+v, want accepted", r)
			}
		}
		// Let the checkpoint due, if one is, finish before more entries come.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			cp, err := store.LatestCheckpoint(ctx, "c")
			pos := int64(i + 50)
			due := len(saved) == 0 && pos >= 500 || len(saved) > 0 && pos-saved[len(saved)-1] >= max(500, saved[len(saved)-1])
			if err == nil && (len(saved) == 0 || cp.Pos != saved[len(saved)-1]) {
				saved = append(saved, cp.Pos)
				mustRestoreAs(t, cp, entries[:cp.Pos])
				break
			}
			if !due || time.Now().After(deadline) {
				break
			}
		}
	}
	if len(saved) < 2 || saved[0] < 500 || saved[1]-saved[0] < max(500, saved[0]) {
		t.Errorf("checkpoints at %v of %d entries; want the first after 500, the next at least as many after", saved, len(entries))
	}
}

// mustRestoreAs checks that a checkpoint restores the board that applying entries builds.
func mustRestoreAs(tb testing.TB, cp rankd.Checkpoint, entries []rankd.LogEntry) {
	tb.Helper()
	got, err := board.Restore(cp.Data)
	if err != nil {
		tb.Fatal(err)
	}
	want := board.New()
	for i := range entries {
		if _, err := want.Apply(&entries[i].Event); err != nil {
			tb.Fatal(err)
		}
	}
	g, err := got.Standings(rankd.JuryView, 0, -1)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := want.Standings(rankd.JuryView, 0, -1)
	if err != nil {
		tb.Fatal(err)
	}
	if !equalStandings(g, w) {
		tb.Errorf("checkpoint at %d: its board is not the log's (seq %d, want %d)", cp.Pos, g.Seq, w.Seq)
	}
}

// blockingStore holds the first read of a checkpoint after it is armed until the read's context ends, as a
// slow disk would.
type blockingStore struct {
	*sqlite.DB
	armed   atomic.Bool
	entered chan struct{}
}

func (s *blockingStore) LatestCheckpoint(ctx context.Context, contestID string) (rankd.Checkpoint, error) {
	if s.armed.CompareAndSwap(true, false) {
		close(s.entered)
		<-ctx.Done()
		return rankd.Checkpoint{}, ctx.Err()
	}
	return s.DB.LatestCheckpoint(ctx, contestID)
}

// Close does not wait for a checkpoint being taken behind the committer: it stops it and checkpoints the
// board itself.
func TestCloseStopsBackgroundCheckpoint(t *testing.T) {
	ctx := context.Background()
	store := &blockingStore{DB: MustOpenStore(t, t.TempDir()), entered: make(chan struct{})}
	defer store.Close()
	e := MustOpenEngine(t, store) // a checkpoint every 500 entries
	store.armed.Store(true)
	entries := contestEntries(t)[:600]
	if _, err := e.Submit(ctx, "c", entries); err != nil {
		t.Fatal(err)
	}
	select {
	case <-store.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no checkpoint started after 600 entries")
	}
	if err := MustCloseWithin(t, e, ctx, "Close waits for the checkpoint behind the committer"); err != nil {
		t.Fatal(err)
	}
	cp, err := store.LatestCheckpoint(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Pos != int64(len(entries)) {
		t.Errorf("checkpoint at %d after Close, want %d", cp.Pos, len(entries))
	}
	mustRestoreAs(t, cp, entries)
}

// A board left stale (a commit failed and the store was down for its rebuild) is rebuilt once the store is
// back when readers come, without waiting for another event.
func TestStaleBoardRebuiltForReaders(t *testing.T) {
	ctx := context.Background()
	store := &failingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries[:100]); err != nil {
		t.Fatal(err)
	}
	store.fail.Store(true)
	store.down.Store(true)
	if _, err := e.Submit(ctx, "c", entries[100:]); rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Fatalf("store down: got %v, want code %s", err, rankd.EUNAVAILABLE)
	}
	store.fail.Store(false)
	store.down.Store(false)
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err = e.Read("c", func(_ *board.Board, pos int64) error {
			if pos != 100 {
				t.Errorf("rebuilt at %d, want 100", pos)
			}
			return nil
		}); err == nil {
			return
		}
	}
	t.Fatalf("read after the store came back, without another event: still %v", err)
}

// MustCloseWithin closes e with ctx and returns what Close returned, failing the test with hang if Close has
// not returned within 10 s.
func MustCloseWithin(tb testing.TB, e *engine.Engine, ctx context.Context, hang string) error {
	tb.Helper()
	closed := make(chan error, 1)
	go func() { closed <- e.Close(ctx) }()
	select {
	case err := <-closed:
		return err
	case <-time.After(10 * time.Second):
		tb.Fatal(hang)
		return nil
	}
}

// A contest whose only definition is refused is not created: it stays unknown, rather than held by the
// engine with no definition (a phantom, listed nowhere, that took the next requests' events only to refuse
// them one by one).
func TestRefusedDefinitionCreatesNoContest(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	bad, err := engine.Entry(rankd.Event{Type: rankd.EventContest, ID: "phantom", Contest: &rankd.Contest{ID: "phantom"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(ctx, "phantom", []rankd.LogEntry{bad}); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Errorf("a contest without a duration: got %v, want code %s", err, rankd.EINVALID)
	}
	if ids := e.ContestIDs(); len(ids) != 0 {
		t.Errorf("contests held: got %v, want none", ids)
	}
	sub, err := engine.Entry(rankd.Event{Type: rankd.EventSubmission, ID: "s1",
		Submission: &rankd.Submission{ID: "s1", TeamID: "t1", ProblemID: "A"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(ctx, "phantom", []rankd.LogEntry{sub}); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("an event of the refused contest: got %v, want code %s", err, rankd.ENOTFOUND)
	}
}

// A new contest's id must be a CCS identifier: one with a slash, a space or a question mark could be created
// but never addressed in a URL.
func TestNewContestIDs(t *testing.T) {
	ctx := context.Background()
	store := MustOpenStore(t, t.TempDir())
	defer store.Close()
	e := MustOpenEngine(t, store)
	defer e.Close(ctx)
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"wf47_finals", true}, {"euc-2025.1", true}, {"A", true}, {"x/y", false}, {"a b", false}, {"q?x=1", false},
		{".hidden", false}, {"é", false}, {"abcdefghijklmnopqrstuvwxyz0123456789x", false},
	} {
		def, err := engine.Entry(rankd.Event{Type: rankd.EventContest, ID: tc.id, Contest: &rankd.Contest{ID: tc.id, Duration: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Submit(ctx, tc.id, []rankd.LogEntry{def})
		if got := err == nil; got != tc.ok {
			t.Errorf("contest id %q: got %v, want accepted %v", tc.id, err, tc.ok)
		}
	}
}

// Entry refuses ids and texts no store could keep as text, and keeps what it can: an id that is not UTF-8
// or holds a NUL, and a NUL in a name, are refused; invalid bytes in a name become U+FFFD in the log line.
func TestEntryText(t *testing.T) {
	team := func(id, name string) rankd.Event {
		return rankd.Event{Type: rankd.EventTeam, ID: id, Team: &rankd.Team{ID: id, Name: name}}
	}
	for _, tt := range []struct {
		name     string
		ev       rankd.Event
		code     string
		wantLine string
	}{
		{"plain", team("t1", "Team"), "", `"name":"Team"`},
		{"invalid bytes in a name", team("t1", "a\xffb"), "", "\"name\":\"a\uFFFDb\""},
		{"NUL in a name", team("t1", "a\x00b"), rankd.EINVALID, ""},
		{"invalid id", team("t\xff", "Team"), rankd.EINVALID, ""},
		{"NUL in an id", team("t\x00", "Team"), rankd.EINVALID, ""},
	} {
		e, err := engine.Entry(tt.ev)
		if rankd.ErrorCode(err) != tt.code || !strings.Contains(string(e.Data), tt.wantLine) {
			t.Errorf("%s: got %q, %v; want code %q and a line with %s", tt.name, e.Data, err, tt.code, tt.wantLine)
		}
	}
}
