package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rankd"
	"rankd/ccs"
	"rankd/ccs/ccstest"
	"rankd/gen"
)

// MustRealContest posts a real feed of the shared data through the events endpoint, as the contest id cid.
func (e *env) MustRealContest(tb testing.TB, name string) (cid string) {
	tb.Helper()
	feed, err := os.ReadFile(ccstest.SharedPath(tb, "data", name, "event-feed.ndjson"))
	if err != nil {
		tb.Fatal(err)
	}
	cid = map[string]string{"wf47": "wf47_finals"}[name]
	if cid == "" {
		cid = name
	}
	lines := bytes.SplitAfter(feed, []byte{'\n'})
	for len(lines) > 0 {
		n, size := 0, 0
		for n < len(lines) && size+len(lines[n]) < 900<<10 {
			size += len(lines[n])
			n++
		}
		e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/"+cid+"/events?results=problems", judgeToken,
			string(bytes.Join(lines[:n], nil)), nil)
		lines = lines[n:]
	}
	return cid
}

// checkFeedReferences fails when a line of a feed names an object the feed has not sent before (or has
// deleted): a team's organization and groups, a submission's team and problem, a judgement's submission and
// judgement type. A CDS or the resolver reading the feed in order would not find them.
func checkFeedReferences(tb testing.TB, name string, lines []feedLine) {
	tb.Helper()
	have := map[string]bool{}
	for _, l := range lines {
		if l.ID != nil {
			have[l.Type+"/"+*l.ID] = string(l.Data) != "null"
		}
		if string(l.Data) == "null" {
			continue
		}
		var d struct {
			OrganizationID  *string  `json:"organization_id"`
			GroupIDs        []string `json:"group_ids"`
			TeamID          string   `json:"team_id"`
			TeamIDs         []string `json:"team_ids"`
			ProblemID       string   `json:"problem_id"`
			SubmissionID    string   `json:"submission_id"`
			JudgementTypeID *string  `json:"judgement_type_id"`
		}
		if err := json.Unmarshal(l.Data, &d); err != nil {
			continue
		}
		var refs []string
		switch l.Type {
		case "teams":
			if d.OrganizationID != nil {
				refs = append(refs, "organizations/"+*d.OrganizationID)
			}
			for _, g := range d.GroupIDs {
				refs = append(refs, "groups/"+g)
			}
		case "submissions":
			refs = append(refs, "teams/"+d.TeamID, "problems/"+d.ProblemID)
		case "awards":
			for _, t := range d.TeamIDs {
				refs = append(refs, "teams/"+t)
			}
		case "judgements":
			refs = append(refs, "submissions/"+d.SubmissionID)
			if d.JudgementTypeID != nil {
				refs = append(refs, "judgement-types/"+*d.JudgementTypeID)
			}
		}
		for _, r := range refs {
			if !have[r] {
				tb.Errorf("%s feed: %s names %s, which the feed has not sent before", name, l, r)
			}
		}
	}
}

// Both real feeds, posted through the API, come back conformant: every CCS endpoint in the public and the
// jury view validates, every line of both event feeds validates (a submission without language_id once one
// is added: rankd keeps none when the sender gave none), every reference names an object sent before it,
// and resuming after any line gives the rest of the feed.
func TestReviewCCS2RealFeedsConform(t *testing.T) {
	for _, name := range []string{"euc2025", "wf47"} {
		t.Run(name, func(t *testing.T) {
			e := MustOpen(t)
			cid := e.MustRealContest(t, name)
			checkEndpointsConform(t, e, cid)
			for _, token := range []string{judgeToken, ""} {
				lines := e.MustFeed(t, cid, "", token)
				if len(lines) == 0 {
					t.Fatalf("token %q: an empty feed", token)
				}
				checkFeedLinesConform(t, "token "+strconv.Quote(token), lines)
				checkFeedReferences(t, name, lines)
				step := max(1, len(lines)/7)
				for i := 0; i < len(lines); i += step {
					rest := e.MustFeed(t, cid, "&since_token="+lines[i].Token, token)
					if !sameLines(rest, lines[i+1:]) {
						t.Errorf("token %q: resuming after %s does not give the rest of the feed", token, lines[i])
					}
				}
			}
		})
	}
}

// What the event feed says the scoreboard is equals the CCS scoreboard served, in each view: the rows a
// consumer computes from the feed (rankd's own importer, written as the CCS object) are those of /scoreboard.
func TestReviewCCS2FeedScoreboardEqualsServed(t *testing.T) {
	for _, name := range []string{"euc2025", "wf47"} {
		t.Run(name, func(t *testing.T) {
			e := MustOpen(t)
			cid := e.MustRealContest(t, name)
			for _, v := range feedViews {
				checkFeedScoreboard(t, e, cid, v, e.MustFeed(t, cid, "", v.token))
			}
		})
	}
}

// feedView is one of the two event feeds and scoreboards: the token and the query that ask for it.
type feedView struct {
	token, query string
	view         rankd.View
}

// feedViews are the jury's feed (a judge token) and the public's.
var feedViews = []feedView{{judgeToken, "?view=jury", rankd.JuryView}, {"", "", rankd.PublicView}}

// checkEndpointsConform checks that every CCS endpoint of contest cid validates against its schema, in the
// public and the jury view.
func checkEndpointsConform(t *testing.T, e *env, cid string) {
	t.Helper()
	endpoints := []struct{ path, schema string }{
		{"", "contest.json"}, {"/scoreboard", "scoreboard.json"}, {"/state", "state.json"}, {"/awards", "awards.json"},
		{"/teams", "teams.json"}, {"/problems", "problems.json"}, {"/groups", "groups.json"},
		{"/organizations", "organizations.json"}, {"/judgement-types", "judgement-types.json"},
	}
	for _, ep := range endpoints {
		v := ccstest.SchemaValidator(t, ep.schema)
		for _, q := range []struct{ query, token string }{{"", ""}, {"?view=jury", judgeToken}} {
			r := e.Do(t, "GET", "/api/contests/"+cid+ep.path+q.query, q.token, nil)
			if r.Status != http.StatusOK {
				t.Errorf("GET %s%s: status %d: %s", ep.path, q.query, r.Status, r.Body)
				continue
			}
			if err := v.Check(r.Body); err != nil {
				t.Errorf("GET %s%s does not validate against %s: %v", ep.path, q.query, ep.schema, err)
			}
		}
	}
}

// checkFeedLinesConform checks every line of a feed against event-feed.json (a submission without language_id
// once one is added: rankd keeps none when the sender gave none).
func checkFeedLinesConform(t *testing.T, which string, lines []feedLine) {
	t.Helper()
	feedSchema := ccstest.SchemaValidator(t, "event-feed.json")
	for _, l := range lines {
		doc := l.Raw
		if l.Type == "submissions" && string(l.Data) != "null" && !bytes.Contains(doc, []byte(`"language_id"`)) {
			doc = bytes.Replace(doc, []byte(`"data":{`), []byte(`"data":{"language_id":"x",`), 1)
		}
		if err := feedSchema.Check(doc); err != nil {
			t.Errorf("%s: line %s does not validate: %v\n%s", which, l, err, l.Raw)
		}
	}
}

// checkFeedScoreboard checks that the board a consumer builds from a feed of view v, written as the CCS
// scoreboard object, has the rows /scoreboard serves in that view.
func checkFeedScoreboard(t *testing.T, e *env, cid string, v feedView, lines []feedLine) {
	t.Helper()
	b := MustImport(t, lines)
	c := b.Contest()
	want, err := json.Marshal(ccs.Scoreboard(&c, b.Problems(), MustStandings(t, b, v.view), b.State(), e.now).Rows)
	if err != nil {
		t.Fatal(err)
	}
	var served struct{ Rows json.RawMessage }
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/"+cid+"/scoreboard"+v.query, v.token, nil, &served)
	if got := strings.TrimSpace(string(served.Rows)); got != string(want) {
		t.Errorf("%s view: the scoreboard of the feed differs from the one served:\ngot  %.600s\nwant %.600s", v.view, got, want)
	}
}

// MustGenContest posts a generated contest (with hidden teams, frozen, not thawed) through the events endpoint.
func (e *env) MustGenContest(tb testing.TB, rules rankd.Rules) string {
	tb.Helper()
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	cfg := gen.Config{Seed: 7, ContestID: "g" + rules.String(), Rules: rules, Teams: 30, Problems: 5,
		Submissions: 400, HiddenTeams: 3, Start: contestStart}
	if err := gen.Generate(cfg, w.Write); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/"+cfg.ContestID+"/events?results=problems", judgeToken, buf.String(), nil)
	return cfg.ContestID
}

// Generated contests of every kind of rules, frozen and with hidden teams: the same checks as the real feeds.
func TestReviewCCS2GeneratedConform(t *testing.T) {
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.OI, rankd.IOI, rankd.CTF} {
		t.Run(rules.String(), func(t *testing.T) {
			e := MustOpen(t)
			cid := e.MustGenContest(t, rules)
			checkEndpointsConform(t, e, cid)
			for _, v := range feedViews {
				lines := e.MustFeed(t, cid, "", v.token)
				checkFeedLinesConform(t, v.view.String(), lines)
				checkFeedReferences(t, cid, lines)
				checkFeedScoreboard(t, e, cid, v, lines)
			}
		})
	}
}

// typeSchemas are the object schemas of the event feed's types: event-feed.json takes any object that fits
// any type (a team without label passes as a group), so each line's data is checked against its own type's.
var typeSchemas = map[string]string{
	"contest": "contest.json", "judgement-types": "judgement-type.json", "problems": "problem.json",
	"groups": "group.json", "organizations": "organization.json", "teams": "team.json", "state": "state.json",
	"submissions": "submission.json", "judgements": "judgement.json", "awards": "award.json",
}

// checkFeedObjects fails for each line whose data does not validate against its type's schema, leaving
// aside what docs/ccs.md says rankd cannot give: a submission's language_id when none was sent, and, when
// the contest's problems came without it (unknown), a problem's test_data_count.
func checkFeedObjects(tb testing.TB, name string, lines []feedLine, testsUnknown bool) {
	tb.Helper()
	vs := map[string]*ccstest.Validator{}
	for typ, schema := range typeSchemas {
		vs[typ] = ccstest.SchemaValidator(tb, schema)
	}
	for _, l := range lines {
		v := vs[l.Type]
		if v == nil || string(l.Data) == "null" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(l.Data, &obj); err != nil {
			tb.Fatal(err)
		}
		if _, ok := obj["language_id"]; !ok && l.Type == "submissions" {
			obj["language_id"] = "x"
		}
		if _, ok := obj["test_data_count"]; !ok && l.Type == "problems" && testsUnknown {
			obj["test_data_count"] = 0
		}
		doc, err := json.Marshal(obj)
		if err != nil {
			tb.Fatal(err)
		}
		if err := v.Check(doc); err != nil {
			tb.Errorf("%s: line %s does not validate against %s: %v\n%s", name, l, typeSchemas[l.Type], err, l.Raw)
		}
	}
}

// Every object of the event feeds, real and generated, validates against the schema of its own type.
func TestReviewCCS2FeedObjectsConform(t *testing.T) {
	e := MustOpen(t)
	real := []string{e.MustRealContest(t, "euc2025"), e.MustRealContest(t, "wf47")}
	cids := slices.Clone(real)
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.OI, rankd.IOI, rankd.CTF} {
		cids = append(cids, e.MustGenContest(t, rules))
	}
	e.MustFrozenContest(t)
	e.MustHiddenTeam(t)
	cids = append(cids, "c1")
	for _, cid := range cids {
		for _, token := range []string{judgeToken, ""} {
			checkFeedObjects(t, cid+" "+token, e.MustFeed(t, cid, "", token), !slices.Contains(real, cid))
		}
	}
}

// A team the organiser banned (or hid) is not in the public feed, and neither is it in the awards the feed
// sends after the thaw: an award of the contest system naming it would tell the public of a team the feed
// left out, and a client would find no such team.
func TestReviewCCS2PublicAwardsNameOnlyPublicTeams(t *testing.T) {
	e := MustOpen(t)
	cid := e.MustRealContest(t, "euc2025")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/"+cid+"/teams/2/ban", adminToken, nil, nil)
	public := e.MustFeed(t, cid, "", "")
	checkFeedReferences(t, "public", public)
	awards := map[string]feedLine{}
	for _, l := range public {
		if l.Type == "awards" {
			awards[*l.ID] = l
		}
	}
	if len(awards) != 11 {
		t.Errorf("got %d awards in the public feed, want euc2025's 11", len(awards))
	}
	for _, l := range awards {
		if bytes.Contains(l.Data, []byte(`"2"`)) {
			t.Errorf("the public feed leaves an award naming the banned team: %s", l.Raw)
		}
	}
}

// A problem's test_data_count is the one its contest system's feed gave, on the CCS problems (it was 0).
func TestCCSProblemsKeepTheirTestDataCount(t *testing.T) {
	e := MustOpen(t)
	cid := e.MustRealContest(t, "euc2025")
	var problems []struct {
		ID            string `json:"id"`
		TestDataCount int    `json:"test_data_count"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/"+cid+"/problems", "", nil, &problems)
	if len(problems) != 11 {
		t.Fatalf("got %d problems, want euc2025's 11", len(problems))
	}
	for _, p := range problems {
		if p.TestDataCount == 0 {
			t.Errorf("problem %s: got test_data_count 0, want the feed's", p.ID)
		}
	}
}
