package http_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// The big screen reads the contest again when its top frames show other problems than its columns, not
// after each frame: taken for the stream's snapshots (sent when the problems changed), its top frames made it
// read the contest every 5 s while the board moved.
func TestBrowserBigScreenReadsTheContestWhenItsProblemsChange(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	const reads = `performance.getEntriesByType("resource").filter((r) => new URL(r.name).pathname === "/api/v1/contests/c1").length`
	tb.Go("/contests/c1?bigscreen=1&top=2")
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	time.Sleep(time.Second)
	before := evalJS[int](tb, reads)
	for i := range 12 {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
			fmt.Sprintf(`{"type":"submissions","data":{"id":"x%d","team_id":"t%d","problem_id":"A","contest_time":"0:%02d:00"}}`+"\n",
				i, 1+i%3, 10+i), nil)
		time.Sleep(time.Second)
	}
	time.Sleep(3 * time.Second) // a read soon comes within 3 s
	if got := evalJS[int](tb, reads) - before; got > 1 {
		t.Errorf("read the contest %d times in 15 s of a moving board, no problem changed; want the regular read at most (every 30 s)", got)
	}

	heads := `[...document.querySelectorAll(".head .c")].map((c) => c.textContent).join(" ")`
	if got := evalJS[string](tb, heads); got != "# Team Solved Time A B" {
		t.Fatalf("header: got %q", got)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, `{"type":"problems","id":"B","data":null}`+"\n", nil)
	tb.Wait("problem B's column gone", heads+` === "# Team Solved Time A"`)
}
