package main_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/redis/redistest"
	"rankd/stream"
)

// pageJSON is a scoreboard page of the API.
type pageJSON struct {
	Seq  uint64
	Rows []stream.RowData
}

// holdsPage says how a follower's board differs from a page of its view ("" when it holds it).
func holdsPage(f *stream.Follower, page pageJSON) string {
	b, ok := f.Board()
	switch {
	case !ok:
		return "no snapshot yet"
	case b.Seq != page.Seq:
		return fmt.Sprintf("got seq %d, want %d", b.Seq, page.Seq)
	}
	got := make([]stream.RowData, len(b.Rows))
	for i, row := range b.Rows {
		got[i] = row.RowData
	}
	if !reflect.DeepEqual(got, page.Rows) {
		return "the rows differ"
	}
	return ""
}

func MustPage(tb testing.TB, url, contestID, query string) pageJSON {
	tb.Helper()
	var p pageJSON
	MustGetJSON(tb, url+"/api/v1/contests/"+contestID+"/scoreboard?"+query, testAdminToken, &p)
	return p
}

// eventually retries check until it returns "" or the deadline passes, then fails with its last complaint.
func eventually(tb testing.TB, what string, check func() string) {
	tb.Helper()
	var why string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if why = check(); why == "" {
			return
		}
	}
	tb.Fatalf("%s: %s", what, why)
}

// MustMetric returns the value of one series of a server's /metrics (0 when absent).
func MustMetric(tb testing.TB, url, series string) float64 {
	tb.Helper()
	req, err := http.NewRequest("GET", url+"/metrics", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testJudgeToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// Three servers over one PostgreSQL database and one Redis: a contest's events posted round-robin, a live
// stream of each view on each server, one server killed halfway (its share resent to the others). Every
// server ends with the offline board, every stream holds its server's board without a gap, the pages come
// from the shared projection, and the killed server, restarted, has the board too.
func TestServeDistributed(t *testing.T) {
	pg := pgtest.MustSchema(t)
	args := []string{"--postgres", pg, "--redis", redistest.MustServer(t), "--redis-prefix", redistest.MustPrefix(t)}
	cfg := gen.Config{Seed: 5, ContestID: "dist", Teams: 120, Problems: 8, Submissions: 3000}.WithDefaults()
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	batches := splitLines(data, 100)
	var nodes []*rankdProc
	for range 3 {
		nodes = append(nodes, StartRankd(t, t.TempDir(), args...))
	}
	// A server started without --redis beside them would serve a board that never follows theirs.
	if _, stderr, err := run("serve", "--addr", "127.0.0.1:0", "--postgres", pg); err == nil || !strings.Contains(err.Error()+stderr, "start this one with their --redis") {
		t.Errorf("a server without Redis beside those of the distributed mode: got %v, want a refusal saying why", err)
	}
	// The contest's definition first, on one server; the others learn it from the log.
	if _, err := postFeed(nodes[0].URL, cfg.ContestID, batches[0]); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every server knows the contest", func() string {
		for i, n := range nodes {
			resp, err := http.Get(n.URL + "/api/v1/contests/" + cfg.ContestID)
			if err != nil {
				return err.Error()
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Sprintf("server %d: status %d", i, resp.StatusCode)
			}
		}
		return ""
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type follower struct {
		node int
		view string
		f    *stream.Follower
		stop context.CancelFunc
	}
	var followers []follower
	var wg sync.WaitGroup
	for i, n := range nodes {
		for _, view := range []string{"jury", "public"} {
			fctx, stop := context.WithCancel(ctx)
			f := &stream.Follower{URL: n.URL + "/api/v1/contests/" + cfg.ContestID + "/scoreboard/stream?view=" + view,
				Token: testAdminToken}
			followers = append(followers, follower{i, view, f, stop})
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = f.Run(fctx) // ends with the test
			}()
		}
	}
	defer wg.Wait()
	defer cancel()

	alive := []int{0, 1, 2}
	for i, b := range batches[1:] {
		if i == len(batches)/2 {
			for _, f := range followers {
				if f.node == 2 {
					f.stop()
				}
			}
			nodes[2].Kill()
			alive = alive[:2]
		}
		for try := 0; ; try++ {
			res, err := postFeed(nodes[alive[(i+try)%len(alive)]].URL, cfg.ContestID, b)
			if err == nil {
				if res.Rejected > 0 {
					t.Fatalf("batch %d: %d events rejected: %+v", i, res.Rejected, res.Results)
				}
				break
			}
			if try == 5 {
				t.Fatalf("batch %d: %v", i, err)
			}
		}
	}

	want := map[string]string{}
	for _, view := range []string{"jury", "public"} {
		want[view] = offlineRows(t, path, view)
	}
	for _, i := range alive {
		for _, view := range []string{"jury", "public"} {
			eventually(t, fmt.Sprintf("server %d, view %s has the offline board", i, view), func() string {
				if MustServedRows(t, nodes[i].URL, cfg.ContestID, view) != want[view] {
					return "the served board differs"
				}
				return ""
			})
		}
	}
	for _, f := range followers {
		if f.node == 2 {
			continue
		}
		eventually(t, fmt.Sprintf("the %s stream of server %d holds its board", f.view, f.node), func() string {
			return holdsPage(f.f, MustPage(t, nodes[f.node].URL, cfg.ContestID, "view="+f.view))
		})
		if _, gaps := f.f.Stats(); gaps != 0 {
			t.Errorf("the %s stream of server %d: got %d gaps, want 0", f.view, f.node, gaps)
		}
	}
	// Both servers are at one version of each view, and a page of it comes from the shared projection.
	for _, view := range []string{"jury", "public"} {
		full := MustPage(t, nodes[0].URL, cfg.ContestID, "view="+view)
		for _, i := range alive {
			top := MustPage(t, nodes[i].URL, cfg.ContestID, "view="+view+"&limit=50")
			if top.Seq != full.Seq || !reflect.DeepEqual(top.Rows, full.Rows[:50]) {
				t.Errorf("server %d, view %s: the top 50 (seq %d) differ from the board's (seq %d)", i, view, top.Seq, full.Seq)
			}
		}
	}
	for _, i := range alive {
		if n := MustMetric(t, nodes[i].URL, `rankd_scoreboard_pages_rendered_total{source="projection"}`); n == 0 {
			t.Errorf("server %d: no page came from the projection", i)
		}
	}
	// The killed server, started again, catches up from the log.
	nodes[2] = StartRankd(t, t.TempDir(), args...)
	for _, view := range []string{"jury", "public"} {
		if got := MustServedRows(t, nodes[2].URL, cfg.ContestID, view); got != want[view] {
			t.Errorf("restarted server, view %s: the served board differs from the offline one", view)
		}
	}
}

// The euc2025 feed through two servers of the distributed mode gives the offline board, on both, and the
// same top of the board from the shared projection as from the boards.
func TestServeEUC2025Distributed(t *testing.T) {
	args := []string{"--postgres", pgtest.MustSchema(t), "--redis", redistest.MustServer(t), "--redis-prefix", redistest.MustPrefix(t)}
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*rankdProc{StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)}
	for i, batch := range splitLines(data, 300) {
		if _, err := postFeed(nodes[i%2].URL, "euc2025", batch); err != nil {
			t.Fatal(err)
		}
	}
	for _, view := range []string{"jury", "public"} {
		want := offlineRows(t, path, view)
		for i, n := range nodes {
			eventually(t, fmt.Sprintf("server %d, view %s has the offline board", i, view), func() string {
				if MustServedRows(t, n.URL, "euc2025", view) != want {
					return "the served board differs"
				}
				return ""
			})
			full := MustPage(t, n.URL, "euc2025", "view="+view)
			top := MustPage(t, n.URL, "euc2025", "view="+view+"&limit=50")
			if top.Seq != full.Seq || !reflect.DeepEqual(top.Rows, full.Rows[:50]) {
				t.Errorf("server %d, view %s: the top 50 differ from the board's", i, view)
			}
		}
	}
}
