package finalize_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/finalize"
	"rankd/gen"
	"rankd/postgres"
	"rankd/postgres/pgtest"
	"rankd/sqlite"
)

// contestEntries returns a generated contest that ended long ago, as log entries.
func contestEntries(tb testing.TB) []rankd.LogEntry {
	tb.Helper()
	var entries []rankd.LogEntry
	err := gen.Generate(gen.Config{Seed: 2, ContestID: "c", Teams: 30, Problems: 5, Submissions: 500}, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		entries = append(entries, e)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return entries
}

// store is what a test needs of a store.
type store interface {
	engine.Store
	rankd.FinalStore
}

// MustEngine returns an engine over st holding the generated contest.
func MustEngine(tb testing.TB, st store) *engine.Engine {
	tb.Helper()
	e := engine.New(st, nil)
	if err := e.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close(context.Background()) })
	if _, err := e.Submit(context.Background(), "c", contestEntries(tb)); err != nil {
		tb.Fatal(err)
	}
	return e
}

// MustContestStore opens a store in a new directory and an engine over it holding the generated contest;
// both close when the test ends.
func MustContestStore(tb testing.TB) (*sqlite.DB, *engine.Engine, string) {
	tb.Helper()
	dir := tb.TempDir()
	st, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st, MustEngine(tb, st), dir
}

// flaky is a Builder that fails its first fails calls of Final, and can hold them until released.
type flaky struct {
	finalize.Builder
	fails  atomic.Int32
	calls  atomic.Int32
	hold   chan struct{} // when not nil, Final waits for it to close, whatever its ctx says
	holden chan struct{} // closed when a call is held
	once   sync.Once
	// endUnavailable: End fails with EUNAVAILABLE this many times first (a server still restoring).
	endUnavailable atomic.Int32
}

var errInjected = errors.New("injected failure")

func (f *flaky) End(id string) (time.Time, error) {
	if f.endUnavailable.Add(-1) >= 0 {
		return time.Time{}, rankd.Errorf(rankd.EUNAVAILABLE, "the server is starting; retry")
	}
	return f.Builder.End(id)
}

func (f *flaky) Final(ctx context.Context, id string) (rankd.FinalStandings, error) {
	f.calls.Add(1)
	if f.hold != nil {
		f.once.Do(func() { close(f.holden) })
		<-f.hold
		return rankd.FinalStandings{}, errInjected
	}
	if f.fails.Add(-1) >= 0 {
		return rankd.FinalStandings{}, errInjected
	}
	return f.Builder.Final(ctx, id)
}

func quick(st rankd.FinalStore, b finalize.Builder) finalize.Config {
	return finalize.Config{Store: st, Builder: b, MaxAttempts: 3, Backoff: func(int) time.Duration { return 100 * time.Millisecond },
		RescueAfter: 2 * time.Second, PollEvery: 100 * time.Millisecond, Quiet: 100 * time.Millisecond}
}

// MustLateRun submits an event after contest c's end (a team), then runs a finalization of c by hand.
func MustLateRun(tb testing.TB, e *engine.Engine, s *finalize.Service) {
	tb.Helper()
	late, err := engine.Entry(rankd.Event{Type: rankd.EventTeam, Team: &rankd.Team{ID: "late", Name: "Late"}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := e.Submit(context.Background(), "c", []rankd.LogEntry{late}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		tb.Fatal(err)
	}
}

func MustOpenSQLite(tb testing.TB, path string, cfg finalize.Config) *finalize.Service {
	tb.Helper()
	s, err := finalize.OpenSQLite(context.Background(), path, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// MustScheduleAtEnd schedules the finalization of contest c at its end.
func MustScheduleAtEnd(tb testing.TB, s *finalize.Service, e *engine.Engine) {
	tb.Helper()
	end, err := e.End("c")
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Schedule(context.Background(), "c", end); err != nil {
		tb.Fatal(err)
	}
}

// MustReach waits for a contest's finalization to reach state want, and returns its status.
func MustReach(tb testing.TB, s *finalize.Service, want finalize.State) finalize.Status {
	tb.Helper()
	return MustReachWithin(tb, s, want, 20*time.Second)
}

func MustReachWithin(tb testing.TB, s *finalize.Service, want finalize.State, d time.Duration) finalize.Status {
	tb.Helper()
	var st finalize.Status
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if st, err = s.Status(context.Background(), "c"); err != nil {
			tb.Fatal(err)
		}
		if st.State == want {
			return st
		}
	}
	tb.Fatalf("got state %s (%+v), want %s", st.State, st, want)
	return st
}

// MustMatchBoard checks that the active final standings are the engine's boards.
func MustMatchBoard(tb testing.TB, st rankd.FinalStore, e *engine.Engine) rankd.FinalStandings {
	tb.Helper()
	f, err := st.ActiveFinal(context.Background(), "c")
	if err != nil {
		tb.Fatal(err)
	}
	err = e.Read("c", func(b *board.Board, pos int64) error {
		jury, _ := b.Standings(rankd.JuryView, 0, -1)
		public, _ := b.Standings(rankd.PublicView, 0, -1)
		if f.Pos != pos || !reflect.DeepEqual(f.Jury, jury.Rows) || !reflect.DeepEqual(f.Public, public.Rows) ||
			!reflect.DeepEqual(f.Awards, b.Awards(rankd.PublicView)) {
			tb.Errorf("final standings (version %d at %d) differ from the board at %d", f.Version, f.Pos, pos)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Scheduled at the contest's end (long past): it runs, and the final standings are the board's. Run by hand,
// or scheduled again, it gives the same version.
func TestScheduleAndRunAgain(t *testing.T) {
	st, e, dir := MustContestStore(t)
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, e))
	end, err := e.End("c")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Status(context.Background(), "c"); got.State != finalize.Idle {
		t.Errorf("before: got %s, want %s", got.State, finalize.Idle)
	}
	if err := s.Schedule(context.Background(), "c", end); err != nil {
		t.Fatal(err)
	}
	done := MustReach(t, s, finalize.Done)
	if done.Version != 1 {
		t.Errorf("got version %d, want 1", done.Version)
	}
	MustMatchBoard(t, st, e)
	if err := s.Schedule(context.Background(), "c", end); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	if again := MustReach(t, s, finalize.Done); again.Version != 1 {
		t.Errorf("finalized again: got version %d, want 1", again.Version)
	}
}

// A contest whose feed is still coming after its end (imported afterwards) is finalized once the feed has
// stopped, from the whole of it: its first lines finalized would be served as its final standings until a
// rebuild.
func TestScheduleWaitsForTheFeed(t *testing.T) {
	ctx := context.Background()
	st, e, dir := MustContestStore(t)
	cfg := quick(st, e)
	cfg.Quiet = 500 * time.Millisecond
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), cfg)
	MustScheduleAtEnd(t, s, e)
	// River makes a job scheduled in the past available within a few seconds: the feed comes for longer.
	for i := range 40 {
		late, err := engine.Entry(rankd.Event{Type: rankd.EventTeam, Team: &rankd.Team{ID: fmt.Sprint("late", i), Name: "Late"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Submit(ctx, "c", []rankd.LogEntry{late}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Status(ctx, "c"); err != nil || got.State == finalize.Done || got.Version != 0 {
			t.Fatalf("while the feed comes (event %d): got %+v, %v; want not finalized yet", i, got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if done := MustReach(t, s, finalize.Done); done.Version != 1 {
		t.Errorf("got version %d, want 1: built once", done.Version)
	}
	MustMatchBoard(t, st, e)
}

// A contest whose end moved (earlier, here) is finalized at its new end, and the job that waited for the old one
// goes: the status said "queued" for the old end long after the contest was finalized, and the job would have
// built another version then.
func TestScheduleMovedEnd(t *testing.T) {
	st, e, dir := MustContestStore(t)
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, e))
	end, err := e.End("c")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{time.Now().Add(time.Hour), end} {
		if err := s.Schedule(context.Background(), "c", at); err != nil {
			t.Fatal(err)
		}
	}
	MustReach(t, s, finalize.Done)
	time.Sleep(100 * time.Millisecond)
	if got, err := s.Status(context.Background(), "c"); err != nil || got.State != finalize.Done || got.Version != 1 {
		t.Errorf("after the end moved earlier: got %+v, %v; want done, version 1", got, err)
	}
}

// A scheduled finalization that finds the contest unavailable (its server still restoring it) is tried
// again, not cancelled.
func TestScheduledWhileUnavailable(t *testing.T) {
	st, e, dir := MustContestStore(t)
	f := &flaky{Builder: e}
	f.endUnavailable.Store(2)
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, f))
	end, err := e.End("c")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Schedule(context.Background(), "c", end); err != nil {
		t.Fatal(err)
	}
	MustReach(t, s, finalize.Done)
	MustMatchBoard(t, st, e)
}

// Failures are retried; after MaxAttempts the job is dead with its error, until an operator retries it.
func TestRetriesDeadLetterAndOperatorRetry(t *testing.T) {
	st, e, dir := MustContestStore(t)
	b := &flaky{Builder: e}
	b.fails.Store(3) // every attempt of the first job
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, b))
	if _, err := s.Retry(context.Background(), "c"); rankd.ErrorCode(err) != rankd.ECONFLICT {
		t.Errorf("retry with nothing dead: got %v, want %s", err, rankd.ECONFLICT)
	}
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	dead := MustReach(t, s, finalize.Dead)
	if dead.Attempts != 3 || dead.Error == "" || dead.Version != 0 {
		t.Errorf("dead: got %+v, want 3 attempts, the error, no version", dead)
	}
	if _, err := s.Retry(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	if done := MustReach(t, s, finalize.Done); done.Version != 1 {
		t.Errorf("after the retry: got %+v, want version 1", done)
	}
	if n := b.calls.Load(); n != 4 {
		t.Errorf("got %d builds, want 4", n)
	}
	MustMatchBoard(t, st, e)
}

// A server that dies while building leaves the job running; another one (or the same, restarted) takes it
// up once RescueAfter has passed and completes it, once.
func TestBuildingAbandoned(t *testing.T) {
	st, e, dir := MustContestStore(t)
	jobs := filepath.Join(dir, "jobs.db")
	stuck := &flaky{Builder: e, hold: make(chan struct{}), holden: make(chan struct{})}
	defer close(stuck.hold)
	dying, err := finalize.OpenSQLite(context.Background(), jobs, quick(st, stuck))
	if err != nil {
		t.Fatal(err)
	}
	if err := dying.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := dying.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	<-stuck.holden
	// The server dies: it never finishes the job, nor stops. Another takes over.
	s := MustOpenSQLite(t, jobs, quick(st, e))
	MustReach(t, s, finalize.Building)
	// River looks for abandoned jobs every 30 seconds.
	done := MustReachWithin(t, s, finalize.Done, 90*time.Second)
	if done.Version != 1 {
		t.Errorf("got version %d, want 1", done.Version)
	}
	MustMatchBoard(t, st, e)
}

// Two servers over one PostgreSQL database, both asked to finalize: one version.
func TestTwoServersRacing(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	var services []*finalize.Service
	var engines []*engine.Engine
	for i := range 2 {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		e := engine.New(db, nil)
		e.Shared = true
		if err := e.Open(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(ctx) })
		if i == 0 {
			if _, err := e.Submit(ctx, "c", contestEntries(t)); err != nil {
				t.Fatal(err)
			}
		} else if err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := finalize.NewPostgres(ctx, db.Pool(), quick(db, e))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Stop(ctx) })
		services, engines = append(services, s), append(engines, e)
	}
	end, err := engines[0].End("c")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range services {
		wg.Add(2)
		go func() { defer wg.Done(); _ = s.Schedule(ctx, "c", end) }()
		go func() { defer wg.Done(); _, _ = s.Run(ctx, "c", time.Now()) }()
	}
	wg.Wait()
	for _, s := range services {
		if done := MustReach(t, s, finalize.Done); done.Version != 1 {
			t.Errorf("got version %d, want 1", done.Version)
		}
	}
}

// An operator's retry of a dead finalization gets every attempt again, with backoff: a failure still passing
// (the database back a moment later) does not make it dead again at once.
func TestRetryGetsEveryAttemptAgain(t *testing.T) {
	st, e, dir := MustContestStore(t)
	b := &flaky{Builder: e}
	b.fails.Store(3 + 1) // every attempt of the first job, and the first after the retry
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, b))
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	MustReach(t, s, finalize.Dead)
	if _, err := s.Retry(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, err := s.Status(context.Background(), "c")
		if err != nil {
			t.Fatal(err)
		}
		switch got.State {
		case finalize.Dead:
			t.Fatalf("after the retry and one more failure: got %+v, want it retried until done", got)
		case finalize.Done:
			if got.Version != 1 {
				t.Errorf("got version %d, want 1", got.Version)
			}
			MustMatchBoard(t, st, e)
			return
		}
	}
	t.Fatal("the retried finalization never got done")
}

// early is a Builder whose first Final reads the boards, then waits for release before it hands them over:
// a build in progress while the log goes on.
type early struct {
	finalize.Builder
	calls    atomic.Int32
	building chan struct{} // closed once the first build has read the boards
	release  chan struct{}
}

func (b *early) Final(ctx context.Context, id string) (rankd.FinalStandings, error) {
	f, err := b.Builder.Final(ctx, id)
	if b.calls.Add(1) == 1 {
		close(b.building)
		<-b.release
	}
	return f, err
}

// A finalization asked for while one is building (a thaw or a late rejudge right after the end, when the
// scheduled one runs) must build again: the one building may have read the boards before the change.
func TestRunWhileBuildingBuildsAgain(t *testing.T) {
	st, e, dir := MustContestStore(t)
	b := &early{Builder: e, building: make(chan struct{}), release: make(chan struct{})}
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, b))
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	<-b.building
	MustLateRun(t, e, s)
	close(b.release)
	MustReach(t, s, finalize.Done)
	MustMatchBoard(t, st, e)
}

// The job queue's routine (its migrations, its start and stop) stays out of the log at the info level; the
// finalization itself is logged.
func TestLogsNoQueueRoutine(t *testing.T) {
	st, e, dir := MustContestStore(t)
	var log bytes.Buffer
	cfg := quick(st, e)
	cfg.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), cfg)
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	MustReach(t, s, finalize.Done)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !strings.Contains(line, "level=WARN") && !strings.Contains(line, "level=ERROR") &&
			!strings.Contains(line, `msg="contest finalized"`) {
			t.Errorf("got log line %s; want warnings, errors and finalizations only", line)
		}
	}
	if !strings.Contains(log.String(), `msg="contest finalized"`) {
		t.Errorf("got log\n%s\nwant the finalization in it", log.String())
	}
}

// countingStore counts the final standings read whole.
type countingStore struct {
	rankd.FinalStore
	reads atomic.Int64
}

func (c *countingStore) ActiveFinal(ctx context.Context, id string) (rankd.FinalStandings, error) {
	c.reads.Add(1)
	return c.FinalStore.ActiveFinal(ctx, id)
}

// MustCountedDone returns a service over a contest store whose final standings reads are counted, once it
// has finalized contest c, with the store and the contest's engine.
func MustCountedDone(tb testing.TB) (*finalize.Service, *countingStore, *engine.Engine) {
	tb.Helper()
	st, e, dir := MustContestStore(tb)
	counting := &countingStore{FinalStore: st}
	s := MustOpenSQLite(tb, filepath.Join(dir, "jobs.db"), quick(counting, e))
	if _, err := s.Run(context.Background(), "c", time.Now()); err != nil {
		tb.Fatal(err)
	}
	MustReach(tb, s, finalize.Done)
	return s, counting, e
}

// The metrics say each contest's state without reading its final standings, every scrape, whole.
func TestCollectorReadsNoStandings(t *testing.T) {
	s, counting, _ := MustCountedDone(t)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s.Collector(func() []string { return []string{"c"} }))
	before := counting.reads.Load()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if n := counting.reads.Load() - before; n != 0 {
		t.Errorf("a scrape read the final standings %d times, want 0", n)
	}
	done := 0.0
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "state" && l.GetValue() == string(finalize.Done) {
					done = m.GetGauge().GetValue()
				}
			}
		}
	}
	if done != 1 {
		t.Errorf("got rankd_finalize_state done %v, want 1", done)
	}
}

// endsLater is a builder whose contests end in an hour.
type endsLater struct{ finalize.Builder }

func (endsLater) End(string) (time.Time, error) { return time.Now().Add(time.Hour), nil }

// Finalizing by hand before the end is refused: the final standings would be a running contest's.
func TestRunBeforeTheEnd(t *testing.T) {
	st, e, dir := MustContestStore(t)
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, endsLater{e}))
	if _, err := s.Run(context.Background(), "c", time.Now()); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Fatalf("got %v, want %s", err, rankd.EUNPROCESSABLE)
	}
	if got, err := s.Status(context.Background(), "c"); err != nil || got.State != finalize.Idle {
		t.Errorf("got %+v, %v; want %s: nothing filed", got, err, finalize.Idle)
	}
}

// Late events that every server saw are finalized once: each files the run at the log position it saw, and
// filing it again (another server, or this one) builds nothing more; each server built the standings again,
// from the whole log. A later position is another run.
func TestRunAtOnce(t *testing.T) {
	ctx := context.Background()
	st, e, dir := MustContestStore(t)
	b := &flaky{Builder: e}
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, b))
	for i, want := range []bool{true, false} {
		if filed, err := s.RunAt(ctx, "c", 7); err != nil || filed != want {
			t.Errorf("filing %d: got %v, %v; want %v", i+1, filed, err, want)
		}
	}
	MustReach(t, s, finalize.Done)
	if filed, err := s.RunAt(ctx, "c", 7); err != nil || filed {
		t.Errorf("filing once done: got %v, %v; want not filed", filed, err)
	}
	if got := b.calls.Load(); got != 1 {
		t.Errorf("built %d times, want once", got)
	}
	if filed, err := s.RunAt(ctx, "c", 8); err != nil || !filed {
		t.Errorf("filing a later position: got %v, %v; want filed", filed, err)
	}
}

// A contest deleted and created again with the same end is finalized at that end as a new contest: its
// finalization status starts idle, and the job filed for the end is not taken for the deleted one's, done.
func TestForgetDeletedContest(t *testing.T) {
	ctx := context.Background()
	st, e, dir := MustContestStore(t)
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, e))
	MustScheduleAtEnd(t, s, e)
	MustReach(t, s, finalize.Done)
	if err := e.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Status(ctx, "c"); err != nil || got.State != finalize.Idle || got.Version != 0 {
		t.Errorf("after the deletion: got %+v, %v; want idle, no version", got, err)
	}
	if _, err := e.Submit(ctx, "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	MustScheduleAtEnd(t, s, e)
	if got := MustReach(t, s, finalize.Done); got.Version != 1 {
		t.Errorf("the contest created again: got version %d, want 1", got.Version)
	}
	MustMatchBoard(t, st, e)
}

// A contest deleted, and created again, while its finalization builds: the standings built from the deleted
// log are not stored, not even for the new contest at the same position, and the job ends without retries.
func TestDeletedWhileBuilding(t *testing.T) {
	ctx := context.Background()
	st, e, dir := MustContestStore(t)
	b := &early{Builder: e, building: make(chan struct{}), release: make(chan struct{})}
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, b))
	if _, err := s.Run(ctx, "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	<-b.building
	if err := e.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(ctx, "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	close(b.release)
	var got finalize.Status
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if got, err = s.Status(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if got.State != finalize.Building && got.State != finalize.Queued {
			break
		}
	}
	if got.State != finalize.Idle || got.Version != 0 || got.Attempts != 1 {
		t.Errorf("the finalization: got %+v, want idle (cancelled after one attempt), no version", got)
	}
	if f, err := st.ActiveFinal(ctx, "c"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("final standings of the contest created again: got version %d at %d (%v), want none", f.Version, f.Pos, err)
	}
}

// A contest whose whole log came after its end (an import of a past contest) is finalized once its log says
// it ended, not from the lines before, however long the feed pauses: an import interrupted before the feed's
// end published a partial board as final. A run by hand does not wait (it records the end first), though the
// finalization at the end waits, queued: a run by hand then was taken for one about to run, and dropped.
func TestFedContestWaitsForItsEnd(t *testing.T) {
	for _, byHand := range []bool{false, true} {
		t.Run(map[bool]string{false: "the feed says the end", true: "run by hand"}[byHand], func(t *testing.T) {
			testFedContest(t, byHand)
		})
	}
}

func testFedContest(t *testing.T, byHand bool) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := engine.New(st, nil)
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	var beforeEnd, ending []rankd.LogEntry
	for _, le := range contestEntries(t) {
		if le.Event.Type == rankd.EventState && le.Event.State.Ended != nil {
			ending = append(ending, le)
		} else if ending == nil {
			beforeEnd = append(beforeEnd, le)
		}
	}
	if len(ending) != 1 {
		t.Fatalf("the generated contest has %d states saying it ended, want 1", len(ending))
	}
	if _, err := e.Submit(ctx, "c", beforeEnd); err != nil {
		t.Fatal(err)
	}
	s := MustOpenSQLite(t, filepath.Join(dir, "jobs.db"), quick(st, e))
	MustScheduleAtEnd(t, s, e)
	if byHand {
		// At once: the finalization at the end is queued, due since the end.
		if _, err := s.Run(ctx, "c", time.Now()); err != nil {
			t.Fatal(err)
		}
	} else {
		time.Sleep(3 * time.Second) // River makes the job available within a few seconds; Quiet is 100 ms
		if got, err := s.Status(ctx, "c"); err != nil || got.State == finalize.Done || got.Version != 0 {
			t.Fatalf("the feed paused before its end: got %+v, %v; want not finalized", got, err)
		}
		// What the server's look for late events asks: this job builds from them, none other is filed.
		if waiting, err := s.Waiting(ctx, "c"); err != nil || !waiting {
			t.Fatalf("the feed paused before its end: Waiting got %v, %v; want true", waiting, err)
		}
		if _, err := e.Submit(ctx, "c", ending); err != nil {
			t.Fatal(err)
		}
	}
	if done := MustReach(t, s, finalize.Done); done.Version != 1 {
		t.Errorf("got version %d, want 1", done.Version)
	}
	if waiting, err := s.Waiting(ctx, "c"); err != nil || waiting {
		t.Errorf("finalized: Waiting got %v, %v; want false", waiting, err)
	}
	MustMatchBoard(t, st, e)
}
