// Package demo plays a synthetic contest in real time, as its judges would: the contest is defined at once,
// then each submission and each verdict is posted when its time comes. rankd serve --demo runs it so that a
// newcomer sees a live board move, and the freeze come, within minutes.
package demo

import (
	"cmp"
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

// Made reports whether contest c is one that Run makes of cfg (its definition, whatever has been added to it
// since): serve --demo plays only into its own contest, never into an organiser's that has the same id.
func Made(cfg gen.Config, c rankd.Contest) (bool, error) {
	var want *rankd.Contest
	errFound := errors.New("the contest is defined")
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		if ev.Contest != nil {
			want = ev.Contest
			return errFound
		}
		return nil
	})
	if want == nil {
		return false, cmp.Or(err, errors.New("demo: the generator defines no contest"))
	}
	return c.Name == want.Name && c.Rules == want.Rules && c.Duration == want.Duration &&
		c.FreezeDuration == want.FreezeDuration, nil
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
	var defs []rankd.LogEntry
	var timed []timedEvent
	err := gen.Generate(cfg, func(ev rankd.Event) error {
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
	if err != nil {
		return err
	}
	slices.SortStableFunc(timed, func(x, y timedEvent) int { return int(x.at - y.at) })
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
