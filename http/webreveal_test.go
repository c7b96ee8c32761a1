package http_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The stepwise reveal in the browser: the jury's big screen, with the admin token kept, steps by keyboard
// and by its button; a public board follows through the stream. Each step changes, on both pages, the cell
// GET /reveal named next and no other; the counter, the highlights and the end are shown.
func TestBrowserReveal(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	b := MustBrowser(t)
	jury := b.Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.admin", "`+adminToken+`")`)
	jury.Go("/contests/c1?bigscreen=1")
	public := b.Tab(t, e.URL)
	public.Go("/contests/c1")
	tabs := []*tab{jury, public}
	for _, tb := range tabs {
		tb.Wait("the reveal", `document.getElementById("reveal-count").textContent === "Step 0 of 3"`)
		tb.Wait("the board", `document.querySelectorAll(".rows > .row").length === 3`)
	}
	if !evalJS[bool](public, `document.getElementById("reveal-next").hidden && document.getElementById("reveal-help").hidden`) {
		t.Error("the public board offers to step the reveal")
	}
	if !evalJS[bool](jury, `!document.getElementById("reveal-next").hidden && document.body.classList.contains("bigscreen")`) {
		t.Error("the jury's big screen does not offer the next step")
	}
	if banner := evalJS[string](public, `document.getElementById("banner").textContent`); !strings.Contains(banner, "revealed one at a time") {
		t.Errorf("the public banner: got %q, want the reveal", banner)
	}
	for _, tb := range tabs {
		tb.Shot("step0")
	}

	names := map[string]string{"t1": "Alpha", "t2": "Bravo", "t3": "Charlie"}
	presses := []struct {
		how    string
		action chromedp.Action[chromedp.Void]
	}{
		{"Space", typeKeys(" ")},
		{"the button", chromedp.Click(chromedp.ID("reveal-next"))},
		{"→", typeKeys(kb.ArrowRight)},
	}
	var order []string
	for i, press := range presses {
		var st revealState
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &st)
		if st.Next == nil {
			t.Fatalf("step %d: GET /reveal names no next cell: %+v", i+1, st)
		}
		name, problem := names[st.Next.TeamID], st.Next.ProblemID
		order = append(order, name+" "+problem)
		cell := cellJS(name, problem)
		before := make([]map[string]string, len(tabs))
		for j, tb := range tabs {
			tb.Wait("the next cell marked", `((c) => !!c && c.classList.contains("reveal-next") && c.closest(".row").classList.contains("reveal-row"))(`+cell+`)`)
			before[j] = evalJS[map[string]string](tb, pageCells)
		}

		if press.how != "the button" {
			jury.Do(chromedp.Focus(chromedp.CSS("#board")))
		}
		jury.Do(press.action)

		for j, tb := range tabs {
			tb.Wait(fmt.Sprintf("step %d by %s", i+1, press.how), fmt.Sprintf(`document.getElementById("reveal-count").textContent === "Step %d of 3" && `+
				`((c) => !!c && !c.classList.contains("pending") && c.classList.contains("reveal-done"))(%s)`, i+1, cell))
			after := evalJS[map[string]string](tb, pageCells)
			var changed []string
			for k, v := range after {
				if before[j][k] != v {
					changed = append(changed, k)
				}
			}
			if len(changed) != 1 || changed[0] != name+" "+problem {
				t.Errorf("tab %d, step %d: the cells that changed: %q, want %s %s alone (before %v, after %v)", j+1, i+1, changed, name, problem, before[j], after)
			}
			if text := evalJS[string](tb, `document.getElementById("reveal-cell").textContent`); !strings.Contains(text, "Revealed: "+name+", problem "+problem) {
				t.Errorf("tab %d, step %d: the panel says %q, want the cell revealed", j+1, i+1, text)
			}
			tb.Shot(fmt.Sprintf("step%d", i+1))
		}
	}
	if want := "Charlie B, Bravo B, Alpha B"; strings.Join(order, ", ") != want {
		t.Errorf("the order of the steps: got %s, want %s (the bottom team upward)", strings.Join(order, ", "), want)
	}

	// The end: both pages say so and show the jury's board; a key press does nothing more.
	final := []string{"1 Alpha 1 30 [solved first|30|1 try] [failed||1 try]", "2 Bravo 1 250 [failed||1 try] [solved first|250|1 try]",
		"3 Charlie 1 260 [||] [solved|260|1 try]"}
	for _, tb := range tabs {
		tb.Wait("the end", `document.getElementById("reveal-cell").textContent.includes("The reveal is complete")`)
		var got []string
		for _, r := range tb.Rows() {
			got = append(got, strings.NewReplacer(" reveal-done", "", " reveal-next", "", " flash", "").Replace(r))
		}
		if strings.Join(got, "\n") != strings.Join(final, "\n") {
			t.Errorf("the board after the reveal:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(final, "\n"))
		}
		tb.Shot("end")
	}
	if !evalJS[bool](jury, `document.getElementById("reveal-next").hidden && !document.getElementById("reveal-thaw").hidden`) {
		t.Error("the jury's screen at the end: want no next step, and the thaw offered")
	}
	var st revealState
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &st)
	jury.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys("n"))
	time.Sleep(200 * time.Millisecond)
	var again revealState
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &again)
	if again.Seq != st.Seq || again.Step != 3 {
		t.Errorf("a key press after the end: got %+v, want the state of the end %+v", again, st)
	}

	// The last step leaves the contest ended; the jury records the thaw, which changes nothing public.
	var state struct{ Thawed *string }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state)
	if state.Thawed != nil {
		t.Errorf("after the last step the state is thawed: %+v", state)
	}
	jury.Do(chromedp.Click(chromedp.ID("reveal-thaw")))
	jury.Wait("the reveal put away", `document.getElementById("reveal").hidden && document.getElementById("phase").textContent === "Thawed"`)
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/reveal", "", nil, &again)
	if state.Thawed == nil || again.Seq != st.Seq {
		t.Errorf("after the thaw: state %+v, public seq %d; want thawed, the public seq still %d", state, again.Seq, st.Seq)
	}
	jury.Shot("thawed")
}

// cellJS is a JavaScript expression for the cell of a team (by name) and problem (by label) on the screen.
func cellJS(team, problem string) string {
	return `(() => {
  const heads = [...document.querySelectorAll(".head .c.prob")].map((h) => h.textContent);
  const row = [...document.querySelectorAll(".rows > .row")].find((r) => r.querySelector(".name").textContent === ` + jsString(team) + `);
  return row && row.querySelectorAll(".prob")[heads.indexOf(` + jsString(problem) + `)];
})()`
}

// pageCells reads every cell on the screen, "team problem" → its result: class (without the reveal's
// highlights), top and bottom text.
const pageCells = `(() => {
  const heads = [...document.querySelectorAll(".head .c.prob")].map((h) => h.textContent);
  return Object.fromEntries([...document.querySelectorAll(".rows > .row")].flatMap((r) => [...r.querySelectorAll(".prob")].map((c, i) => [
    r.querySelector(".name").textContent + " " + heads[i],
    c.className.replace(/ (reveal-\w+|flash)/g, "") + "|" + c.querySelector(".top").textContent + "|" + c.querySelector(".bot").textContent,
  ])));
})()`

// A contest finalized before its ceremony (the World Finals' order: final results, then the reveal, then the
// thaw) is revealed on the web as one that has only ended: the finalized phase hid the reveal.
func TestBrowserRevealFinalized(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"`+contestStart.Format(time.RFC3339)+`","ended":"`+
			contestStart.Add(5*time.Hour).Format(time.RFC3339)+`","finalized":"`+
			contestStart.Add(5*time.Hour+30*time.Minute).Format(time.RFC3339)+`"}}`+"\n", nil)
	public := MustBrowser(t).Tab(t, e.URL)
	public.Go("/contests/c1")
	public.Wait("the reveal", `document.getElementById("reveal-count").textContent === "Step 0 of 3"`)
	if banner := evalJS[string](public, `document.getElementById("banner").textContent`); !strings.Contains(banner, "revealed one at a time") {
		t.Errorf("the public banner: got %q, want the reveal", banner)
	}
}

// The jury's big screen says why the next step would be refused before anyone presses (a verdict still to
// come), and that it no longer would once the verdict came; it learnt it only from a refused press. Until
// the first step the big screen shows the board as before the end (the top rows, scrolled); from it, the
// reveal (it parked on the bottom rows as soon as the contest ended, for as long as the ceremony was to come).
func TestBrowserRevealBlockedAndBegun(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	// Before t3's solve of B, the next cell: it may still be the solve.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s6","team_id":"t3","problem_id":"B","contest_time":"4:15:00"}`, nil)
	e.SetNow(contestStart.Add(6 * time.Hour))
	// The end recorded, as a server records it once the clock is past it.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"2026-03-01T10:00:00Z","frozen":"2026-03-01T14:00:00Z","ended":"2026-03-01T15:00:00Z"}}`, nil)
	jury := MustBrowser(t).Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.admin", "`+adminToken+`")`)
	jury.Go("/contests/c1?bigscreen=1")
	jury.Wait("the reveal", `document.getElementById("reveal-count").textContent === "Step 0 of 3"`)
	jury.Wait("why the next step is blocked", `!document.getElementById("reveal-error").hidden && document.getElementById("reveal-error").textContent.includes("without a verdict")`)
	if evalJS[bool](jury, `window.rankd.reveal.begun`) {
		t.Error("at step 0 the big screen follows the reveal, want the board as before")
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j6","submission_id":"s6","judgement_type_id":"WA","start_contest_time":"4:16:00"}`, nil)
	jury.Wait("nothing blocked", `document.getElementById("reveal-error").hidden`)
	jury.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys(" "))
	jury.Wait("step 1", `document.getElementById("reveal-count").textContent === "Step 1 of 3" && window.rankd.reveal.begun`)
}

// Only the jury's big screen (?jury=1, the admin console's link) offers to step the reveal in a browser that
// keeps no admin token: the hall's audience saw "Step as jury…" on the projected board.
func TestBrowserRevealJuryScreenAsksForToken(t *testing.T) {
	e := MustOpen(t)
	e.MustRevealContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	b := MustBrowser(t)
	for _, c := range []struct {
		url   string
		offer bool
	}{
		{"/contests/c1?bigscreen=1", false},
		{"/contests/c1?bigscreen=1&jury=1", true},
	} {
		tb := b.Tab(t, e.URL)
		tb.Go(c.url)
		tb.Wait("the reveal", `document.getElementById("reveal-count").textContent === "Step 0 of 3"`)
		if got := evalJS[bool](tb, `!document.getElementById("reveal-token").hidden`); got != c.offer {
			t.Errorf("%s: got %v, want %v for \"Step as jury…\"", c.url, got, c.offer)
		}
		if got := evalJS[bool](tb, `document.getElementById("reveal-next").hidden`); !got {
			t.Errorf("%s without the admin token: the next step is offered", c.url)
		}
		if got := evalJS[string](tb, `location.search`); c.offer && !strings.Contains(got, "jury=1") {
			t.Errorf("%s: the address became %q, want it to keep jury=1", c.url, got)
		}
	}
}
