package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
)

// benchResult is what "rankd bench --json" prints as its last line.
type benchResult struct {
	Feed   string `json:"feed"`
	Lines  int    `json:"lines"`
	Events int    `json:"events"` // judgement events applied
	// TotalEvents counts every event applied (submissions, judgements, definitions).
	TotalEvents  int     `json:"total_events"`
	Submissions  int     `json:"submissions"`
	Skipped      int     `json:"skipped"`
	ParseSeconds float64 `json:"parse_seconds"`
	// ApplySeconds is the apply phase on memory the process already had (a second board, built after the
	// first was dropped); ColdApplySeconds the first board's, on memory it touched for the first time.
	ApplySeconds     float64 `json:"apply_seconds"`
	ColdApplySeconds float64 `json:"cold_apply_seconds"`
	// ApplyEventsPerSec is judgements per second of the whole apply phase (submissions included in the time).
	ApplyEventsPerSec float64 `json:"apply_events_per_sec"`
	// ParseApplyEventsPerSec is every event per second of parsing and applying together, one after the
	// other on one goroutine.
	ParseApplyEventsPerSec float64 `json:"parse_apply_events_per_sec"`
	// PipelinedSeconds is parsing and applying the feed into a fresh board with ccs.Pipeline: parsing on
	// one core while applying on another, as the server replays its log and rankd standings reads a feed.
	PipelinedSeconds      float64 `json:"pipelined_seconds"`
	PipelinedEventsPerSec float64 `json:"pipelined_events_per_sec"`
	// NsPerEvent and AllocsPerEvent are per judgement applied, over the whole apply phase.
	NsPerEvent         float64 `json:"ns_per_event"`
	AllocsPerEvent     float64 `json:"allocs_per_event"`
	BytesPerSubmission float64 `json:"bytes_per_submission"`
	GOMAXPROCS         int     `json:"gomaxprocs"`
	// Batch is how many events were applied between two settlings of the board (every row in its place in
	// both views); 0: once, at the end.
	Batch int `json:"batch"`
}

// applyAll applies events to b, settling it every batch events (0: at the end only), counts them in res and
// returns the seconds it took.
func applyAll(b *board.Board, events []rankd.Event, batch int, res *benchResult) float64 {
	begin := time.Now()
	for i := range events {
		ev := &events[i]
		if batch > 0 && i%batch == 0 {
			b.Settle()
		}
		if _, err := b.Apply(ev); err != nil {
			res.Skipped++
			continue
		}
		res.TotalEvents++
		if ev.Type == rankd.EventJudgement {
			res.Events++
		}
	}
	b.Settle()
	return time.Since(begin).Seconds()
}

func (m *Main) bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	feed := fs.String("feed", "", "CCS event feed (NDJSON)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object on the last line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the apply phase to this file")
	batch := fs.Int("batch", 1000, "settle the board (every row in its place in both views) after every `N` events, as the server does after each group commit; 0: once, at the end, as a replay does")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *feed == "" || fs.NArg() > 0 {
		fmt.Fprintln(m.Stderr, "rankd bench: --feed FILE is required")
		fs.Usage()
		return errUsage
	}
	data, err := os.ReadFile(*feed)
	if err != nil {
		return err
	}
	res := benchResult{Feed: *feed, GOMAXPROCS: runtime.GOMAXPROCS(0)}

	// Parse, timed without I/O and without keeping the events (keeping them is the bench's own cost); then
	// parse again, untimed, into events that own their objects for the apply phase.
	t0 := time.Now()
	if err := parseOnly(ctx, data); err != nil {
		return err
	}
	res.ParseSeconds = time.Since(t0).Seconds()
	events, err := parseAll(ctx, data, &res)
	if err != nil {
		return err
	}
	badLines := res.Skipped // the lines that are no event; the apply phases add the events refused

	// Apply: every event into a fresh board, timed, with allocations counted and retained memory measured.
	// Twice: first on memory the process never touched (the kernel, or the hypervisor, then provides and
	// zeroes each page on first touch), then on a second board, which reuses the first one's memory as a
	// long-running server reuses its own.
	res.Batch = max(*batch, 0)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b := board.New()
	res.ColdApplySeconds = applyAll(b, events, res.Batch, &res)
	runtime.ReadMemStats(&after)
	res.Submissions = b.Stats().Submissions
	if res.Submissions > 0 {
		runtime.GC()
		runtime.ReadMemStats(&after)
		res.BytesPerSubmission = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(res.Submissions)
	}
	runtime.KeepAlive(b)
	b = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	b = board.New()
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	res.Skipped, res.TotalEvents, res.Events = badLines, 0, 0
	res.ApplySeconds = applyAll(b, events, res.Batch, &res)
	if err := stopProfile(); err != nil {
		return err
	}
	runtime.ReadMemStats(&after)
	mallocs := after.Mallocs - before.Mallocs
	if res.Events > 0 {
		res.ApplyEventsPerSec = float64(res.Events) / res.ApplySeconds
		res.NsPerEvent = res.ApplySeconds * 1e9 / float64(res.Events)
		res.AllocsPerEvent = float64(mallocs) / float64(res.Events)
	}
	res.ParseApplyEventsPerSec = float64(res.TotalEvents) / (res.ParseSeconds + res.ApplySeconds)
	runtime.KeepAlive(events) // the timed boards stay alive until here; then their memory goes
	runtime.KeepAlive(b)
	runtime.GC()

	// Parse and apply, pipelined.
	t2 := time.Now()
	pb := board.New()
	if _, err := ccs.Pipeline(ctx, bytes.NewReader(data), func(ev *rankd.Event, _ int, err error) error {
		if err == nil {
			_, _ = pb.Apply(ev) // refusals are counted above
		}
		return nil
	}); err != nil {
		return err
	}
	res.PipelinedSeconds = time.Since(t2).Seconds()
	res.PipelinedEventsPerSec = float64(res.TotalEvents) / res.PipelinedSeconds

	fmt.Fprintf(m.Stdout, "feed %s: %d lines, %d events applied (%d judgements, %d submissions), %d skipped\n",
		res.Feed, res.Lines, res.TotalEvents, res.Events, res.Submissions, res.Skipped)
	fmt.Fprintf(m.Stdout, "parse  %8.3f s  %12.0f lines/s\n", res.ParseSeconds, float64(res.Lines)/res.ParseSeconds)
	fmt.Fprintf(m.Stdout, "apply  %8.3f s  %12.0f judgements/s  %6.1f ns/judgement  %.3f allocs/judgement  (settled every %d events)\n",
		res.ApplySeconds, res.ApplyEventsPerSec, res.NsPerEvent, res.AllocsPerEvent, res.Batch)
	fmt.Fprintf(m.Stdout, "apply on fresh memory  %8.3f s  %12.0f judgements/s\n", res.ColdApplySeconds, float64(res.Events)/res.ColdApplySeconds)
	fmt.Fprintf(m.Stdout, "parse+apply %12.0f events/s; pipelined %12.0f events/s; retained %.1f bytes/submission\n",
		res.ParseApplyEventsPerSec, res.PipelinedEventsPerSec, res.BytesPerSubmission)
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	return nil
}

// parseOnly reads every event of a feed and drops it.
func parseOnly(ctx context.Context, data []byte) error {
	rd := ccs.NewReader(bytes.NewReader(data))
	for n := 0; ; n++ {
		_, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !badLine(err) {
			return err
		}
		if n%65536 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// parseAll reads every event of a feed into events that own their objects (the reader reuses its own).
func parseAll(ctx context.Context, data []byte, res *benchResult) ([]rankd.Event, error) {
	rd := ccs.NewReader(bytes.NewReader(data))
	events := make([]rankd.Event, 0, bytes.Count(data, []byte{'\n'})+1)
	var subs []rankd.Submission
	var judgements []rankd.Judgement
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if !badLine(err) {
				return nil, err
			}
			res.Skipped++
			continue
		}
		switch {
		case ev.Submission != nil:
			subs = appendChunked(subs, *ev.Submission)
			ev.Submission = &subs[len(subs)-1]
		case ev.Judgement != nil:
			j := *ev.Judgement
			j.SubtaskScores = slices.Clone(j.SubtaskScores)
			judgements = appendChunked(judgements, j)
			ev.Judgement = &judgements[len(judgements)-1]
		}
		events = append(events, ev)
		if len(events)%65536 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	res.Lines = rd.Line()
	return events, nil
}

// appendChunked appends to a slice that is never reallocated, so pointers into it stay valid: a full chunk
// is left behind (still referenced by the events) and a new one started.
func appendChunked[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = make([]T, 0, 65536)
	}
	return append(s, v)
}

// startCPUProfile starts a CPU profile written to path, unless path is empty, and returns what stops it.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
