package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
	main "rankd/cmd/rankd"
	"rankd/engine"
	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/sqlite"
)

// The tests run rankd as a child process by running their own binary with RANKD_TEST_EXEC set: it then
// behaves as the rankd command.
func TestMain(m *testing.M) {
	if os.Getenv("RANKD_TEST_EXEC") == "1" {
		ctx, stop := main.SignalContext()
		code := main.NewMain().Exit(ctx, os.Args[1:])
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

const (
	testAdminToken = "test-admin-token-0123456789"
	testJudgeToken = "test-judge-token-0123456789"
)

// rankdProc is a rankd serve child process.
type rankdProc struct {
	cmd  *exec.Cmd
	URL  string
	mu   sync.Mutex
	logs bytes.Buffer
	// exited is closed when the process has exited, with waitErr set.
	exited  chan struct{}
	waitErr error
}

// StartRankd starts rankd serve on a free loopback port over dir and waits until it is ready.
func StartRankd(tb testing.TB, dir string, args ...string) *rankdProc {
	tb.Helper()
	return startRankdUnder(tb, nil, dir, args...)
}

// startRankdUnder starts rankd serve as StartRankd does, through the command under (nohup, say) when not nil.
func startRankdUnder(tb testing.TB, under []string, dir string, args ...string) *rankdProc {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	argv := append(append(append([]string{}, under...), exe, "serve", "--addr", "127.0.0.1:0", "--data", dir), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "RANKD_TEST_EXEC=1",
		"RANKD_ADMIN_TOKEN="+testAdminToken, "RANKD_JUDGE_TOKEN="+testJudgeToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &rankdProc{cmd: cmd, exited: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.logs.WriteString(line + "\n")
			p.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "rankd serving on "); ok {
				addr <- rest
			}
		}
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		p.Kill()
		if tb.Failed() {
			tb.Logf("the end of rankd's log:\n%s", tail(p.Logs(), 40))
		}
	})
	select {
	case p.URL = <-addr:
	case <-p.exited:
		tb.Fatalf("rankd exited before serving: %v\n%s", p.waitErr, p.Logs())
	case <-time.After(30 * time.Second):
		tb.Fatalf("rankd did not start\n%s", p.Logs())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("rankd not ready after 60 s\n%s", p.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Logs returns what the process wrote to standard error.
func (p *rankdProc) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// Kill kills the process at once (SIGKILL), as a crash would.
func (p *rankdProc) Kill() {
	_ = p.cmd.Process.Kill() // fails only when it has exited already
	<-p.exited
}

// Stop stops the process gracefully (SIGTERM) and waits for it.
func (p *rankdProc) Stop(tb testing.TB) {
	tb.Helper()
	p.StopWith(tb, syscall.SIGTERM)
}

// StopWith stops the process with a signal that stops it gracefully, and waits for it.
func (p *rankdProc) StopWith(tb testing.TB, sig os.Signal) {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			tb.Fatalf("rankd exited with %v\n%s", p.waitErr, p.Logs())
		}
	case <-time.After(60 * time.Second):
		tb.Fatalf("rankd did not stop\n%s", p.Logs())
	}
}

// ingestResult is the answer to a batch of events.
type ingestResult struct {
	Accepted, Duplicates, Rejected int
	Results                        []struct {
		Item    int
		Status  string
		Pos     int64
		Code    string
		Message string
	}
}

// postFeed posts NDJSON lines to a contest's events endpoint with the judge token.
func postFeed(url, contestID string, lines []byte) (ingestResult, error) {
	var res ingestResult
	req, err := http.NewRequest("POST", url+"/api/v1/contests/"+contestID+"/events", bytes.NewReader(lines))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Authorization", "Bearer "+testJudgeToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return res, err
	}
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return res, json.Unmarshal(body, &res)
}

// MustGetJSON GETs url and decodes its JSON into v, failing on any status but 200.
func MustGetJSON(tb testing.TB, url, token string, v any) {
	tb.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: status %d: %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
}

// scoreboardRows returns the rows of a CCS scoreboard, the part that does not depend on the clock.
func scoreboardRows(tb testing.TB, data []byte) string {
	tb.Helper()
	var sb struct{ Rows json.RawMessage }
	if err := json.Unmarshal(data, &sb); err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, sb.Rows, "", " "); err != nil {
		tb.Fatal(err)
	}
	return buf.String()
}

// MustServedRows returns the rows of the CCS scoreboard the server serves in a view.
func MustServedRows(tb testing.TB, url, contestID, view string) string {
	tb.Helper()
	var raw json.RawMessage
	MustGetJSON(tb, url+"/api/contests/"+contestID+"/scoreboard?view="+view, testAdminToken, &raw)
	return scoreboardRows(tb, raw)
}

// splitLines splits NDJSON into batches of at most n lines.
func splitLines(data []byte, n int) [][]byte {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	var batches [][]byte
	for len(lines) > 0 {
		k := min(n, len(lines))
		batches = append(batches, bytes.Join(lines[:k], nil))
		lines = lines[k:]
	}
	return batches
}

func TestServeEUC2025ThroughTheAPI(t *testing.T) {
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	accepted := 0
	for _, batch := range splitLines(data, 500) {
		res, err := postFeed(p.URL, "euc2025", batch)
		if err != nil {
			t.Fatal(err)
		}
		accepted += res.Accepted
	}
	if accepted < 2000 {
		t.Fatalf("got %d events accepted, want most of the feed's 2811", accepted)
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
		if n := strings.Count(want, `"team_id"`); n < 50 {
			t.Fatalf("view %s: got %d rows offline, want the whole contest", view, n)
		}
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the served board differs from the offline one:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}
	// Posting the whole feed again changes nothing: every event is a duplicate or rejected again.
	for _, batch := range splitLines(data, 1000) {
		res, err := postFeed(p.URL, "euc2025", batch)
		if err != nil {
			t.Fatal(err)
		}
		if res.Accepted != 0 {
			t.Fatalf("resend: got %d accepted, want 0", res.Accepted)
		}
	}
}

// genFeed returns a generated contest as NDJSON lines and the log entries the server makes of them.
func genFeed(tb testing.TB, cfg gen.Config) ([]byte, []rankd.LogEntry) {
	tb.Helper()
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	var entries []rankd.LogEntry
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		return w.Write(ev)
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), entries
}

// offlineRows returns the CCS scoreboard rows rankd standings computes from a feed file.
func offlineRows(tb testing.TB, path, view string) string {
	tb.Helper()
	return scoreboardRows(tb, []byte(MustRun(tb, "standings", "--feed", path, "--view", view, "--format", "ccs")))
}

// TestServeSurvivesCrashes ingests a generated contest while killing the server (SIGKILL) at random moments,
// restarting it and resending what was not acknowledged: every acknowledged event must be in the log, and the
// board must equal the offline one, after the crashes and after a clean restart.
func TestServeSurvivesCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: long")
	}
	cfg := gen.Config{Seed: 7, ContestID: "crash", Teams: 400, Problems: 10, Submissions: 48000}.WithDefaults()
	data, entries := genFeed(t, cfg)
	if len(entries) < 100000 {
		t.Fatalf("got %d events, want at least 100,000", len(entries))
	}
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const perBatch = 500
	batches := splitLines(data, perBatch)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	// Each kill comes once the ingest has reached a batch drawn at random, a few milliseconds later: all of
	// them during the ingest, however fast the machine.
	var killAt []int
	for _, i := range rng.Perm(len(batches) - 4)[:5] {
		killAt = append(killAt, 1+i)
	}
	slices.Sort(killAt)
	acked := make(map[int]int64) // event index → log position acknowledged
	next := 0
	for kills := 0; ; kills++ {
		p := StartRankd(t, dir)
		var sent atomic.Int64 // batches acknowledged, as next, for the wait below
		sent.Store(int64(next))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for next < len(batches) {
				res, err := postFeed(p.URL, cfg.ContestID, batches[next])
				if err != nil {
					return // the server died: resend this batch to the next one
				}
				for _, r := range res.Results {
					if r.Status == "rejected" {
						t.Errorf("batch %d item %d rejected: %s %s", next, r.Item, r.Code, r.Message)
						continue
					}
					acked[next*perBatch+r.Item-1] = r.Pos
				}
				next++
				sent.Store(int64(next))
			}
		}()
		if kills == len(killAt) {
			<-done
			p.Stop(t)
			break
		}
		for sent.Load() < int64(killAt[kills]) {
			select {
			case <-done:
				t.Fatalf("the ingest stopped at batch %d before kill %d, the server alive:\n%s", next, kills+1, p.Logs())
			case <-time.After(time.Millisecond):
			}
		}
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		p.Kill()
		<-done
		if next == len(batches) {
			t.Fatalf("kill %d came after the ingest ended", kills+1)
		}
		t.Logf("killed (%d) with %d of %d batches acknowledged", kills+1, next, len(batches))
	}
	if len(acked) != len(entries) {
		t.Fatalf("got %d events acknowledged, want %d", len(acked), len(entries))
	}

	// Every acknowledged event is in the log, at the position acknowledged.
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	hashAt := map[int64]string{}
	err = db.Replay(context.Background(), cfg.ContestID, 0, func(le *rankd.LogEntry) error {
		hashAt[le.Pos] = le.Hash
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, pos := range acked {
		if got, want := hashAt[pos], entries[i].Hash; got != want {
			t.Fatalf("event %d acknowledged at %d: got hash %q there, want %q", i, pos, got, want)
		}
	}

	// The board equals the offline one after the crashes (restored from the log and a checkpoint), and
	// again after a clean restart.
	for round := range 2 {
		p := StartRankd(t, dir)
		for _, view := range []string{"jury", "public"} {
			if got, want := MustServedRows(t, p.URL, cfg.ContestID, view), offlineRows(t, path, view); got != want {
				t.Errorf("round %d, view %s: the served board differs from the offline one", round, view)
			}
		}
		p.Stop(t)
	}
}

// A second server over the same data directory refuses to start.
func TestServeLocksItsDataDirectory(t *testing.T) {
	dir := t.TempDir()
	StartRankd(t, dir)
	_, stderr, err := run("serve", "--addr", "127.0.0.1:0", "--data", dir)
	if err == nil || !strings.Contains(err.Error()+stderr, "in use by another rankd") {
		t.Errorf("second server: got %v, want a refusal naming the other rankd", err)
	}
}

// A server with live streams open still stops at once on SIGTERM: streams end, their clients reconnect.
func TestServeStopsWithStreamsOpen(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := postFeed(p.URL, "euc2025", data); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		resp, err := http.Get(p.URL + "/api/v1/contests/euc2025/scoreboard/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	begin := time.Now()
	p.Stop(t)
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("stopping took %v with streams open, want a moment", took)
	}
}

// The jobs' file is checked as the store's is: one the server cannot write is refused at start-up, naming it
// (it started, ready, and never finalized a contest, logging a retry every few seconds). A directory in its
// place stands for a file of another owner, which root, running the tests, could write.
func TestServeRefusesJobsItCannotWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "jobs.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err := run("serve", "--addr", "127.0.0.1:0", "--data", dir)
	if err == nil || !strings.Contains(err.Error(), "finalization jobs: sqlite: open: the store must be writable") || !strings.Contains(err.Error(), "jobs.db") {
		t.Errorf("a jobs.db the server cannot write: got %v, want a refusal naming it", err)
	}
}

// A request still running at SIGTERM (a judge uploading slowly) is cut after DrainTimeout: the shutdown goes on
// and ends well, checkpoint taken (it waited its whole 30 s for the request, then gave up on the commits and
// the checkpoint, and exited 1 saying "context deadline exceeded").
func TestServeStopsDespiteASlowUpload(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /api/v1/contests/c1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/x-ndjson\r\nContent-Length: 1000000\r\n\r\n{\"type\":", testJudgeToken); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the request is being read
	begin := time.Now()
	p.Stop(t)
	if took := time.Since(begin); took > main.DrainTimeout+10*time.Second {
		t.Errorf("stopping with a slow upload took %v, want about %v", took, main.DrainTimeout)
	}
	if logs := p.Logs(); !strings.Contains(logs, "requests still running at shutdown were cut") || strings.Contains(logs, "deadline exceeded") {
		t.Errorf("stopping with a slow upload: the log says\n%s\nwant the request cut, and no deadline exceeded", logs)
	}
}

// SIGHUP (a closed terminal; an operator reloading a daemon) stops the server as SIGTERM does: its shutdown
// runs (it was killed, streams and requests cut, no checkpoint taken).
func TestServeStopsOnSIGHUP(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		// The server inherits it ignored (the tests run under nohup), and keeps ignoring it, as it should.
		t.Skip("SIGHUP is ignored here: TestServeUnderNohupOutlivesSIGHUP covers that case")
	}
	p := StartRankd(t, t.TempDir())
	p.StopWith(t, syscall.SIGHUP)
	if logs := p.Logs(); !strings.Contains(logs, "shutting down") {
		t.Errorf("stopped by SIGHUP: the log says no shutdown:\n%s", logs)
	}
}

// Started under nohup (SIGHUP ignored), the server outlives the terminal that closes: SIGHUP leaves it
// serving.
func TestServeUnderNohupOutlivesSIGHUP(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup here:", err)
	}
	p := startRankdUnder(t, []string{nohup}, t.TempDir())
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	resp, err := http.Get(p.URL + "/healthz")
	if err != nil {
		t.Fatalf("after SIGHUP under nohup: got %v, want the server still serving\n%s", err, p.Logs())
	}
	resp.Body.Close()
	if logs := p.Logs(); strings.Contains(logs, "shutting down") {
		t.Errorf("after SIGHUP under nohup: the log says it shut down:\n%s", logs)
	}
}

// The same over PostgreSQL: the board of a real feed, again after a restart, and one server per database.
func TestServeOverPostgres(t *testing.T) {
	u := pgtest.MustSchema(t)
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir(), "--postgres", u)
	if logs := p.Logs(); !strings.Contains(logs, `"store":"postgres"`) || strings.Contains(logs, `"data":`) {
		t.Errorf("the log over PostgreSQL: got\n%s\nwant it to name the store, not a data directory it does not use", logs)
	}
	for _, batch := range splitLines(data, 1000) {
		if _, err := postFeed(p.URL, "euc2025", batch); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, err := run("serve", "--addr", "127.0.0.1:0", "--postgres", u)
	if err == nil || !strings.Contains(err.Error()+stderr, "another rankd serves this database") {
		t.Errorf("second server over the database: got %v, want a refusal", err)
	}
	for round := range 2 {
		for _, view := range []string{"jury", "public"} {
			if got, want := MustServedRows(t, p.URL, "euc2025", view), offlineRows(t, path, view); got != want {
				t.Errorf("round %d, view %s: the served board differs from the offline one", round, view)
			}
		}
		p.Stop(t)
		p = StartRankd(t, t.TempDir(), "--postgres", u)
	}
}

// The API lets pages of other origins call it (CORS) unless --no-cors says otherwise.
func TestServeNoCORS(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		origin string
	}{{nil, "*"}, {[]string{"--no-cors"}, ""}} {
		p := StartRankd(t, t.TempDir(), tc.args...)
		req, err := http.NewRequest("GET", p.URL+"/api/v1/contests", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://elsewhere.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.origin {
			t.Errorf("serve %v: got Access-Control-Allow-Origin %q, want %q", tc.args, got, tc.origin)
		}
		p.Stop(t)
	}
}
