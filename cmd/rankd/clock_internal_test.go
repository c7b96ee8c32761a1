package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The clock by which ends are recorded does not believe a jump forward of the system clock for a while (an
// OI contest hidden until its end was published, for good, by a clock set three hours ahead for a few
// seconds), believes it after, and follows the system clock otherwise; each jump is logged.
func TestSteadyClock(t *testing.T) {
	var offset atomic.Int64
	var logs bytes.Buffer
	c := &steadyClock{now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) },
		trustAfter: 200 * time.Millisecond, logger: slog.New(slog.NewTextHandler(&logs, nil))}
	near := func(what string, want time.Time) {
		t.Helper()
		if got := c.Now(); got.Sub(want).Abs() > 50*time.Millisecond {
			t.Errorf("%s: got %v, want about %v", what, got, want)
		}
	}
	near("the clock as it is", time.Now())
	offset.Store(int64(3 * time.Hour))
	near("just after a jump forward", time.Now())
	near("a moment later", time.Now())
	offset.Store(0)
	near("the clock set back", time.Now())
	if n := strings.Count(logs.String(), "the system clock jumped"); n != 2 {
		t.Errorf("got %d jumps logged, want 2:\n%s", n, logs.String())
	}
	offset.Store(int64(3 * time.Hour))
	near("a jump forward again", time.Now())
	time.Sleep(250 * time.Millisecond)
	near("once believed", time.Now().Add(3*time.Hour))
	offset.Store(int64(3*time.Hour - time.Hour))
	near("a jump back", time.Now().Add(2*time.Hour))
}

// What the scheduler follows of ended contests goes with the contests deleted.
func TestLateForgetsDeletedContests(t *testing.T) {
	late := map[string]*lateEvents{"a": {pos: 1}, "b": {pos: 2}, "c": {pos: 3}}
	forgetGone(late, []string{"a", "c", "d"})
	if _, ok := late["b"]; ok || len(late) != 2 || late["a"].pos != 1 || late["c"].pos != 3 {
		t.Errorf("got %v, want a and c kept, b gone", late)
	}
}

// The database a server logs it serves names the host, the database and the schema, never the password.
func TestRedactedURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://rankd:secret@db:5432/contests?search_path=nwerc", "postgres://rankd:xxxxx@db:5432/contests?search_path=nwerc"},
		{"postgres://rankd@db/contests?password=secret&sslmode=disable", "postgres://rankd@db/contests?password=xxxxx&sslmode=disable"},
		{"postgres://rankd@db/contests?sslkey=k.pem&sslpassword=secret", "postgres://rankd@db/contests?sslkey=k.pem&sslpassword=xxxxx"},
		{"host=db port=5432 user=rankd password=secret dbname=contests search_path=nwerc", "host=db port=5432 dbname=contests search_path=nwerc"},
	} {
		if got := redactedURL(tc.in); got != tc.want || strings.Contains(got, "secret") {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
}
