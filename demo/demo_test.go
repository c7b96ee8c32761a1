package demo_test

import (
	"context"
	"testing"
	"time"

	"rankd"
	"rankd/demo"
	"rankd/gen"
)

// jumpClock is a clock whose waits pass at once: After moves it forward by d.
type jumpClock struct{ now time.Time }

func (c *jumpClock) Now() time.Time { return c.now }

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func contestTime(ev rankd.Event) time.Duration {
	switch {
	case ev.Submission != nil:
		return ev.Submission.Time
	case ev.Judgement != nil:
		return ev.Judgement.KnownAt()
	}
	return 0
}

func TestRunPostsEachEventWhenItsTimeComes(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		begin time.Duration // how far into the contest the demo starts
	}{
		{"from the start", 0},
		{"restarted half-way", 15 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := demo.Config("demo", start)
			total := 0
			if err := gen.Generate(cfg, func(rankd.Event) error { total++; return nil }); err != nil {
				t.Fatal(err)
			}
			clock := &jumpClock{now: start.Add(tc.begin)}
			posts, posted := 0, 0
			err := demo.Run(context.Background(), cfg, clock, func(_ context.Context, entries []rankd.LogEntry) error {
				posts++
				elapsed := clock.Now().Sub(start)
				for _, e := range entries {
					if at := contestTime(e.Event); at > elapsed {
						t.Fatalf("post %d at %v carries an event of %v", posts, elapsed, at)
					}
				}
				if posts == 1 && entries[0].Event.Type != rankd.EventContest {
					t.Fatalf("first post starts with %v, want the contest", entries[0].Event.Type)
				}
				if posts == 2 && tc.begin > 0 {
					// Catching up: everything due by the restart comes at once.
					if last := contestTime(entries[len(entries)-1].Event); last < tc.begin-time.Minute {
						t.Errorf("catch-up post ends at %v, want close to %v", last, tc.begin)
					}
				}
				posted += len(entries)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if posted != total {
				t.Errorf("got %d events posted, want %d", posted, total)
			}
			if posts < 100 {
				t.Errorf("got %d posts, want the contest spread over time", posts)
			}
		})
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := demo.Run(ctx, demo.Config("demo", start), demo.Wall{}, func(context.Context, []rankd.LogEntry) error { return nil })
	if err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
