package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"sync"
	"time"

	"rankd/gen"
)

// loadtest drives a running rankd over HTTP and reports throughput and latency:
//
//	--mode ingest: posts a feed file in batches (one client, batches in order), events/s;
//	--mode post:   single-submission POSTs from --clients concurrent clients;
//	--mode read:   scoreboard pages of --limit rows from --clients concurrent readers;
//	--mode stream: --clients SSE followers of the jury view while judgements are posted at --rate a second:
//	               submit→visible latency, frames, gaps, the server's memory per client and CPU.
//
// It is meant for loopback: it sends as fast as the server answers, for --duration (post, read) or until
// the feed is sent (ingest).
func (m *Main) loadtest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	url := fs.String("server", "http://127.0.0.1:8080", "rankd's address")
	mode := fs.String("mode", "read", "ingest, post, read or stream")
	contest := fs.String("contest", "", "contest id (required; ingest: the id of the feed's contest)")
	feedPath := fs.String("feed", "", "ingest: the NDJSON feed to post")
	batch := fs.Int("batch", 5000, "ingest: lines per request")
	clients := fs.Int("clients", 16, "post, read, stream: concurrent clients")
	duration := fs.Duration("duration", 10*time.Second, "post, read, stream: how long to run")
	limit := fs.Int("limit", 50, "read: rows per page")
	team := fs.String("team", "", "post: the team that submits (required)")
	problem := fs.String("problem", "", "post: the problem submitted to (required)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	rate := fs.Int("rate", 1000, "stream: judgements posted per second")
	teams := fs.Int("teams", 1000, "stream: teams of the contest the load creates")
	problems := fs.Int("problems", 12, "stream: problems of that contest")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the load tool itself to this file (its own cost, on the server's cores)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *contest == "" {
		fmt.Fprintln(m.Stderr, "loadtest: --contest ID is required (and flags come before other arguments)")
		fs.Usage()
		return errUsage
	}
	switch {
	case *mode == "ingest" && *feedPath == "":
		fmt.Fprintln(m.Stderr, "loadtest: --mode ingest needs --feed FILE")
		return errUsage
	case *mode == "stream" && *rate < 1:
		fmt.Fprintln(m.Stderr, "loadtest: --rate must be at least 1 judgement a second")
		return errUsage
	case *mode == "post" && (*team == "" || *problem == ""):
		fmt.Fprintln(m.Stderr, "loadtest: --mode post needs --team and --problem")
		return errUsage
	case *mode != "ingest" && *mode != "post" && *mode != "read" && *mode != "stream":
		fmt.Fprintf(m.Stderr, "loadtest: unknown mode %q (want ingest, post, read or stream)\n", *mode)
		return errUsage
	}
	server, err := serverURL(*url)
	if err != nil {
		fmt.Fprintln(m.Stderr, "loadtest:", err)
		return errUsage
	}
	token := cmp.Or(os.Getenv("RANKD_JUDGE_TOKEN"), os.Getenv("RANKD_ADMIN_TOKEN"))
	if token == "" && *mode != "read" {
		fmt.Fprintf(m.Stderr, "loadtest: --mode %s posts events: set RANKD_JUDGE_TOKEN (or RANKD_ADMIN_TOKEN) to a token of the server\n", *mode)
		return errUsage
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients + 1}}
	base := server + "/api/v1/contests/" + neturl.PathEscape(*contest)
	if *mode != "read" {
		if err := checkLoadContest(ctx, client, base, token); err != nil {
			var rc *realContestError
			if errors.As(err, &rc) {
				if *mode == "ingest" {
					fmt.Fprintf(m.Stderr, "loadtest: --mode ingest would write into %s; ingest a feed of a contest of its own (rankd gen --id ID)\n", rc)
				} else {
					fmt.Fprintf(m.Stderr, "loadtest: --mode %s would write into %s; give --contest an id of its own\n", *mode, rc)
				}
				return errUsage
			}
			return err
		}
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() { _ = stopProfile() }()
	var res loadResult
	switch *mode {
	case "ingest":
		res, err = loadIngest(ctx, client, base, token, *feedPath, *batch)
	case "post":
		n := 0
		var mu sync.Mutex
		res, err = loadClients(ctx, *clients, *duration, func(ctx context.Context) error {
			mu.Lock()
			n++
			id := fmt.Sprintf("load-%d-%d", time.Now().UnixNano(), n)
			mu.Unlock()
			body := fmt.Sprintf(`{"id":%q,"team_id":%q,"problem_id":%q,"contest_time":"0:01:00"}`, id, *team, *problem)
			return do(ctx, client, "POST", base+"/submissions", token, []byte(body))
		})
	case "stream":
		sr, err := loadStream(ctx, streamLoad{url: server, contest: *contest, clients: *clients, rate: *rate,
			teams: *teams, problems: *problems, duration: *duration,
			adminToken: os.Getenv("RANKD_ADMIN_TOKEN"), tokenJ: token})
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(m.Stdout).Encode(sr)
		}
		printStream(m.Stdout, sr)
		return nil
	case "read":
		path := fmt.Sprintf("%s/scoreboard?offset=0&limit=%d", base, *limit)
		// Pages are read as a browser takes them, gzip-compressed, but not inflated: as with wrk, the load
		// generator's own work on the same cores stays small.
		reader := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients + 1, DisableCompression: true}}
		res, err = loadClients(ctx, *clients, *duration, func(ctx context.Context) error {
			return readPage(ctx, reader, path)
		})
	}
	if err != nil {
		return err
	}
	res.Mode, res.Clients = *mode, *clients
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	fmt.Fprintf(m.Stdout, "%s: %d requests (%d failed), %d events (%d rejected) in %.2f s: %.0f requests/s, %.0f events/s; latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		res.Mode, res.Requests, res.Failed, res.Events, res.Rejected, res.Seconds, res.RequestsPerSec, res.EventsPerSec, res.P50ms, res.P99ms, res.MaxMs)
	return nil
}

// loadResult is what a load run measured.
type loadResult struct {
	Mode           string  `json:"mode"`
	Clients        int     `json:"clients"`
	Requests       int     `json:"requests"`
	Failed         int     `json:"failed"`   // requests that failed
	Rejected       int     `json:"rejected"` // ingest: events the server refused
	Events         int     `json:"events"`
	Seconds        float64 `json:"seconds"`
	RequestsPerSec float64 `json:"requests_per_sec"`
	EventsPerSec   float64 `json:"events_per_sec"`
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
}

func (r *loadResult) finish(lat []time.Duration, elapsed time.Duration) {
	slices.Sort(lat)
	ms := func(q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	r.Seconds = elapsed.Seconds()
	r.RequestsPerSec = float64(r.Requests) / r.Seconds
	r.EventsPerSec = float64(r.Events) / r.Seconds
	r.P50ms, r.P99ms, r.MaxMs = ms(0.50), ms(0.99), ms(1)
}

// do sends one request and reads the whole answer; a status other than 200 is an error.
func do(ctx context.Context, client *http.Client, method, url, token string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s %s: status %d: %.200s", method, url, resp.StatusCode, data)
	}
	return err
}

// readPage reads a page whole, asking for it gzip-compressed; a status other than 200 is an error.
func readPage(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: status %d (%d bytes)", url, resp.StatusCode, n)
	}
	return err
}

// loadClients runs call from n clients in a loop for d and measures each call.
func loadClients(ctx context.Context, n int, d time.Duration, call func(context.Context) error) (loadResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var res loadResult
	var lat []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	begin := time.Now()
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			failed := 0
			for ctx.Err() == nil {
				t := time.Now()
				err := call(ctx)
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					failed++
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			res.Failed += failed
			mu.Unlock()
		})
	}
	wg.Wait()
	res.Requests = len(lat) + res.Failed
	res.Events = len(lat)
	res.finish(lat, time.Since(begin))
	if res.Events == 0 && firstErr != nil {
		return res, firstErr
	}
	return res, nil
}

// loadIngest posts a feed in batches of lines, one request after the other, as a judge system catching up
// would.
func loadIngest(ctx context.Context, client *http.Client, base, token, path string, perBatch int) (loadResult, error) {
	var res loadResult
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	var lat []time.Duration
	im := importer{client: client, url: base + "/events?results=problems", token: token, stderr: io.Discard,
		answered: func(d time.Duration) { lat = append(lat, d) }}
	begin := time.Now()
	err = im.run(ctx, f, perBatch)
	res.Requests = len(lat)
	res.Events, res.Rejected = im.accepted+im.duplicates, im.rejected
	res.finish(lat, time.Since(begin))
	return res, err
}

// loadContestName is the name of the contests loadtest --mode stream creates.
const loadContestName = "Load"

// realContestError is a contest that a load test must not write into.
type realContestError struct{ id, name string }

func (e *realContestError) Error() string {
	return fmt.Sprintf("contest %q (%q), which is not a load test's", e.id, e.name)
}

// checkLoadContest makes sure that the contest at base is one a load may write into: none yet, one that
// loadtest created, or a synthetic one (rankd gen's). Anything else is someone's contest, whose log a load
// would fill with made-up submissions for ever.
func checkLoadContest(ctx context.Context, client *http.Client, base, token string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", base, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var c struct{ ID, Name string }
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: status %d", base, resp.StatusCode)
	case json.NewDecoder(resp.Body).Decode(&c) != nil:
		return fmt.Errorf("GET %s: not a contest", base)
	case c.Name == loadContestName || c.Name == gen.ContestName:
		return nil
	}
	return &realContestError{id: c.ID, name: c.Name}
}
