package http_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Fixes of the web board: a reveal step another screen made first, a freeze or thaw by hand in the jury
// view and on a polling page, the flash of a changed cell in a tab that runs no animation.

// A jury big screen whose step another screen made first says so, with the team's rank now: the answer, a
// duplicate, has both ranks equal to it, which is no "stays at rank" (the step moved the team).
func TestBrowserWebFixesRevealDuplicate(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	jury := MustBrowser(t).Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.admin", "`+adminToken+`")`)
	jury.Go("/contests/c1?bigscreen=1")
	jury.Wait("the reveal", `document.getElementById("reveal-count").textContent === "Step 0 of 3" && !document.getElementById("reveal-next").hidden`)
	jury.Wait("the board", `document.querySelectorAll(".rows > .row").length === 3`)
	// This screen does not learn where the reveal stands before its press: the other screen's step and
	// this one's cross, as two presses of the same moment do. (Stopped between two reads, not during one.)
	jury.Wait("the reads stopped", `((r) => !r.reading && ((r.refresh = async () => {}), true))(window.rankd.reveal)`)
	var first struct {
		OldRank   int  `json:"old_rank"`
		NewRank   int  `json:"new_rank"`
		Duplicate bool `json:"duplicate"`
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/reveal/next", adminToken, `{"step":1}`, &first)
	if first.Duplicate || first.NewRank != 2 {
		t.Fatalf("the other screen's step: got %+v, want a new step leaving Charlie at rank 2", first)
	}
	jury.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys(" "))
	jury.Wait("the answer", `document.getElementById("reveal-cell").textContent.includes("Revealed: Charlie, problem B")`)
	text := evalJS[string](jury, `document.getElementById("reveal-cell").textContent`)
	if strings.Contains(text, "stays at rank") || strings.Contains(text, "→") || !strings.Contains(text, "already made") || !strings.Contains(text, "rank 2 now") {
		t.Errorf("the panel after a step another screen made: %q, want it made already, Charlie at rank 2 now, and no move claimed", text)
	}
	if count := evalJS[string](jury, `document.getElementById("reveal-count").textContent`); count != "Step 1 of 3" {
		t.Errorf("the counter: got %q, want Step 1 of 3", count)
	}
	var st revealState
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &st)
	if st.Step != 1 {
		t.Errorf("the reveal after both presses: step %d, want 1", st.Step)
	}
	jury.Shot("duplicate")
}

// A freeze and a thaw made by hand show in the phase and the banner of the jury view within a frame of its
// public feed, and of a page that polls within a poll: not at the page's next regular read of the contest
// (every 30 s from the page's load: these waits give up after 18 s, the page loaded a few seconds before). A
// page polled reads the board every 3 s, then the contest within 3 s. The freeze is made at 2:00, the thaw
// (of the scheduled freeze) at 4:30.
func TestBrowserWebFixesFreezeThawByHand(t *testing.T) {
	const frozenBanner = `!document.getElementById("banner").hidden && document.getElementById("banner").textContent.includes("frozen since")`
	phase := func(p string) string { return ` && document.getElementById("phase").textContent === "` + p + `"` }
	for _, jury := range []bool{true, false} {
		name := map[bool]string{true: "jury view", false: "polling"}[jury]
		// open serves the test contest at now, holding the one stream a polling page's server allows, and
		// opens its board in the jury view or polling.
		open := func(t *testing.T, now time.Duration, contest func(e *env)) (*env, *tab) {
			o := options{}
			if !jury {
				o.maxStreams = 1
			}
			e := MustOpenWith(t, o)
			e.SetNow(contestStart.Add(now))
			contest(e)
			tb := MustBrowser(t).Tab(t, e.URL)
			if jury {
				tb.Go("/")
				evalJS[chromedp.Void](tb, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
				tb.Go("/contests/c1?view=jury")
				tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
			} else {
				e.MustStream(t, "", nil)
				tb.Go("/contests/c1")
				tb.Wait("polling", `document.getElementById("state").textContent === "Polling"`)
			}
			return e, tb
		}
		notFrozen := map[bool]string{true: `document.getElementById("banner").textContent === "Jury view: every verdict, live."`,
			false: `document.getElementById("banner").hidden`}[jury]

		t.Run(name+", freeze", func(t *testing.T) {
			e, tb := open(t, 2*time.Hour, func(e *env) {
				e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
			})
			tb.Wait("the board running", notFrozen+phase("Running"))
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
			if jury {
				// A verdict the public does not see: a frame of the public feed. (A polled page says
				// frozen by itself.)
				e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
					`{"type":"submissions","data":{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"2:00:00"}}`,
					`{"type":"judgements","data":{"id":"j9","submission_id":"s9","judgement_type_id":"AC","start_contest_time":"2:00:00"}}`,
				}, "\n")+"\n", nil)
			}
			waitWithin(tb, 18*time.Second, "the banner and the phase saying frozen", frozenBanner+phase("Frozen"))
		})

		t.Run(name+", thaw", func(t *testing.T) {
			e, tb := open(t, 4*time.Hour+30*time.Minute, func(e *env) { e.MustContest(t) })
			tb.Wait("the board frozen", frozenBanner+phase("Frozen"))
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
			waitWithin(tb, 18*time.Second, "the banner and the phase after the thaw", notFrozen+phase("Running"))
		})
	}
}

// waitWithin is tab.Wait with a time limit of its own.
func waitWithin(tb *tab, d time.Duration, what, expr string) {
	tb.tb.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, d)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		tb.Shot("failure")
		tb.tb.Fatalf("waiting %s for %s (%s): %v", d, what, expr, err)
	}
}

// A cell that changes flashes, and the flash adds no event listener that only its animation's end takes
// away: in a tab that runs no animation (hidden, or showing no motion) they would pile up, one a change.
func TestBrowserWebFixesFlashListeners(t *testing.T) {
	for _, mode := range []string{"animations paused", "reduced motion"} {
		t.Run(mode, func(t *testing.T) {
			e := MustOpen(t)
			e.MustContest(t)
			tb := MustBrowser(t).Tab(t, e.URL)
			tb.Do(chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
				if mode == "reduced motion" {
					_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
					return err
				}
				if _, err := cdp.Call(ctx, target, animation.Enable, cdp.Empty{}); err != nil {
					return err
				}
				_, err := cdp.Call(ctx, target, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0})
				return err
			}))
			tb.Go("/contests/c1")
			tb.WaitRows(alphaRow, bravoRow, charlieRow)
			cell := cellJS("Charlie", "A")
			// listeners counts the animationend listeners of the cell and of the whole board.
			listeners := func() [2]int {
				t.Helper()
				ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
				defer cancel()
				n, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[2]int](`(() => {
  const count = (el) => (getEventListeners(el).animationend || []).length;
  const board = document.getElementById("board");
  return [count(`+cell+`), [board, ...board.querySelectorAll("*")].reduce((n, el) => n + count(el), 0)];
})()`))
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			var after1 [2]int
			for i := 1; i <= 6; i++ {
				e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
					fmt.Sprintf(`{"id":"p%d","team_id":"t3","problem_id":"A","contest_time":"4:2%d:00"}`, i, i), nil)
				tb.Wait(fmt.Sprintf("update %d of the cell", i), `((c) => !!c && c.classList.contains("flash") && c.querySelector(".bot").textContent === "`+fmt.Sprint(i)+`")(`+cell+`)`)
				if i == 1 {
					after1 = listeners()
				}
			}
			got := listeners()
			if got[0] > 1 || got[1] > after1[1] {
				t.Errorf("animationend listeners after 6 changes of a cell: %d on the cell, %d on the board (%d after the first change); want at most 1 on the cell and no more on the board",
					got[0], got[1], after1[1])
			}
		})
	}
}
