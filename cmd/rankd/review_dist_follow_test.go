package main_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/redis/redistest"
)

// MustStatus GETs url with a token and returns the status of the answer.
func MustStatus(tb testing.TB, url, token string) int {
	tb.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A server that only follows the log (it takes no events) keeps serving its board while PostgreSQL is
// unreachable: a notice of another server's commit that it cannot follow leaves its board behind, not
// unreadable, since the board holds nothing the log does not. Once the database is back it catches up.
func TestServeFollowerReadableWhilePostgresDown(t *testing.T) {
	proxy := pgtest.MustProxy(t, pgtest.MustSchema(t))
	prefix := redistest.MustPrefix(t)
	args := []string{"--postgres", proxy.URL, "--redis", redistest.MustServer(t), "--redis-prefix", prefix}
	cfg := gen.Config{Seed: 3, ContestID: "follow", Teams: 30, Problems: 5, Submissions: 600}.WithDefaults()
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	taker, follower := StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)
	batches := splitLines(data, 100)
	half := len(batches) / 2
	for _, b := range batches[:half] {
		if _, err := postFeed(taker.URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
	}
	page := "/api/v1/contests/" + cfg.ContestID + "/scoreboard?view=jury"
	mustCatchUp(t, follower, taker, cfg.ContestID)

	proxy.Cut()
	// The notice of a commit made right before the cut reaches the follower once the database is gone.
	channel := prefix + ":{" + cfg.ContestID + "}"
	if err := redistest.MustClient(t).Publish(context.Background(), channel, "999999 jury:999999").Err(); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if code := MustStatus(t, follower.URL+page, testAdminToken); code != http.StatusOK {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("the follower's board while PostgreSQL is down: got %d answers other than 200, want none", bad)
	}

	proxy.Restore()
	for _, b := range batches[half:] {
		for try := 0; ; try++ {
			if _, err := postFeed(taker.URL, cfg.ContestID, b); err == nil {
				break
			} else if try == 100 {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	want := offlineRows(t, path, "jury")
	eventually(t, "the follower has the whole board", func() string {
		if MustServedRows(t, follower.URL, cfg.ContestID, "jury") != want {
			return "the served board differs from the offline one"
		}
		return ""
	})
}

// hangingProxy forwards TCP connections to a server and can go silent: Hang holds every byte, in both
// directions, without closing anything (a network that drops packets), until Release.
type hangingProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	open   chan struct{} // closed while bytes flow
}

func MustHangingProxy(tb testing.TB, target string) *hangingProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &hangingProxy{ln: ln, target: target, open: make(chan struct{})}
	close(p.open)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			go p.pipe(s, c)
			go p.pipe(c, s)
		}
	}()
	tb.Cleanup(func() { p.Release(); _ = ln.Close() })
	return p
}

func (p *hangingProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open := p.open
			p.mu.Unlock()
			<-open
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Hang holds every byte from now on.
func (p *hangingProxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open = make(chan struct{})
}

// Release lets the bytes held, and the next ones, through.
func (p *hangingProxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// A server following the log does not hold its readers while the database is silent: reading what the
// others stored happens outside the board's lock, so a jury page (which reads the board) answers at once,
// from the board as it was.
func TestServeFollowerAnswersWhilePostgresSilent(t *testing.T) {
	pg := pgtest.MustSchema(t)
	pu, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	proxy := MustHangingProxy(t, pu.Host)
	pu.Host = proxy.ln.Addr().String()
	prefix := redistest.MustPrefix(t)
	cfg := gen.Config{Seed: 8, ContestID: "silent", Teams: 20, Problems: 4, Submissions: 200}.WithDefaults()
	data, _ := genFeed(t, cfg)
	taker := StartRankd(t, t.TempDir(), "--postgres", pg, "--redis", redistest.MustServer(t), "--redis-prefix", prefix)
	follower := StartRankd(t, t.TempDir(), "--postgres", pu.String(), "--redis", redistest.MustServer(t), "--redis-prefix", prefix)
	if _, err := postFeed(taker.URL, cfg.ContestID, data); err != nil {
		t.Fatal(err)
	}
	mustCatchUp(t, follower, taker, cfg.ContestID)

	proxy.Hang()
	defer proxy.Release()
	if err := redistest.MustClient(t).Publish(context.Background(), prefix+":{"+cfg.ContestID+"}", "999999 jury:999999").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the follower is reading the log now
	page := follower.URL + "/api/v1/contests/" + cfg.ContestID + "/scoreboard?view=jury"
	answered := make(chan int, 1)
	go func() { answered <- MustStatus(t, page, testAdminToken) }()
	select {
	case code := <-answered:
		if code != http.StatusOK {
			t.Errorf("jury page while the database is silent: got %d, want 200", code)
		}
	case <-time.After(3 * time.Second):
		t.Error("the jury page waited for the silent database")
		proxy.Release()
		<-answered
	}
}

// mustCatchUp waits until follower's jury board of a contest is at the sequence number of taker's.
func mustCatchUp(t *testing.T, follower, taker *rankdProc, contestID string) {
	t.Helper()
	eventually(t, "the follower has the taker's board", func() string {
		var got pageJSON
		if err := getJSON(follower.URL+"/api/v1/contests/"+contestID+"/scoreboard?view=jury", &got); err != nil {
			return err.Error()
		}
		if want := MustPage(t, taker.URL, contestID, "view=jury").Seq; got.Seq != want {
			return fmt.Sprintf("got seq %d, want %d", got.Seq, want)
		}
		return ""
	})
}
