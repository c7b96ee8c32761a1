package ccs_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
	"rankd/ccs/ccstest"
)

// feeds are the real contest feeds in the shared directory.
var feeds = []string{"euc2025", "wf47"}

// MustReadFeed returns the bytes of a real feed.
func MustReadFeed(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(ccstest.SharedPath(tb, "data", name, "event-feed.ndjson"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// MustTime parses an absolute time or fails the test.
func MustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := ccs.ParseTime(s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// rel parses a relative time or fails the test.
func rel(tb testing.TB, s string) time.Duration {
	tb.Helper()
	d, err := ccs.ParseRelTime(s)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// timePtr returns a pointer to MustTime(s).
func timePtr(tb testing.TB, s string) *time.Time {
	t := MustTime(tb, s)
	return &t
}

// snapshot copies what the Reader reuses, so that the event outlives the next call to Next.
func snapshot(ev rankd.Event) rankd.Event {
	if ev.Submission != nil {
		s := *ev.Submission
		ev.Submission = &s
	}
	if ev.Judgement != nil {
		j := *ev.Judgement
		ev.Judgement = &j
	}
	return ev
}

// readAll reads a whole feed, keeping the events and the errors apart (errors do not stop the reading).
func readAll(tb testing.TB, feed string) (evs []rankd.Event, errs []error, r *ccs.Reader) {
	tb.Helper()
	r = ccs.NewReader(strings.NewReader(feed))
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs, errs, r
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		evs = append(evs, snapshot(ev))
	}
}

// show formats an event with the objects its pointers lead to, for failure messages.
func show(ev rankd.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{%s id=%q delete=%v token=%q", ev.Type, ev.ID, ev.Delete, ev.Token)
	v := reflect.ValueOf(ev)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			if st, ok := f.Interface().(*rankd.State); ok {
				fmt.Fprintf(&b, " %s", showState(st))
				continue
			}
			fmt.Fprintf(&b, " %s=%+v", v.Type().Field(i).Name, f.Elem().Interface())
		}
	}
	return b.String() + "}"
}

func showState(s *rankd.State) string {
	f := func(t *time.Time) string {
		if t == nil {
			return "nil"
		}
		return ccs.FormatTime(*t)
	}
	return fmt.Sprintf("State={started:%s frozen:%s ended:%s thawed:%s finalized:%s end_of_updates:%s}",
		f(s.Started), f(s.Frozen), f(s.Ended), f(s.Thawed), f(s.Finalized), f(s.EndOfUpdates))
}

// sameEvent compares events by the values their pointers lead to; times must be the same instant with the
// same offset.
func sameEvent(a, b rankd.Event) bool {
	if a.State != nil && b.State != nil {
		if !sameState(a.State, b.State) {
			return false
		}
		a.State, b.State = nil, nil
	}
	if a.Contest != nil && b.Contest != nil {
		if !sameTime(a.Contest.Start, b.Contest.Start) {
			return false
		}
		ca, cb := *a.Contest, *b.Contest
		ca.Start, cb.Start = time.Time{}, time.Time{}
		a.Contest, b.Contest = &ca, &cb
	}
	return reflect.DeepEqual(a, b)
}

func sameState(a, b *rankd.State) bool {
	pairs := [][2]*time.Time{
		{a.Started, b.Started}, {a.Frozen, b.Frozen}, {a.Ended, b.Ended},
		{a.Thawed, b.Thawed}, {a.Finalized, b.Finalized}, {a.EndOfUpdates, b.EndOfUpdates},
	}
	for _, p := range pairs {
		if (p[0] == nil) != (p[1] == nil) || p[0] != nil && !sameTime(*p[0], *p[1]) {
			return false
		}
	}
	return true
}

func sameTime(a, b time.Time) bool {
	_, oa := a.Zone()
	_, ob := b.Zone()
	return a.Equal(b) && oa == ob
}
