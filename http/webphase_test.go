package http_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The board reads its contest again at the next change of phase by the schedule: nextPhaseAt finds it.
func TestBrowserNextPhase(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.Wait("the board", `document.querySelectorAll(".row").length > 1`)
	prefix := evalJS[string](tb, `document.querySelector('script[type=module]').src.replace(/js\/board\.js$/, "")`)
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	failures, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
  const { nextPhaseAt } = await import("`+prefix+`js/contest.js");
  const failures = [];
  const start = Date.parse("2026-03-01T10:00:00Z");
  const c = { start_time: "2026-03-01T10:00:00Z", duration: "5:00:00", scoreboard_freeze_duration: "1:00:00" };
  const at = (now) => { const d = nextPhaseAt(c, now); return d === null ? null : d.getTime() - start; };
  const expect = (what, got, want) => { if (got !== want) failures.push(what + ": got " + got + ", want " + want); };
  expect("before the start", at(start - 1000), 0);
  expect("running", at(start + 1000), 4 * 3600e3);
  expect("frozen", at(start + 4 * 3600e3), 5 * 3600e3);
  expect("ended", at(start + 5 * 3600e3), null);
  expect("no freeze", (() => { const d = nextPhaseAt({ ...c, scoreboard_freeze_duration: "0:00:00" }, start + 1000); return d.getTime() - start; })(), 5 * 3600e3);
  expect("no start", nextPhaseAt({ duration: "5:00:00" }, start), null);
  return failures;
})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failures {
		t.Error(f)
	}
}
