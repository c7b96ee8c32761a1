package http_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"rankd"
	"rankd/ccs"
	"rankd/gen"
)

// The page with 10,000 teams, measured in the browser: the time to apply one diff (parse, model and DOM,
// performance.now() around it in the page), the snapshot, and the page's memory. Timed tests measure
// nothing reliable on shared machines, so this one runs only when asked, and prints its figures:
//
//	RANKD_WEB_BENCH=1 RANKD_TEST_CHROMIUM=/usr/bin/chromium go test -run TestBrowserBench -v ./http/
func TestBrowserBench10000Teams(t *testing.T) {
	if os.Getenv("RANKD_WEB_BENCH") != "1" {
		t.Skip("RANKD_WEB_BENCH=1 measures the page with 10,000 teams")
	}
	e := MustOpen(t)
	var feed bytes.Buffer
	var lines int
	post := func() {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events?results=problems", judgeToken, feed.String(), nil)
		feed.Reset()
		lines = 0
	}
	cfg := gen.Config{Seed: 1, ContestID: "c1", Teams: 10000, Problems: 12, Submissions: 100000}
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		line, err := ccs.AppendEvent(nil, ev)
		feed.Write(line)
		if lines++; feed.Len() > 900<<10 { // the test server takes bodies of 1 MiB
			post()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	post()
	var contest struct{ Problems []struct{ ID string } }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &contest)

	b := MustBrowser(t)
	for _, view := range []string{"public", "jury"} {
		t.Run(view, func(t *testing.T) {
			tb := b.Tab(t, e.URL)
			if view == "jury" {
				tb.Go("/")
				evalJS[chromedp.Void](tb, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
			}
			begin := time.Now()
			tb.Go("/contests/c1?view=" + view)
			tb.Wait("10,000 rows", `window.rankd.board && window.rankd.board.rows.length === 10000 && document.querySelectorAll(".rows > .row").length > 0`)
			loaded := time.Since(begin)
			time.Sleep(time.Second)

			// One diff at a time: a team from the bottom jumps to the top (every row in sight moves down
			// one), or to the middle (out of sight).
			var bottom struct {
				Rows []struct {
					TeamID string `json:"team_id"`
				}
			}
			e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?offset=9800&limit=200", "", nil, &bottom)
			const moves = 30
			measure := func(kind string, solves, from int) []float64 {
				var ms []float64
				for i := range moves {
					team := bottom.Rows[from+i].TeamID
					var evs []string
					for p := range solves {
						id := fmt.Sprintf("%s-%s-%s-%d", view, kind, team, p)
						evs = append(evs,
							fmt.Sprintf(`{"type":"submissions","data":{"id":"%s","team_id":"%s","problem_id":"%s","contest_time":"0:%02d:00"}}`, id, team, contest.Problems[p].ID, 1+p),
							fmt.Sprintf(`{"type":"judgements","data":{"id":"%s","submission_id":"%s","judgement_type_id":"AC","start_contest_time":"0:%02d:30"}}`, id, id, 1+p))
					}
					before := evalJS[int](tb, `window.rankd.stats.diffs`)
					var res struct{ Accepted int }
					e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(evs, "\n")+"\n", &res)
					if res.Accepted != len(evs) {
						t.Fatalf("%d of %d events accepted", res.Accepted, len(evs))
					}
					tb.Wait("the diff", fmt.Sprintf(`window.rankd.stats.diffs > %d`, before))
					time.Sleep(600 * time.Millisecond) // the move's animation ends before the next
					ms = append(ms, evalJS[float64](tb, `window.rankd.stats.lastDiffMs`))
				}
				return ms
			}
			top := measure("top", len(contest.Problems), 0)
			middle := measure("middle", 1, moves)
			tb.Shot("10000")

			ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
			defer cancel()
			if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			heap, err := chromedp.Call(ctx, runtime.GetHeapUsage, cdp.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			nodes := evalJS[int](tb, `document.getElementsByTagName("*").length`)
			snapshot := evalJS[float64](tb, `window.rankd.stats.snapshotMs`)
			t.Logf("view %s, 10,000 teams × %d problems: page shown in %v (snapshot applied and rendered in %.0f ms)",
				view, len(contest.Problems), loaded.Round(time.Millisecond), snapshot)
			t.Logf("one diff, a team jumping to the top (every row in sight moves): %s", summary(top))
			t.Logf("one diff, a team moving out of sight: %s", summary(middle))
			t.Logf("JavaScript heap after GC: %.1f MB used of %.1f MB; %d DOM elements", heap.UsedSize/1e6, heap.TotalSize/1e6, nodes)
		})
	}
}

// summary gives the median, 90th percentile and maximum of timings in ms.
func summary(ms []float64) string {
	s := slices.Sorted(slices.Values(ms))
	return fmt.Sprintf("median %.2f ms, p90 %.2f ms, max %.2f ms (%d diffs)", s[len(s)/2], s[len(s)*9/10], s[len(s)-1], len(s))
}
