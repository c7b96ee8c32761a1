package http_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rankd/stream"
)

// The web pages on contests the other browser tests do not make: hidden groups in the admin console, a
// contest without problems or teams.

// MustHiddenGroupContest creates contest c1 with a group of universities (t1 Alpha in it) and a hidden group
// of observers (t9 Guest in it).
func (e *env) MustHiddenGroupContest(tb testing.TB) {
	tb.Helper()
	c := testContest()
	c["groups"] = []any{
		map[string]any{"id": "g1", "name": "Universities"},
		map[string]any{"id": "obs", "name": "Observers", "hidden": true},
	}
	c["teams"] = []any{
		map[string]any{"id": "t1", "name": "Alpha", "group_ids": []string{"g1"}},
		map[string]any{"id": "t9", "name": "Guest", "group_ids": []string{"obs"}},
	}
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
}

// A team in a hidden group keeps its group when the console edits it, and the console knows the group:
// the jury's contest has it, the public one does not.
func TestBrowserReviewUIAdminHiddenGroup(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenGroupContest(t)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	tb.Wait("the team listed", `document.querySelector('#team-list button[data-action="edit"][data-team="t9"]') !== null`)

	tb.Do(chromedp.Click(chromedp.CSS(`#team-list button[data-action="edit"][data-team="t9"]`)))
	tb.Do(chromedp.SetValue(chromedp.ID("t-name"), "Guest team"), chromedp.Click(chromedp.ID("t-save")))
	tb.WaitStatus("Saved team Guest team (t9)")
	type team struct {
		ID       string
		Name     string
		GroupIDs []string `json:"group_ids"`
	}
	var teams []team
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/teams?view=jury", adminToken, nil, &teams)
	i := slices.IndexFunc(teams, func(x team) bool { return x.ID == "t9" })
	if i < 0 || teams[i].Name != "Guest team" || strings.Join(teams[i].GroupIDs, ",") != "obs" {
		t.Fatalf("team t9 after the edit: got %+v, want Guest team in group obs", teams)
	}
	var board struct {
		Rows []struct {
			TeamID string `json:"team_id"`
		}
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &board)
	if len(board.Rows) != 1 || board.Rows[0].TeamID != "t1" {
		t.Errorf("the public board after the edit: got %+v, want t1 alone", board.Rows)
	}
	// The console lists the hidden group, and offers it to the teams.
	tb.Wait("the hidden group listed", `document.getElementById("group-list").textContent.includes("Observers (obs), hidden")`)
	tb.Wait("the hidden group offered", `document.querySelector('#t-groups input[value="obs"]') !== null`)
	// A CSV file may name it.
	tb.Do(chromedp.SetValue(chromedp.ID("csv-text"), "id,name,groups\nt8,Visitor,obs\n"), chromedp.Click(chromedp.ID("csv-preview")))
	tb.Wait("the check", `document.getElementById("csv-summary").textContent !== ""`)
	if got := evalJS[string](tb, `document.getElementById("csv-summary").textContent`); got != "1 team to register." {
		t.Errorf("a CSV file with a team in the hidden group: got %q, want 1 team to register", got)
	}
}

// A contest without problems (and without teams yet) lays its board out as any other: the header is one
// line of columns, not the columns stacked.
func TestBrowserReviewUIEmptyContest(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, map[string]any{
		"contest": map[string]any{"id": "c1", "name": "Empty", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_freeze_duration": "1:00:00"},
	}, nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.Wait("the stream", `document.getElementById("state").textContent === "Live"`)
	heads := evalJS[[]float64](tb, `[...document.querySelectorAll(".head .c")].map((c) => c.getBoundingClientRect().top)`)
	if len(heads) != 4 || slices.Min(heads) != slices.Max(heads) {
		t.Errorf("the tops of the header's cells: got %v, want 4 cells on one line", heads)
	}
	// The chart of no teams, and the admin console of no problems, break nothing.
	tb.Do(chromedp.Focus(chromedp.CSS("#board")), typeKeys("c"))
	tb.Wait("the chart", `!document.getElementById("chart").hidden && document.querySelector("#chart svg .axes") !== null`)
	tb.Shot("empty")
	evalJS[chromedp.Void](tb, `localStorage.setItem("rankd.token.admin", "`+adminToken+`")`)
	tb.Go("/admin/contests/c1")
	tb.Wait("the console", `!document.getElementById("problems-empty").hidden && document.getElementById("team-count").textContent === "0 of 0 teams."`)
	tb.Go("/contests/c1")

	// With a problem and a team.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/problems", adminToken,
		map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0}, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken, map[string]any{"id": "t1", "name": "Alpha"}, nil)
	tb.Go("/contests/c1")
	tb.WaitRows("1 Alpha 0 0 [||]")
	heads = evalJS[[]float64](tb, `[...document.querySelectorAll(".head .c")].map((c) => c.getBoundingClientRect().top)`)
	if len(heads) != 5 || slices.Min(heads) != slices.Max(heads) {
		t.Errorf("the tops of the header's cells: got %v, want 5 cells on one line", heads)
	}
}

// The keyboard stays on the team list around a team token: "Done" puts it back on the team's Token button.
func TestBrowserReviewUIAdminTokenFocus(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	token := `#team-list button[data-action="token"][data-team="t2"]`
	tb.Wait("the team listed", `document.querySelector('`+token+`') !== null`)
	tb.Do(chromedp.Focus(chromedp.CSS(token)), typeKeys("\r"))
	tb.Wait("the token shown", `document.activeElement === document.getElementById("token-value")`)
	tb.Do(chromedp.Focus(chromedp.ID("token-done")), typeKeys("\r"))
	tb.Wait("the token box gone", `document.getElementById("token-out").hidden`)
	if got := evalJS[string](tb, `document.activeElement.getAttribute("aria-label") || document.activeElement.tagName`); got != "Token: Bravo (t2)" {
		t.Errorf("the focus after Done: got %q, want the team's Token button", got)
	}
}

// The page's board model (js/model.js), which ranks only from the first row a diff touched and stops once
// ranks are right again, ranks as the Go client does after any diff: random boards with many ties, rows
// moving, leaving and coming.
func TestBrowserReviewUIModelRanks(t *testing.T) {
	e := MustOpen(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/")
	prefix := evalJS[string](tb, `document.querySelector('script[type=module]').src.replace(/js\/list\.js$/, "")`)
	rng := rand.New(rand.NewPCG(1, 2))
	type row struct {
		id  string
		key int
	}
	order := func(rows []row) {
		slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.id, b.id)) })
	}
	frame := func(rows []row, changed map[string]bool, removed []string, seq, base uint64) []byte {
		f := struct {
			Seq     uint64       `json:"seq"`
			BaseSeq uint64       `json:"base_seq"`
			Rows    []stream.Row `json:"rows"`
			Removed []string     `json:"removed"`
		}{Seq: seq, BaseSeq: base, Rows: []stream.Row{}, Removed: removed}
		for i, r := range rows {
			if changed == nil || changed[r.id] {
				f.Rows = append(f.Rows, stream.Row{RowData: stream.RowData{TeamID: r.id, Cells: []stream.Cell{}},
					Pos: i, Key: fmt.Sprintf("%04d", r.key)})
			}
		}
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for round := range 20 {
		var rows []row
		for i := range 1 + rng.IntN(40) {
			rows = append(rows, row{id: fmt.Sprintf("t%02d", i), key: rng.IntN(6)})
		}
		order(rows)
		var gob stream.Board
		frames := []string{string(frame(rows, nil, nil, 1, 0))}
		if err := gob.ApplySnapshot([]byte(frames[0])); err != nil {
			t.Fatal(err)
		}
		next := len(rows)
		var want [][]string
		for seq := uint64(2); seq < 30; seq++ {
			changed := map[string]bool{}
			var removed []string
			for i := 0; i < len(rows); i++ {
				switch rng.IntN(10) {
				case 0:
					rows[i].key = rng.IntN(6)
					changed[rows[i].id] = true
				case 1:
					removed = append(removed, rows[i].id)
					rows = slices.Delete(rows, i, i+1)
					i--
				}
			}
			for range rng.IntN(3) {
				rows = append(rows, row{id: fmt.Sprintf("t%02d", next), key: rng.IntN(6)})
				changed[rows[len(rows)-1].id] = true
				next++
			}
			order(rows)
			f := frame(rows, changed, removed, seq, seq-1)
			frames = append(frames, string(f))
			if err := gob.ApplyDiff(f); err != nil {
				t.Fatal(err)
			}
			var ranks []string
			for _, r := range gob.Rows {
				ranks = append(ranks, fmt.Sprintf("%s#%d@%d", r.TeamID, r.Rank, r.Pos))
			}
			want = append(want, ranks)
		}
		framesJSON, err := json.Marshal(frames)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`(async () => {
  const { Board } = await import("`+prefix+`js/model.js");
  const frames = `+string(framesJSON)+`.map((f) => JSON.parse(f));
  const b = new Board();
  b.applySnapshot(frames[0]);
  return frames.slice(1).map((f) => {
    b.applyDiff(f);
    return b.rows.map((r) => r.team_id + "#" + r.rank + "@" + r.pos);
  });
})()`, chromedp.EvalAwaitPromise))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if strings.Join(got[i], " ") != strings.Join(want[i], " ") {
				t.Fatalf("round %d, diff %d: the page ranks\n%s\nthe Go client\n%s", round, i+2, strings.Join(got[i], " "), strings.Join(want[i], " "))
			}
		}
	}
}

// An OI contest that hides its results until the end says so: otherwise every cell of the public board is
// pending with nothing to tell why.
func TestBrowserReviewUIHiddenUntilEnd(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenOIContest(t)
	b := MustBrowser(t)
	public := b.Tab(t, e.URL)
	public.Go("/contests/c1")
	public.WaitRows("1 Alpha 0 [pending|0?|1]", "1 Charlie 0 [||]")
	banner := `document.getElementById("banner").hidden ? "" : document.getElementById("banner").textContent`
	if got := evalJS[string](public, banner); !strings.Contains(got, "hidden until the end") {
		t.Errorf("the public banner: got %q, want it to say the results are hidden until the end", got)
	}
	team := b.Tab(t, e.URL)
	team.Go("/")
	evalJS[chromedp.Void](team, `localStorage.setItem("rankd.token.team.c1", "`+e.MustTeamToken(t, "t1")+`")`)
	team.Go("/contests/c1?view=team")
	team.WaitRows("1 Alpha 40 [partial|40|1 try] own", "2 Charlie 0 [||]")
	if got := evalJS[string](team, banner); !strings.Contains(got, "Your own results are shown") {
		t.Errorf("the team's banner: got %q, want it to say its own results are shown", got)
	}
}

// The console's refresh (every 30 s) leaves the keyboard where it is: on a team's button, a problem's Edit
// button, a group's box of the team form.
func TestBrowserReviewUIAdminRefreshKeepsFocus(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tb := adminConsole(t, MustBrowser(t), e.URL, "/admin/contests/c1")
	tb.Wait("the team listed", `document.querySelector('#team-list button[data-action="ban"][data-team="t2"]') !== null`)
	for _, sel := range []string{
		`#team-list button[data-action="ban"][data-team="t2"]`,
		`#problem-list button[data-problem="B"]`,
		`#t-groups input[value="g1"]`,
	} {
		focused := `document.activeElement === document.querySelector('` + sel + `')`
		tb.Wait("the focus on "+sel, `(document.querySelector('`+sel+`').focus(), `+focused+`)`)
		tb.Do(chromedp.Evaluate[chromedp.Void](`window.rankdAdmin.reload("contest")`, chromedp.EvalAwaitPromise))
		if !evalJS[bool](tb, focused) {
			t.Errorf("after a refresh, the focus is on %s, want %s", evalJS[string](tb, `document.activeElement.outerHTML.slice(0, 80)`), sel)
		}
	}
}

// The jury view chosen on the page offers the hidden groups at once: the contest is read again with the
// jury's token.
func TestBrowserReviewUIJuryHiddenGroups(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenGroupContest(t)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/")
	evalJS[chromedp.Void](tb, `localStorage.setItem("rankd.token.jury", "`+judgeToken+`")`)
	tb.Go("/contests/c1")
	tb.WaitRows("1 Alpha 0 0 [||] [||]")
	groups := `[...document.getElementById("group").options].map((o) => o.value).join(" ")`
	if got := evalJS[string](tb, groups); got != " g1" {
		t.Errorf("the public view's groups: got %q, want the public one", got)
	}
	tb.Do(chromedp.SetValue(chromedp.ID("view"), "jury"), chromedp.Evaluate[chromedp.Void](`document.getElementById("view").dispatchEvent(new Event("change"))`))
	tb.Wait("the hidden group offered", groups+` === " g1 obs"`)
}

// An IOI board: full marks of a problem whose maximum is its subtasks' sum (no max_score) show as solved,
// as /problems counts them; scores that rank apart show apart (33.337 above 33.336 showed 33.34 both), and a
// score above 0 does not show as 0.
func TestBrowserIOIScores(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, map[string]any{
		"contest": map[string]any{"id": "c1", "name": "IOI", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_type": "score", "rankd": map[string]any{"rules": "ioi"}},
		"problems": []any{map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0, "rankd": map[string]any{"subtasks": []float64{50, 50}}}},
		"teams": []any{map[string]any{"id": "t1", "name": "Alpha"}, map[string]any{"id": "t2", "name": "Bravo"},
			map[string]any{"id": "t3", "name": "Charlie"}, map[string]any{"id": "t4", "name": "Delta"}},
	}, nil)
	var lines []string
	for i, s := range []struct {
		team     string
		subtasks string
	}{{"t1", "50,50"}, {"t2", "33.337,0"}, {"t3", "33.336,0"}, {"t4", "0.001,0"}} {
		lines = append(lines,
			fmt.Sprintf(`{"type":"submissions","data":{"id":"s%d","team_id":%q,"problem_id":"A","contest_time":"0:30:00"}}`, i, s.team),
			fmt.Sprintf(`{"type":"judgements","data":{"id":"j%d","submission_id":"s%d","judgement_type_id":"WA","start_contest_time":"0:31:00","rankd":{"subtask_scores":[%s]}}}`, i, i, s.subtasks))
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", nil)
	tb := MustBrowser(t).Tab(t, e.URL)
	tb.Go("/contests/c1")
	tb.WaitRows("1 Alpha 100 [solved|100|1 try]", "2 Bravo 33.337 [partial|33.337|1 try]",
		"3 Charlie 33.336 [partial|33.336|1 try]", "4 Delta 0.001 [partial|0.001|1 try]")
}
