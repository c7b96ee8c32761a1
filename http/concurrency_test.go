package http_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// atOnce sends the requests at the same moment, with the admin token, and returns their answers in order.
func atOnce(tb testing.TB, e *env, reqs ...request) []response {
	tb.Helper()
	res := make([]response, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Go(func() { res[i] = e.Do(tb, r.method, r.path, adminToken, r.body) })
	}
	wg.Wait()
	return res
}

// request is an admin request of atOnce.
type request struct {
	method, path string
	body         any
}

// Three "next" at once on one server: three steps, each stored once.
func TestRevealNextAtOnce(t *testing.T) {
	for round := range 5 {
		e := MustOpen(t)
		e.MustRevealContest(t)
		e.SetNow(contestStart.Add(6 * time.Hour))
		next := request{"POST", "/api/v1/contests/c1/reveal/next", nil}
		for i, r := range atOnce(t, e, next, next, next) {
			if r.Status != http.StatusOK {
				t.Errorf("round %d, request %d: got %d %s, want 200", round, i, r.Status, r.Body)
			}
		}
		feed := e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false", judgeToken, nil)
		if n := strings.Count(string(feed.Body), `"type":"reveal"`); n != 3 {
			t.Errorf("round %d: got %d reveal steps in the event feed, want 3", round, n)
		}
	}
}

// Hide, show, a PATCH and a freeze at once on one server: every change stays, or the PATCH, which would move
// the freeze made by hand back, is refused as it is when sent after it.
func TestAdminActionsAtOnce(t *testing.T) {
	for round := range 20 {
		e := MustOpen(t)
		e.MustContest(t)
		e.SetNow(contestStart.Add(2 * time.Hour))
		c := testContest()
		contest := c["contest"].(map[string]any)
		contest["penalty_time"] = 10
		res := atOnce(t, e,
			request{"POST", "/api/v1/contests/c1/teams/t1/hide", nil},
			request{"POST", "/api/v1/contests/c1/teams/t2/hide", nil},
			request{"PATCH", "/api/v1/contests/c1", map[string]any{"contest": contest}},
			request{"POST", "/api/v1/contests/c1/freeze", nil})
		for i, r := range res {
			if r.Status != http.StatusOK && (i != 2 || r.Status != http.StatusConflict) {
				t.Fatalf("round %d, request %d: got %d %s", round, i, r.Status, r.Body)
			}
		}
		var got struct {
			PenaltyTime    int    `json:"penalty_time"`
			FreezeDuration string `json:"scoreboard_freeze_duration"`
		}
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &got)
		if got.FreezeDuration != "3:00:00.000" || res[2].Status == http.StatusOK && got.PenaltyTime != 10 {
			t.Errorf("round %d: got %+v after the PATCH (%d %s) and the freeze, want the freeze by hand and the PATCH's penalty if taken",
				round, got, res[2].Status, res[2].Body)
		}
	}
}

// Two creations of one contest at once, the same bundle: one 201, the other 409, as when sent one after the
// other.
func TestCreateTwiceAtOnce(t *testing.T) {
	for round := range 20 {
		e := MustOpen(t)
		create := request{"POST", "/api/v1/contests", testContest()}
		res := atOnce(t, e, create, create)
		got := fmt.Sprint(min(res[0].Status, res[1].Status), max(res[0].Status, res[1].Status))
		if want := fmt.Sprint(http.StatusCreated, http.StatusConflict); got != want {
			t.Fatalf("round %d: got statuses %s, want one 201 and one 409", round, got)
		}
	}
}
