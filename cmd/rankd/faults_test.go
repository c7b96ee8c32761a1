package main_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	main "rankd/cmd/rankd"
	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/redis/redistest"
)

// redisProc is a redis-server of a test's own, which the test may flush, stop and start again.
type redisProc struct {
	port string
	cmd  *exec.Cmd
}

// MustStartRedis starts a redis-server without persistence on a free loopback port. Without redis-server
// the test is skipped, except in CI, where it fails.
func MustStartRedis(tb testing.TB) *redisProc {
	tb.Helper()
	redistest.MustServer(tb) // skips or fails the same way when there is no Redis for tests
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Fatalf("redis-server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	r := &redisProc{port: port}
	r.start(tb)
	tb.Cleanup(r.stop)
	return r
}

func (r *redisProc) URL() string { return "redis://127.0.0.1:" + r.port + "/0" }

func (r *redisProc) start(tb testing.TB) {
	tb.Helper()
	r.cmd = exec.Command("redis-server", "--port", r.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+r.port); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("redis-server did not start")
		}
	}
}

func (r *redisProc) stop() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill() // it may have exited
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// flushAll sends FLUSHALL, as an operator's mistake would.
func (r *redisProc) flushAll(tb testing.TB) {
	tb.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+r.port)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "FLUSHALL\r\n"); err != nil {
		tb.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "+OK\r\n" {
		tb.Fatalf("FLUSHALL: got %q, %v", buf, err)
	}
}

// pageWatcher reads the top of the public board of a server again and again, and counts the pages that were
// empty or partial (fewer rows than teams).
type pageWatcher struct {
	bad, pages atomic.Int64
	stop       chan struct{}
	done       chan struct{}
}

func watchPages(url, contestID string, teams int) *pageWatcher {
	w := &pageWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			var p pageJSON
			if err := getJSON(url+"/api/v1/contests/"+contestID+"/scoreboard?view=public&limit=50", &p); err != nil {
				continue // a server being killed, say: not a wrong page
			}
			w.pages.Add(1)
			if len(p.Rows) != min(50, teams) {
				w.bad.Add(1)
			}
		}
	}()
	return w
}

func (w *pageWatcher) Stop() { close(w.stop); <-w.done }

// Redis flushed, then restarted empty, while two servers take events: the projection is rebuilt each
// time, the pages never come out empty or partial meanwhile, and the boards and the projection end right.
func TestServeSurvivesRedisLoss(t *testing.T) {
	redis := MustStartRedis(t)
	args := []string{"--postgres", pgtest.MustSchema(t), "--redis", redis.URL()}
	cfg := gen.Config{Seed: 9, ContestID: "loss", Teams: 60, Problems: 6, Submissions: 2000}.WithDefaults()
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	nodes := []*rankdProc{StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)}
	batches := splitLines(data, 50)
	if _, err := postFeed(nodes[0].URL, cfg.ContestID, batches[0]); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both servers know the contest", func() string {
		for _, n := range nodes {
			if err := getJSON(n.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard?view=public&limit=1", &pageJSON{}); err != nil {
				return err.Error()
			}
		}
		return ""
	})
	var watchers []*pageWatcher
	for i, b := range batches[1:] {
		switch i {
		case 10: // every team is registered: the pages are full from now on
			for _, n := range nodes {
				watchers = append(watchers, watchPages(n.URL, cfg.ContestID, cfg.Teams))
			}
		case len(batches) / 3:
			redis.flushAll(t)
		case 2 * len(batches) / 3:
			redis.stop()
			time.Sleep(300 * time.Millisecond)
			redis.start(t)
		}
		if _, err := postFeed(nodes[i%2].URL, cfg.ContestID, b); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	for _, view := range []string{"jury", "public"} {
		want := offlineRows(t, path, view)
		for i, n := range nodes {
			eventually(t, fmt.Sprintf("server %d, view %s has the offline board", i, view), func() string {
				if MustServedRows(t, n.URL, cfg.ContestID, view) != want {
					return "the served board differs"
				}
				return ""
			})
		}
	}
	// The projection was rebuilt: pages come from it again.
	for i, n := range nodes {
		before := MustMetric(t, n.URL, `rankd_scoreboard_pages_rendered_total{source="projection"}`)
		eventually(t, fmt.Sprintf("server %d serves a page from the projection", i), func() string {
			MustPage(t, n.URL, cfg.ContestID, fmt.Sprintf("view=jury&limit=%d", 10+int(time.Now().UnixNano()%30)))
			if MustMetric(t, n.URL, `rankd_scoreboard_pages_rendered_total{source="projection"}`) == before {
				return "no page from the projection"
			}
			return ""
		})
	}
	for i, w := range watchers {
		w.Stop()
		if w.pages.Load() == 0 || w.bad.Load() != 0 {
			t.Errorf("server %d: got %d empty or partial pages out of %d, want none", i, w.bad.Load(), w.pages.Load())
		}
	}
}

// PostgreSQL unreachable for a while: ingest answers 503 meanwhile, the judge's retries succeed once it is
// back, and nothing is lost or doubled.
func TestServeSurvivesPostgresOutage(t *testing.T) {
	proxy := pgtest.MustProxy(t, pgtest.MustSchema(t))
	redis := MustStartRedis(t)
	cfg := gen.Config{Seed: 4, ContestID: "outage", Teams: 50, Problems: 6, Submissions: 1500}.WithDefaults()
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	node := StartRankd(t, t.TempDir(), "--postgres", proxy.URL, "--redis", redis.URL())
	batches := splitLines(data, 50)
	refused := 0
	for i, b := range batches {
		if i == len(batches)/2 {
			proxy.Cut()
			time.AfterFunc(2*time.Second, proxy.Restore)
		}
		for try := 0; ; try++ {
			_, err := postFeed(node.URL, cfg.ContestID, b)
			if err == nil {
				break
			}
			if !strings.Contains(err.Error(), "status 503") || try == 100 {
				t.Fatalf("batch %d: got %v, want 503 until the database is back", i, err)
			}
			refused++
			time.Sleep(100 * time.Millisecond)
		}
	}
	if refused == 0 {
		t.Error("no request was refused while the database was down")
	}
	for _, view := range []string{"jury", "public"} {
		if got, want := MustServedRows(t, node.URL, cfg.ContestID, view), offlineRows(t, path, view); got != want {
			t.Errorf("view %s: the served board differs from the offline one", view)
		}
	}
	// Every event is in the log once: the whole feed again is only duplicates.
	for _, b := range splitLines(data, 1000) {
		res, err := postFeed(node.URL, cfg.ContestID, b)
		if err != nil {
			t.Fatal(err)
		}
		if res.Accepted != 0 {
			t.Fatalf("resend: got %d accepted, want 0", res.Accepted)
		}
	}
}

// getJSON GETs a URL with the admin token and decodes its JSON answer.
func getJSON(url string, v any) error {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return errors.New(resp.Status + ": " + string(body))
	}
	return json.Unmarshal(body, v)
}

// An idle server of the distributed mode says in its log when PostgreSQL stops answering: its look for other
// servers' events waited for ever, and nothing was logged while the database was silent.
func TestServeLogsSilentPostgres(t *testing.T) {
	proxy := pgtest.MustProxy(t, pgtest.MustSchema(t))
	redis := MustStartRedis(t)
	node := StartRankd(t, t.TempDir(), "--postgres", proxy.URL, "--redis", redis.URL())
	proxy.Freeze()
	defer proxy.Thaw()
	deadline := time.Now().Add(main.FollowTimeout + 10*time.Second)
	for !strings.Contains(node.Logs(), "following the log failed") {
		if time.Now().After(deadline) {
			t.Fatalf("PostgreSQL silent for %v: got no \"following the log failed\" in the log", main.FollowTimeout+10*time.Second)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// PostgreSQL down under a node that serves teams and event feeds: a team whose token the node saw used keeps
// reading its board (all teams' boards answered 503 for the whole outage); an event feed answers 503 saying
// the store is unavailable, not that its log is damaged, and the node logs that once per 10 s, not at every
// request; looking for other servers' events is not logged every second either.
func TestPostgresDownForTeamsAndFeeds(t *testing.T) {
	proxy := pgtest.MustProxy(t, pgtest.MustSchema(t))
	redis := MustStartRedis(t)
	cfg := gen.Config{Seed: 5, ContestID: "down", Teams: 10, Problems: 3, Submissions: 100}.WithDefaults()
	data, _ := genFeed(t, cfg)
	node := StartRankd(t, t.TempDir(), "--postgres", proxy.URL, "--redis", redis.URL())
	if _, err := postFeed(node.URL, cfg.ContestID, data); err != nil {
		t.Fatal(err)
	}
	team := MustIssueTeamToken(t, node.URL, cfg.ContestID, "1")
	board := node.URL + "/api/v1/contests/" + cfg.ContestID + "/scoreboard?view=team"
	if code := MustStatus(t, board, team); code != http.StatusOK {
		t.Fatalf("the team's board: got status %d, want 200", code)
	}
	proxy.Cut()
	defer proxy.Restore()
	feed := node.URL + "/api/contests/" + cfg.ContestID + "/event-feed?stream=false"
	for range 5 {
		if code := MustStatus(t, board, team); code != http.StatusOK {
			t.Errorf("the team's board, PostgreSQL down: got status %d, want 200", code)
		}
		req, err := http.NewRequest("GET", feed, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "the store is unavailable; retry") {
			t.Errorf("the event feed, PostgreSQL down: got %d %s, want 503 saying the store is unavailable", resp.StatusCode, body)
		}
		time.Sleep(600 * time.Millisecond)
	}
	logs := node.Logs()
	if n := strings.Count(logs, "event feed: the store is unavailable"); n != 1 {
		t.Errorf("the event feed's failure: got %d lines in the log, want 1 in 3 s", n)
	}
	if n := strings.Count(logs, "event feed: reading the log failed"); n != 0 {
		t.Errorf("got %d lines saying the log could not be read, want none: the store is down, the log is whole", n)
	}
	if n := strings.Count(logs, "following the log failed"); n > 2 {
		t.Errorf("looking for other servers' events: got %d lines in the log in 3 s, want at most one per 10 s", n)
	}
}
