package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
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
	rankdhttp "rankd/http"
	"rankd/redis"
	"rankd/redis/redistest"
	"rankd/sqlite"
	"rankd/storetest"
)

// finalContest is an ended contest of gen's ("c") in an engine over a store in a temporary directory: what
// the servers of these tests serve the final standings of.
type finalContest struct {
	db     *sqlite.DB
	engine *engine.Engine
	end    time.Time
}

// mustFinalContest generates an ended ICPC contest of teams teams and 10 submissions each (12 problems,
// frozen for the last hour, not thawed).
func mustFinalContest(tb testing.TB, teams int) *finalContest {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	e := engine.New(db, nil)
	if err := e.Open(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(ctx); err != nil {
			tb.Error(err)
		}
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	var batch []rankd.LogEntry
	submit := func() {
		if _, err := e.Submit(ctx, "c", batch); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	err = gen.Generate(gen.Config{Seed: 1, ContestID: "c", Teams: teams}, func(ev rankd.Event) error {
		entry, err := engine.Entry(ev)
		if batch = append(batch, entry); len(batch) == 10000 {
			submit()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	submit()
	end, err := e.End("c")
	if err != nil {
		tb.Fatal(err)
	}
	return &finalContest{db: db, engine: e, end: end}
}

// mustFinalize stores a new version of the final standings, as a finalization after a rejudge does (the
// store keeps one version per log position: pos tells them apart), and returns it as the store has it.
func (fc *finalContest) mustFinalize(tb testing.TB, pos int64) rankd.FinalStandings {
	tb.Helper()
	ctx := context.Background()
	f, err := fc.engine.Final(ctx, "c")
	if err != nil {
		tb.Fatal(err)
	}
	f.Pos, f.Stored = pos, storetest.MustEntryAt(tb, fc.db, "c", pos).Stored
	if _, err := fc.db.SaveFinal(ctx, f); err != nil {
		tb.Fatal(err)
	}
	if f, err = fc.db.ActiveFinal(ctx, "c"); err != nil {
		tb.Fatal(err)
	}
	return f
}

// finalServer is a server of the final standings of a finalContest, with a clock of its own.
type finalServer struct {
	*rankdhttp.Server
	URL   string
	reg   *prometheus.Registry
	clock atomic.Int64 // Now, in Unix ns
}

// mustServer starts a server over the contest, its Projection cache when not nil (a shared cache of the
// final standings); its clock reads an hour after the contest's end.
func (fc *finalContest) mustServer(tb testing.TB, cache rankd.Projection) *finalServer {
	tb.Helper()
	auth, err := rankdhttp.NewAuth(rankdhttp.Config{}, adminToken, judgeToken, fc.db)
	if err != nil {
		tb.Fatal(err)
	}
	fs := &finalServer{reg: prometheus.NewRegistry()}
	fs.Server = rankdhttp.NewServer(fc.engine, fc.db, auth, fs.reg, fs.reg)
	if cache != nil {
		fs.Projection = cache
	}
	fs.clock.Store(fc.end.Add(time.Hour).UnixNano())
	fs.Now = func() time.Time { return time.Unix(0, fs.clock.Load()).UTC() }
	ts := httptest.NewServer(fs)
	fs.URL = ts.URL
	tb.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		if err := fs.Shutdown(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return fs
}

// advance moves the server's clock on by d.
func (fs *finalServer) advance(d time.Duration) { fs.clock.Add(int64(d)) }

// loads returns how many times the server loaded final standings from source ("store" or "shared").
func (fs *finalServer) loads(tb testing.TB, source string) int {
	tb.Helper()
	mfs, err := fs.reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "rankd_final_loads_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" && l.GetValue() == source {
					return int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return 0
}

// finalBody is what these tests read of GET /final.
type finalBody struct {
	Version int64
	View    string
	Rows    []struct {
		Rank   int    `json:"rank"`
		TeamID string `json:"team_id"`
	}
	Awards []struct {
		ID      string   `json:"id"`
		TeamIDs []string `json:"team_ids"`
	}
}

// mustGetFinal reads the final standings of the public view, or with jury the jury's.
func (fs *finalServer) mustGetFinal(tb testing.TB, jury bool) finalBody {
	tb.Helper()
	req, err := http.NewRequest("GET", fs.URL+"/api/v1/contests/c/final", nil)
	if err != nil {
		tb.Fatal(err)
	}
	if jury {
		req.URL.RawQuery = "view=jury"
		req.Header.Set("Authorization", "Bearer "+judgeToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var f finalBody
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		tb.Fatalf("GET final: got status %d, want 200: %s", resp.StatusCode, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		tb.Fatal(err)
	}
	return f
}

// countingCache is the Redis cache of the final standings counting its reads of them.
type countingCache struct {
	*redis.Projection
	prefix string // of its keys
	reads  atomic.Int64
}

func (c *countingCache) Final(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	c.reads.Add(1)
	return c.Projection.Final(ctx, contestID)
}

// mustCache opens a Redis cache on the test server under a key prefix of the test's own.
func mustCache(tb testing.TB) *countingCache {
	tb.Helper()
	prefix := redistest.MustPrefix(tb)
	p, err := redis.Open(context.Background(), redistest.MustServer(tb), redis.WithPrefix(prefix))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return &countingCache{Projection: p, prefix: prefix}
}

// burst sends n readers at once after the public final standings, each reading the whole answer (gzip, as
// browsers take it), and returns how long each took and the answer's size. Every answer must be the same
// one, whole.
func (fs *finalServer) burst(tb testing.TB, n int) ([]time.Duration, int64) {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	took := make([]time.Duration, n)
	sizes := make([]int64, n)
	etags := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			begin := time.Now()
			req, _ := http.NewRequest("GET", fs.URL+"/api/v1/contests/c/final", nil) // a valid request
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := client.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			sizes[i], err = io.Copy(io.Discard, resp.Body)
			took[i] = time.Since(begin)
			switch {
			case err != nil:
				errs[i] = err
			case resp.StatusCode != http.StatusOK || sizes[i] != resp.ContentLength:
				errs[i] = fmt.Errorf("got status %d, %d bytes of %d", resp.StatusCode, sizes[i], resp.ContentLength)
			}
			etags[i] = resp.Header.Get("ETag")
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			tb.Fatalf("reader %d: %v", i, errs[i])
		}
		if etags[i] != etags[0] {
			tb.Fatalf("reader %d: got ETag %s, reader 0 %s: want one answer", i, etags[i], etags[0])
		}
	}
	return took, sizes[0]
}

// A thousand readers of an ended contest of 10,000 teams on a cold cache cause one load: from the store
// embedded; with Redis, one read of it, and none of the store when a finalization put them there.
func TestFinalBurst(t *testing.T) {
	fc := mustFinalContest(t, 10000)
	f := fc.mustFinalize(t, 1)
	tests := []struct {
		name        string
		redis, warm bool
		loads       int // from the store
		reads       int // from Redis
	}{
		{name: "embedded", loads: 1},
		{name: "redis", redis: true, warm: true, reads: 1},
		{name: "redis empty", redis: true, loads: 1, reads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cache *countingCache
			fs := fc.mustServer(t, nil)
			if tt.redis {
				cache = mustCache(t)
				fs.Projection = cache
				if tt.warm {
					if err := cache.PutFinal(context.Background(), f); err != nil {
						t.Fatal(err)
					}
				}
			}
			fs.burst(t, 1000)
			if got := fs.loads(t, "store"); got != tt.loads {
				t.Errorf("loads from the store: got %d, want %d", got, tt.loads)
			}
			if cache != nil {
				if got := int(cache.reads.Load()); got != tt.reads {
					t.Errorf("reads from Redis: got %d, want %d", got, tt.reads)
				}
				if got, want := fs.loads(t, "shared"), tt.reads-tt.loads; got != want {
					t.Errorf("loads from Redis counted: got %d, want %d", got, want)
				}
				if v, err := cache.FinalVersion(context.Background(), "c"); err != nil || v != f.Version {
					t.Errorf("version in Redis: got %d, %v; want %d", v, err, f.Version)
				}
			}
			got := fs.mustGetFinal(t, false)
			if got.Version != 0 || got.View != "public" || len(got.Rows) != len(f.Public) || got.Rows[0].TeamID != f.Public[0].TeamID {
				t.Errorf("got version %d, view %s, %d rows; want none (the jury's only), public, %d rows", got.Version, got.View, len(got.Rows), len(f.Public))
			}
			if got := fs.mustGetFinal(t, true); got.Version != f.Version {
				t.Errorf("the jury's: got version %d, want %d", got.Version, f.Version)
			}
		})
	}
}

// Two servers share Redis: a version put there by a finalization reaches the other server's memory within
// the cache's time, without reading the store; when Redis lags behind the store (it was down when the
// finalization put the version) and then loses its copy, the store answers and fills it again.
func TestFinalReadThrough(t *testing.T) {
	fc := mustFinalContest(t, 50)
	cache := mustCache(t)
	ctx := context.Background()
	v1 := fc.mustFinalize(t, 1)
	if err := cache.PutFinal(ctx, v1); err != nil {
		t.Fatal(err)
	}
	fs := fc.mustServer(t, cache)
	if got := fs.mustGetFinal(t, true); got.Version != 1 || fs.loads(t, "store") != 0 {
		t.Fatalf("got version %d after %d loads from the store, want 1 after none", got.Version, fs.loads(t, "store"))
	}
	if got := fs.mustGetFinal(t, true); got.View != "jury" || len(got.Rows) != len(v1.Jury) {
		t.Fatalf("jury: got view %s of %d rows, want jury of %d", got.View, len(got.Rows), len(v1.Jury))
	}

	// Another server finalizes again.
	v2 := fc.mustFinalize(t, 2)
	if err := cache.PutFinal(ctx, v2); err != nil {
		t.Fatal(err)
	}
	if got := fs.mustGetFinal(t, true); got.Version != 1 {
		t.Fatalf("within the cache's time: got version %d, want 1", got.Version)
	}
	fs.advance(5 * time.Second)
	waitFor(t, "version 2 is served", func() string {
		if got := fs.mustGetFinal(t, true); got.Version != 2 {
			return fmt.Sprintf("version %d", got.Version)
		}
		return ""
	})
	if n := fs.loads(t, "store"); n != 0 {
		t.Errorf("loads from the store: got %d, want 0", n)
	}

	// Redis missed version 3, then loses what it had.
	fc.mustFinalize(t, 3)
	fs.advance(5 * time.Second)
	fs.mustGetFinal(t, false)
	if got := fs.mustGetFinal(t, true); got.Version != 2 {
		t.Fatalf("Redis behind: got version %d, want 2 until Redis lets it go", got.Version)
	}
	if err := redistest.Delete(ctx, redistest.MustClient(t), cache.prefix); err != nil {
		t.Fatal(err)
	}
	fs.advance(5 * time.Second)
	waitFor(t, "version 3 is served", func() string {
		if got := fs.mustGetFinal(t, true); got.Version != 3 {
			return fmt.Sprintf("version %d", got.Version)
		}
		return ""
	})
	if v, err := cache.FinalVersion(ctx, "c"); err != nil || v != 3 {
		t.Errorf("Redis refilled: got version %d, %v; want 3", v, err)
	}
	if n := fs.loads(t, "store"); n != 1 {
		t.Errorf("loads from the store: got %d, want 1", n)
	}

	// An answer is named by its version: asking again with its ETag costs nothing.
	resp, err := http.Get(fs.URL + "/api/v1/contests/c/final")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("GET", fs.URL+"/api/v1/contests/c/final", nil) // a valid request
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("with the ETag %s: got status %d, want 304", resp.Header.Get("ETag"), again.StatusCode)
	}
}

// Redis down: reads and finalizations go on over the store.
func TestFinalRedisDown(t *testing.T) {
	fc := mustFinalContest(t, 50)
	cache := mustCache(t)
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	fs := fc.mustServer(t, cache)
	st := mustFinalizeWith(t, fc, cache)
	if st.State != finalize.Done || st.Version != 1 {
		t.Fatalf("finalization: got %+v, want done, version 1", st)
	}
	if got := fs.mustGetFinal(t, true); got.Version != 1 || fs.loads(t, "store") != 1 {
		t.Fatalf("got version %d after %d loads from the store, want 1 after 1", got.Version, fs.loads(t, "store"))
	}
	fs.advance(5 * time.Second)
	fs.mustGetFinal(t, false)
	waitFor(t, "the store is read again", func() string {
		if n := fs.loads(t, "store"); n != 2 {
			return fmt.Sprintf("%d loads", n)
		}
		return ""
	})
}

// A finalization puts the version it stored into Redis, where a server with a cold memory finds it.
func TestFinalizePutsIntoRedis(t *testing.T) {
	fc := mustFinalContest(t, 50)
	cache := mustCache(t)
	st := mustFinalizeWith(t, fc, cache)
	if st.State != finalize.Done || st.Version != 1 {
		t.Fatalf("finalization: got %+v, want done, version 1", st)
	}
	want, err := fc.db.ActiveFinal(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cache.Projection.Final(context.Background(), "c")
	if err != nil || got.Version != want.Version || !got.Built.Equal(want.Built) || !slices.EqualFunc(got.Public, want.Public, func(a, b rankd.Row) bool { return a.TeamID == b.TeamID && a.Rank == b.Rank }) {
		t.Fatalf("in Redis: got version %d built %v (%v), want the store's %d built %v", got.Version, got.Built, err, want.Version, want.Built)
	}
	fs := fc.mustServer(t, cache)
	if got := fs.mustGetFinal(t, true); got.Version != 1 || fs.loads(t, "store") != 0 {
		t.Fatalf("got version %d after %d loads from the store, want 1 after none", got.Version, fs.loads(t, "store"))
	}
}

// mustFinalizeWith finalizes the contest with a finalization service whose cache is cache, and returns its
// status once done.
func mustFinalizeWith(tb testing.TB, fc *finalContest, cache finalize.Cache) finalize.Status {
	tb.Helper()
	ctx := context.Background()
	svc, err := finalize.OpenSQLite(ctx, filepath.Join(tb.TempDir(), "jobs.db"), finalize.Config{
		Store: fc.db, Builder: fc.engine, Cache: cache, PollEvery: 10 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := svc.Stop(ctx); err != nil {
			tb.Error(err)
		}
	}()
	if _, err := svc.Run(ctx, "c", time.Now()); err != nil {
		tb.Fatal(err)
	}
	var st finalize.Status
	waitFor(tb, "the finalization is done", func() string {
		if st, err = svc.Status(ctx, "c"); err != nil || st.State != finalize.Done {
			return fmt.Sprintf("%+v, %v", st, err)
		}
		return ""
	})
	return st
}

// Readers while versions switch, embedded and through Redis, get whole boards, never an older version than
// they saw.
func TestFinalReadersDuringSwitches(t *testing.T) {
	for _, withRedis := range []bool{false, true} {
		t.Run(fmt.Sprintf("redis=%t", withRedis), func(t *testing.T) {
			fc := mustFinalContest(t, 200)
			var cache *countingCache
			fs := fc.mustServer(t, nil)
			if withRedis {
				cache = mustCache(t)
				fs.Projection = cache
			}
			rows := len(fc.mustFinalize(t, 1).Public)
			done := make(chan struct{})
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					last := int64(0)
					for {
						select {
						case <-done:
							return
						default:
						}
						got := fs.mustGetFinal(t, true)
						if got.Version < last || len(got.Rows) != rows {
							t.Errorf("got version %d of %d rows after version %d, want %d rows", got.Version, len(got.Rows), last, rows)
							return
						}
						last = got.Version
					}
				})
			}
			for pos := int64(2); pos <= 20; pos++ {
				f := fc.mustFinalize(t, pos)
				if cache != nil {
					if err := cache.PutFinal(context.Background(), f); err != nil {
						t.Error(err)
					}
				}
				fs.advance(5 * time.Second)
				time.Sleep(5 * time.Millisecond)
			}
			close(done)
			wg.Wait()
		})
	}
}

// BenchmarkFinalBurst measures a thousand readers at once of the public final standings of an ended contest
// of 10,000 teams (12 problems, 100,000 submissions) on a server whose memory holds nothing: from the store
// (embedded), or from Redis where the finalization put them; and one reader alone, to tell the load and the
// rendering from the transfers. Each iteration is one burst; p50 and p99 are over every reader of every
// burst, each reading the whole answer, gzipped:
//
//	go test -run '^$' -bench FinalBurst -benchtime 5x ./http/
func BenchmarkFinalBurst(b *testing.B) {
	fc := mustFinalContest(b, 10000)
	f := fc.mustFinalize(b, 1)
	for _, withRedis := range []bool{false, true} {
		for _, readers := range []int{1, 1000} {
			name := "embedded"
			if withRedis {
				name = "redis"
			}
			b.Run(fmt.Sprintf("%s/readers=%d", name, readers), func(b *testing.B) {
				fs := fc.mustServer(b, nil)
				var cache *countingCache
				if withRedis {
					cache = mustCache(b)
					fs.Projection = cache
					if err := cache.PutFinal(context.Background(), f); err != nil {
						b.Fatal(err)
					}
				}
				var took []time.Duration
				var size int64
				for b.Loop() {
					fs.ForgetFinals()
					t, n := fs.burst(b, readers)
					took, size = append(took, t...), n
				}
				slices.Sort(took)
				b.ReportMetric(float64(size), "answer-bytes")
				b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
				b.ReportMetric(float64(took[len(took)*99/100])/1e6, "p99-ms")
				loads := fs.loads(b, "store")
				if cache != nil {
					loads += int(cache.reads.Load())
				}
				b.ReportMetric(float64(loads)/float64(b.N), "loads/op")
			})
		}
	}
}

// waitFor waits up to 10 s for check to return "", and fails with what it last returned.
func waitFor(tb testing.TB, what string, check func() string) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := check()
		if got == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("waiting until %s: still %s", what, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A thaw after the end finalizes the contest again: the final standings built at the end showed the public
// its frozen board, the new version its thawed one.
func TestThawFinalizesAgain(t *testing.T) {
	ctx := context.Background()
	fc := mustFinalContest(t, 30)
	fs := fc.mustServer(t, nil)
	svc, err := finalize.OpenSQLite(ctx, filepath.Join(t.TempDir(), "jobs.db"), finalize.Config{
		Store: fc.db, Builder: fc.engine, PollEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := svc.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	fs.Finalizer = svc
	publicNow := func() string {
		var rows []string
		err := fc.engine.Read("c", func(b *board.Board, _ int64) error {
			st, err := b.Standings(rankd.PublicView, 0, -1)
			for _, r := range st.Rows {
				rows = append(rows, fmt.Sprintf("%d %s", r.Rank, r.TeamID))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(rows, ", ")
	}
	served := func(f finalBody) string {
		var rows []string
		for _, r := range f.Rows {
			rows = append(rows, fmt.Sprintf("%d %s", r.Rank, r.TeamID))
		}
		return strings.Join(rows, ", ")
	}
	if _, err := svc.Run(ctx, "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "version 1", func() string {
		if st, err := svc.Status(ctx, "c"); err != nil || st.State != finalize.Done || st.Version != 1 {
			return fmt.Sprintf("%+v, %v", st, err)
		}
		return ""
	})
	frozen := publicNow()
	if got := served(fs.mustGetFinal(t, false)); got != frozen {
		t.Fatalf("version 1: got %s, want the frozen public board %s", got, frozen)
	}
	// Each view's final standings have that view's awards: the jury's medals go by the jury's board.
	awardsNow := func(v rankd.View) string {
		var out []string
		err := fc.engine.Read("c", func(b *board.Board, _ int64) error {
			for _, a := range b.Awards(v) {
				out = append(out, a.ID+" "+strings.Join(a.TeamIDs, " "))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "; ")
	}
	servedAwards := func(f finalBody) string {
		var out []string
		for _, a := range f.Awards {
			out = append(out, a.ID+" "+strings.Join(a.TeamIDs, " "))
		}
		return strings.Join(out, "; ")
	}
	if awardsNow(rankd.JuryView) == awardsNow(rankd.PublicView) {
		t.Fatalf("the test contest has the same awards in both views: %s", awardsNow(rankd.JuryView))
	}
	for _, jury := range []bool{false, true} {
		v := rankd.PublicView
		if jury {
			v = rankd.JuryView
		}
		if got, want := servedAwards(fs.mustGetFinal(t, jury)), awardsNow(v); got != want {
			t.Errorf("version 1, %v: got awards %s, want %s", v, got, want)
		}
	}
	// The log position the standings were built from counts events the public did not see: the jury's only.
	for _, tt := range []struct {
		query, token string
		pos          bool
	}{{"", "", false}, {"?view=jury", judgeToken, true}} {
		req, err := http.NewRequest("GET", fs.URL+"/api/v1/contests/c/final"+tt.query, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]json.RawMessage
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if _, ok := body["pos"]; err != nil || ok != tt.pos {
			t.Errorf("final%s: pos given %t (%v), want %t", tt.query, ok, err, tt.pos)
		}
	}

	mustPost(t, fs.URL+"/api/v1/contests/c/thaw", adminToken)
	thawed := publicNow()
	if thawed == frozen {
		t.Fatal("the thaw changed nothing public: the test shows nothing")
	}
	waitFor(t, "version 2", func() string {
		if st, err := svc.Status(ctx, "c"); err != nil || st.State != finalize.Done || st.Version != 2 {
			return fmt.Sprintf("%+v, %v", st, err)
		}
		return ""
	})
	fs.advance(6 * time.Second) // past the 5 s a server keeps the version it read
	waitFor(t, "the thawed final standings served", func() string {
		if f := fs.mustGetFinal(t, false); served(f) != thawed {
			return served(f)
		}
		return ""
	})
}

// mustPost posts to url with token and no body, and wants 200.
func mustPost(tb testing.TB, url, token string) {
	tb.Helper()
	mustRequest(tb, "POST", url, token)
}

// mustRequest asks url with method and token, no body, and wants 200.
func mustRequest(tb testing.TB, method, url, token string) {
	tb.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		tb.Fatalf("%s %s: got %d, want 200: %s", method, url, resp.StatusCode, body)
	}
}

// statusFinalizer is a Finalizer that only reports a version done.
type statusFinalizer struct{ version int64 }

func (f statusFinalizer) Run(context.Context, string, time.Time) (finalize.Status, error) {
	return finalize.Status{}, errors.New("not in this test")
}

func (f statusFinalizer) Status(_ context.Context, id string) (finalize.Status, error) {
	return finalize.Status{ContestID: id, State: finalize.Done, Version: f.version}, nil
}

func (f statusFinalizer) Retry(context.Context, string) (finalize.Status, error) {
	return finalize.Status{}, errors.New("not in this test")
}

func (f statusFinalizer) Forget(context.Context, string) error { return nil }

// A server serves a new version of the final standings as soon as it reports it done (a script waits for
// done, then reads them once), and serves no version long after it checked it (a reader after a silence
// got the version before a thaw, while the thawed one was being checked).
func TestFinalServedOnceDone(t *testing.T) {
	fc := mustFinalContest(t, 30)
	fs := fc.mustServer(t, nil)
	fc.mustFinalize(t, 1)
	if got := fs.mustGetFinal(t, true); got.Version != 1 {
		t.Fatalf("got version %d, want 1", got.Version)
	}
	fc.mustFinalize(t, 2)
	fs.Finalizer = statusFinalizer{version: 2}
	mustRequest(t, "GET", fs.URL+"/api/v1/contests/c/finalize", adminToken)
	if got := fs.mustGetFinal(t, true); got.Version != 2 {
		t.Errorf("after the server reported version 2 done: got version %d, want 2", got.Version)
	}
	fc.mustFinalize(t, 3)
	fs.advance(rankdhttp.FinalStale + time.Second)
	if got := fs.mustGetFinal(t, true); got.Version != 3 {
		t.Errorf("read %v after the last check: got version %d, want 3", rankdhttp.FinalStale+time.Second, got.Version)
	}
}

// The public's final standings say nothing of the versions: a finalization again after hidden verdicts
// (the public's rows and awards as they were) leaves their answer and its ETag as they were.
func TestFinalPublicSaysNothingOfVersions(t *testing.T) {
	fc := mustFinalContest(t, 30)
	fs := fc.mustServer(t, nil)
	fc.mustFinalize(t, 1)
	before, beforeTag := mustGetRaw(t, fs.URL+"/api/v1/contests/c/final")
	fc.mustFinalize(t, 2)
	fs.advance(rankdhttp.FinalStale + time.Second)
	if got := fs.mustGetFinal(t, true); got.Version != 2 {
		t.Fatalf("the jury's: got version %d, want 2", got.Version)
	}
	after, afterTag := mustGetRaw(t, fs.URL+"/api/v1/contests/c/final")
	if after != before || afterTag != beforeTag {
		t.Errorf("the public's final standings after a version that changed nothing public: got ETag %s\n%.300s\nwant ETag %s\n%.300s",
			afterTag, after, beforeTag, before)
	}
	for _, field := range []string{`"version"`, `"built"`, `"pos"`} {
		if strings.Contains(before, field) {
			t.Errorf("the public's final standings: got %s in %.300s, want none", field, before)
		}
	}
}

// mustGetRaw GETs url without a token and returns its body and ETag.
func mustGetRaw(tb testing.TB, url string) (body, etag string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: got %d, %v: %s", url, resp.StatusCode, err, b)
	}
	return string(b), resp.Header.Get("ETag")
}

// hangingFinalCache is a shared cache of the final standings that does not answer (a Redis stopped, or behind
// a network that drops packets): each call waits until its context ends.
type hangingFinalCache struct {
	hangingProjection
	calls atomic.Int64
}

func (c *hangingFinalCache) hang(ctx context.Context) error {
	c.calls.Add(1)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second): // a server that waits on it fails the test rather than hangs
		return errors.New("no answer")
	}
}

func (c *hangingFinalCache) PutFinal(ctx context.Context, _ rankd.FinalStandings) error {
	return c.hang(ctx)
}
func (c *hangingFinalCache) Final(ctx context.Context, _ string) (rankd.FinalStandings, error) {
	return rankd.FinalStandings{}, c.hang(ctx)
}
func (c *hangingFinalCache) FinalVersion(ctx context.Context, _ string) (int64, error) {
	return 0, c.hang(ctx)
}

// Final standings are read from the store when the shared cache does not answer, after a second at most, and
// the cache is left alone for a while after: each read took seconds while Redis was stopped.
func TestFinalCacheHanging(t *testing.T) {
	fc := mustFinalContest(t, 30)
	cache := &hangingFinalCache{}
	fs := fc.mustServer(t, cache)
	fc.mustFinalize(t, 1)
	begin := time.Now()
	if got := fs.mustGetFinal(t, true); got.Version != 1 {
		t.Fatalf("got version %d, want 1", got.Version)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("the first read took %v while the cache hangs, want about a second", took)
	}
	calls := cache.calls.Load()
	fs.advance(rankdhttp.FinalStale + time.Second) // read again, not from memory
	begin = time.Now()
	if got := fs.mustGetFinal(t, true); got.Version != 1 {
		t.Fatalf("got version %d, want 1", got.Version)
	}
	if took, n := time.Since(begin), cache.calls.Load()-calls; took > 500*time.Millisecond || n != 0 {
		t.Errorf("a read soon after: took %v and asked the cache %d times, want at once from the store", took, n)
	}
}
