package http_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type page struct {
	Seq    uint64
	Total  int
	Frozen bool
	Rows   []struct {
		Rank   int
		TeamID string `json:"team_id"`
		Solved int
	}
}

func (p page) teams() []string {
	var ids []string
	for _, r := range p.Rows {
		ids = append(ids, r.TeamID)
	}
	return ids
}

func TestRegisteredTeamsAreOnTheBoardAtOnce(t *testing.T) {
	e := MustOpen(t)
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	if p.Total != 3 || len(p.Rows) != 3 || p.Rows[0].Rank != 1 || p.Rows[2].Rank != 1 {
		t.Fatalf("got %+v, want three teams sharing rank 1", p)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		[]any{map[string]any{"id": "t4", "name": "Delta"}}, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	if p.Total != 4 {
		t.Errorf("after registering t4: got %d teams, want 4", p.Total)
	}
	if r := e.Do(t, "POST", "/api/v1/contests", adminToken, testContest()); r.Status != http.StatusConflict {
		t.Errorf("creating c1 again: got %d, want 409", r.Status)
	}
}

func TestBanAndHideTakeTeamsOffThePublicBoard(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct{ on, off string }{
		{"/api/v1/contests/c1/teams/t1/ban", ""},
		{"/api/v1/contests/c1/teams/t1/hide", ""},
	} {
		e.MustDo(t, http.StatusOK, "POST", tc.on, adminToken, nil, nil)
		var p page
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?offset=0&limit=1", "", nil, &p)
		if p.Total != 2 || len(p.Rows) != 1 || p.Rows[0].TeamID == "t1" {
			t.Errorf("%s: got %+v, want 2 ranked teams without t1", tc.on, p)
		}
		if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/teams/t1", "", nil); r.Status != http.StatusNotFound {
			t.Errorf("%s: public row of t1: got %d, want 404", tc.on, r.Status)
		}
		e.MustDo(t, http.StatusOK, "DELETE", tc.on, adminToken, nil, nil)
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
		if p.Total != 3 || p.Rows[0].TeamID != "t1" {
			t.Errorf("after undoing %s: got %v, want t1 first of 3", tc.on, p.teams())
		}
	}
	if r := e.Do(t, "POST", "/api/v1/contests/c1/teams/ghost/ban", adminToken, nil); r.Status != http.StatusNotFound {
		t.Errorf("banning an unknown team: got %d, want 404", r.Status)
	}
}

func TestFreezeAndThawByHand(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.SetNow(contestStart.Add(2 * time.Hour)) // before the scheduled freeze
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	if p.Frozen {
		t.Fatal("frozen at 2:00, want live")
	}
	// A thaw before the freeze is refused: it would drop the freeze to come.
	if r := e.Do(t, "POST", "/api/v1/contests/c1/thaw", adminToken, nil); r.Status != http.StatusConflict {
		t.Errorf("a thaw before the freeze: got %d, want 409", r.Status)
	}
	var c struct {
		FreezeDuration string `json:"scoreboard_freeze_duration"`
	}
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &c); c.FreezeDuration != "1:00:00.000" {
		t.Errorf("after a refused thaw: freeze duration %q, want 1:00:00.000", c.FreezeDuration)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s20","team_id":"t3","problem_id":"A","contest_time":"2:10:00"}`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j20","submission_id":"s20","judgement_type_id":"AC","start_contest_time":"2:11:00"}`, nil)
	var row struct{ Solved int }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row)
	if row.Solved != 0 {
		t.Errorf("frozen by hand at 2:00: public sees t3 with %d solved, want 0", row.Solved)
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p)
	if !p.Frozen {
		t.Error("after the freeze by hand: the page is not marked frozen")
	}
	if r := e.Do(t, "POST", "/api/v1/contests/c1/freeze", adminToken, nil); r.Status != http.StatusConflict {
		t.Errorf("freezing twice: got %d, want 409", r.Status)
	}
	// Thawed during the contest: the freeze is lifted.
	e.SetNow(contestStart.Add(2*time.Hour + 30*time.Minute))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row); row.Solved != 1 {
		t.Errorf("the freeze lifted at 2:30: public sees t3 with %d solved, want 1", row.Solved)
	}
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p); p.Frozen {
		t.Error("after the freeze was lifted: the page is marked frozen")
	}

	e.SetNow(contestStart.Add(6 * time.Hour)) // after the end
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t3", "", nil, &row)
	if row.Solved != 1 {
		t.Errorf("after the thaw: public sees t3 with %d solved, want 1", row.Solved)
	}
	var state struct{ Thawed, Ended *string }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/state", "", nil, &state)
	if state.Thawed == nil || state.Ended == nil {
		t.Errorf("state after the thaw: got %+v, want ended and thawed", state)
	}
}

func TestUpdateContest(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	c := testContest()
	contest := c["contest"].(map[string]any)
	contest["penalty_time"] = 10
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest}, nil)
	var got struct {
		PenaltyTime int `json:"penalty_time"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &got)
	if got.PenaltyTime != 10 {
		t.Errorf("got penalty %d, want 10", got.PenaltyTime)
	}
	contest["id"] = "other"
	if r := e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": contest}); r.Status != http.StatusBadRequest {
		t.Errorf("PATCH with another id: got %d, want 400", r.Status)
	}
	// An unknown contest is unknown, whatever id its bundle gives.
	if r := e.Do(t, "PATCH", "/api/v1/contests/nope", adminToken, map[string]any{"contest": contest}); r.Status != http.StatusNotFound {
		t.Errorf("PATCH of an unknown contest with another id: got %d, want 404", r.Status)
	}
	// A byte order mark before the bundle, as on ingest.
	contest["id"], contest["penalty_time"] = "c1", 15
	body, err := json.Marshal(map[string]any{"contest": contest})
	if err != nil {
		t.Fatal(err)
	}
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, "\ufeff"+string(body), nil)
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, &got); got.PenaltyTime != 15 {
		t.Errorf("after a bundle with a byte order mark: got penalty %d, want 15", got.PenaltyTime)
	}
}

// A bundle laid out over many lines, as people write JSON, defines the contest as a compact one does.
func TestCreateContestFromIndentedJSON(t *testing.T) {
	e := MustOpen(t)
	body, err := json.MarshalIndent(testContest(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Accepted, Rejected int }
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, string(body), &res)
	if res.Rejected != 0 || res.Accepted < 7 {
		t.Errorf("got %+v, want every object accepted", res)
	}
}

// The answer to a contest created without judgement types (the defaults are added) numbers its items 1, 2,
// 3, ... with none missing.
func TestCreateContestItemsInOrder(t *testing.T) {
	e := MustOpen(t)
	c := testContest()
	delete(c, "judgement_types")
	var res struct {
		Results []struct{ Item int }
	}
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, &res)
	for i, r := range res.Results {
		if r.Item != i+1 {
			t.Fatalf("result %d: got item %d, want %d", i, r.Item, i+1)
		}
	}
	if len(res.Results) < 7 {
		t.Errorf("got %d results, want every object's", len(res.Results))
	}
}

// A new team, problem, group or organization needs a CCS identifier as its id, wherever it comes from: one
// with "..", a comma or a space could be stored but not addressed (a browser resolves /teams/../hide to
// /hide; ids are split on commas in ?teams=; ETags hold them).
func TestNewObjectIDs(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct{ path, token, body string }{
		{"/api/v1/contests/c1/teams", adminToken, `[{"id": "..", "name": "Dots"}]`},
		{"/api/v1/contests/c1/groups", adminToken, `[{"id": "a,b", "name": "Comma"}]`},
		{"/api/v1/contests/c1/events", judgeToken, `{"type": "teams", "data": {"id": "a b", "name": "Space"}}` + "\n"},
		{"/api/v1/contests/c1/events", judgeToken, `{"type": "problems", "data": {"id": "p?", "label": "P", "name": "P", "ordinal": 9}}` + "\n"},
	} {
		r := e.Do(t, "POST", tc.path, tc.token, json.RawMessage(tc.body))
		if !strings.Contains(string(r.Body), "invalid") || !strings.Contains(string(r.Body), "CCS's identifiers") {
			t.Errorf("POST %s %s: got %d %s, want the id refused as invalid", tc.path, tc.body, r.Status, r.Body)
		}
	}
	var p page
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &p)
	if p.Total != 3 {
		t.Errorf("got %d teams, want the 3 of the contest", p.Total)
	}
}

// A contest without penalty (penalty_time 0) is served as one: it was served with 20, and the object sent
// back (as the admin console does) charged 20 minutes per rejection.
func TestNoPenaltyRoundTrip(t *testing.T) {
	e := MustOpen(t)
	c := testContest()
	c["contest"].(map[string]any)["penalty_time"] = 0
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
	for _, path := range []string{"/api/contests/c1", "/api/v1/contests/c1"} {
		var got struct {
			PenaltyTime *int64 `json:"penalty_time"`
		}
		e.MustDo(t, http.StatusOK, "GET", path, adminToken, nil, &got)
		if got.PenaltyTime == nil || *got.PenaltyTime != 0 {
			t.Errorf("GET %s: got penalty_time %v, want 0", path, got.PenaltyTime)
		}
	}
	var ccsContest map[string]any
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1", adminToken, nil, &ccsContest)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": ccsContest}, &res)
	if res.Duplicates != 1 {
		t.Errorf("the contest sent back as served: got %+v, want a duplicate", res)
	}
}

// The states rankd writes itself (the end it records, a thaw) say when the contest froze: the feed's state
// lines said frozen null while /state gave the freeze, and a consumer saw a contest thawed that never froze.
func TestWrittenStatesSayFrozen(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t) // frozen at 4:00
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	r := e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false&view=jury", adminToken, nil)
	want := `"frozen":"` + contestStart.Add(4*time.Hour).UTC().Format("2006-01-02T15:04:05.000Z") + `"`
	var states int
	for _, line := range strings.Split(string(r.Body), "\n") {
		if strings.Contains(line, `"type":"state"`) {
			states++
			if !strings.Contains(line, want) {
				t.Errorf("a state line of the feed: got %s, want it to say %s", line, want)
			}
		}
	}
	if states == 0 {
		t.Errorf("the feed has no state line: %s", r.Body)
	}
}
