package board

import (
	"time"

	"rankd"
)

// AsOf returns the event as it was known at contest time at, and whether it was known at all: submissions
// made before at, judgements whose verdict was known by then, reveal steps taken by then, state events without
// the steps that came later, and every definition. start is the contest's start, which state times are relative to. Replaying a log
// through AsOf gives the standings at any past moment.
func AsOf(ev rankd.Event, at time.Duration, start time.Time) (rankd.Event, bool) {
	switch ev.Type {
	case rankd.EventSubmission:
		return ev, ev.Delete || ev.Submission.Time < at
	case rankd.EventJudgement:
		return ev, ev.Delete || ev.Judgement.KnownAt() <= at
	case rankd.EventReveal:
		return ev, ev.Reveal != nil && ev.Reveal.Time <= at
	case rankd.EventState:
		if ev.State == nil {
			return ev, true
		}
		s := *ev.State
		limit := start.Add(at)
		for _, f := range []**time.Time{&s.Started, &s.Frozen, &s.Ended, &s.Thawed, &s.Finalized, &s.EndOfUpdates} {
			if *f != nil && (*f).After(limit) {
				*f = nil
			}
		}
		ev.State = &s
	}
	return ev, true
}
