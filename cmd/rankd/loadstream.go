package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rankd/ccs"
)

// streamLoad is the setting of loadtest --mode stream.
type streamLoad struct {
	url, contest       string
	clients, rate      int // SSE clients; judgements posted per second
	teams, problems    int
	duration           time.Duration
	adminToken, tokenJ string
}

// streamResult is what a stream load run measured.
type streamResult struct {
	Mode             string  `json:"mode"`
	Clients          int     `json:"clients"`
	Connected        int     `json:"connected"`
	JudgementsPosted int     `json:"judgements_posted"`
	JudgementsPerSec float64 `json:"judgements_per_sec"`
	Seconds          float64 `json:"seconds"`
	Frames           int64   `json:"frames"`
	FramesPerSec     float64 `json:"frames_per_sec"`
	Gaps             int64   `json:"gaps"`
	Dropped          int64   `json:"disconnects"`
	P50ms            float64 `json:"visible_p50_ms"`
	P95ms            float64 `json:"visible_p95_ms"`
	P99ms            float64 `json:"visible_p99_ms"`
	MaxMs            float64 `json:"visible_max_ms"`
	RSSBeforeMB      float64 `json:"server_rss_before_mb"`
	RSSConnectedMB   float64 `json:"server_rss_connected_mb"`
	RSSEndMB         float64 `json:"server_rss_end_mb"`
	KBPerClient      float64 `json:"server_kb_per_client"`
	ServerCPU        float64 `json:"server_cpu_percent"`
}

// posted maps the jury sequence numbers of posted judgements to when they were posted, in order.
type posted struct {
	mu   sync.RWMutex
	seqs []uint64
	at   []time.Time
}

func (p *posted) add(seq uint64, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i, _ := slices.BinarySearch(p.seqs, seq) // concurrent POSTs answer in any order
	p.seqs = slices.Insert(p.seqs, i, seq)
	p.at = slices.Insert(p.at, i, at)
}

// each calls fn with when each judgement with a sequence number in (after, upto] was posted.
func (p *posted) each(after, upto uint64, fn func(time.Time)) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	i, _ := slices.BinarySearch(p.seqs, after+1)
	for ; i < len(p.seqs) && p.seqs[i] <= upto; i++ {
		fn(p.at[i])
	}
}

// histogram counts latencies by millisecond, up to its length; the last bucket takes the rest. One per
// client, merged at the end: thousands of clients times a thousand judgements a second are too many samples
// to keep one by one.
type histogram []uint32

const histogramMs = 5000

func (h histogram) add(d time.Duration) { h[min(int(d/time.Millisecond), len(h)-1)]++ }

// quantile returns the latency below which a fraction q of the samples are, in ms.
func (h histogram) quantile(q float64) float64 {
	var total uint64
	for _, n := range h {
		total += uint64(n)
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for ms, n := range h {
		if seen += uint64(n); seen >= max(want, 1) {
			return float64(ms + 1)
		}
	}
	return float64(len(h))
}

// loadStream opens SSE clients of the jury view, posts judgements at a fixed rate, and measures how long
// each judgement takes to be visible to each client (from the start of its POST to the arrival of the
// frame that carries it, to the millisecond), the frames, gaps, and the server's memory and CPU.
func loadStream(ctx context.Context, sl streamLoad) (streamResult, error) {
	res := streamResult{Mode: "stream", Clients: sl.clients}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	base := sl.url + "/api/v1/contests/" + sl.contest
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := createLoadContest(ctx, client, sl, start); err != nil {
		return res, err
	}
	rssBefore, _, err := serverProcess(ctx, client, sl.url, sl.tokenJ)
	if err != nil {
		return res, err
	}

	var frames, gaps, dropped atomic.Int64
	var post posted
	var countsMu sync.Mutex
	var allCounts []*sseCounts
	connected := make(chan bool, sl.clients)
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	u, err := url.Parse(base + "/scoreboard/stream?view=jury")
	if err != nil {
		return res, err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		followStreams(cctx, sseFollow{u: u, token: sl.tokenJ, n: sl.clients, connected: connected, dropped: &dropped,
			counts: func() *sseCounts {
				c := &sseCounts{frames: &frames, gaps: &gaps, post: &post, lat: make(histogram, histogramMs+1)}
				countsMu.Lock()
				allCounts = append(allCounts, c)
				countsMu.Unlock()
				return c
			}})
	})
	for range sl.clients {
		if <-connected {
			res.Connected++
		}
	}
	rssConnected, cpuBefore, err := serverProcess(ctx, client, sl.url, sl.tokenJ)
	if err != nil {
		return res, err
	}
	frames.Store(0)

	begin := time.Now()
	res.JudgementsPosted, err = postJudgements(ctx, client, sl, base, start, &post)
	elapsed := time.Since(begin)
	if err != nil {
		return res, err
	}
	time.Sleep(time.Second) // the last frames
	rssEnd, cpuAfter, err := serverProcess(ctx, client, sl.url, sl.tokenJ)
	if err != nil {
		return res, err
	}
	stop()
	wg.Wait()

	res.Seconds = elapsed.Seconds()
	res.JudgementsPerSec = float64(res.JudgementsPosted) / res.Seconds
	res.Frames, res.Gaps, res.Dropped = frames.Load(), gaps.Load(), dropped.Load()
	res.FramesPerSec = float64(res.Frames) / (res.Seconds + 1)
	lat := make(histogram, histogramMs+1)
	for _, c := range allCounts {
		for i, n := range c.lat {
			lat[i] += n
		}
	}
	res.P50ms, res.P95ms, res.P99ms, res.MaxMs = lat.quantile(0.50), lat.quantile(0.95), lat.quantile(0.99), lat.quantile(1)
	res.RSSBeforeMB, res.RSSConnectedMB, res.RSSEndMB = rssBefore/1e6, rssConnected/1e6, rssEnd/1e6
	if res.Connected > 0 {
		res.KBPerClient = (rssConnected - rssBefore) / float64(res.Connected) / 1e3
	}
	res.ServerCPU = 100 * (cpuAfter - cpuBefore) / (res.Seconds + 1)
	return res, nil
}

// createLoadContest defines the contest the load runs on (no freeze, so every judgement shows at once),
// unless it exists.
func createLoadContest(ctx context.Context, client *http.Client, sl streamLoad, start time.Time) error {
	var teams, problems []map[string]any
	for i := 1; i <= sl.teams; i++ {
		teams = append(teams, map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Team %d", i)})
	}
	for i := 1; i <= sl.problems; i++ {
		problems = append(problems, map[string]any{"id": fmt.Sprintf("p%d", i), "label": fmt.Sprintf("P%d", i), "name": fmt.Sprintf("Problem %d", i), "ordinal": i})
	}
	body, err := json.Marshal(map[string]any{
		"contest": map[string]any{"id": sl.contest, "name": loadContestName, "start_time": ccs.FormatTime(start),
			"duration": "100:00:00", "scoreboard_freeze_duration": "0:00:00"},
		"problems": problems, "teams": teams,
	})
	if err != nil {
		return err
	}
	err = do(ctx, client, "POST", sl.url+"/api/v1/contests", sl.adminToken, body)
	if err != nil && !strings.Contains(err.Error(), "status 409") {
		return err
	}
	return nil
}

// postJudgements posts, every 10 ms, submissions with their judgements at the rate asked, for the duration,
// and records each judgement's jury sequence number with the time its POST started. POSTs run
// concurrently (up to 32), as many judge hosts would send them, so a slow commit does not lower the rate.
func postJudgements(ctx context.Context, client *http.Client, sl streamLoad, base string, start time.Time, post *posted) (int, error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	begin := time.Now()
	end := begin.Add(sl.duration)
	k := 0
	var n atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	inflight := make(chan struct{}, 32)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for time.Now().Before(end) && ctx.Err() == nil {
		<-tick.C
		// As many as the rate asks for by now: under 100 a second, most ticks post none.
		due := int(float64(sl.rate)*time.Since(begin).Seconds()) - k
		if due <= 0 {
			continue
		}
		var buf bytes.Buffer
		at := ccs.FormatRelTime(time.Since(start))
		for range due {
			k++
			verdict := "WA"
			if k%3 == 0 {
				verdict = "AC"
			}
			fmt.Fprintf(&buf, `{"type":"submissions","data":{"id":"s%s-%d","team_id":"t%d","problem_id":"p%d","contest_time":%q}}`+"\n",
				run, k, 1+k%sl.teams, 1+(k/sl.teams)%sl.problems, at)
			fmt.Fprintf(&buf, `{"type":"judgements","data":{"id":"j%s-%d","submission_id":"s%s-%d","judgement_type_id":%q,"start_contest_time":%q}}`+"\n",
				run, k, run, k, verdict, at)
		}
		inflight <- struct{}{}
		wg.Go(func() {
			defer func() { <-inflight }()
			began := time.Now()
			seqs, err := postBatch(ctx, client, base, sl.tokenJ, buf.Bytes())
			if err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
				return
			}
			for _, s := range seqs {
				post.add(s, began)
			}
			n.Add(int64(len(seqs)))
		})
	}
	wg.Wait()
	return int(n.Load()), firstErr
}

// postBatch posts NDJSON lines of submission and judgement pairs and returns the jury sequence numbers of
// the judgements accepted.
func postBatch(ctx context.Context, client *http.Client, base, token string, body []byte) ([]uint64, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/events", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Results []struct {
			Status string
			Seq    uint64
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	var seqs []uint64
	for i, r := range out.Results {
		if i%2 == 1 && r.Status == "accepted" {
			seqs = append(seqs, r.Seq)
		}
	}
	return seqs, nil
}

// serverProcess reads the server's resident memory (bytes) and CPU time (seconds) from its metrics.
func serverProcess(ctx context.Context, client *http.Client, url, token string) (rss, cpu float64, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/metrics", nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("metrics: status %d (they need a judge token)", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "process_resident_memory_bytes":
			rss, _ = strconv.ParseFloat(value, 64)
		case "process_cpu_seconds_total":
			cpu, _ = strconv.ParseFloat(value, 64)
		}
	}
	return rss, cpu, sc.Err()
}

// printStream writes a stream result for people.
func printStream(w io.Writer, r streamResult) {
	fmt.Fprintf(w, "stream: %d of %d clients connected; %d judgements in %.1f s (%.0f/s); %d frames (%.0f/s), %d gaps, %d disconnects\n",
		r.Connected, r.Clients, r.JudgementsPosted, r.Seconds, r.JudgementsPerSec, r.Frames, r.FramesPerSec, r.Gaps, r.Dropped)
	fmt.Fprintf(w, "submit→visible: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms\n", r.P50ms, r.P95ms, r.P99ms, r.MaxMs)
	fmt.Fprintf(w, "server: RSS %.0f MB before, %.0f MB with the clients (%.1f KB per client), %.0f MB at the end; CPU %.0f%%\n",
		r.RSSBeforeMB, r.RSSConnectedMB, r.KBPerClient, r.RSSEndMB, r.ServerCPU)
}
