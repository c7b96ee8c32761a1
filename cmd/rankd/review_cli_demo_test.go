package main_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	main "rankd/cmd/rankd"
	"rankd/demo"
)

// stillClock is a demo clock that stands where the test puts it: its waits never end, so the demo posts what
// is due and then waits.
type stillClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stillClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stillClock) After(time.Duration) <-chan time.Time { return nil }

// MustOpenDemo opens serve --demo in-process over dir, on a clock standing at now.
func MustOpenDemo(tb testing.TB, dir string, now time.Time) *main.Server {
	tb.Helper()
	clock := &stillClock{now: now}
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: dir, Demo: true, Tick: 100 * time.Millisecond,
		AdminToken: testAdminToken, JudgeToken: testJudgeToken, DemoClock: clock, Now: clock.Now}
	if err := s.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	waitReady(tb, "http://"+s.Listening.String())
	return s
}

// TestDemoRestartedAfterItsEndCatchesUp restarts serve --demo over the data of a demo that was stopped early
// and whose end has passed since: the demo must post what it had left (a newcomer who stopped the server at
// the freeze and came back later would otherwise look at a contest stuck half-way for ever).
func TestDemoRestartedAfterItsEndCatchesUp(t *testing.T) {
	for _, frozenByHand := range []bool{false, true} {
		t.Run(fmt.Sprintf("frozen by hand %t", frozenByHand), func(t *testing.T) { testDemoRestarted(t, frozenByHand) })
	}
}

// testDemoRestarted runs TestDemoRestartedAfterItsEndCatchesUp, with the demo frozen by hand before it stops
// when frozenByHand (a change of its definition: it is still the demo's).
func testDemoRestarted(t *testing.T, frozenByHand bool) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cfg := demo.Config(main.DemoContestID, start)
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "demo.ndjson")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want := offlineRows(t, path, "jury")
	dir := t.TempDir()

	// First run: stopped 10 minutes into the demo.
	s := MustOpenDemo(t, dir, start.Add(10*time.Minute))
	url := "http://" + s.Listening.String()
	waitFor(t, "the demo's first events", func() bool {
		resp, err := http.Get(url + "/api/v1/contests/demo/problems")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	time.Sleep(500 * time.Millisecond) // the events due at minute 10 follow the definitions
	if frozenByHand {
		MustDo(t, "POST", url+"/api/v1/contests/demo/freeze", "", http.StatusOK)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Second run, well after the end.
	s = MustOpenDemo(t, dir, start.Add(cfg.Duration+time.Hour))
	defer s.Close(context.Background())
	url = "http://" + s.Listening.String()
	var got string
	ok := tryFor(10*time.Second, func() bool {
		got = MustServedRows(t, url, main.DemoContestID, "jury")
		return got == want
	})
	if !ok {
		t.Fatalf("the restarted demo's jury board differs from the whole demo contest's:\ngot  %.600s\nwant %.600s", got, want)
	}
}

// waitFor fails the test unless ready is true within 10 seconds.
func waitFor(tb testing.TB, what string, ready func() bool) {
	tb.Helper()
	if !tryFor(10*time.Second, ready) {
		tb.Fatalf("no %s after 10 s", what)
	}
}

// waitReady fails the test unless the server at url says it is ready within 10 seconds: before, a contest
// not known yet may be among those it restores, and its events are answered 503.
func waitReady(tb testing.TB, url string) {
	tb.Helper()
	waitFor(tb, "readiness", func() bool {
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// tryFor calls ok until it returns true or d has passed, and reports whether it did.
func tryFor(d time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// serve --demo over a data directory where an organiser made a contest of their own with the demo's id
// leaves that contest alone: playing into it would add the demo's teams and verdicts to its log for good.
func TestDemoLeavesAnOrganisersContestAlone(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	s := &main.Server{Addr: "127.0.0.1:0", DataDir: dir, AdminToken: testAdminToken, JudgeToken: testJudgeToken}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.Listening.String()
	waitReady(t, url)
	MustDo(t, "POST", url+"/api/v1/contests", fmt.Sprintf(`{"contest":{"id":"demo","name":"Spring Contest","start_time":%q,"duration":"5:00:00"},
		"problems":[{"id":"A","label":"A","ordinal":1}],"teams":[{"id":"t1","name":"One"},{"id":"t2","name":"Two"}]}`,
		start.Format(time.RFC3339)), http.StatusCreated)
	want := MustServedRows(t, url, main.DemoContestID, "jury")
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	s = MustOpenDemo(t, dir, start.Add(time.Hour))
	defer s.Close(context.Background())
	url = "http://" + s.Listening.String()
	time.Sleep(500 * time.Millisecond) // what a demo would post at once, it has posted by now
	if got := MustServedRows(t, url, main.DemoContestID, "jury"); got != want {
		t.Errorf("the organiser's contest changed under serve --demo:\ngot  %.600s\nwant %.600s", got, want)
	}
}
