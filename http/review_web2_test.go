package http_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The board as spectators see it: the thaw of an open page, the countdown to the start, the big screen of
// many problems, a phone with long and right-to-left names, a server that goes away and comes back.

// A thaw shows on an open page at once: the results, and the banner and phase that no longer say frozen,
// without waiting for the page's next regular read of the contest (30 s).
func TestBrowserReviewWeb2ThawWhileOpen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		now   time.Duration // into the contest
		phase string        // after the thaw
	}{
		{"during the contest", 4*time.Hour + 30*time.Minute, "Running"},
		{"after the end", 6 * time.Hour, "Thawed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := MustOpen(t)
			e.SetNow(contestStart.Add(tc.now))
			e.MustContest(t)
			tb := MustBrowser(t).Tab(t, e.URL)
			tb.Go("/contests/c1")
			tb.Wait("the frozen board", `document.getElementById("state").textContent === "Live" && document.querySelectorAll(".c.prob.pending").length === 2`)
			if banner := evalJS[string](tb, `document.getElementById("banner").textContent`); banner == "" {
				t.Fatal("no banner on the frozen board")
			}
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j3","submission_id":"s3","judgement_type_id":"WA","start_contest_time":"4:22:00"}`, nil)
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
			tb.Wait("the results", `document.querySelectorAll(".c.prob.pending").length === 0`)
			tb.Wait("the banner gone and the phase "+tc.phase,
				`document.getElementById("banner").hidden && document.getElementById("phase").textContent === "`+tc.phase+`"`)
			tb.Shot("thawed")
		})
	}
}

// A contest to come says when it starts, and the header counts down to it; a running one, the time left.
func TestBrowserReviewWeb2Countdown(t *testing.T) {
	e := MustOpen(t)
	// The page counts with the browser's clock: the server's is the real one here.
	now := time.Now().Truncate(time.Second)
	e.SetNow(now)
	for _, c := range []struct {
		id    string
		start time.Time
	}{{"soon", now.Add(2 * time.Hour)}, {"now", now.Add(-time.Hour)}} {
		e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, map[string]any{
			"contest": map[string]any{"id": c.id, "name": c.id, "start_time": c.start.Format(time.RFC3339),
				"duration": "5:00:00", "scoreboard_freeze_duration": "1:00:00"},
			"problems": []any{map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0}},
			"teams":    []any{map[string]any{"id": "t1", "name": "Alpha"}},
		}, nil)
	}
	tb := MustBrowser(t).Tab(t, e.URL)
	// The list says the duration as the contest's people write it, without milliseconds.
	tb.Go("/")
	tb.Wait("the list", `document.querySelectorAll("#contests tbody tr").length === 2`)
	if got := evalJS[string](tb, `document.querySelector("#contests tbody td:nth-child(5)").textContent`); got != "5:00:00" {
		t.Errorf("the duration in the list: got %q, want 5:00:00", got)
	}
	for _, tc := range []struct {
		id, clock, banner string
	}{
		{"soon", `^Starts in (1:59:\d\d|2:00:00)$`, "The contest has not started yet: it starts at "},
		{"now", `^(3:59:\d\d|4:00:00) left$`, ""},
	} {
		tb.Go("/contests/" + tc.id)
		tb.Wait("the board", `document.getElementById("state").textContent === "Live"`)
		tb.Wait("the clock of "+tc.id, `/`+tc.clock+`/.test(document.getElementById("clock").textContent)`)
		banner := evalJS[string](tb, `document.getElementById("banner").hidden ? "" : document.getElementById("banner").textContent`)
		if tc.banner == "" && banner != "" || !strings.HasPrefix(banner, tc.banner) {
			t.Errorf("contest %s: the banner says %q, want %q", tc.id, banner, tc.banner)
		}
		first := evalJS[string](tb, `document.getElementById("clock").textContent`)
		tb.Wait("the clock to tick", `document.getElementById("clock").textContent !== "`+first+`"`)
		tb.Shot(tc.id)
	}
}

// The big screen fits every problem of a World Finals (22) into its width: nobody can scroll it sideways.
func TestBrowserReviewWeb2BigScreenFits(t *testing.T) {
	e := MustOpen(t)
	c := testContest()
	var problems []any
	for i := range 22 {
		label := string(rune('A' + i))
		problems = append(problems, map[string]any{"id": label, "label": label, "name": "Problem " + label, "ordinal": i})
	}
	c["problems"] = problems
	var teams []any
	for i := range 130 {
		teams = append(teams, map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Université Technique de la Team %d", i)})
	}
	c["teams"] = teams
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	for _, size := range [][2]int64{{1920, 1080}, {1366, 768}} {
		tb.Do(chromedp.EmulateViewport(size[0], size[1]))
		tb.Go("/contests/c1?bigscreen=1")
		tb.Wait("the rows", `document.querySelectorAll(".rows > .row").length > 5`)
		if got := evalJS[[]int](tb, `[document.getElementById("board").scrollWidth, document.getElementById("board").clientWidth]`); got[0] > got[1] {
			t.Errorf("%dx%d: the board is %d px wide in a window of %d", size[0], size[1], got[0], got[1])
		}
		// The rows are placed by the height measured: one under the other, none over another.
		if gaps := evalJS[[]float64](tb, `(() => {
  const r = [...document.querySelectorAll(".rows > .row")].map((el) => el.getBoundingClientRect()).sort((a, b) => a.top - b.top);
  return [r[1].top - r[0].top, r[0].height];
})()`); gaps[0] != gaps[1] {
			t.Errorf("%dx%d: rows %g px apart, %g px high", size[0], size[1], gaps[0], gaps[1])
		}
		tb.Shot(fmt.Sprintf("%dx%d", size[0], size[1]))
	}
}

// On a phone, a long group name does not widen the page; right-to-left names read in their order: a Hebrew
// name's closing mark at its end (the left), an Arabic organization before its Arabic group.
func TestBrowserReviewWeb2PhoneNames(t *testing.T) {
	e := MustOpen(t)
	c := testContest()
	c["groups"] = []any{
		map[string]any{"id": "g1", "name": "ICPC Contest Control System, Analytics & Graphics and friends"},
		map[string]any{"id": "g2", "name": "الجامعات العربية"},
	}
	c["organizations"] = []any{map[string]any{"id": "o1", "name": "جامعة القاهرة"}}
	c["teams"] = []any{
		map[string]any{"id": "t1", "name": "צוות!", "group_ids": []string{"g1"}},
		map[string]any{"id": "t2", "name": "فريق القاهرة", "organization_id": "o1", "group_ids": []string{"g2"}},
		map[string]any{"id": "t3", "name": "Los Programadores Extraordinariamente Persistentes de la Facultad", "group_ids": []string{"g1"}},
	}
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Do(chromedp.EmulateViewport(390, 844))
	tb.Go("/contests/c1")
	tb.Wait("the rows", `document.querySelectorAll(".rows > .row").length === 3`)
	if w := evalJS[int](tb, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the page is %d px wide on a phone of 390", w)
	}
	// left returns where the first character of text begins on the screen, in the element of sel.
	left := func(sel, text string) float64 {
		t.Helper()
		return evalJS[float64](tb, `(() => {
  const el = [...document.querySelectorAll("`+sel+`")].find((x) => x.textContent.includes("`+text+`"));
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const i = n.data.indexOf("`+text+`");
    if (i < 0) continue;
    const r = document.createRange();
    r.setStart(n, i);
    r.setEnd(n, i + 1);
    return r.getBoundingClientRect().left;
  }
  return NaN;
})()`)
	}
	if mark, letter := left(".name", "!"), left(".name", "צ"); !(mark < letter) {
		t.Errorf("צוות!: the mark at %g px, the first letter at %g px: want the mark on the left", mark, letter)
	}
	if org, group := left(".aff", "جامعة"), left(".aff", "الجامعات"); !(org < group) {
		t.Errorf("the organization at %g px, the group at %g px: want the organization first (on the left)", org, group)
	}
	// A name cut short is there whole for a pointer.
	if title := evalJS[string](tb, `[...document.querySelectorAll(".c.team")].map((c) => c.title).find((x) => x.startsWith("Los"))`); !strings.Contains(title, "de la Facultad") {
		t.Errorf("the title of a long name: got %q, want it whole", title)
	}
	tb.Shot("phone")
}

// While the server cannot be reached the page says it is reconnecting (not that it polls a board it cannot
// read), and once the server is back it follows the stream again within seconds.
func TestBrowserReviewWeb2ServerAway(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	p := mustGate(t, e.URL)
	tb := MustBrowser(t).Tab(t, p.URL)
	tb.Go("/contests/c1")
	tb.WaitRows(alphaRow, bravoRow, charlieRow)
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	p.Close(true)
	tb.Wait("the page to notice", `document.getElementById("state").textContent === "Reconnecting…"`)
	time.Sleep(8 * time.Second) // three failed connections, and more
	if got := evalJS[string](tb, `document.getElementById("state").textContent`); got != "Reconnecting…" {
		t.Errorf("with the server away: the state says %q, want Reconnecting…", got)
	}
	tb.Shot("away")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t3","problem_id":"A","contest_time":"1:10:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"1:11:00"}}`,
	}, "\n")+"\n", nil)
	p.Close(false)
	tb.WaitRows(alphaRow, "2 Charlie 1 70 [solved|70|1 try] [pending|?|1]", "3 Bravo 0 0 [failed||1 try] [pending|?|1]")
	tb.Wait("the stream again", `document.getElementById("state").textContent === "Live"`)
}

// gate passes TCP connections to a server, or, closed, drops them all and every new one at once, as a
// server that is restarting does.
type gate struct {
	URL    string
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
}

func mustGate(tb testing.TB, target string) *gate {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	g := &gate{URL: "http://" + ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	addr := strings.TrimPrefix(target, "http://")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			g.mu.Lock()
			closed := g.closed
			g.mu.Unlock()
			if closed {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			g.mu.Lock()
			g.conns[c], g.conns[s] = struct{}{}, struct{}{}
			g.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		g.Close(true)
	})
	return g
}

// Close closes the gate (dropping every connection through it) or opens it again.
func (g *gate) Close(closed bool) {
	g.mu.Lock()
	g.closed = closed
	g.mu.Unlock()
	if closed {
		g.Drop()
	}
}

// Drop closes every connection open through the gate, as a restarting load balancer does.
func (g *gate) Drop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.Close()
		delete(g.conns, c)
	}
}

// A freeze by hand shows on an open page with the first frame that hides a verdict, not at the page's next
// regular read of the contest (every 30 s).
func TestBrowserFreezeByHandWhileOpen(t *testing.T) {
	e := MustOpen(t)
	e.SetNow(contestStart.Add(2 * time.Hour))
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.Wait("the live board", `document.getElementById("state").textContent === "Live" && document.getElementById("banner").hidden`)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"2:00:00"}}`,
		`{"type":"judgements","data":{"id":"j9","submission_id":"s9","judgement_type_id":"AC","start_contest_time":"2:00:00"}}`,
	}, "\n")+"\n", nil)
	tb.Wait("the pending cell", `document.querySelectorAll(".c.prob.pending").length === 1`)
	tb.Wait("the banner saying the board is frozen (within 10 s: the page reads the contest every 30 s)",
		`!document.getElementById("banner").hidden && document.getElementById("banner").textContent.includes("frozen since")`)
}
