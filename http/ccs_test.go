package http_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"rankd/ccs/ccstest"
)

// What the CCS-compatible endpoints serve validates against the Contest API 2023-06 schemas, in the
// public and the jury view.
func TestCCSEndpointsValidate(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/organizations", adminToken,
		`[{"id":"o1","name":"TU Delft","formal_name":"Delft University of Technology","country":"NLD"}]`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		`{"id":"t1","name":"Alpha","organization_id":"o1","group_ids":["g1"]}`, nil)
	tests := []struct{ path, schema string }{
		{"/api", "api_information.json"}, // the version a tool checks first
		{"/api/contests", "contests.json"},
		{"/api/contests/c1", "contest.json"},
		{"/api/contests/c1/scoreboard", "scoreboard.json"},
		{"/api/contests/c1/state", "state.json"},
		{"/api/contests/c1/awards", "awards.json"},
		{"/api/contests/c1/teams", "teams.json"},
		{"/api/contests/c1/problems", "problems.json"},
		{"/api/contests/c1/groups", "groups.json"},
		{"/api/contests/c1/organizations", "organizations.json"},
		{"/api/contests/c1/judgement-types", "judgement-types.json"},
		// One object of each: a tool may ask for it alone.
		{"/api/contests/c1/teams/t1", "team.json"},
		{"/api/contests/c1/problems/A", "problem.json"},
		{"/api/contests/c1/groups/g1", "group.json"},
		{"/api/contests/c1/organizations/o1", "organization.json"},
		{"/api/contests/c1/judgement-types/AC", "judgement-type.json"},
		{"/api/contests/c1/awards/first-to-solve-A", "award.json"},
	}
	for _, tt := range tests {
		v := ccstest.SchemaValidator(t, tt.schema)
		for _, token := range []string{"", judgeToken} {
			query := ""
			if token != "" {
				query = "?view=jury"
			}
			r := e.Do(t, "GET", tt.path+query, token, nil)
			if r.Status != http.StatusOK {
				t.Errorf("GET %s%s: status %d", tt.path, query, r.Status)
				continue
			}
			if err := v.Check(r.Body); err != nil {
				t.Errorf("GET %s%s does not validate against %s: %v\n%s", tt.path, query, tt.schema, err, r.Body)
			}
		}
	}
}

// The CCS contest and problem objects are whole definitions, rankd's extensions included: what the admin
// console reads to edit a contest, and sends back (a PATCH of the object read changes nothing). Each
// validates against the 2023-06 schemas, a score contest without the penalty time they refuse there.
func TestCCSDefinitions(t *testing.T) {
	contestSchema := ccstest.SchemaValidator(t, "contest.json")
	problemsSchema := ccstest.SchemaValidator(t, "problems.json")
	for _, tc := range []struct {
		name              string
		contest, problems string // as created
		wantContest       string // the rankd member and penalty_time read back
		wantProblems      []string
	}{
		{
			name:         "icpc",
			contest:      `{"id":"c","name":"ICPC","duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","penalty_time":15,"rankd":{"medals":{"gold":4,"silver":4,"bronze":4}}}`,
			problems:     `[{"id":"A","label":"A","name":"Apples","ordinal":0,"rgb":"#ff0000","color":"red"}]`,
			wantContest:  `15 {"rules":"icpc","medals":{"gold":4,"silver":4,"bronze":4}}`,
			wantProblems: []string{`A null`},
		},
		{
			name:        "icpc default penalty",
			contest:     `{"id":"c","name":"ICPC","duration":"5:00:00"}`,
			wantContest: `20 {"rules":"icpc"}`,
		},
		{
			name:         "oi last submission",
			contest:      `{"id":"c","name":"OI","duration":"5:00:00","scoreboard_type":"score","rankd":{"oi_mode":"last","tie_by_time":true,"hide_until_end":true}}`,
			problems:     `[{"id":"p1","label":"1","name":"One","ordinal":0,"max_score":100}]`,
			wantContest:  `null {"rules":"oi","oi_mode":"last","hide_until_end":true,"tie_by_time":true}`,
			wantProblems: []string{`p1 null`},
		},
		{
			name:         "ioi subtasks",
			contest:      `{"id":"c","name":"IOI","duration":"5:00:00","scoreboard_type":"score","rankd":{"rules":"ioi"}}`,
			problems:     `[{"id":"p1","label":"1","name":"One","ordinal":0,"max_score":100,"rankd":{"subtasks":[30,70]}}]`,
			wantContest:  `null {"rules":"ioi"}`,
			wantProblems: []string{`p1 {"subtasks":[30,70]}`},
		},
		{
			name:    "ctf values",
			contest: `{"id":"c","name":"CTF","duration":"48:00:00","scoreboard_type":"score","rankd":{"rules":"ctf","first_blood":[50,30,10],"medals":{"gold":1,"silver":0,"bronze":0}}}`,
			problems: `[{"id":"w1","label":"W1","name":"Cookie Jar","ordinal":0,"rankd":{"value":500,"minimum":100,"decay":20,"function":"logarithmic"}},
			            {"id":"w2","label":"W2","name":"Static","ordinal":1,"rankd":{"value":300}}]`,
			wantContest:  `null {"rules":"ctf","first_blood":[50,30,10],"medals":{"gold":1,"silver":0,"bronze":0}}`,
			wantProblems: []string{`w1 {"value":500,"minimum":100,"decay":20,"function":"logarithmic"}`, `w2 {"value":300}`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := MustOpen(t)
			bundle := `{"contest":` + tc.contest + `}`
			if tc.problems != "" {
				bundle = `{"contest":` + tc.contest + `,"problems":` + tc.problems + `}`
			}
			e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, bundle, nil)
			r := e.Do(t, "GET", "/api/contests/c", "", nil)
			if err := contestSchema.Check(r.Body); err != nil {
				t.Errorf("the contest does not validate: %v\n%s", err, r.Body)
			}
			var c struct {
				PenaltyTime json.RawMessage `json:"penalty_time"`
				Rankd       json.RawMessage
			}
			if err := json.Unmarshal(r.Body, &c); err != nil {
				t.Fatal(err)
			}
			if c.PenaltyTime == nil {
				c.PenaltyTime = json.RawMessage("null")
			}
			if got := string(c.PenaltyTime) + " " + string(c.Rankd); got != tc.wantContest {
				t.Errorf("the contest's penalty and extensions: got %s, want %s", got, tc.wantContest)
			}
			p := e.Do(t, "GET", "/api/contests/c/problems", "", nil)
			if err := problemsSchema.Check(p.Body); err != nil {
				t.Errorf("the problems do not validate: %v\n%s", err, p.Body)
			}
			var ps []struct {
				ID    string
				Rankd json.RawMessage
			}
			if err := json.Unmarshal(p.Body, &ps); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				if p.Rankd == nil {
					p.Rankd = json.RawMessage("null")
				}
				got = append(got, p.ID+" "+string(p.Rankd))
			}
			if !reflect.DeepEqual(got, tc.wantProblems) {
				t.Errorf("the problems' extensions: got %q, want %q", got, tc.wantProblems)
			}

			// Sent back as read, the definition is a duplicate: nothing of it was lost.
			var res struct{ Accepted, Duplicates int }
			back := `{"contest":` + string(r.Body) + `,"problems":` + string(p.Body) + `}`
			e.MustDo(t, http.StatusOK, "PATCH", "/api/v1/contests/c", adminToken, back, &res)
			if res.Accepted != 0 || res.Duplicates != 1+len(ps) {
				t.Errorf("the definition read, sent back: got %+v, want every object a duplicate", res)
			}
		})
	}
}

// A contest's judgement types: the defaults for a contest created without any, else its own in the order
// they were defined, a redefinition in place.
func TestCCSJudgementTypes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		types string // the bundle's "judgement-types", "" for none
		more  string // a judgement type posted later as an event
		want  []string
	}{
		{"defaults", "", "", []string{"AC correct solved", "WA wrong answer penalty", "TLE timelimit penalty",
			"RTE run error penalty", "MLE memory limit penalty", "CE compiler error"}},
		{"the contest's own", `[{"id":"OK","name":"accepted","solved":true},{"id":"NO","name":"rejected","penalty":true,"solved":false}]`,
			`{"type":"judgement-types","data":{"id":"NO","name":"no","penalty":false,"solved":false}}`,
			[]string{"OK accepted solved", "NO no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := MustOpen(t)
			bundle := `{"contest":{"id":"c","name":"C","duration":"5:00:00"}}`
			if tc.types != "" {
				bundle = `{"contest":{"id":"c","name":"C","duration":"5:00:00"},"judgement-types":` + tc.types + `}`
			}
			e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, bundle, nil)
			if tc.more != "" {
				e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c/events", judgeToken, tc.more+"\n", nil)
			}
			var jts []struct {
				ID, Name        string
				Penalty, Solved bool
			}
			e.MustDo(t, http.StatusOK, "GET", "/api/contests/c/judgement-types", "", nil, &jts)
			var got []string
			for _, jt := range jts {
				s := jt.ID + " " + jt.Name
				if jt.Penalty {
					s += " penalty"
				}
				if jt.Solved {
					s += " solved"
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	e := MustOpen(t)
	if r := e.Do(t, "GET", "/api/contests/nope/judgement-types", "", nil); r.Status != http.StatusNotFound {
		t.Errorf("an unknown contest: got %d, want 404", r.Status)
	}
}

// The teams and organizations collections are rendered once per version of the view and named by an ETag:
// a client that has the version gets 304, and a change of a team or of an organization is a new version.
func TestCCSTeamsAndOrganizationsVersions(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/organizations", adminToken, `{"id":"o1","name":"Old U"}`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		`{"id":"t1","name":"Alpha","organization_id":"o1","group_ids":["g1"]}`, nil)
	for _, c := range []struct {
		path, change, want string
	}{
		{"/api/contests/c1/teams", `{"id":"t1","name":"Beta","organization_id":"o1","group_ids":["g1"]}`, `"name":"Beta"`},
		{"/api/contests/c1/organizations", `{"id":"o1","name":"New U"}`, `"name":"New U"`},
	} {
		first := e.Do(t, "GET", c.path, "", nil)
		etag := first.Header.Get("ETag")
		if first.Status != http.StatusOK || etag == "" {
			t.Fatalf("GET %s: got status %d, ETag %q; want 200 with an ETag", c.path, first.Status, etag)
		}
		if got := e.getWith(t, c.path, "", etag); got.Status != http.StatusNotModified {
			t.Errorf("GET %s again with its ETag: got status %d, want 304", c.path, got.Status)
		}
		kind := strings.TrimPrefix(c.path, "/api/contests/c1/")
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/"+kind, adminToken, c.change, nil)
		got := e.getWith(t, c.path, "", etag)
		if got.Status != http.StatusOK || !strings.Contains(string(got.Body), c.want) {
			t.Errorf("GET %s after a change, with the old ETag: got status %d, %s; want 200 with %s", c.path, got.Status, got.Body, c.want)
		}
		// One object is read alone, as the collection has it.
		var one map[string]any
		e.MustDo(t, http.StatusOK, "GET", c.path+"/"+map[string]string{"teams": "t1", "organizations": "o1"}[kind], "", nil, &one)
		if name := one["name"]; !strings.Contains(c.want, name.(string)) {
			t.Errorf("GET %s/<id> after the change: got name %v, want %s", c.path, name, c.want)
		}
	}
}

// The jury sees every organization, one without teams too (a CDS reads them before the teams come), and a
// change of it at once, though it moves no row; the public only those of the teams it sees.
func TestCCSOrganizationsWithoutTeams(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	ids := func(token, path string) string {
		var orgs []struct{ ID, Name string }
		e.MustDo(t, http.StatusOK, "GET", path, token, nil, &orgs)
		var got []string
		for _, o := range orgs {
			got = append(got, o.ID+" "+o.Name)
		}
		return strings.Join(got, "|")
	}
	before := ids(judgeToken, "/api/contests/c1/organizations")
	for i, name := range []string{"Lonely U", "Lonelier U"} {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/organizations", adminToken, `{"id":"zz","name":"`+name+`"}`, nil)
		if got, want := ids(judgeToken, "/api/contests/c1/organizations"), strings.TrimPrefix(before+"|zz "+name, "|"); got != want {
			t.Errorf("version %d: the jury's organizations: got %q, want %q", i+1, got, want)
		}
		if got := ids(judgeToken, "/api/contests/c1/organizations?view=public"); strings.Contains(got, "zz") {
			t.Errorf("the public's organizations: got %q, want none without a team it sees", got)
		}
		var one struct{ Name string }
		e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/organizations/zz", judgeToken, nil, &one)
		if one.Name != name {
			t.Errorf("the jury's organization zz: got %q, want %q", one.Name, name)
		}
		e.MustDo(t, http.StatusNotFound, "GET", "/api/contests/c1/organizations/zz", "", nil, nil)
	}
}

// ?group_id= gives the CCS scoreboard of a group's teams, ranked among themselves as rankd's own ?group= does.
func TestCCSScoreboardOfAGroup(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken, `{"id":"t4","name":"Delta"}`, nil)
	type rows struct {
		Rows []struct {
			Rank   int    `json:"rank"`
			TeamID string `json:"team_id"`
		} `json:"rows"`
	}
	var all, group, own rows
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/scoreboard", "", nil, &all)
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/scoreboard?group_id=g1", "", nil, &group)
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?group=g1", "", nil, &own)
	if len(all.Rows) != 4 {
		t.Fatalf("the whole scoreboard: got %d rows, want 4", len(all.Rows))
	}
	if !reflect.DeepEqual(group, own) || len(group.Rows) != 3 {
		t.Errorf("group g1: got %+v, want rankd's own group page %+v (3 rows)", group, own)
	}
	if err := ccstest.SchemaValidator(t, "scoreboard.json").Check(e.Do(t, "GET", "/api/contests/c1/scoreboard?group_id=g1", "", nil).Body); err != nil {
		t.Errorf("group g1's scoreboard does not validate: %v", err)
	}
	if r := e.Do(t, "GET", "/api/contests/c1/scoreboard?group_id=nosuch", "", nil); r.Status != http.StatusNotFound {
		t.Errorf("an unknown group: got status %d, want 404", r.Status)
	}
}
