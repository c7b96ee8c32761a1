// Package finalize builds the final standings of contests once they end, as durable jobs over the server's
// store (River: on PostgreSQL in its database, embedded in a SQLite file of the data directory).
//
// A job is scheduled at each contest's end, again whenever the end moves, and can be run by hand. Building
// takes the boards at the log's end and stores them as a new version of the contest's final standings
// (rankd.FinalStore), which the store switches to in the same transaction: readers see the previous version
// until then, never a partial one. Building twice, or on two servers at once, gives one version; a server
// killed while building leaves the job running, and it is taken up again once RescueAfter has passed. A job
// that fails is retried with backoff; after MaxAttempts failures it is dead, with its error, until an
// operator retries it. With a Cache (Redis, in the distributed mode), the active version is also put there once
// the store has switched to it.
package finalize

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	_ "modernc.org/sqlite" // the SQLite driver of OpenSQLite

	"rankd"
)

// Builder gives what a finalization needs of the contests.
type Builder interface {
	// End returns when a contest ends; an error with code ENOTFOUND for an unknown contest, EUNAVAILABLE
	// for one that cannot be read now (a scheduled finalization is then tried again).
	End(contestID string) (time.Time, error)
	// Final returns a contest's final standings: its boards at the log's end, with the position and the
	// time that entry was stored (which SaveFinal checks).
	Final(ctx context.Context, contestID string) (rankd.FinalStandings, error)
	// Still returns how long a contest's board has been as it is (see engine.Engine.Still).
	Still(contestID string) (time.Duration, error)
	// Fed reports whether a contest's whole log was stored after its end, and whether its state says it
	// ended (see engine.Engine.Fed).
	Fed(ctx context.Context, contestID string) (fed, ended bool, err error)
}

// Cache is a copy of the final standings that readers share (package redis). The store stays the truth: a
// cache that cannot be written is filled by its next reader.
type Cache interface {
	// PutFinal makes f the active version in the cache, unless it holds the same or a later one.
	PutFinal(ctx context.Context, f rankd.FinalStandings) error
}

// State is where a contest's finalization is.
type State string

// The states of a finalization, in the order a job goes through them.
const (
	Idle     State = "idle"     // no job
	Queued   State = "queued"   // waiting for its time (the contest's end) or for a worker
	Building State = "building" // a server is building it
	Done     State = "done"     // the final standings are stored and active
	Failed   State = "failed"   // the last attempt failed; it will be retried
	Dead     State = "dead"     // every attempt failed: an operator must retry it
)

// States lists the states, for metrics.
var States = []State{Idle, Queued, Building, Done, Failed, Dead}

// Status is a contest's finalization as its latest job says.
type Status struct {
	ContestID string    `json:"contest_id"`
	State     State     `json:"state"`
	Attempts  int       `json:"attempts"`
	RunAt     time.Time `json:"run_at,omitzero"` // when a queued or failed job runs next
	Error     string    `json:"error,omitempty"` // the last attempt's, when it failed
	// Version is the active version of the final standings, once there is one.
	Version int64 `json:"version,omitempty"`
}

// Config are a Service's settings.
type Config struct {
	Store   rankd.FinalStore
	Builder Builder
	// Cache, when set, gets each version once the store switched to it.
	Cache  Cache
	Logger *slog.Logger
	// MaxAttempts is how many times a job runs before it is dead (default 5).
	MaxAttempts int
	// Backoff is the wait before attempt n+1 after n failures (default 2ⁿ seconds, at most 5 minutes).
	Backoff func(n int) time.Duration
	// RescueAfter is how long a job may be building before it is taken for abandoned (its server died) and
	// run again (default DefaultRescueAfter). A build is given half of it: a longer one fails.
	RescueAfter time.Duration
	// PollEvery is how often a server looks for jobs to run (default 1 second).
	PollEvery time.Duration
	// StartTimeout bounds bringing the jobs' tables up to date as the service starts (default
	// DefaultStartTimeout): a database that stopped answering fails the start rather than holding it for ever.
	StartTimeout time.Duration
	// Quiet is how long the board of a contest whose end passed long ago must have been still before the
	// finalization at its end builds (default DefaultQuiet; see Settled).
	Quiet time.Duration
}

// DefaultQuiet is Config.Quiet's default.
const DefaultQuiet = 5 * time.Second

// Ending is how long after a contest's end it is taken for running out now rather than long over (see
// Settled).
const Ending = time.Minute

// Settled reports whether what a server does at a contest's end (record the end in its log, build its final
// standings) may be done now, still being how long the contest's board has been as it is. For a contest whose
// log was all sent after its end (fed: an import, a follow catching up), never before its log says it ended
// (the server records no end over a feed, which says it itself: an import interrupted and resumed an hour
// later is not ended at the line it stopped at), then once still for quiet. For others: at once when it
// ended less than Ending ago (a contest running out now, whose last verdicts come after its end and are
// finalized again once they stop), else once still for quiet (a server that was down at the end).
func Settled(end, now time.Time, still, quiet time.Duration, fed, ended bool) bool {
	switch {
	case fed:
		return ended && still >= quiet
	case now.Sub(end) < Ending:
		return true
	}
	return still >= quiet
}

// fedWait is how often the finalization at the end of a contest whose feed came after its end looks again
// whether the feed said the end.
const fedWait = 5 * time.Second

// DefaultStartTimeout is Config.StartTimeout's default; a migration waits for another server's within it.
const DefaultStartTimeout = 20 * time.Second

// DefaultRescueAfter is Config.RescueAfter's default. Abandoned jobs are looked for every 30 seconds (by the
// servers' elected leader, after the dead one's lease of up to 15 seconds ran out), so a job is taken up again
// up to that much later.
const DefaultRescueAfter = time.Minute

// Service schedules and runs finalizations.
type Service struct {
	cfg  Config
	jobs jobClient
	db   *sql.DB // the jobs' own database, closed with the service; nil when the caller's
}

// jobClient is what the service needs of a River client, whatever its driver.
type jobClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobCancel(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobDeleteMany(ctx context.Context, params *river.JobDeleteManyParams) (*river.JobDeleteManyResult, error)
}

// OpenSQLite returns a service whose jobs live in the SQLite file at path, created if need be, apart from the
// store's: River writes to it now and then, and SQLite has one writer. Stop closes it.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*Service, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("finalize: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer: River's operations wait for each other rather than fail as busy
	s, err := newService(ctx, riversqlite.New(db), cfg, func(m *rivermigrate.Migrator[*sql.Tx]) error {
		_, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil) // one server per file: the store's lock says so
		return err
	})
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	s.db = db
	return s, nil
}

// NewPostgres returns a service whose jobs live in the PostgreSQL database of pool (River's tables beside
// rankd's, in the first schema of the search path), migrating River's tables first. The servers sharing the
// database share the jobs: each runs on one server.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Service, error) {
	return newService(ctx, riverpgxv5.New(pool), cfg, func(m *rivermigrate.Migrator[pgx.Tx]) (err error) {
		within := cmp.Or(cfg.StartTimeout, DefaultStartTimeout)
		ctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		defer func() {
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the database is unavailable",
					Err: fmt.Errorf("no answer within %s: %w", within, err)}
			}
		}()
		// Servers starting together on a new database would each create River's tables, and all but one
		// fail: they take turns, holding an advisory lock of the schema on a connection of their own (River
		// runs each migration in a transaction of its own: some cannot share one).
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
			return err
		}
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, migrationLock); uerr != nil {
			// Still held: the connection must not go back to the pool with it.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
		return err
	})
}

// migrationLock is the first key of the advisory lock that River's migrations take (the second is the
// schema's); the store's own locks have keys of their own.
const migrationLock = 0x72616e6a // "ranj"

// newService returns a service over driver, once migrate has brought River's tables up to date.
func newService[T any](ctx context.Context, driver riverdriver.Driver[T], cfg Config, migrate func(*rivermigrate.Migrator[T]) error) (*Service, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(n int) time.Duration { return min(time.Second<<min(n, 20), 5*time.Minute) }
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = time.Second
	}
	if cfg.Quiet <= 0 {
		cfg.Quiet = DefaultQuiet
	}
	// River tells its routine (each migration, each start) at the info level: an operator needs its warnings.
	riverLog := slog.New(warnings{cfg.Logger.Handler()})
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: riverLog})
	if err != nil {
		return nil, fmt.Errorf("finalize: migrate: %w", err)
	}
	if err := migrate(m); err != nil {
		return nil, fmt.Errorf("finalize: migrate: %w", err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{cfg: &cfg})
	client, err := river.NewClient[T](driver, &river.Config{
		Logger:               riverLog,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers:              workers,
		MaxAttempts:          cfg.MaxAttempts,
		RetryPolicy:          retryPolicy(cfg.Backoff),
		JobTimeout:           cfg.RescueAfter / 2,
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    cfg.PollEvery,
		FetchCooldown:        min(cfg.PollEvery, 100*time.Millisecond),
	})
	if err != nil {
		return nil, fmt.Errorf("finalize: %w", err)
	}
	return &Service{cfg: cfg, jobs: client}, nil
}

// Start starts running jobs; Stop waits for the one running.
func (s *Service) Start(ctx context.Context) error { return s.jobs.Start(ctx) }

// Stop stops running jobs, waiting for a running one to end (or for ctx), and closes the jobs' database
// when the service opened it.
func (s *Service) Stop(ctx context.Context) error {
	err := s.jobs.Stop(ctx)
	if s.db != nil {
		err = errors.Join(err, s.db.Close())
	}
	return err
}

// args are a finalization job's arguments. End is the contest's end the job was scheduled for (zero: run by
// hand); jobs are unique by their arguments while not done, so that scheduling one again changes nothing.
type args struct {
	ContestID string    `json:"contest_id"`
	End       time.Time `json:"end,omitzero"`
	// Run tells apart the runs by hand of one contest, each a job of its own; "pos N" is the one run for the
	// log at position N (see RunAt).
	Run string `json:"run,omitempty"`
}

func (args) Kind() string { return "finalize" }

// tagOf returns the tag that files a job under its contest, for listing by contest (River's tags are
// words; contest ids need not be).
func tagOf(contestID string) string {
	sum := sha256.Sum256([]byte(contestID))
	return "contest-" + hex.EncodeToString(sum[:16])
}

// Schedule files a finalization of a contest at its end, unless one for that end is filed already. A
// contest whose end moved gets another job for the new end, and the job still waiting for the old one is
// cancelled.
func (s *Service) Schedule(ctx context.Context, contestID string, end time.Time) error {
	res, err := s.jobs.Insert(ctx, args{ContestID: contestID, End: end.UTC()}, &river.InsertOpts{
		ScheduledAt: end,
		Tags:        []string{tagOf(contestID)},
		// A contest finalized, or dead, for this end stays so.
		UniqueOpts: onceOpts,
	})
	if err != nil {
		return fail("schedule", err)
	}
	if res.UniqueSkippedAsDuplicate {
		return nil
	}
	// A new end: a job still waiting for another is void. It would build another version then, and Status
	// would say "queued" for it long after the contest was finalized.
	jobs, err := s.jobsOf(ctx, contestID)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		var a args
		if j.ID == res.Job.ID || json.Unmarshal(j.EncodedArgs, &a) != nil || a.Run != "" {
			continue
		}
		switch j.State {
		case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateScheduled:
			if _, err := s.jobs.JobCancel(ctx, j.ID); err != nil {
				return fail("schedule", err)
			}
		}
	}
	return nil
}

// onceOpts make a job unique by its arguments in every state but cancelled: filed again, by this server or
// another, it is not run again.
var onceOpts = river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{rivertype.JobStateAvailable,
	rivertype.JobStateCompleted, rivertype.JobStateDiscarded, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}}

// RunAt files a finalization of a contest to run now for its log as it is at position pos, once: every server
// that saw events come after the end asks for it, and one builds it (each built the standings again, from the
// whole log). A later position is another finalization. It reports whether this call filed it.
func (s *Service) RunAt(ctx context.Context, contestID string, pos int64) (filed bool, err error) {
	res, err := s.jobs.Insert(ctx, args{ContestID: contestID, Run: "pos " + strconv.FormatInt(pos, 10)}, &river.InsertOpts{
		Tags:       []string{tagOf(contestID)},
		UniqueOpts: onceOpts,
	})
	if err != nil {
		return false, fail("run", err)
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

// Run files a finalization of a contest to run now, unless one waits to run already, and returns its status.
// One building does not do: it may have read the boards before what made the caller ask (a thaw, a rejudge).
// EUNPROCESSABLE before the contest's end: its final standings would be those of a running contest.
func (s *Service) Run(ctx context.Context, contestID string, now time.Time) (Status, error) {
	end, err := s.cfg.Builder.End(contestID)
	switch {
	case err == nil && now.Before(end):
		return Status{}, rankd.Errorf(rankd.EUNPROCESSABLE, "contest %s ends at %s: it is finalized after its end", contestID, end.UTC().Format(time.RFC3339))
	case err != nil && rankd.ErrorCode(err) != rankd.EINVALID:
		return Status{}, err // unknown, or not restored yet; a contest without a start has no end to wait for
	}
	jobs, err := s.jobsOf(ctx, contestID)
	if err != nil {
		return Status{}, err
	}
	// A run by hand about to run is not doubled. The one at the end is no such run: it may wait (snoozed)
	// for a feed to say its end, which a run by hand does not (it records the end first).
	waiting := slices.ContainsFunc(jobs, func(j *rivertype.JobRow) bool {
		var a args
		if json.Unmarshal(j.EncodedArgs, &a) != nil || a.Run == "" {
			return false
		}
		switch j.State {
		case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled:
			return !j.ScheduledAt.After(now)
		}
		return false
	})
	if !waiting {
		if err := s.runNow(ctx, contestID, now); err != nil {
			return Status{}, fail("run", err)
		}
	}
	return s.Status(ctx, contestID)
}

// runNow files a finalization by hand of a contest, to run now.
func (s *Service) runNow(ctx context.Context, contestID string, now time.Time) error {
	_, err := s.jobs.Insert(ctx, args{ContestID: contestID, Run: strconv.FormatInt(now.UnixNano(), 10)}, &river.InsertOpts{
		Tags: []string{tagOf(contestID)},
	})
	return err
}

// Retry runs a dead finalization again, from its first attempt: as a new job, since River's own retry of a
// dead job gives it a single attempt more.
func (s *Service) Retry(ctx context.Context, contestID string) (Status, error) {
	job, err := s.latest(ctx, contestID)
	if err != nil {
		return Status{}, err
	}
	if job == nil || job.State != rivertype.JobStateDiscarded {
		return Status{}, rankd.Errorf(rankd.ECONFLICT, "the finalization of contest %q is not dead: nothing to retry", contestID)
	}
	if err := s.runNow(ctx, contestID, time.Now()); err != nil {
		return Status{}, fail("retry", err)
	}
	return s.Status(ctx, contestID)
}

// Status returns where a contest's finalization is.
func (s *Service) Status(ctx context.Context, contestID string) (Status, error) {
	jobs, err := s.jobsOf(ctx, contestID)
	if err != nil {
		return Status{}, err
	}
	st := statusOf(contestID, jobs)
	if st.Version = recordedVersion(jobs); st.Version > 0 {
		return st, nil
	}
	// No job says it (none done yet, or done before jobs recorded their version, or cleaned away): the store
	// does, reading the standings whole.
	f, err := s.cfg.Store.ActiveFinal(ctx, contestID)
	switch {
	case err == nil:
		st.Version = f.Version
	case rankd.ErrorCode(err) != rankd.ENOTFOUND:
		return Status{}, err
	}
	return st, nil
}

// BuiltAt returns the log position a contest's active final standings were built from; 0 when it has none.
func (s *Service) BuiltAt(ctx context.Context, contestID string) (int64, error) {
	f, err := s.cfg.Store.ActiveFinal(ctx, contestID)
	switch {
	case rankd.ErrorCode(err) == rankd.ENOTFOUND:
		return 0, nil
	case err != nil:
		return 0, err
	}
	return f.Pos, nil
}

// Waiting reports whether a finalization of a contest is filed and not done yet (waiting for its time, a
// worker or a retry, or building): it builds from the log as it is then.
func (s *Service) Waiting(ctx context.Context, contestID string) (bool, error) {
	st, err := s.jobStatus(ctx, contestID)
	if err != nil {
		return false, err
	}
	return st.State == Queued || st.State == Building || st.State == Failed, nil
}

// jobStatus is Status without the version, for each scrape of every contest.
func (s *Service) jobStatus(ctx context.Context, contestID string) (Status, error) {
	jobs, err := s.jobsOf(ctx, contestID)
	if err != nil {
		return Status{}, err
	}
	return statusOf(contestID, jobs), nil
}

// statusOf returns where a contest's finalization is, as its latest jobs say, without the version.
func statusOf(contestID string, jobs []*rivertype.JobRow) Status {
	st := Status{ContestID: contestID, State: Idle}
	if job := latestOf(jobs); job != nil {
		st.Attempts = job.Attempt
		if n := len(job.Errors); n > 0 {
			st.Error = job.Errors[n-1].Error
		}
		switch job.State {
		case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled:
			st.State, st.RunAt = Queued, job.ScheduledAt
		case rivertype.JobStateRunning:
			st.State = Building
		case rivertype.JobStateRetryable:
			st.State, st.RunAt = Failed, job.ScheduledAt
		case rivertype.JobStateDiscarded:
			st.State = Dead
		case rivertype.JobStateCompleted:
			st.State, st.Error = Done, ""
		}
	}
	return st
}

// output is what a finalization job records once done: the version then active. Status reads it there: the
// store finds it only by reading the final standings whole, which takes seconds for 10,000 teams, and
// "rankd finalize" asks for the status five times a second.
type output struct {
	Version int64 `json:"version"`
}

// recordedVersion returns the active version as the jobs done last recorded it (versions only grow); 0
// when none did.
func recordedVersion(jobs []*rivertype.JobRow) int64 {
	var version int64
	for _, j := range jobs {
		var out output
		if j.State == rivertype.JobStateCompleted && json.Unmarshal(j.Output(), &out) == nil {
			version = max(version, out.Version)
		}
	}
	return version
}

// latest returns a contest's latest job that counts (see latestOf).
func (s *Service) latest(ctx context.Context, contestID string) (*rivertype.JobRow, error) {
	jobs, err := s.jobsOf(ctx, contestID)
	if err != nil {
		return nil, err
	}
	return latestOf(jobs), nil
}

// latestOf returns the latest job that counts: the one running, else the next to run, else the latest one
// that ran; nil when there is none.
func latestOf(jobs []*rivertype.JobRow) *rivertype.JobRow {
	var best *rivertype.JobRow
	for _, j := range jobs {
		if best == nil || rankOf(j) > rankOf(best) {
			best = j
		}
	}
	return best
}

// Forget removes the finalization jobs of a deleted contest: a contest created again with its id is then
// finalized as a new one (a job filed for the same end, or log position, would be taken for one done
// already) and its status starts idle. A job building is cancelled instead: one that has read the board
// before the deletion stores nothing, the store keeping final standings only of the log they were built from
// (rankd.FinalStandings.Stored), and is removed once it ended, which Forget waits for a while: a job that
// has just stored its standings is still running for the job queue (it records completions in batches), and
// left behind it was taken for the finalization of a contest created again with the id.
func (s *Service) Forget(ctx context.Context, contestID string) error {
	deadline := time.Now().Add(forgetWait)
	for {
		jobs, err := s.jobsOf(ctx, contestID)
		if err != nil {
			return err
		}
		var ids []int64
		running := false
		for _, j := range jobs {
			if j.State != rivertype.JobStateRunning {
				ids = append(ids, j.ID)
				continue
			}
			running = true
			if _, err := s.jobs.JobCancel(ctx, j.ID); err != nil {
				return fail("forget", err)
			}
		}
		if len(ids) > 0 {
			if _, err := s.jobs.JobDeleteMany(ctx, river.NewJobDeleteManyParams().IDs(ids...)); err != nil {
				return fail("forget", err)
			}
			continue
		}
		if !running || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil // the jobs are cancelled; removing them is not worth failing the deletion
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// forgetWait bounds how long Forget waits for a cancelled job to end before it leaves it.
const forgetWait = 10 * time.Second

// jobsOf returns a contest's latest jobs, newest first.
func (s *Service) jobsOf(ctx context.Context, contestID string) ([]*rivertype.JobRow, error) {
	res, err := s.jobs.JobList(ctx, river.NewJobListParams().Kinds(args{}.Kind()).TagsAny(tagOf(contestID)).
		OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(100))
	if err != nil {
		return nil, fail("status", err)
	}
	return res.Jobs, nil
}

// rankOf orders the jobs of a contest for Status: running first, then waiting, then the latest to end (the
// list comes newest first, and ties keep the first).
func rankOf(j *rivertype.JobRow) int {
	switch j.State {
	case rivertype.JobStateRunning:
		return 3
	case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateScheduled:
		return 2
	case rivertype.JobStateCancelled:
		return 0
	}
	return 1
}

// worker builds final standings.
type worker struct {
	river.WorkerDefaults[args]
	cfg *Config
}

func (w *worker) Work(ctx context.Context, job *river.Job[args]) error {
	id := job.Args.ContestID
	if job.Args.Run == "" {
		end, err := w.cfg.Builder.End(id)
		switch {
		case rankd.ErrorCode(err) == rankd.EUNAVAILABLE:
			return err // not restored yet, or being rebuilt: tried again
		case err != nil:
			// The contest is gone, or has no start any more: this schedule is void (a new start schedules
			// anew).
			return river.JobCancel(err)
		}
		if now := time.Now(); now.Before(end) {
			// Scheduled for an end that moved later: wait for the new one.
			return river.JobSnooze(end.Sub(now))
		}
		still, err := w.cfg.Builder.Still(id)
		var fed, ended bool
		if err == nil {
			fed, ended, err = w.cfg.Builder.Fed(ctx, id)
		}
		switch {
		case rankd.ErrorCode(err) == rankd.ENOTFOUND:
			return river.JobCancel(err) // deleted since
		case err != nil:
			return err
		case fed && !ended:
			// A feed sent after its contest's end that has not said the end yet: it may be paused for hours.
			return river.JobSnooze(fedWait)
		case !Settled(end, time.Now(), still, w.cfg.Quiet, fed, ended):
			return river.JobSnooze(max(w.cfg.Quiet-still, w.cfg.Quiet/4)) // a feed still coming
		}
	}
	begin := time.Now()
	f, err := w.cfg.Builder.Final(ctx, id)
	if rankd.ErrorCode(err) == rankd.ENOTFOUND {
		return river.JobCancel(err) // the contest was deleted
	}
	if err != nil {
		return err
	}
	version, err := w.cfg.Store.SaveFinal(ctx, f)
	if rankd.ErrorCode(err) == rankd.ENOTFOUND {
		return river.JobCancel(err) // deleted since the standings were built
	}
	if err != nil {
		return err
	}
	if err := river.RecordOutput(ctx, output{Version: version}); err != nil {
		return err
	}
	w.cfg.Logger.Info("contest finalized", slog.String("contest", id), slog.Int64("version", version),
		slog.Int64("pos", f.Pos), slog.Duration("took", time.Since(begin)))
	if w.cfg.Cache != nil {
		w.publish(ctx, id)
	}
	return nil
}

// publish puts a contest's active final standings, as the store holds them (its version and time included),
// into the cache. A failure is logged, not returned: the finalization is done, and a reader fills the cache
// from the store.
func (w *worker) publish(ctx context.Context, contestID string) {
	f, err := w.cfg.Store.ActiveFinal(ctx, contestID)
	if err == nil {
		err = w.cfg.Cache.PutFinal(ctx, f)
	}
	if err != nil {
		w.cfg.Logger.Warn("the final standings could not be put in the cache; its next reader fills it",
			slog.String("contest", contestID), slog.String("error", err.Error()))
	}
}

// retryPolicy waits backoff(n) after the nth failure.
type retryPolicy func(n int) time.Duration

func (p retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(p(job.Attempt))
}

// fail wraps an error of the job queue for the caller: its database being unreachable is what it usually is.
func fail(op string, err error) error {
	var rerr *rankd.Error
	if errors.As(err, &rerr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("finalize: %s: %w", op, err)
	}
	return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "the job queue is unavailable", Err: fmt.Errorf("finalize: %s: %w", op, err)}
}

// Collector reports, on each scrape, where the finalization of each contest that contests names is:
// rankd_finalize_state{contest, state} is 1 for its state and 0 for the others.
func (s *Service) Collector(contests func() []string) prometheus.Collector {
	return &collector{s: s, contests: contests}
}

var stateDesc = prometheus.NewDesc("rankd_finalize_state",
	"Where each contest's finalization is: 1 for its state, 0 for the others.", []string{"contest", "state"}, nil)

type collector struct {
	s        *Service
	contests func() []string
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) { ch <- stateDesc }

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, id := range c.contests() {
		st, err := c.s.jobStatus(ctx, id) // every scrape, every contest: not the final standings whole
		if err != nil {
			continue // a scrape must not fail for one contest: its series are missing this time
		}
		for _, state := range States {
			v := 0.0
			if st.State == state {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, id, string(state))
		}
	}
}

// warnings is a log handler that passes on warnings and errors only.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }
