// Package demo plays a synthetic contest in real time, as its judges would: the contest is defined at once,
// then each submission and each verdict is posted when its time comes. rankd serve --demo runs it so that a
// newcomer sees a live board move, and the freeze come, within minutes.
package demo

import (
	"context"
	"errors"
	"slices"
	"time"

	"rankd"
	"rankd/engine"
	"rankd/gen"
)

// Config returns the demo contest: short enough to watch from start to freeze to end, busy enough to move.
func Config(id string, start time.Time) gen.Config {
	return gen.Config{
		Seed:        1,
		ContestID:   id,
		Teams:       60,
		Problems:    10,
		Submissions: 1500,
		Start:       start,
		Duration:    30 * time.Minute,
		Freeze:      6 * time.Minute,
		Groups:      2,
	}.WithDefaults()
}

// First returns the first entry Run posts for cfg (the contest's definition), the first of the contest's log
// when Run made it: serve --demo plays only into its own contest, never into an organiser's of the same id,
// and knows its own by that entry, which nothing done to the contest since changes.
func First(cfg gen.Config) (rankd.LogEntry, error) {
	defs, _, err := plan(cfg)
	if err != nil {
		return rankd.LogEntry{}, err
	}
	if len(defs) == 0 {
		return rankd.LogEntry{}, errors.New("demo: the generator defines nothing")
	}
	return defs[0], nil
}

// Clock is what the demo needs of time; tests give one they move by hand.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Wall is the real clock.
type Wall struct{}

// Now returns the current time.
func (Wall) Now() time.Time { return time.Now() }

// After waits on a real timer.
func (Wall) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Post delivers events to the contest; a retry must be harmless (the log drops duplicates).
type Post func(ctx context.Context, entries []rankd.LogEntry) error

// Run posts the contest of cfg: the definitions at once, then every timed event once the clock passes
// cfg.Start plus its contest time (in batches of what is due). Events already due when Run starts are posted
// at once, so a restarted demo catches up. It returns when everything is posted or ctx is done.
func Run(ctx context.Context, cfg gen.Config, clock Clock, post Post) error {
	defs, timed, err := plan(cfg)
	if err != nil {
		return err
	}
	if err := post(ctx, defs); err != nil {
		return err
	}
	for len(timed) > 0 {
		elapsed := clock.Now().Sub(cfg.Start)
		n := 0
		for n < len(timed) && timed[n].at <= elapsed {
			n++
		}
		if n == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-clock.After(timed[0].at - elapsed):
			}
			continue
		}
		batch := make([]rankd.LogEntry, n)
		for i := range batch {
			batch[i] = timed[i].entry
		}
		if err := post(ctx, batch); err != nil {
			return err
		}
		timed = timed[n:]
	}
	return nil
}

// plan returns the entries of the contest of cfg: its definitions, then what happens in time, in the order
// of their times.
func plan(cfg gen.Config) (defs []rankd.LogEntry, timed []timedEvent, err error) {
	err = gen.Generate(cfg, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		if err != nil {
			return err
		}
		if at, ok := dueAt(ev, cfg.Start); ok {
			timed = append(timed, timedEvent{at: at, entry: e})
		} else {
			defs = append(defs, e)
		}
		return nil
	})
	slices.SortStableFunc(timed, func(x, y timedEvent) int { return int(x.at - y.at) })
	return defs, timed, err
}

type timedEvent struct {
	at    time.Duration
	entry rankd.LogEntry
}

// dueAt returns the contest time at which an event happens, if it is one that happens in time.
func dueAt(ev rankd.Event, start time.Time) (time.Duration, bool) {
	switch {
	case ev.Submission != nil:
		return ev.Submission.Time, true
	case ev.Judgement != nil:
		return ev.Judgement.KnownAt(), true
	case ev.State != nil:
		var last time.Time
		for _, t := range []*time.Time{ev.State.Started, ev.State.Frozen, ev.State.Ended, ev.State.Thawed,
			ev.State.Finalized, ev.State.EndOfUpdates} {
			if t != nil && t.After(last) {
				last = *t
			}
		}
		return last.Sub(start), true
	}
	return 0, false
}
