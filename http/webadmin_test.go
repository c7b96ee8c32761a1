package http_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"rankd/finalize"
)

// The admin console: its pages, its assets, and the whole of it in a browser.

func TestWebAdminPages(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/admin", http.StatusOK},
		{"/admin?x=1", http.StatusOK},
		{"/admin/contests/c1", http.StatusOK},
		{"/admin/contests/nope", http.StatusNotFound},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(t, tc.path, nil)
			if r.Status != tc.status {
				t.Fatalf("got status %d, want %d", r.Status, tc.status)
			}
			board := e.get(t, "/contests/c1", nil)
			// The same headers as the board's page, but that no other site may frame the console.
			for _, k := range []string{"Content-Type", "Cache-Control", "Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
				got := strings.TrimSuffix(r.Header.Get(k), "; frame-ancestors 'none'")
				if want := board.Header.Get(k); got != want || got == "" {
					t.Errorf("%s: got %q, want %q as the board's", k, got, want)
				}
			}
			if !regexp.MustCompile(`<script type="module" src="/assets/[0-9a-f]{12}/js/admin.js">`).Match(r.Body) {
				t.Errorf("the page does not load js/admin.js:\n%s", r.Body)
			}
			if tc.status != http.StatusOK {
				return
			}
			etag := r.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if again := e.get(t, tc.path, map[string]string{"If-None-Match": etag}); again.Status != http.StatusNotModified {
				t.Errorf("If-None-Match with its ETag: got %d, want 304", again.Status)
			}
			z := e.get(t, tc.path, map[string]string{"Accept-Encoding": "gzip"})
			if z.Header.Get("Content-Encoding") != "gzip" {
				t.Errorf("with Accept-Encoding gzip: got Content-Encoding %q", z.Header.Get("Content-Encoding"))
			}
		})
	}
	// Paths beside the console keep the API's JSON 404.
	for _, p := range []string{"/admin/", "/admin/contests/", "/admin/contests/c1/teams", "/admin.html"} {
		r := e.get(t, p, nil)
		if r.Status != http.StatusNotFound || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: got %d %q, want a JSON 404", p, r.Status, r.Header.Get("Content-Type"))
		}
	}
}

// importSpec matches the static imports of a module.
var importSpec = regexp.MustCompile(`(?m)^\s*(?:import|export)\s[^"']*?from\s+"(\./[^"]+)"|^\s*import\s+"(\./[^"]+)"`)

// Every file the console's page names, and every module those import in turn, is embedded and served with
// its type; nothing in them names another host, and the page has no inline script or style, which its
// Content-Security-Policy would block.
func TestWebAdminAssets(t *testing.T) {
	e := MustOpen(t)
	page := e.get(t, "/admin", nil)
	for _, tag := range regexp.MustCompile(`<script[^>]*>[^<]*`).FindAll(page.Body, -1) {
		if !strings.Contains(string(tag), ` src="`) || !strings.HasSuffix(string(tag), ">") {
			t.Errorf("an inline script, which the policy blocks: %s", tag)
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`\sstyle=`),
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\son[a-z]+=`),
		regexp.MustCompile(`(?i)https?://`),
	} {
		if m := bad.Find(page.Body); m != nil {
			t.Errorf("the page has %q, which its policy blocks or which names another host", m)
		}
	}
	urls := assetURL.FindAll(page.Body, -1)
	if len(urls) < 5 {
		t.Fatalf("got %d asset addresses in the page, want the stylesheets and scripts", len(urls))
	}
	prefix := string(urls[0][:len("/assets/")+13])
	queue := []string{}
	for _, u := range urls {
		queue = append(queue, strings.TrimPrefix(string(u), prefix))
	}
	seen := map[string]bool{}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		r := e.get(t, prefix+name, nil)
		want, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			t.Errorf("%s: named by the console but not in assets/: %v", name, err)
			continue
		}
		if r.Status != http.StatusOK || string(r.Body) != string(want) {
			t.Errorf("%s: got status %d and %d bytes, want the file", name, r.Status, len(r.Body))
		}
		if got := r.Header.Get("Content-Type"); got != types[filepath.Ext(name)] {
			t.Errorf("%s: Content-Type %q", name, got)
		}
		if loc := regexp.MustCompile(`(?i)https?://`).FindIndex(want); loc != nil {
			t.Errorf("%s names an absolute URL at byte %d", name, loc[0])
		}
		if filepath.Ext(name) == ".js" {
			for _, m := range importSpec.FindAllStringSubmatch(string(want), -1) {
				dep := m[1] + m[2]
				queue = append(queue, filepath.ToSlash(filepath.Join(filepath.Dir(name), dep)))
			}
		}
	}
	for _, need := range []string{"js/admin.js", "js/tokens.js", "js/adminapi.js", "js/admincsv.js", "js/adminteams.js",
		"js/adminjudge.js", "js/admincontest.js", "js/contest.js", "css/admin.css", "css/board.css"} {
		if !seen[need] {
			t.Errorf("%s: not reached from the console's page", need)
		}
	}
}

// adminTab is a browser tab on the console, in a time zone an hour off UTC, so that times typed in the
// forms are checked to be local.
func adminTab(t *testing.T, b *browser, base string) *tab {
	t.Helper()
	tb := b.Tab(t, base)
	tb.Do(chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Amsterdam"})
		return err
	}))
	return tb
}

// adminConsole is an adminTab on a console page, path, in a browser that keeps the admin token.
func adminConsole(t *testing.T, b *browser, base, path string) *tab {
	t.Helper()
	tb := adminTab(t, b, base)
	tb.Go("/")
	evalJS[chromedp.Void](tb, `localStorage.setItem("rankd.token.admin", "`+adminToken+`")`)
	tb.Go(path)
	return tb
}

// WaitAcross waits for a JavaScript expression to be true, through page loads (which a Wait does not
// survive), failing after 10 s.
func (t *tab) WaitAcross(what, expr string) {
	t.tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+expr+`); } catch { return false; } })()`))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Shot("failure")
			t.tb.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Fill sets form fields by id, as typing would, and tells the page they changed.
func (t *tab) Fill(fields ...string) {
	t.tb.Helper()
	var actions []chromedp.Action[chromedp.Void]
	for i := 0; i+1 < len(fields); i += 2 {
		id, v := fields[i], fields[i+1]
		actions = append(actions, chromedp.Evaluate[chromedp.Void](`(() => { const el = document.getElementById(`+jsString(id)+`);
  el.focus(); el.value = `+jsString(v)+`;
  if (el.value !== `+jsString(v)+` && !(el.type === "datetime-local" && el.value.startsWith(`+jsString(v)+`.slice(0, 16)))) throw new Error("#" + el.id + " takes no " + `+jsString(v)+`);
  el.dispatchEvent(new Event("input", { bubbles: true })); el.dispatchEvent(new Event("change", { bubbles: true })); })()`))
	}
	t.Do(actions...)
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// WaitStatus waits until the status region says text.
func (t *tab) WaitStatus(text string) {
	t.tb.Helper()
	t.Wait("the status "+text, `document.getElementById("status").textContent.includes(`+jsString(text)+`)`)
}

// Confirm answers the console's confirmation dialog.
func (t *tab) Confirm(yes bool) {
	t.tb.Helper()
	t.Wait("the confirmation", `document.getElementById("confirm-dialog").open`)
	button := "confirm-no"
	if yes {
		button = "confirm-yes"
	}
	t.Do(chromedp.Click(chromedp.ID(button)))
}

type adminContest struct {
	Name           string
	Phase          string
	StartTime      string `json:"start_time"`
	Duration       string
	FreezeDuration string `json:"scoreboard_freeze_duration"`
	PenaltyTime    int    `json:"penalty_time"`
	Problems       []struct{ ID, Label, Name, RGB string }
	Groups         []struct{ ID, Name string }
}

type adminTeam struct {
	ID, Name       string
	OrganizationID string   `json:"organization_id"`
	GroupIDs       []string `json:"group_ids"`
	Hidden, Banned bool
}

// The console in a browser, as an organiser uses it: a contest created through the form, problems, a group
// and an organization added, teams uploaded from a CSV file (a bad line shown and not sent, the others
// registered), a team banned (off the public board), a token issued, the board frozen and thawed by hand,
// and a verdict corrected by hand, which the open board shows.
func TestBrowserAdmin(t *testing.T) {
	e := MustOpen(t) // the clock reads 2026-03-01 14:30 UTC
	b := MustBrowser(t)
	tb := adminTab(t, b, e.URL)

	// The console asks for the admin token first; a judge's is refused at the first change, with the
	// server's reason, and the change goes through once an admin token is given.
	tb.Go("/admin")
	tb.Wait("the token dialog", `document.getElementById("token-dialog").open`)
	tb.Do(chromedp.SendKeys(chromedp.ID("token"), judgeToken), chromedp.Click(chromedp.ID("token-save")))
	tb.Wait("the contests", `document.getElementById("contests-message").textContent.includes("no contests")`)
	if zone := evalJS[string](tb, `document.getElementById("c-zone").textContent`); !strings.Contains(zone, "Europe/Amsterdam") {
		t.Errorf("the form's time zone: got %q", zone)
	}
	// The fields of the rules chosen show, the others hide.
	tb.Fill("c-rules", "ctf")
	if !evalJS[bool](tb, `!document.getElementById("c-first-blood").closest("label").hidden && document.getElementById("c-penalty").closest("label").hidden`) {
		t.Error("CTF rules: want the first-blood field, not the penalty")
	}
	tb.Fill("c-rules", "icpc")
	tb.Shot("home")

	// A field that is wrong is said so, and focused.
	tb.Fill("c-id", "spring", "c-name", "Spring Contest", "c-duration", "5 hours")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.WaitStatus("Duration: want h:mm:ss")
	if id := evalJS[string](tb, `document.activeElement.id`); id != "c-duration" {
		t.Errorf("after a wrong duration the focus is on %q, want the field", id)
	}
	// 11:00 in Amsterdam is 10:00 UTC; no freeze; one medal of each.
	tb.Fill("c-start", "2026-03-01T11:00:00", "c-duration", "5:00:00", "c-freeze", "", "c-penalty", "20",
		"c-gold", "1", "c-silver", "1", "c-bronze", "1")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.Wait("the token refused", `document.getElementById("token-dialog").open && !document.getElementById("token-error").hidden`)
	if msg := evalJS[string](tb, `document.getElementById("token-error").textContent`); !strings.Contains(msg, "needs an admin token") {
		t.Errorf("the dialog says %q, want the server's reason", msg)
	}
	tb.Do(chromedp.SendKeys(chromedp.ID("token"), adminToken), chromedp.Click(chromedp.ID("token-save")))
	tb.WaitAcross("the contest's page", `location.pathname === "/admin/contests/spring" && document.getElementById("team-count").textContent.startsWith("0 of 0")`)
	tb.WaitStatus("Created contest Spring Contest (spring)")
	var c adminContest
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring", "", nil, &c)
	if c.StartTime != "2026-03-01T11:00:00.000+01:00" || c.Duration != "5:00:00.000" || c.FreezeDuration != "0:00:00.000" ||
		c.PenaltyTime != 20 || c.Phase != "running" {
		t.Errorf("the contest created: got %+v", c)
	}
	var awards []struct{ ID string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/awards", "", nil, &awards)
	if !slices.ContainsFunc(awards, func(a struct{ ID string }) bool { return a.ID == "bronze-medal" }) {
		t.Errorf("awards %v: want the medals configured", awards)
	}
	// Every control of the console is labelled, and every button says what it does.
	if unlabelled := evalJS[[]string](tb, `[...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !(el.tagName === "BUTTON" && el.textContent.trim()))
  .map((el) => el.id || el.outerHTML)`); len(unlabelled) > 0 {
		t.Errorf("controls without a label: %v", unlabelled)
	}

	// The contest edited: its name (PATCH), the medals kept as the server has them.
	if gold := evalJS[string](tb, `document.getElementById("c-gold").value`); gold != "1" {
		t.Errorf("the edit form's gold medals: got %q, want 1 as saved", gold)
	}
	if types := evalJS[string](tb, `[...document.getElementById("j-type").options].map((o) => o.value).join(" ")`); types != "AC WA TLE RTE MLE CE " {
		t.Errorf("the verdicts offered: got %q, want the contest's judgement types and another id", types)
	}
	tb.Fill("c-name", "Spring Contest 2026")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.WaitStatus("Saved contest Spring Contest 2026")
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring", "", nil, &c)
	if c.Name != "Spring Contest 2026" || c.StartTime != "2026-03-01T11:00:00.000+01:00" {
		t.Errorf("after the edit: got %+v", c)
	}
	tb.Wait("the new title", `document.getElementById("title").textContent === "Admin · Spring Contest 2026"`)

	// Problems, a group, an organization.
	tb.Fill("p-id", "A", "p-label", "A", "p-name", "Apples", "p-color", "blue")
	tb.Do(chromedp.Click(chromedp.ID("p-save")))
	tb.WaitStatus("Saved problem A: Apples")
	tb.Wait("the order of the next problem", `document.getElementById("p-ordinal").value === "1" && document.getElementById("p-id").value === ""`)
	tb.Fill("p-id", "B", "p-label", "B", "p-name", "Bananas")
	tb.Do(chromedp.Click(chromedp.ID("p-no-colour")), chromedp.Click(chromedp.ID("p-save")))
	tb.WaitStatus("Saved problem B: Bananas")
	tb.Wait("two problems", `document.querySelectorAll("#problem-list tbody tr").length === 2 && document.getElementById("p-ordinal").value === "2"`)
	// The forms work from the keyboard: Tab to the next field, Enter sends.
	tb.Do(chromedp.Focus(chromedp.ID("g-id")), typeKeys("g1\tUniversities\r"))
	tb.WaitStatus("Saved group Universities (g1)")
	tb.Fill("o-id", "tud", "o-name", "TU Delft", "o-country", "nld")
	tb.Do(chromedp.Click(chromedp.ID("o-save")))
	tb.WaitStatus("Saved organization TU Delft (tud)")
	tb.Wait("the organization offered", `[...document.getElementById("t-org").options].some((o) => o.value === "tud")`)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring", "", nil, &c)
	if len(c.Problems) != 2 || c.Problems[0].Name != "Apples" || c.Problems[0].RGB != "#1e90ff" || c.Problems[1].RGB != "" ||
		len(c.Groups) != 1 || c.Groups[0].Name != "Universities" {
		t.Errorf("problems and groups: got %+v", c)
	}

	// Teams from a CSV file: one bad line, shown and not sent; the others registered.
	csv := filepath.Join(t.TempDir(), "teams.csv")
	if err := os.WriteFile(csv, []byte("\ufeffid,name,organization,groups\r\n"+
		"t1,Alpha,tud,g1\r\n"+
		"t2,\"Bravo, \"\"the\"\" Second\",,Universities\r\n"+
		"t3,Charlie\r\n"+
		"\r\n"+
		"t4,Delta,TU Delft,g1;Universities\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb.Do(chromedp.SetUploadFiles(chromedp.ID("csv-file"), []string{csv}))
	tb.Wait("the preview", `document.getElementById("csv-summary").textContent.includes("3 teams to register; 1 line with an error (line 4)")`)
	if bad := evalJS[string](tb, `document.querySelector('#csv-lines tr.error').textContent`); !strings.Contains(bad, "2 fields, want 4") {
		t.Errorf("the bad line: got %q, want its error", bad)
	}
	evalJS[chromedp.Void](tb, `document.getElementById("csv-lines").scrollIntoView()`)
	tb.Shot("import-preview")
	tb.Do(chromedp.Click(chromedp.ID("csv-import")))
	tb.Wait("the import", `document.getElementById("csv-summary").textContent.includes("Sent 3 teams: 3 accepted")`)
	if results := evalJS[[]string](tb, `[...document.querySelectorAll("#csv-lines tbody tr")].map((tr) => tr.cells[0].textContent + " " + tr.cells[6].textContent)`); strings.Join(results, ", ") != "2 registered, 3 registered, 4 not sent, 6 registered" {
		t.Errorf("the results per line: got %q", results)
	}
	evalJS[chromedp.Void](tb, `document.getElementById("csv-lines").scrollIntoView()`)
	tb.Shot("import-done")

	// One more team by hand.
	tb.Fill("t-id", "t5", "t-name", "Echo", "t-org", "tud")
	tb.Do(chromedp.Click(chromedp.CSS(`#t-groups input[value="g1"]`)), chromedp.Click(chromedp.ID("t-save")))
	tb.WaitStatus("Registered team Echo (t5)")
	var teams []adminTeam
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/teams?view=jury", adminToken, nil, &teams)
	var got []string
	for _, tm := range teams {
		got = append(got, tm.ID+"|"+tm.Name+"|"+tm.OrganizationID+"|"+strings.Join(tm.GroupIDs, ";"))
	}
	if want := []string{"t1|Alpha|tud|g1", `t2|Bravo, "the" Second||g1`, "t4|Delta|tud|g1", "t5|Echo|tud|g1"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the teams registered:\ngot  %q\nwant %q", got, want)
	}

	// A ban takes the team off the public board.
	tb.Wait("the four teams listed", `document.getElementById("team-count").textContent.startsWith("4 of 4") && document.querySelector('#team-list tr[data-team="t5"]') !== null`)
	tb.Do(chromedp.Click(chromedp.CSS(`#team-list button[data-action="ban"][data-team="t2"]`)))
	tb.WaitStatus("Banned Bravo")
	tb.Wait("t2 banned in the list", `document.querySelector('#team-list tr[data-team="t2"] .team-status').textContent === "Banned"`)
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/scoreboard", "", nil, &p)
	if p.Total != 3 || slices.Contains(p.teams(), "t2") {
		t.Errorf("the public board after the ban: got %v (%d), want t1, t4, t5", p.teams(), p.Total)
	}
	// The filter finds teams.
	tb.Fill("team-filter", "delt")
	tb.Wait("the filter", `document.querySelectorAll("#team-list tbody tr").length === 1 && document.getElementById("team-count").textContent.startsWith("1 of 4")`)
	tb.Fill("team-filter", "")

	// A token, shown once, is the team's.
	tb.Do(chromedp.Click(chromedp.CSS(`#team-list button[data-action="token"][data-team="t1"]`)))
	tb.Wait("the token", `document.getElementById("token-value").value.length > 16`)
	token := evalJS[string](tb, `document.getElementById("token-value").value`)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/scoreboard?view=team", token, nil, nil)
	tb.Do(chromedp.Click(chromedp.ID("token-copy")))
	tb.Wait("the copy's answer", `/copied|would not copy/.test(document.getElementById("status").textContent)`)
	tb.Shot("teams")
	tb.Do(chromedp.Click(chromedp.ID("token-done")))

	// Revoking the team's tokens, confirmed, makes the token useless; a cancelled revocation keeps it.
	revoke := chromedp.Click(chromedp.CSS(`#team-list button[data-action="revoke"][data-team="t1"]`))
	tb.Do(revoke)
	tb.Confirm(false)
	tb.WaitStatus("No token revoked: cancelled")
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/scoreboard?view=team", token, nil, nil)
	tb.Do(revoke)
	tb.Confirm(true)
	tb.WaitStatus("Revoked 1 token of")
	e.MustDo(t, http.StatusUnauthorized, "GET", "/api/v1/contests/spring/scoreboard?view=team", token, nil, nil)

	// Freeze and thaw by hand, each confirmed; a cancelled one changes nothing.
	phase := func() string {
		var c adminContest
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring", "", nil, &c)
		return c.Phase
	}
	tb.Do(chromedp.Click(chromedp.ID("freeze-now")))
	tb.Confirm(false)
	tb.WaitStatus("cancelled")
	if ph := phase(); ph != "running" {
		t.Errorf("after a cancelled freeze: phase %s", ph)
	}
	tb.Do(chromedp.Click(chromedp.ID("freeze-now")))
	tb.Confirm(true)
	tb.WaitStatus("Froze the public board, 4:30:00 into the contest")
	if ph := phase(); ph != "frozen" {
		t.Errorf("after the freeze: phase %s, want frozen", ph)
	}
	tb.Wait("the phase shown", `document.getElementById("phase").textContent === "Frozen"`)
	// Freezing again is refused, and the page says why, as the API does.
	tb.Do(chromedp.Click(chromedp.ID("freeze-now")))
	tb.Confirm(true)
	tb.WaitStatus(`Error: Freeze: 409, conflict: contest "spring" is already frozen since 4:30:00`)
	tb.Do(chromedp.Click(chromedp.ID("thaw-now")))
	tb.Confirm(true)
	tb.WaitStatus("Lifted the freeze")
	if ph := phase(); ph != "running" {
		t.Errorf("after the thaw: phase %s, want running", ph)
	}

	// A judge's verdict, corrected by hand: the open board follows.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/spring/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"WA","start_contest_time":"0:31:00"}}`,
	}, "\n")+"\n", nil)
	board := b.Tab(t, e.URL)
	board.Go("/contests/spring")
	waitRow := func(prefix, cell string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			for _, r := range board.Rows() {
				if strings.HasPrefix(r, prefix) && strings.Contains(r, cell) {
					return
				}
			}
			if time.Now().After(deadline) {
				board.Shot("failure")
				t.Fatalf("the board has no row %q with %q: %q", prefix, cell, board.Rows())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitRow("1 Alpha 0 0 ", "[failed||1 try]")
	tb.Fill("s-team", "t1")
	tb.Do(chromedp.Click(chromedp.ID("s-load")))
	tb.Wait("the submission", `document.querySelector('#sub-list tr[data-submission="s1"]')?.textContent.includes("WA")`)
	tb.Do(chromedp.Click(chromedp.CSS(`#sub-list input[value="s1"]`)))
	// The judgement starts now by the server's clock (4:30 into the contest), after the judge's.
	tb.Wait("the judgement's time", `document.getElementById("j-time").value === "4:30:00.000" && document.getElementById("j-id").value.startsWith("s1-fix-")`)
	tb.Fill("j-type", "AC")
	tb.Do(chromedp.Click(chromedp.ID("j-save")))
	tb.WaitStatus("submission s1 is now AC")
	waitRow("1 Alpha 1 30 ", "[solved first|30|1 try]")
	var row struct{ Solved int }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/spring/scoreboard/teams/t1", "", nil, &row)
	if row.Solved != 1 {
		t.Errorf("after the correction: t1 solved %d, want 1", row.Solved)
	}
	tb.Wait("the list again", `document.querySelector('#sub-list tr[data-submission="s1"]')?.textContent.includes("AC")`)
	tb.Shot("judgement")
	board.Shot("board")

	// At phone width the console does not scroll sideways.
	tb.Do(chromedp.EmulateViewport(390, 800))
	tb.Wait("the narrow layout", `document.documentElement.scrollWidth <= 390`)
	tb.Shot("phone")
	tb.Do(chromedp.EmulateViewport(1280, 900))

	// The API's errors are shown as it says them: a contest that exists.
	tb.Go("/admin")
	tb.Wait("the list", `document.querySelector('#contests a[href="/admin/contests/spring"]') !== null`)
	tb.Fill("c-id", "spring", "c-name", "Again")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.WaitStatus(`Error: Create contest spring: 409, conflict: contest "spring" exists`)
	if cls := evalJS[string](tb, `document.getElementById("status").className`); cls != "status error" {
		t.Errorf("status class: got %q", cls)
	}
	if role := evalJS[string](tb, `document.getElementById("status").getAttribute("role")`); role != "status" {
		t.Errorf("the status region's role: got %q", role)
	}
	// A contest that does not exist says so, with a way back.
	tb.Go("/admin/contests/nope")
	tb.Wait("the message", `document.getElementById("message").textContent.includes("no contest “nope”")`)
	// "Forget token" forgets it.
	tb.Do(chromedp.Click(chromedp.ID("forget")))
	if kept := evalJS[string](tb, `localStorage.getItem("rankd.token.admin") || ""`); kept != "" {
		t.Errorf("after Forget token: %q kept", kept)
	}
}

// The CSV reader, on the cases a spreadsheet makes: quotes, commas and line breaks in fields, CR LF, a byte
// order mark, blank lines, and the errors of a line.
func TestBrowserAdminCSV(t *testing.T) {
	e := MustOpen(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/admin")
	tb.Wait("the token dialog", `document.getElementById("token-dialog").open`)
	prefix := evalJS[string](tb, `document.querySelector('script[type=module]').src.replace(/js\/admin\.js$/, "")`)
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	failures, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
  const { parseCSV, teamsFromCSV } = await import("`+prefix+`js/admincsv.js");
  const failures = [];
  const expect = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(what + ": got " + JSON.stringify(got) + ", want " + JSON.stringify(want));
  };
  const recs = (text) => parseCSV(text).map((r) => [r.line, r.fields, r.error]);
  expect("plain", recs("a,b\nc,d"), [[1, ["a", "b"], ""], [2, ["c", "d"], ""]]);
  expect("CR LF, BOM, blank lines, final line end", recs("\ufeffa,b\r\n\r\n  \r\nc,\r\n"), [[1, ["a", "b"], ""], [4, ["c", ""], ""]]);
  expect("quotes", recs('"a, b","say ""hi""", "c" ,""'), [[1, ["a, b", 'say "hi"', "c", ""], ""]]);
  expect("a line break inside quotes", recs('x,"two\nlines"\ny,z'), [[1, ["x", "two\nlines"], ""], [3, ["y", "z"], ""]]);
  expect("a quote inside a field", recs('ab"c,d')[0][2].includes("a quote inside a field"), true);
  expect("text after the closing quote", recs('"ab"c,d')[0][2].includes("after its closing quote"), true);
  expect("an open quote", recs('a,b\nc,"d\ne,f').map((r) => [r[0], r[2] !== ""]), [[1, false], [2, true]]);

  const known = {
    groups: [{ id: "g1", name: "Students" }, { id: "g2", name: "Pros" }, { id: "g3", name: "pros" }],
    organizations: [{ id: "o1", name: "TU Delft" }],
    teams: new Map([["t9", { id: "t9", name: "Old", hidden: true, label: "9" }]]),
  };
  const r = teamsFromCSV("Name,ID,Groups\nA,t1,students; g2\nB,t1,\nC,t 2,\nD,t3,nope\nE,t4,Pros\n,t5,\nF,t9,", known);
  expect("header in another order, names for groups", r.lines[0].team, { id: "t1", name: "A", group_ids: ["g1", "g2"] });
  expect("errors", r.lines.map((l) => [l.line, l.errors.length > 0]), [[2, false], [3, true], [4, true], [5, true], [6, true], [7, true], [8, false]]);
  expect("an id twice", r.lines[1].errors, ["id t1 again: line 2 has it"]);
  expect("a name two groups have", r.lines[4].errors, ["unknown group “Pros”: add it first"]);
  expect("a team replaced keeps what the file does not say", r.lines[6].team, { id: "t9", name: "F", group_ids: [], label: "9", hidden: true });
  expect("and says so", r.lines[6].warnings, ["replaces team t9 (Old), which stays hidden"]);
  const o = teamsFromCSV("id,name,organization\nt1,A,TU Delft\nt2,B,o2\nt3,C,Other University", known);
  expect("organizations", o.lines.map((l) => [l.team && l.team.organization_id, l.warnings.length, l.errors.length]), [["o1", 0, 0], ["o2", 1, 0], [null, 0, 1]]);
  // A file of new names only keeps each team's organization and groups; one that takes a team out of a
  // hidden group says its results go public.
  const k2 = {
    groups: [{ id: "obs", name: "Observers", hidden: true }, { id: "g1", name: "Students" }],
    organizations: [{ id: "o1", name: "TU Delft" }],
    teams: new Map([["t3", { id: "t3", name: "Watchers", organization_id: "o1", group_ids: ["obs"] }]]),
  };
  expect("new names only", teamsFromCSV("id,name\nt3,Watchers Renamed", k2).lines[0].team,
    { id: "t3", name: "Watchers Renamed", group_ids: ["obs"], organization_id: "o1" });
  expect("out of a hidden group", teamsFromCSV("id,name,groups\nt3,W,g1", k2).lines[0].warnings,
    ["replaces team t3 (Watchers)", "leaves hidden group Observers: its results go on the public board"]);
  expect("no header", teamsFromCSV("", known).error.includes("empty"), true);
  expect("an unknown column", teamsFromCSV("id,name,colour\n", known).error.includes("unknown column “colour”"), true);
  expect("no name column", teamsFromCSV("id,groups\n", known).error.includes("no name column"), true);
  expect("fields", teamsFromCSV("id,name,organization,groups\nt1,A", known).lines[0].errors, ["2 fields, want 4 (id,name,organization,groups)"]);
  return failures;
})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failures {
		t.Error(f)
	}
}

// The console's forms start from what the server holds (the CCS contest and problem objects with rankd's
// settings), not from what this browser sent: a CTF contest defined through the API shows its settings, and
// saved unchanged, changes nothing.
func TestBrowserAdminEditsFromTheAPI(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, `{
  "contest": {"id": "ctf", "name": "CTF", "duration": "48:00:00", "scoreboard_type": "score",
              "rankd": {"rules": "ctf", "first_blood": [50, 30, 10], "medals": {"gold": 1, "silver": 2, "bronze": 3}}},
  "judgement-types": [{"id": "OK", "name": "flag", "solved": true}, {"id": "NO", "name": "wrong flag", "solved": false}],
  "problems": [{"id": "w1", "label": "W1", "name": "Cookie Jar", "ordinal": 0, "test_data_count": 12,
                "rankd": {"value": 500, "minimum": 100, "decay": 20, "function": "logarithmic"}}]}`, nil)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/ctf")
	tb.Wait("the form", `document.getElementById("c-id").value === "ctf"`)
	fields := func(ids ...string) string {
		t.Helper()
		return evalJS[string](tb, `[`+strings.Join(func() []string {
			var js []string
			for _, id := range ids {
				js = append(js, `document.getElementById("`+id+`").value`)
			}
			return js
		}(), ",")+`].join("|")`)
	}
	if got, want := fields("c-rules", "c-gold", "c-silver", "c-bronze", "c-first-blood"), "ctf|1|2|3|50, 30, 10"; got != want {
		t.Errorf("the contest form: got %s, want %s", got, want)
	}
	if types := evalJS[string](tb, `[...document.getElementById("j-type").options].map((o) => o.value).join(" ")`); types != "OK NO " {
		t.Errorf("the verdicts offered: got %q, want the contest's own", types)
	}
	tb.Wait("the problem listed", `document.querySelector('#problem-list button[data-problem="w1"]') !== null`)
	tb.Do(chromedp.Click(chromedp.CSS(`#problem-list button[data-problem="w1"]`)))
	if got, want := fields("p-id", "p-value", "p-function", "p-minimum", "p-decay"), "w1|500|logarithmic|100|20"; got != want {
		t.Errorf("the problem form: got %s, want %s", got, want)
	}
	tb.Do(chromedp.Click(chromedp.ID("p-save")))
	tb.WaitStatus("Saved problem W1")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.WaitStatus("Saved contest CTF")
	// Nothing was lost: what the API says now is what it said before.
	var c struct{ Rankd map[string]any }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/ctf", "", nil, &c)
	var ps []struct {
		Rankd         map[string]any
		TestDataCount int `json:"test_data_count"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/ctf/problems", "", nil, &ps)
	if got := fmt.Sprint(c.Rankd, ps[0].Rankd, ps[0].TestDataCount); got != "map[first_blood:[50 30 10] medals:map[bronze:3 gold:1 silver:2] rules:ctf] map[decay:20 function:logarithmic minimum:100 value:500] 12" {
		t.Errorf("after saving the forms unchanged: got %s", got)
	}
	tb.Shot("ctf")
}

// The console does not put off-board teams on the public board by an ordinary action, nor undo a thaw: a
// hidden group's id typed in the group form brings it as it is (hidden), and unhiding it asks first; a team of
// a hidden group is listed as such; registering an id taken asks before replacing that team; after a thaw the
// contest form holds the freeze the thaw left (saving the form as it was brought the freeze back); changing
// the rules of a contest under way asks first.
func TestBrowserAdminKeepsOffBoardTeamsOff(t *testing.T) {
	e := MustOpen(t) // 4:30 into the contest: frozen since 4:00
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/groups", adminToken, `{"id":"obs","name":"Observers","hidden":true}`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken, `{"id":"t9","name":"Watchers","group_ids":["obs"]}`, nil)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	tb.Wait("the teams", `!!document.querySelector('#team-list tr[data-team="t9"]')`)
	if got := evalJS[string](tb, `document.querySelector('#team-list tr[data-team="t9"] .team-status').textContent`); got != "In hidden group Observers" {
		t.Errorf("a team of a hidden group: listed as %q", got)
	}

	tb.Fill("g-id", "obs")
	if !evalJS[bool](tb, `document.getElementById("g-hidden").checked && document.getElementById("g-name").value === "Observers"`) {
		t.Error("the group form, given a hidden group's id: want its name and Hidden ticked")
	}
	tb.Fill("g-name", "Observers (renamed)")
	evalJS[chromedp.Void](tb, `document.getElementById("g-hidden").checked = false`)
	tb.Do(chromedp.Click(chromedp.ID("g-save")))
	tb.Confirm(false)
	tb.WaitStatus("The group is unchanged: cancelled.")
	var groups []struct {
		ID     string
		Hidden bool
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/groups?view=jury", adminToken, nil, &groups)
	if !slices.ContainsFunc(groups, func(g struct {
		ID     string
		Hidden bool
	}) bool {
		return g.ID == "obs" && g.Hidden
	}) {
		t.Errorf("after the cancelled unhiding: groups %+v, want obs hidden", groups)
	}

	tb.Fill("t-id", "t1", "t-name", "Someone Else")
	tb.Do(chromedp.Click(chromedp.ID("t-save")))
	tb.Confirm(false)
	tb.WaitStatus("is unchanged: cancelled.")
	var team adminTeam
	if e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/teams/t1", "", nil, &team); team.Name != "Alpha" {
		t.Errorf("after a cancelled registration of t1: its name is %q, want Alpha", team.Name)
	}

	// Rules changed under way are asked about (a stray choice ranked every team anew at once).
	tb.Fill("c-rules", "oi")
	tb.Do(chromedp.Click(chromedp.ID("c-save")))
	tb.Confirm(false)
	tb.WaitStatus("The contest is not saved: cancelled.")
	tb.Fill("c-rules", "icpc")

	tb.Do(chromedp.Click(chromedp.ID("thaw-now")))
	tb.Confirm(true)
	tb.WaitStatus("Lifted the freeze")
	tb.Wait("the form's freeze", `document.getElementById("c-freeze").value === ""`)

	// The header leads to the big screen, where the reveal is stepped; the jury board reads with the
	// console's token (it asked for one again).
	if href := evalJS[string](tb, `document.getElementById("link-screen").getAttribute("href")`); href != "/contests/c1?bigscreen=1&jury=1" {
		t.Errorf("the big screen's link: got %q", href)
	}
	tb.Go("/contests/c1?view=jury")
	tb.Wait("the jury's board, without a token asked", `document.getElementById("view").value === "jury" && `+
		`!document.getElementById("token-dialog").open && document.getElementById("state").textContent === "Live"`)
}

// The console deletes a contest only once its id is typed and the deletion confirmed, then lists the
// contests without it.
func TestBrowserAdminDeletesContest(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	b := MustBrowser(t)
	spectator := b.Tab(t, e.URL)
	spectator.Go("/contests/c1")
	spectator.Wait("the board", `document.querySelectorAll(".rows > .row").length === 3`)
	tb := adminConsole(t, b, e.URL, "/admin/contests/c1")
	tb.Wait("the delete section", `!document.getElementById("delete").hidden`)

	tb.Fill("d-id", "c2")
	tb.Do(chromedp.Click(chromedp.ID("d-go")))
	tb.WaitStatus("Type the contest's id, c1, to delete it.")
	tb.Fill("d-id", "c1")
	tb.Do(chromedp.Click(chromedp.ID("d-go")))
	tb.Confirm(false)
	tb.WaitStatus("Nothing deleted")
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", adminToken, nil, nil)

	tb.Do(chromedp.Click(chromedp.ID("d-go")))
	tb.Confirm(true)
	tb.WaitAcross("the list of contests", `location.pathname === "/admin" && document.getElementById("status").textContent.includes("Deleted contest c1.")`)
	tb.WaitAcross("no contest left", `document.getElementById("contests-message").textContent.includes("There are no contests yet")`)
	if r := e.Do(t, "GET", "/api/v1/contests/c1", adminToken, nil); r.Status != http.StatusNotFound {
		t.Errorf("the contest after its deletion: got status %d, want 404", r.Status)
	}
	// The board open meanwhile says so, rather than go on showing the deleted contest.
	spectator.Wait("the open board told", `!document.getElementById("message").hidden && document.getElementById("message").textContent.includes("There is no contest “c1” on this server.")`)
}

// fakeFinalizer answers the console's finalization requests: idle until Run, done at version 1 after.
type fakeFinalizer struct{ ran atomic.Bool }

func (f *fakeFinalizer) Run(_ context.Context, id string, _ time.Time) (finalize.Status, error) {
	f.ran.Store(true)
	return finalize.Status{ContestID: id, State: finalize.Done, Version: 1}, nil
}

func (f *fakeFinalizer) Status(_ context.Context, id string) (finalize.Status, error) {
	if f.ran.Load() {
		return finalize.Status{ContestID: id, State: finalize.Done, Version: 1}, nil
	}
	return finalize.Status{ContestID: id, State: finalize.Idle}, nil
}

func (f *fakeFinalizer) Retry(context.Context, string) (finalize.Status, error) {
	return finalize.Status{}, errors.New("not in this test")
}

func (f *fakeFinalizer) Forget(context.Context, string) error { return nil }

// The console's Results section says where the finalization is and asks for one, and downloads the
// standings of either view with the admin token (the jury's needs it: a plain link could not carry it).
func TestBrowserAdminResults(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	f := &fakeFinalizer{}
	e.server.Finalizer = f
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	tb.Wait("the finalization's state", `document.getElementById("final-info").textContent.includes("not asked for yet")`)
	tb.Do(chromedp.Click(chromedp.ID("final-now")))
	tb.Wait("the finalization done", `document.getElementById("final-info").textContent.includes("done; the final standings are at version 1")`)
	if !f.ran.Load() {
		t.Error("the finalization was not asked for")
	}
	for _, c := range []struct{ view, button, file string }{
		{"public", "x-csv", "c1-public.csv"},
		{"jury", "x-tsv", "c1-jury.tsv"},
	} {
		tb.Fill("x-view", c.view)
		tb.Do(chromedp.Click(chromedp.ID(c.button)))
		tb.WaitStatus("Downloaded " + c.file + ".")
	}
	tb.Do(chromedp.ScrollIntoView(chromedp.ID("results")))
	tb.Shot("results")
}

// The console ends the updates of a contest run on rankd once it has ended (its state then says finalized
// and end_of_updates, as a contest system's does, and tools following its feed stop there), and reopens
// them.
func TestBrowserAdminEndsUpdates(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	tb.Wait("the feed's state while the contest runs", `document.getElementById("eou-info").textContent.includes("once the contest has ended") && document.getElementById("eou-close").disabled`)

	e.SetNow(contestStart.Add(6 * time.Hour)) // the page polls meanwhile
	tb.Go("/admin/contests/c1")
	tb.Wait("the feed open after the end", `document.getElementById("eou-info").textContent.includes("stays open") && !document.getElementById("eou-close").disabled`)
	tb.Do(chromedp.Click(chromedp.ID("eou-close")))
	tb.Confirm(true)
	tb.WaitStatus("The updates are ended")
	var st struct {
		Finalized    *string
		EndOfUpdates *string `json:"end_of_updates"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st)
	if st.Finalized == nil || st.EndOfUpdates == nil {
		t.Fatalf("the state after ending the updates: got %+v, want finalized and end_of_updates", st)
	}
	tb.Wait("the reopening offered", `!document.getElementById("eou-reopen").hidden && document.getElementById("eou-close").hidden`)

	tb.Do(chromedp.Click(chromedp.ID("eou-reopen")))
	tb.Confirm(true)
	tb.WaitStatus("The updates are reopened")
	st.EndOfUpdates = nil
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st)
	if st.EndOfUpdates != nil || st.Finalized == nil {
		t.Errorf("the state after reopening: got %+v, want finalized still, no end_of_updates", st)
	}
}
