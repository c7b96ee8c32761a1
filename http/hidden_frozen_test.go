package http_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// An OI contest hidden until its end says its public board is frozen (hiding verdicts) from the start
// until the end is recorded, in pages, the past's pages and the stream's snapshot; the jury's is not.
func TestHiddenUntilEndIsFrozen(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenOIContest(t)
	team := e.MustTeamToken(t, "t1")
	check := func(when string, cases map[string]bool) {
		t.Helper()
		for path, want := range cases {
			token := ""
			if strings.Contains(path, "view=team") {
				token = team
			} else if strings.Contains(path, "view=jury") {
				token = adminToken
			}
			var page struct{ Frozen bool }
			e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard"+path, token, nil, &page)
			if page.Frozen != want {
				t.Errorf("%s, %s: got frozen %t, want %t", when, path, page.Frozen, want)
			}
		}
	}
	check("running", map[string]bool{"": true, "?view=team": true, "?view=jury": false, "?at=1:00:00": true})
	var st struct{ Frozen *time.Time }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &st)
	if st.Frozen == nil || !st.Frozen.Equal(contestStart) {
		t.Errorf("the state while running: got frozen %v, want the start %v (the public board hides every verdict)", st.Frozen, contestStart)
	}
	next, _ := e.MustStream(t, "", nil)
	if ev := nextFrame(next); ev.name != "retry" {
		t.Fatalf("got %+v, want the retry hint", ev)
	}
	if ev := nextFrame(next); ev.name != "snapshot" || !strings.Contains(ev.data, `"frozen":true`) {
		t.Errorf("the stream's snapshot while running: got %+v, want it frozen", ev)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"`+contestStart.Format(time.RFC3339)+`","ended":"`+
			contestStart.Add(4*time.Hour).Format(time.RFC3339)+`"}}`+"\n", nil)
	check("ended", map[string]bool{"": false, "?view=team": false, "?view=jury": false})
	var ended struct{ Frozen, Thawed *time.Time }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &ended)
	if ended.Frozen == nil || !ended.Frozen.Equal(contestStart) || ended.Thawed == nil || !ended.Thawed.Equal(contestStart.Add(4*time.Hour)) {
		t.Errorf("the state once ended: got frozen %v, thawed %v; want the start and the recorded end (every verdict shown)", ended.Frozen, ended.Thawed)
	}
}

// MustHiddenOIContest creates an OI contest hidden until its end, teams t1 and t3, and t1's 40 points on A.
func (e *env) MustHiddenOIContest(tb testing.TB) {
	tb.Helper()
	e.MustDo(tb, http.StatusCreated, "POST", "/api/v1/contests", adminToken, map[string]any{
		"contest": map[string]any{"id": "c1", "name": "OI", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_type": "score", "rankd": map[string]any{"rules": "oi", "hide_until_end": true}},
		"problems": []any{map[string]any{"id": "A", "label": "A", "name": "Apples", "ordinal": 0, "max_score": 100}},
		"teams":    []any{map[string]any{"id": "t1", "name": "Alpha"}, map[string]any{"id": "t3", "name": "Charlie"}},
	}, nil)
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"WA","score":40,"start_contest_time":"0:31:00"}}`,
	}, "\n")+"\n", nil)
}

// While an OI contest hidden until its end runs, a definition that stops hiding (hide_until_end dropped, or
// rules that do not hide) is refused, as a freeze moved later is: it published every result at once, from a
// judge's contest event as from an admin's PATCH. Before the start and once the end is recorded it is taken.
func TestHiddenUntilEndCannotBeDropped(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenOIContest(t) // running: 4:30 in
	contest := func(rankdExt map[string]any) map[string]any {
		return map[string]any{"id": "c1", "name": "OI", "start_time": contestStart.Format(time.RFC3339),
			"duration": "5:00:00", "scoreboard_type": "score", "rankd": rankdExt}
	}
	for _, ext := range []map[string]any{{"rules": "oi"}, {"rules": "icpc", "hide_until_end": true}} {
		if r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest(ext)}); r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "hide_until_end") {
			t.Errorf("PATCH %v while running: got %d %s, want 409 naming hide_until_end", ext, r.Status, r.Body)
		}
		line, _ := json.Marshal(map[string]any{"type": "contest", "data": contest(ext)})
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, string(line)+"\n"); r.Status != http.StatusConflict {
			t.Errorf("a judge's contest %v while running: got %d %s, want 409", ext, r.Status, r.Body)
		}
	}
	// A CCS source knows nothing of rankd's extension: its contest keeps hiding, and a late start it reports
	// (the contest began 3 minutes late) shows nothing either.
	ccsContest := contest(nil)
	delete(ccsContest, "rankd")
	line, _ := json.Marshal(map[string]any{"type": "contest", "data": ccsContest})
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, string(line)+"\n", nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"`+contestStart.Add(3*time.Minute).Format(time.RFC3339)+`"}}`+"\n", nil)
	// But a start moved past now or taken back would stop it running, hidden; and a judge's thaw is refused.
	noStart := contest(map[string]any{"rules": "oi", "hide_until_end": true})
	noStart["start_time"] = nil
	noStartLine, _ := json.Marshal(map[string]any{"type": "contest", "data": noStart})
	for _, line := range []string{
		`{"type":"state","data":{"started":"` + e.now.Add(time.Hour).Format(time.RFC3339) + `"}}`,
		string(noStartLine),
		`{"type":"state","data":{"started":"` + contestStart.Format(time.RFC3339) + `","thawed":"` + e.now.Format(time.RFC3339) + `"}}`,
	} {
		if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, line+"\n"); r.Status != http.StatusConflict {
			t.Errorf("a judge's %s while running: got %d %s, want 409", line, r.Status, r.Body)
		}
	}
	var page struct {
		Frozen bool
		Rows   []struct{ Score float64 }
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &page)
	if !page.Frozen || len(page.Rows) == 0 || page.Rows[0].Score != 0 {
		t.Errorf("the public board after the refused changes: got %+v, want it hiding every result", page)
	}
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"state","data":{"started":"`+contestStart.Format(time.RFC3339)+`","ended":"`+
			contestStart.Add(5*time.Hour).Format(time.RFC3339)+`"}}`+"\n", nil)
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest(map[string]any{"rules": "oi"})}, nil)

	e = MustOpen(t)
	e.SetNow(contestStart.Add(-time.Hour))
	e.MustHiddenOIContest(t)
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest(map[string]any{"rules": "oi"})}, nil)
}

// A thaw by hand of an OI contest hidden until its end, while it runs, is refused saying why: its results
// show at its end (it was refused as "not frozen", to set a freeze duration it has no use for).
func TestHiddenUntilEndThawSaysWhy(t *testing.T) {
	e := MustOpen(t)
	e.MustHiddenOIContest(t) // running: 4:30 in
	var body struct{ Code, Message string }
	e.MustDo(t, http.StatusConflict, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, &body)
	if !strings.Contains(body.Message, "hides its results from the public until its end") {
		t.Errorf("a thaw while hidden until the end: got %+v, want the reason", body)
	}
}

// A contest that ended with nothing hidden (no submission after the freeze) is not marked frozen from its end
// on: live, and in the pages of moments after its end, as in the live page; a moment of its freeze was.
func TestEndedWithNothingHiddenIsNotFrozen(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:30:00"}}`,
		`{"type":"judgements","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"0:31:00"}}`,
		`{"type":"state","data":{"started":"` + contestStart.Format(time.RFC3339) + `","ended":"` +
			contestStart.Add(5*time.Hour).Format(time.RFC3339) + `"}}`,
	}, "\n")+"\n", nil)
	for _, tc := range []struct {
		query string
		want  bool
	}{{"", false}, {"?at=5:30:00", false}, {"?at=" + e.now.Format(time.RFC3339), false}, {"?at=4:30:00", true}} {
		var page struct{ Frozen bool }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard"+tc.query, "", nil, &page)
		if page.Frozen != tc.want {
			t.Errorf("scoreboard%s: got frozen %t, want %t", tc.query, page.Frozen, tc.want)
		}
	}
}
