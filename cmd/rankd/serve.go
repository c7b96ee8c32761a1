package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"rankd"
	"rankd/board"
	"rankd/demo"
	"rankd/engine"
	"rankd/finalize"
	"rankd/gen"
	rankdhttp "rankd/http"
	"rankd/postgres"
	rankdredis "rankd/redis"
	"rankd/sqlite"
)

// DemoContestID is the id of the contest serve --demo plays.
const DemoContestID = "demo"

// Server is a running rankd serve: the store, the engine and the HTTP server wired together. Tests open one
// the way the command does.
type Server struct {
	Addr    string // host:port to listen on
	DataDir string
	// PostgresURL, when set, stores everything in PostgreSQL instead of under DataDir.
	PostgresURL string
	// RedisURL, with PostgresURL, is the distributed mode: several servers share the database, and Redis
	// holds the boards' shared projection and tells the servers when another one stored events.
	RedisURL string
	// RedisPrefix starts the names of rankd's Redis keys, so that deployments can share a server.
	RedisPrefix string
	ConfigPath  string
	Demo        bool
	MaxBody     int64
	MaxStreams  int
	// NoCORS keeps pages of other origins from calling the API (a server on a private network whose public
	// board is not for the outside).
	NoCORS bool
	// Tick is how often the live streams get the changes, coalesced.
	Tick time.Duration
	// DebugAddr, when set, serves Go's profiler (/debug/pprof) there, apart from the API.
	DebugAddr string
	// FinalizeRescueAfter is how long a finalization may be building before it is taken for abandoned (its
	// server died) and run again; finalize.DefaultRescueAfter when zero.
	FinalizeRescueAfter time.Duration
	// FinalizeSettle is how long the log of an ended contest must stay still after late events before the
	// contest is finalized again; LateSettle when zero.
	FinalizeSettle time.Duration
	// EndQuiet is how long the board of a contest whose end passed long ago must have been still before the
	// server records its end and builds its final standings (see finalize.Settled); finalize.DefaultQuiet
	// when zero. A contest's feed imported or followed after its end keeps it moving: the end it says (and
	// its thaw) comes in its own time, not recorded by the server over its first lines, nor its first lines
	// finalized.
	EndQuiet time.Duration
	// ClockTrustAfter is how long the clock, once it jumped forward, is not believed to say that a contest
	// ended; ClockTrust when zero.
	ClockTrustAfter time.Duration
	// AdminToken and JudgeToken come from RANKD_ADMIN_TOKEN and RANKD_JUDGE_TOKEN.
	AdminToken, JudgeToken string
	Logger                 *slog.Logger
	Now                    func() time.Time
	DemoClock              demo.Clock

	// Listening is the address the server listens on, once Open returned.
	Listening net.Addr

	store      store
	steady     *steadyClock
	projection *rankdredis.Projection
	engine     *engine.Engine
	finalizer  *finalize.Service
	http       *rankdhttp.Server
	debug      *http.Server
	lock       *os.File
	cancel     context.CancelFunc
	done       chan struct{} // closed when the background work (restore, demo) stopped
}

// ParseFlags reads the serve command's flags and environment.
func (s *Server) ParseFlags(args []string, m *Main) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.StringVar(&s.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	fs.StringVar(&s.DataDir, "data", "./rankd-data", "data directory of the embedded store")
	fs.StringVar(&s.PostgresURL, "postgres", "", "PostgreSQL URL: store in PostgreSQL instead of the data directory (one server per database, unless --redis)")
	fs.StringVar(&s.RedisURL, "redis", "", "Redis URL, with --postgres: distributed mode, several servers over one database")
	fs.StringVar(&s.RedisPrefix, "redis-prefix", "rankd", "prefix of rankd's Redis keys (one per deployment sharing a Redis)")
	fs.StringVar(&s.ConfigPath, "config", "", "configuration file (JSON) with access tokens")
	fs.BoolVar(&s.Demo, "demo", false, "play a demo contest in real time (contest id \"demo\")")
	fs.StringVar(&s.DebugAddr, "debug-addr", "", "serve the Go profiler (/debug/pprof) on this address (keep it on loopback)")
	fs.DurationVar(&s.Tick, "tick", rankdhttp.DefaultTick, "how often live streams get the changes (coalesced into one frame per view)")
	fs.BoolVar(&s.NoCORS, "no-cors", false, "do not let web pages of other origins call the API (CORS)")
	fs.IntVar(&s.MaxStreams, "max-streams", rankdhttp.DefaultMaxStreams, "live streams open at once; beyond it clients are told to poll")
	fs.Int64Var(&s.MaxBody, "max-body", rankdhttp.DefaultMaxBody, "largest request body accepted, in bytes")
	fs.DurationVar(&s.FinalizeRescueAfter, "finalize-rescue-after", finalize.DefaultRescueAfter,
		"how long a finalization may be building before it is taken for abandoned (its server died) and run again; more than twice the longest build")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if s.MaxBody <= 0 || s.MaxBody > rankdhttp.LargestMaxBody {
		fmt.Fprintf(m.Stderr, "--max-body must be from 1 to %d bytes\n", rankdhttp.LargestMaxBody)
		return errUsage
	}
	if s.Tick <= 0 || s.MaxStreams < 1 {
		fmt.Fprintln(m.Stderr, "--tick must be positive and --max-streams at least 1")
		return errUsage
	}
	if s.RedisURL != "" && s.PostgresURL == "" {
		fmt.Fprintln(m.Stderr, "--redis needs --postgres: the servers of the distributed mode share a PostgreSQL database")
		return errUsage
	}
	s.AdminToken = os.Getenv("RANKD_ADMIN_TOKEN")
	s.JudgeToken = os.Getenv("RANKD_JUDGE_TOKEN")
	return nil
}

// Open opens the store, starts serving (not ready until every contest is restored), restores the contests
// in the background and, with Demo, starts the demo contest's judges.
func (s *Server) Open(ctx context.Context) error {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.DemoClock == nil {
		s.DemoClock = demo.Wall{}
	}
	var cfg rankdhttp.Config
	if s.ConfigPath != "" {
		var err error
		if cfg, err = rankdhttp.LoadConfig(s.ConfigPath); err != nil {
			return err
		}
	}
	store, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	s.store = store
	if s.RedisURL != "" {
		rankdredis.LogTo(s.Logger)
		if s.projection, err = rankdredis.Open(ctx, s.RedisURL, rankdredis.WithPrefix(s.RedisPrefix)); err != nil {
			return errors.Join(err, store.Close())
		}
	}
	auth, err := rankdhttp.NewAuth(cfg, s.AdminToken, s.JudgeToken, store)
	if err != nil {
		return errors.Join(err, s.closeStores())
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := engine.NewMetrics(reg)
	s.engine = engine.New(store, metrics)
	s.steady = &steadyClock{now: s.Now, trustAfter: cmp.Or(s.ClockTrustAfter, ClockTrust), logger: s.Logger}
	s.engine.Now, s.engine.Logger = s.steady.Now, s.Logger
	s.http = rankdhttp.NewServer(s.engine, store, auth, reg, reg)
	s.http.Logger, s.http.Now, s.http.MaxBody = s.Logger, s.Now, s.MaxBody
	s.http.MaxStreams, s.http.CrossOrigin = s.MaxStreams, !s.NoCORS
	if files, ok := openFilesLimit(); ok {
		if n, lowered := streamsWithin(s.MaxStreams, files); lowered {
			s.Logger.Info("fewer live streams than --max-streams: each is an open file, and the process may open no more (ulimit -n)",
				slog.Int("max_streams", n), slog.Uint64("open_files", files))
			s.http.MaxStreams = n
		}
		// Idle kept-alive connections must not take the files the store and new clients need either.
		s.http.MaxConns = int(min(files/8*7, math.MaxInt32))
	}
	if s.projection != nil {
		s.engine.Shared, s.engine.Projection, s.engine.Limits = true, s.projection, rankdredis.CheckContest
		s.http.Projection = s.projection
	}
	if s.finalizer, err = s.openFinalizer(ctx); err != nil {
		return errors.Join(err, s.closeStores())
	}
	reg.MustRegister(s.finalizer.Collector(s.engine.ContestIDs))
	s.http.Finalizer = s.finalizer
	s.http.StartPush(s.Tick)
	if s.Listening, err = s.http.Listen(s.Addr); err != nil {
		return errors.Join(err, s.finalizer.Stop(ctx), s.closeStores())
	}
	where := []any{slog.String("data", s.DataDir)}
	if s.PostgresURL != "" {
		// Which database and schema (deployments may share a database, each in its schema), without the password.
		where = []any{slog.String("store", "postgres"), slog.String("database", redactedURL(s.PostgresURL))}
	}
	s.Logger.Info("listening", append([]any{slog.String("addr", s.Listening.String())}, where...)...)
	if s.DebugAddr != "" {
		if err := s.serveDebug(); err != nil {
			return errors.Join(err, s.http.Shutdown(ctx), s.closeStores())
		}
	}

	bg, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		if err := s.engine.Open(bg); err != nil {
			s.Logger.Error("restoring the contests failed; the server stays not ready", slog.String("error", err.Error()))
			return
		}
		s.Logger.Info("ready", slog.Int("contests", len(s.engine.ContestIDs())))
		if s.projection != nil {
			go s.follow(bg)
		}
		go s.startFinalizer(bg)
		// Scheduling needs only the jobs' table, and it records the ends of contests (which an OI contest
		// hidden until its end waits for): it does not wait for the jobs to run.
		go s.scheduleFinalizations(bg)
		if s.Demo {
			s.runDemo(bg)
		}
	}()
	return nil
}

// startFinalizer starts running the finalization jobs, trying again while it fails (a full disk, a database
// restarting): else no contest would be finalized until the server restarts.
func (s *Server) startFinalizer(ctx context.Context) {
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		err := s.finalizer.Start(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		s.Logger.Error("finalization jobs cannot start; retrying", slog.Duration("in", wait), slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// openFinalizer opens the finalization jobs: beside the log in PostgreSQL, in a file of the data directory
// with the embedded store.
func (s *Server) openFinalizer(ctx context.Context) (*finalize.Service, error) {
	cfg := finalize.Config{Store: s.store, Builder: s.engine, Logger: s.Logger, RescueAfter: s.FinalizeRescueAfter,
		Quiet: s.EndQuiet}
	if s.projection != nil {
		cfg.Cache = s.projection // the http server reads through it too, as its Projection
	}
	if db, ok := s.store.(*postgres.DB); ok {
		return finalize.NewPostgres(ctx, db.Pool(), cfg)
	}
	path := filepath.Join(s.DataDir, "jobs.db")
	if err := sqlite.CheckWritable(path); err != nil {
		return nil, fmt.Errorf("finalization jobs: %w", err)
	}
	return finalize.OpenSQLite(ctx, path, cfg)
}

// ScheduleEvery is how often the server files the finalization of each contest at its end, as it then is:
// a contest created or whose end moved gets its job within this time.
const ScheduleEvery = 5 * time.Second

// LateSettle is FinalizeSettle's default.
const LateSettle = 30 * time.Second

// lateEvents follows the log of an ended contest: judgements still come after the end (of the submissions
// pending then, a late rejudge), and the final standings built at the end do not hold them.
type lateEvents struct {
	pos   int64     // the log position seen last
	moved time.Time // when it moved after the end; zero once that was finalized
}

// forgetGone drops what late holds of contests not among ids (sorted): deleted ones.
func forgetGone(late map[string]*lateEvents, ids []string) {
	maps.DeleteFunc(late, func(id string, _ *lateEvents) bool {
		_, ok := slices.BinarySearch(ids, id)
		return !ok
	})
}

// scheduleFinalizations files, until ctx is done, a finalization of each contest at its end (filing one
// again changes nothing), and runs one again once the log of an ended contest has been still for
// FinalizeSettle after events came after the end, so that the final standings hold the late verdicts
// without an organiser asking.
func (s *Server) scheduleFinalizations(ctx context.Context) {
	settle := cmp.Or(s.FinalizeSettle, LateSettle)
	tick := time.NewTicker(min(ScheduleEvery, settle))
	defer tick.Stop()
	late := map[string]*lateEvents{}
	for {
		ids := s.engine.ContestIDs()
		forgetGone(late, ids)
		for _, id := range ids {
			end, err := s.engine.End(id)
			if err != nil {
				continue // no start time yet: no end to schedule at
			}
			if err := s.finalizer.Schedule(ctx, id, end); err != nil && ctx.Err() == nil && s.engine.Quietly("schedule "+id) {
				s.Logger.Warn("scheduling a finalization failed", slog.String("contest", id), slog.String("error", err.Error()))
			}
			now := s.steady.Now()
			var pos int64
			if now.Before(end) || s.engine.Read(id, func(_ *board.Board, p int64) error { pos = p; return nil }) != nil {
				delete(late, id)
				continue
			}
			still, err := s.engine.Still(id)
			if err != nil {
				continue
			}
			fed, ended, err := s.engine.Fed(ctx, id)
			if err != nil {
				continue // the store is down: what fails with it says so, and the next look tries again
			}
			// The log says when the contest ended (what an OI contest hidden until its end waits for), even
			// should its finalization fail; a feed sent after its end says it itself (see finalize.Settled).
			if !fed && finalize.Settled(end, now, still, cmp.Or(s.EndQuiet, finalize.DefaultQuiet), fed, ended) {
				if err := s.engine.RecordEnd(ctx, id, now); err != nil && ctx.Err() == nil && s.engine.Quietly("end "+id) {
					s.Logger.Warn("recording the end failed", slog.String("contest", id), slog.String("error", err.Error()))
				}
			}
			switch l := late[id]; {
			case l == nil:
				// What came before is the finalization at the end's; but a server started after the end
				// finalizes, as late ones, events that came after its active final standings (a restart within
				// the settling time of late verdicts left them out for good).
				l = &lateEvents{pos: pos}
				if built, err := s.finalizer.BuiltAt(ctx, id); err == nil && built > 0 && built < pos {
					l.moved = now
				}
				late[id] = l
			case pos != l.pos:
				l.pos, l.moved = pos, now
			case !l.moved.IsZero() && now.Sub(l.moved) >= settle && (!fed || ended):
				// A feed sent after its contest's end is finalized once it says the end, not from its lines
				// before a pause.
				if waiting, err := s.finalizer.Waiting(ctx, id); err != nil || waiting {
					// The one filed (at the end, waiting for a feed to say it) builds from these events; a
					// building one may have read the board before them: the next look sees what it built.
					continue
				}
				l.moved = time.Time{}
				if built, err := s.finalizer.BuiltAt(ctx, id); err == nil && built >= pos {
					// Built from them already: the finalization at the end, of a feed sent after it.
					continue
				}
				// Once, whichever servers saw the events: each asks for the same position.
				filed, err := s.finalizer.RunAt(ctx, id, pos)
				switch {
				case err != nil && ctx.Err() == nil && s.engine.Quietly("late "+id):
					s.Logger.Warn("finalizing again failed", slog.String("contest", id), slog.String("error", err.Error()))
				case filed:
					s.Logger.Info("finalizing again for events after the end", slog.String("contest", id), slog.Int64("pos", pos))
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// ClockTrust is how long a clock that jumped forward is not believed (see steadyClock).
const ClockTrust = 2 * time.Minute

// clockJump is the least jump of the system clock that steadyClock notices.
const clockJump = 30 * time.Second

// steadyClock is the clock by which the server records that contests ended: the system clock, watched
// against the monotonic one. A jump of the system clock (set by hand, an NTP step, a virtual machine
// resumed) is logged, and one forward is not believed for trustAfter: until then the time is the last one
// believed plus the monotonic time since, so that an end it would record early (an OI contest hidden until
// its end, published hours early for good) is recorded only if the clock still says so then.
type steadyClock struct {
	now        func() time.Time // the system clock
	trustAfter time.Duration
	logger     *slog.Logger

	mu         sync.Mutex
	wall, mono time.Time // at the last look: the system clock's time, and one with a monotonic reading
	// Until distrust (by the monotonic clock) the time is base plus the monotonic time since baseMono.
	distrust, base, baseMono time.Time
}

// Now returns the time.
func (c *steadyClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	wall, mono := c.now().Round(0), time.Now()
	if !c.mono.IsZero() {
		if jump := wall.Sub(c.wall) - mono.Sub(c.mono); jump >= clockJump || jump <= -clockJump {
			c.logger.Warn("the system clock jumped", slog.Duration("by", jump.Round(time.Second)),
				slog.Duration("believed_after", c.trustAfter))
			if jump > 0 {
				if !mono.Before(c.distrust) { // not distrusting yet: the time before the jump is the last believed
					c.base, c.baseMono = c.wall, c.mono
				}
				c.distrust = mono.Add(c.trustAfter)
			}
		}
	}
	c.wall, c.mono = wall, mono
	if steady := c.base.Add(mono.Sub(c.baseMono)); mono.Before(c.distrust) && steady.Before(wall) {
		return steady
	}
	return wall
}

// FollowEvery is how often a server of the distributed mode looks for events other servers stored, should
// their notices not reach it.
const FollowEvery = time.Second

// follow keeps the boards up with the events other servers store, until ctx is done: at once on their
// notice through Redis, and every FollowEvery whatever happens to the notices.
func (s *Server) follow(ctx context.Context) {
	wake := make(chan string, 1024)
	go func() {
		// Subscribed again whenever the subscription fails or ends (Redis unreachable when this server
		// started, say): meanwhile the periodic sync alone brings other servers' events, a second late.
		wait := time.Second
		for {
			begin := time.Now()
			err := s.projection.Subscribe(ctx, func(contestID string, pos int64) {
				if pos == 0 {
					contestID = "" // a contest deleted: look at every contest of the log
				}
				select {
				case wake <- contestID:
				default: // a full queue already holds work: the periodic sync catches up
				}
			})
			if ctx.Err() != nil {
				return
			}
			msg := "the subscription ended"
			if err != nil {
				msg = err.Error()
			}
			if time.Since(begin) > time.Minute {
				wait = time.Second // it had worked: this is a new failure
			}
			s.Logger.Warn("following other servers' notices failed; subscribing again", slog.Duration("in", wait),
				slog.String("error", msg))
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 30*time.Second)
		}
	}()
	tick := time.NewTicker(FollowEvery)
	defer tick.Stop()
	bounded := func(fn func(context.Context) error) error {
		// Bounded: a database that stopped answering must fail it, and say so in the log, rather than hold
		// an idle server silent.
		ctx, cancel := context.WithTimeout(ctx, FollowTimeout)
		defer cancel()
		return fn(ctx)
	}
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case id := <-wake:
			if id == "" {
				err = bounded(s.engine.Sync)
				break
			}
			err = bounded(func(ctx context.Context) error { return s.engine.SyncContest(ctx, id) })
		case <-tick.C:
			err = bounded(s.engine.Sync)
		}
		if err != nil && ctx.Err() == nil && s.engine.Quietly("follow") {
			s.Logger.Warn("following the log failed", slog.String("error", err.Error()))
		}
	}
}

// FollowTimeout bounds one look for events other servers stored.
const FollowTimeout = 10 * time.Second

// closeStores closes what Open opened before serving.
func (s *Server) closeStores() error {
	var errs []error
	if s.projection != nil {
		errs = append(errs, s.projection.Close())
	}
	return errors.Join(append(errs, s.store.Close(), s.unlockDataDir())...)
}

// The projection is also the final standings' shared cache.
var (
	_ finalize.Cache       = (*rankdredis.Projection)(nil)
	_ rankdhttp.FinalCache = (*rankdredis.Projection)(nil)
)

// store is what serve needs of a store; package sqlite and package postgres both are one.
type store interface {
	engine.Store
	rankdhttp.Store
	rankd.FinalStore
	Close() error
}

// openStore opens the embedded store under the data directory, or PostgreSQL when a URL is given. Either way
// this server must be the only one over it, its boards living in its memory where another server's events
// would never reach them; except in the distributed mode, where the servers follow each other's events.
func (s *Server) openStore(ctx context.Context) (store, error) {
	if s.PostgresURL != "" {
		db, err := postgres.Open(ctx, s.PostgresURL)
		if err != nil {
			return nil, err
		}
		hold := db.HoldExclusive
		if s.RedisURL != "" {
			hold = db.HoldShared // the distributed mode's servers hold it together
		}
		if err := hold(ctx); err != nil {
			return nil, errors.Join(err, db.Close())
		}
		return db, nil
	}
	if err := s.lockDataDir(); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, s.DataDir, sqlite.WithNow(s.Now), sqlite.WithLogger(s.Logger))
	if err != nil {
		return nil, errors.Join(err, s.unlockDataDir())
	}
	return db, nil
}

// lockDataDir takes the data directory for this process: two servers over one store would each keep
// boards the other's events never reach.
func (s *Server) lockDataDir() error {
	if err := os.MkdirAll(s.DataDir, 0o750); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.DataDir, "rankd.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("data directory %s is in use by another rankd (%w)", s.DataDir, err)
	}
	s.lock = f
	return nil
}

// unlockDataDir lets the data directory go; the lock goes with the process anyway.
func (s *Server) unlockDataDir() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// serveDebug serves the profiler on its own listener, so that it is never reachable through the API's.
func (s *Server) serveDebug() error {
	ln, err := net.Listen("tcp", s.DebugAddr)
	if err != nil {
		return fmt.Errorf("--debug-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s.debug = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.debug.Serve(ln) }() // it stops with Close
	s.Logger.Info("profiler listening", slog.String("addr", ln.Addr().String()))
	return nil
}

// runDemo plays the demo contest: a new one starting now, or the one stored, caught up and continued.
func (s *Server) runDemo(ctx context.Context) {
	start := s.DemoClock.Now().Truncate(time.Second)
	stored := false
	_ = s.engine.Read(DemoContestID, func(b *board.Board, _ int64) error {
		stored, start = true, b.Contest().Start
		return nil
	})
	cfg := demo.Config(DemoContestID, start)
	// Played into an organiser's contest of that id, the demo's teams and thousands of made-up verdicts would
	// join its log for good.
	if stored && !s.demoMade(ctx, cfg) {
		s.Logger.Error("the contest with the demo's id was not made by the demo (its log begins otherwise): the demo does not play into it (serve without --demo, or with another --data)",
			slog.String("contest", DemoContestID))
		return
	}
	// A demo whose end passed while the server was down is still caught up (what it has stored again is
	// duplicates): stopping short would leave its board half-played for ever.
	over := s.DemoClock.Now().After(start.Add(cfg.Duration))
	if !over {
		s.Logger.Info("demo contest playing", slog.String("contest", DemoContestID), slog.Time("start", start),
			slog.Duration("duration", cfg.Duration))
	}
	err := demo.Run(ctx, cfg, s.DemoClock, func(ctx context.Context, entries []rankd.LogEntry) error {
		res, err := s.engine.Submit(ctx, DemoContestID, entries)
		for _, r := range res {
			if r.Status == engine.StatusRejected {
				s.Logger.Warn("demo event rejected", slog.String("code", r.Code), slog.String("message", r.Message))
			}
		}
		return err
	})
	switch {
	case rankd.ErrorCode(err) == rankd.ENOTFOUND && ctx.Err() == nil:
		s.Logger.Info("the demo contest was deleted; start the server again to play a new one", slog.String("contest", DemoContestID))
	case err != nil && ctx.Err() == nil:
		s.Logger.Error("demo stopped", slog.String("error", err.Error()))
	case err == nil && over:
		s.Logger.Info("the demo contest is over; delete it (DELETE /api/v1/contests/demo, or the admin console) and start the server again to play it again",
			slog.String("contest", DemoContestID))
	}
}

// demoMade reports whether the stored contest of the demo's id was made by the demo of cfg: its log begins
// with the demo's first entry.
func (s *Server) demoMade(ctx context.Context, cfg gen.Config) bool {
	want, err := demo.First(cfg)
	if err != nil {
		return false
	}
	errFirst := errors.New("the first entry is read")
	var first string
	err = s.store.Replay(ctx, DemoContestID, 0, func(le *rankd.LogEntry) error {
		first = le.Hash
		return errFirst
	})
	return errors.Is(err, errFirst) && first == want.Hash
}

// DrainTimeout bounds how long Close waits for the requests in flight before it cuts them.
const DrainTimeout = 10 * time.Second

// Close shuts down gracefully: no new requests, those in flight answered (those still running after
// DrainTimeout cut), queued events committed, every contest checkpointed, the store closed.
func (s *Server) Close(ctx context.Context) error {
	var errs []error
	if s.http != nil {
		// The requests in flight get a part of the time: one that never ends (a slow upload) must not take
		// what the commits and checkpoints need.
		drain, cancel := context.WithTimeout(ctx, DrainTimeout)
		errs = append(errs, s.http.Shutdown(drain))
		cancel()
	}
	if s.debug != nil {
		errs = append(errs, s.debug.Close())
	}
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	if s.finalizer != nil {
		errs = append(errs, s.finalizer.Stop(ctx))
	}
	if s.engine != nil {
		errs = append(errs, s.engine.Close(ctx))
	}
	if s.store != nil {
		errs = append(errs, s.closeStores())
	}
	return errors.Join(errs...)
}

// serve runs rankd serve until ctx is done (an interrupt), then shuts down.
func (m *Main) serve(ctx context.Context, args []string) error {
	s := &Server{Logger: slog.New(slog.NewJSONHandler(m.Stderr, nil))}
	if err := s.ParseFlags(args, m); err != nil {
		return err
	}
	if err := s.Open(ctx); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "rankd serving on http://%s\n", s.Listening)
	<-ctx.Done()
	s.Logger.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.Close(shutdown)
	if err == nil {
		s.Logger.Info("stopped") // a shutdown that ended, not one killed on the way
	}
	return err
}

// redactedURL returns a database URL without its password (key=value connection strings: without their
// values but the host, port, database and search path).
func redactedURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		q := u.Query()
		for _, k := range []string{"password", "sslpassword"} {
			if q.Has(k) {
				q.Set(k, "xxxxx")
				u.RawQuery = q.Encode()
			}
		}
		return u.Redacted()
	}
	var keep []string
	for _, kv := range strings.Fields(raw) {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "host", "port", "dbname", "search_path":
			keep = append(keep, kv)
		}
	}
	return strings.Join(keep, " ")
}

// streamsWithin bounds the live streams to three quarters of the files the process may open, so that
// streams alone cannot leave no file for the other connections and the store (a client opening streams
// made the server refuse every connection); lowered says it had to.
func streamsWithin(maxStreams int, files uint64) (n int, lowered bool) {
	if limit := files / 4 * 3; uint64(maxStreams) > limit {
		return int(max(limit, 1)), true
	}
	return maxStreams, false
}
