package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"rankd/stream"
)

// The web scoreboard in a real browser: headless Chromium driven over the DevTools protocol, against a
// server in the test process.

// chromiumPath returns the Chromium to drive: RANKD_TEST_CHROMIUM, which .ci/chromium.sh prints. Without it
// the browser tests skip, except on CI, where they must run.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv("RANKD_TEST_CHROMIUM")
	if p == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(`RANKD_TEST_CHROMIUM is not set, and CI must run the browser tests: eval "$(.ci/chromium.sh)"`)
		}
		tb.Skip(`RANKD_TEST_CHROMIUM is not set: eval "$(.ci/chromium.sh)" installs Chromium and sets it`)
	}
	return p
}

// artifactDir is where screenshots go: RANKD_TEST_ARTIFACTS, else a directory the test removes.
func artifactDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("RANKD_TEST_ARTIFACTS")
	if dir == "" {
		return tb.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// browser is a headless Chromium; its tabs share their storage, as a person's do.
type browser struct {
	ctx       context.Context
	artifacts string
	tabs      int
}

// MustBrowser starts Chromium for the test.
func MustBrowser(tb testing.TB) *browser {
	tb.Helper()
	path := chromiumPath(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900), chromedp.Flag("enable-precise-memory-info", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	tb.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	return &browser{ctx: ctx, artifacts: artifactDir(tb)}
}

// tab is one page of the browser, on the server of a test.
type tab struct {
	tb   testing.TB
	ctx  context.Context
	base string
	name string // of its screenshots
}

// Tab opens a tab (the first is the browser's own) on the server at base. An uncaught exception of its
// page fails the test.
func (b *browser) Tab(tb testing.TB, base string) *tab {
	tb.Helper()
	b.tabs++
	ctx := b.ctx
	if b.tabs > 1 {
		var cancel context.CancelFunc
		ctx, cancel = chromedp.NewContext(b.ctx)
		tb.Cleanup(cancel)
		if err := chromedp.Do(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	var mu sync.Mutex
	var thrown []string
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			mu.Lock()
			thrown = append(thrown, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber+1, text))
			mu.Unlock()
		}
	}()
	n := b.tabs
	tb.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range thrown {
			tb.Errorf("tab %d: uncaught exception: %s", n, e)
		}
	})
	name := strings.NewReplacer("/", "-", " ", "_").Replace(tb.Name())
	return &tab{tb: tb, ctx: ctx, base: base, name: filepath.Join(b.artifacts, fmt.Sprintf("%s-tab%d", name, n))}
}

// Do runs browser actions, failing the test after 20 s.
func (t *tab) Do(actions ...chromedp.Action[chromedp.Void]) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Shot("failure")
		t.tb.Fatal(err)
	}
}

// Go opens a path of the server.
func (t *tab) Go(path string) {
	t.tb.Helper()
	t.Do(chromedp.Navigate(t.base + path))
}

// evalJS evaluates a JavaScript expression in the tab's page.
func evalJS[T any](t *tab, expr string) T {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.tb.Fatalf("%s: %v", expr, err)
	}
	return v
}

// Wait waits until a JavaScript expression is true, failing the test after 10 s.
func (t *tab) Wait(what, expr string) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Shot("failure")
		t.tb.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// Shot saves a screenshot of the window as an artifact, once rows have stopped moving.
func (t *tab) Shot(label string) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	_, _ = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getAnimations().length === 0`, chromedp.WithPollingTimeout(2*time.Second)))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.tb.Errorf("screenshot %s: %v", label, err)
		return
	}
	if err := os.WriteFile(t.name+"-"+label+".png", png, 0o644); err != nil {
		t.tb.Error(err)
	}
}

// typeKeys types as a keyboard does: each key down carries its character, so that a page that handles
// the key down (and prevents its default) gets no character typed.
func typeKeys(keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, r := range keys {
			events := kb.Encode(r)
			for _, k := range events {
				switch k.Type {
				case input.DispatchKeyEventTypeChar:
					continue
				case input.DispatchKeyEventTypeKeyDown:
					for _, c := range events {
						if c.Type == input.DispatchKeyEventTypeChar {
							k.Text, k.UnmodifiedText = c.Text, c.UnmodifiedText
						}
					}
				}
				if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *k); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// domRows reads the rows the table shows, in their order on the screen, each as
// "rank team totals [class|top|bottom] per problem", with "own" after the team's own row.
const domRows = `[...document.querySelectorAll(".rows > .row")]
  .map((el) => ({ y: parseFloat(el.style.transform.slice("translateY(".length)), el }))
  .sort((a, b) => a.y - b.y)
  .map(({ el }) => [
    el.querySelector(".rank").textContent,
    el.querySelector(".name").textContent,
    ...[...el.querySelectorAll(".total")].map((c) => c.textContent),
    ...[...el.querySelectorAll(".prob")].map((c) =>
      "[" + c.className.replace(/^c prob ?/, "") + "|" + c.querySelector(".top").textContent + "|" + c.querySelector(".bot").textContent + "]"),
    ...(el.classList.contains("own") ? ["own"] : []),
  ].join(" "))`

// Rows returns the rows on the screen.
func (t *tab) Rows() []string {
	t.tb.Helper()
	return evalJS[[]string](t, domRows)
}

// WaitRows waits until the screen shows the rows want, with every move finished.
func (t *tab) WaitRows(want ...string) {
	t.tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := t.Rows()
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Shot("failure")
			t.tb.Fatalf("the rows on the screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The rows of the test contest (MustContest) in the public view at 4:30, frozen since 4:00: the
// submissions of 4:10 and 4:20 are pending.
var (
	alphaRow   = "1 Alpha 1 30 [solved first|30|1 try] [||]"
	bravoRow   = "2 Bravo 0 0 [failed||1 try] [pending|?|1]"
	charlieRow = "2 Charlie 0 0 [||] [pending|?|1]"
)

// The board of a contest renders, follows judgements live without a reload, and filters by keyboard.
func TestBrowserBoard(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)

	tb.Go("/")
	tb.Wait("the contest in the list", `document.querySelector('#contests a[href="/contests/c1"]')?.textContent === "Test Contest"`)
	tb.Shot("contests")
	tb.Do(chromedp.Click(chromedp.CSS(`a[href="/contests/c1"]`)))
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	if banner := evalJS[string](tb, `document.getElementById("banner").textContent`); !strings.Contains(banner, "frozen since") {
		t.Errorf("banner: got %q, want the freeze", banner)
	}
	if heads := evalJS[string](tb, `[...document.querySelectorAll(".head .c")].map((c) => c.textContent).join(" ")`); heads != "# Team Solved Time A B" {
		t.Errorf("header: got %q", heads)
	}
	tb.Shot("board")

	// A judgement before the freeze moves Charlie up, in the open page.
	evalJS[bool](tb, `window.samePage = true`)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t3","problem_id":"A","contest_time":"1:10:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"1:11:00"}}`,
	}, "\n")+"\n", nil)
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	if !evalJS[bool](tb, `window.samePage === true`) {
		t.Error("the page was reloaded")
	}
	tb.Shot("live")

	// Search by keyboard: "/" goes to the search field.
	tb.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys("/brav"))
	tb.WaitRows("3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	if q := evalJS[string](tb, `location.search`); q != "?q=brav" {
		t.Errorf("the address: got %q, want the search in it", q)
	}
	tb.Do(typeKeys(kb.Escape)) // clears it
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	tb.Do(chromedp.SetValue(chromedp.ID("group"), "g1"), chromedp.Evaluate[chromedp.Void](`document.getElementById("group").dispatchEvent(new Event("change"))`))
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")

	// At phone width the page does not scroll sideways: the board does, inside it.
	tb.Do(chromedp.EmulateViewport(390, 800))
	tb.Wait("the narrow layout", `document.documentElement.scrollWidth <= 390`)
	tb.Shot("phone")

	// A contest that does not exist says so.
	tb.Go("/contests/nope")
	tb.Wait("the message", `document.getElementById("message").textContent.includes("no contest")`)
}

// During the freeze the public page shows a frozen verdict as "?", the jury page shows it live (marked as
// differing from the public board), and a team's page shows its own verdict only.
func TestBrowserFrozenViews(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	b := MustBrowser(t)
	public := b.Tab(t, e.URL)
	public.Go("/contests/c1")
	public.WaitRows(alphaRow, bravoRow, charlieRow)

	jury := b.Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
	jury.Go("/contests/c1?view=jury")
	jury.WaitRows(alphaRow, bravoRow, charlieRow)

	team := b.Tab(t, e.URL)
	team.Go("/contests/c1?view=team")
	team.Wait("the token dialog", `document.getElementById("token-dialog").open`)
	team.Do(chromedp.SendKeys(chromedp.ID("token"), e.MustTeamToken(t, "t3")), chromedp.Click(chromedp.ID("token-save")))
	team.WaitRows(alphaRow, bravoRow, charlieRow+" own")

	// Charlie's submission of 4:20 is accepted, Bravo's of 4:10 rejected.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j3","submission_id":"s3","judgement_type_id":"WA","start_contest_time":"4:22:00"}`, nil)
	jury.WaitRows(alphaRow, "2 Charlie 1 260 [||] [solved first differs|260|1 try]", "3 Bravo 0 0 [failed||1 try] [failed differs||1 try]")
	// Bravo's earlier submission is pending in the team's view: Charlie's solve is not first there.
	team.WaitRows(alphaRow, "2 Charlie 1 260 [||] [solved|260|1 try] own", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	time.Sleep(300 * time.Millisecond) // a frame the public should not get has had time to come
	public.WaitRows(alphaRow, bravoRow, charlieRow)

	if banner := evalJS[string](jury, `document.getElementById("banner").textContent`); !strings.Contains(banner, "Jury view") {
		t.Errorf("jury banner: got %q", banner)
	}
	if title := evalJS[string](jury, `document.querySelector(".differs").title`); !strings.Contains(title, "public: B: pending") {
		t.Errorf("a differing cell's title: got %q, want what the public sees", title)
	}
	public.Shot("public")
	jury.Shot("jury")
	team.Shot("team")
	// The team's page offers to go to its row.
	team.Wait("the own button", `!document.getElementById("own").hidden`)
}

// The page's copy of a view equals the server's after a whole contest posted while it is open, in the
// public and the jury view: the diffs are applied exactly.
func TestBrowserFollowsAContest(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 31)
	post := func(batch [][]byte) {
		var body strings.Builder
		for _, l := range batch {
			body.Write(l)
		}
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, body.String(), nil)
	}
	post(lines[:60])
	b := MustBrowser(t)
	public := b.Tab(t, e.URL)
	public.Go("/contests/c1")
	jury := b.Tab(t, e.URL)
	jury.Go("/")
	evalJS[chromedp.Void](jury, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
	jury.Go("/contests/c1?view=jury")
	for _, tb := range []*tab{public, jury} {
		tb.Wait("the board", `window.rankd.board && window.rankd.board.rows.length > 0`)
	}
	check := func() {
		t.Helper()
		for _, v := range []struct {
			tab         *tab
			view, token string
		}{{public, "public", ""}, {jury, "jury", judgeToken}} {
			seq, want := e.servedRows(t, v.view, v.token)
			v.tab.Wait(fmt.Sprintf("the %s view at %d", v.view, seq), fmt.Sprintf(`window.rankd.board.seq >= %d`, seq))
			var got stream.Board
			if err := json.Unmarshal([]byte(evalJS[string](v.tab, `JSON.stringify(window.rankd.board)`)), &got); err != nil {
				t.Fatal(err)
			}
			if g := followedRows(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
				t.Fatalf("view %s at seq %d: the page's board differs:\ngot  %q\nwant %q", v.view, seq, g, want)
			}
			// The screen shows the same ranks and teams as the board, once it has drawn the last frame (a
			// frame or two after the board took it; on a busy machine, longer).
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				differs := ""
				for i, line := range v.tab.Rows() {
					if !strings.HasPrefix(line, fmt.Sprintf("%d %s ", got.Rows[i].Rank, got.Rows[i].TeamName)) {
						differs = fmt.Sprintf("row %d on the screen is %q, the board's is %d %s", i, line, got.Rows[i].Rank, got.Rows[i].TeamName)
						break
					}
				}
				if differs == "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("view %s: %s", v.view, differs)
				}
			}
		}
	}
	rest := lines[60:]
	for i := 0; len(rest) > 0; i++ {
		n := min(25, len(rest))
		post(rest[:n])
		rest = rest[n:]
		if i%10 == 0 {
			check()
		}
	}
	check()
	public.Shot("end")
	jury.Shot("end")
}

// When the server refuses more streams, the page polls the scoreboard and still follows it.
func TestBrowserPollsWithoutTheStream(t *testing.T) {
	e := MustOpenWith(t, options{maxStreams: 1})
	e.MustContest(t)
	e.MustStream(t, "", nil) // the one stream allowed
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
	tb.Wait("polling", `document.getElementById("state").textContent === "Polling"`)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t3","problem_id":"A","contest_time":"1:10:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"1:11:00"}}`,
	}, "\n")+"\n", nil)
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	tb.Shot("polling")
}

// A dropped connection is made up: the page reconnects with Last-Event-ID and resumes from the frames it
// missed, without a new snapshot.
func TestBrowserReconnects(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	// The server keeps a view's recent frames while someone follows it: this follower keeps them.
	e.MustStream(t, "", nil)
	p := mustGate(t, e.URL)
	tb := MustBrowser(t).Tab(t, p.URL)
	tb.Go("/contests/c1")
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	p.Drop()
	tb.Wait("the page to notice", `document.getElementById("state").textContent === "Reconnecting…"`)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t3","problem_id":"A","contest_time":"1:10:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"1:11:00"}}`,
	}, "\n")+"\n", nil)
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	tb.Wait("the stream again", `document.getElementById("state").textContent === "Live"`)
	if n := evalJS[int](tb, `window.rankd.stats.snapshots`); n != 1 {
		t.Errorf("got %d snapshots, want the first one only: the page resumes from the frames it missed", n)
	}
}

// The big screen reads the throttled channel of the top rows, in large type.
func TestBrowserBigScreen(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1?bigscreen=1&top=2")
	tb.WaitRows(alphaRow, bravoRow)
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	if !evalJS[bool](tb, `document.body.classList.contains("bigscreen") && document.getElementById("view").offsetParent === null`) {
		t.Error("the big screen shows the controls")
	}
	if size := evalJS[float64](tb, `parseFloat(getComputedStyle(document.body).fontSize)`); size < 18 {
		t.Errorf("font size on the big screen: got %gpx, want at least 18", size)
	}
	tb.Shot("bigscreen")
	// "b" leaves it for the whole live board.
	tb.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys("b"))
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
}

// The big screen of a group shows the group's rows, not those of its teams among the top rows of all (one
// here, of the group's three): it follows the whole board.
func TestBrowserBigScreenOfAGroup(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1?bigscreen=1&top=1&group=g1")
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
}

// The stream's parser and the board model, on cases the server rarely makes: events split anywhere, CR
// LF line ends, a missed frame, rows past the end.
func TestBrowserModel(t *testing.T) {
	e := MustOpen(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/")
	prefix := evalJS[string](tb, `document.querySelector('script[type=module]').src.replace(/js\/list\.js$/, "")`)
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	failures, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
  const { Board, GapError } = await import("`+prefix+`js/model.js");
  const { readEvents } = await import("`+prefix+`js/sse.js");
  const failures = [];
  const expect = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(what + ": got " + JSON.stringify(got) + ", want " + JSON.stringify(want));
  };
  const row = (team, pos, key, cells) => ({ team_id: team, pos, key, cells: cells || [] });
  const b = new Board();
  b.applySnapshot({ seq: 5, view: "public", rows: [row("a", 0, "1"), row("b", 1, "2", [{ problem_id: "A", judged: 1 }, { problem_id: "B" }]), row("c", 2, "2"), row("d", 3, "3")] });
  expect("snapshot ranks", b.rows.map((r) => r.team_id + r.rank), ["a1", "b2", "c2", "d4"]);
  const changed = b.applyDiff({ seq: 7, base_seq: 5, rows: [row("d", 0, "0"), row("b", 3, "4", [{ problem_id: "A", solved: true }])], removed: ["c"] });
  expect("diff order", b.rows.map((r) => r.team_id + r.rank), ["d1", "a2", "b3"]);
  expect("changed", [...changed].sort(), ["b", "c", "d"]);
  expect("merged cells", b.byTeam.get("b").cells, [{ problem_id: "A", solved: true }, { problem_id: "B" }]);
  expect("past diff", b.applyDiff({ seq: 6, base_seq: 5, rows: [row("a", 2, "9")] }).size, 0);
  let gap = null;
  try { b.applyDiff({ seq: 9, base_seq: 8, rows: [] }); } catch (e) { gap = e; }
  expect("gap", gap instanceof GapError, true);
  b.applyDiff({ seq: 10, base_seq: 7, rows: [row("e", 99, "5"), row("a", 1, "1")] });
  expect("past the end", b.rows.map((r) => r.team_id + r.rank), ["d1", "a2", "b3", "e4"]);
  b.applyDiff({ seq: 11, base_seq: 10, rows: [], removed: ["d", "nobody"] });
  expect("removed only", b.rows.map((r) => r.team_id + r.rank + "@" + r.pos), ["a1@0", "b2@1", "e3@2"]);
  b.applyDiff({ seq: 11, base_seq: 11, frozen: true, rows: [] });
  expect("frozen by the clock", [b.seq, b.frozen, b.rows.length], [11, true, 3]);
  b.applyDiff({ seq: 12, base_seq: 11, frozen: false, rows: [] });
  expect("frozen no more", [b.seq, b.frozen], [12, false]);

  const ties = new Board();
  ties.applySnapshot({ seq: 1, rows: [row("t1", 0, "1"), row("t2", 1, "2"), row("t3", 2, "2"), row("t4", 3, "2"), row("t5", 4, "3"), row("t6", 5, "4")] });
  ties.applyDiff({ seq: 2, base_seq: 1, rows: [row("t3", 0, "0")] });
  expect("a tie broken", ties.rows.map((r) => r.team_id + r.rank + "@" + r.pos), ["t31@0", "t12@1", "t23@2", "t43@3", "t55@4", "t66@5"]);
  expect("where it was", ties.byTeam.get("t3").was, 2);
  ties.applyDiff({ seq: 3, base_seq: 2, rows: [row("t5", 2, "2")] });
  expect("a tie joined", ties.rows.map((r) => r.team_id + r.rank + "@" + r.pos), ["t31@0", "t12@1", "t53@2", "t23@3", "t43@4", "t66@5"]);

  const text = "retry: 1500\r\n\r\n: ping\n\nevent: snapshot\nid: 3\ndata: {\"a\":\ndata: 1}\r\n\r\nevent: diff\ndata: x\n\n";
  for (const size of [1, 2, 3, 7, text.length]) {
    const chunks = [];
    for (let i = 0; i < text.length; i += size) chunks.push(new TextEncoder().encode(text.slice(i, i + size)));
    const body = new ReadableStream({ pull(c) { if (chunks.length) c.enqueue(chunks.shift()); else c.close(); } });
    const events = [];
    let retry = 0;
    await readEvents(body, (ev) => events.push([ev.event, ev.id, ev.data]), (ms) => { retry = ms; }, () => {});
    expect("events in chunks of " + size, events, [["snapshot", "3", "{\"a\":\n1}"], ["diff", "", "x"]]);
    expect("retry in chunks of " + size, retry, 1500);
  }
  return failures;
})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failures {
		t.Error(f)
	}
}

// A problem deleted during the contest leaves the open page's columns within seconds: its live stream sends
// a snapshot, and the page reads the contest again (else at its regular read, 30 s later).
func TestBrowserProblemDeleted(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	heads := `[...document.querySelectorAll(".head .c")].map((c) => c.textContent).join(" ")`
	if got := evalJS[string](tb, heads); got != "# Team Solved Time A B" {
		t.Fatalf("header: got %q", got)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, `{"type":"problems","id":"B","data":null}`+"\n", nil)
	tb.Wait("problem B's column gone", heads+` === "# Team Solved Time A"`)
	tb.WaitRows("1 Alpha 1 30 [solved first|30|1 try]", "2 Bravo 0 0 [failed||1 try]", "2 Charlie 0 0 [||]")
}
