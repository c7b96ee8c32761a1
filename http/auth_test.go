package http_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	rankdhttp "rankd/http"
)

// Every admin and judge endpoint refuses a request without a token (401) and one with a token of a weaker
// role (403), with a JSON error.
func TestEndpointsRefuseWithoutTheirToken(t *testing.T) {
	const public = "public-token-0123456789"
	e := MustOpenWith(t, options{config: rankdhttp.Config{Tokens: []rankdhttp.ConfigToken{{Token: public, Role: "public"}}}})
	e.MustContest(t)
	team := e.MustTeamToken(t, "t1")
	endpoints := []struct {
		method, path string
		judge        bool // a judge token is enough
	}{
		{"POST", "/api/v1/contests", false},
		{"PATCH", "/api/v1/contests/c1", false},
		{"DELETE", "/api/v1/contests/c1", false},
		{"POST", "/api/v1/contests/c1/problems", false},
		{"POST", "/api/v1/contests/c1/groups", false},
		{"POST", "/api/v1/contests/c1/organizations", false},
		{"POST", "/api/v1/contests/c1/teams", false},
		{"POST", "/api/v1/contests/c1/teams/t2/ban", false},
		{"DELETE", "/api/v1/contests/c1/teams/t2/ban", false},
		{"POST", "/api/v1/contests/c1/teams/t2/hide", false},
		{"DELETE", "/api/v1/contests/c1/teams/t2/hide", false},
		{"POST", "/api/v1/contests/c1/teams/t2/tokens", false},
		{"DELETE", "/api/v1/contests/c1/teams/t2/tokens", false},
		{"POST", "/api/v1/contests/c1/freeze", false},
		{"POST", "/api/v1/contests/c1/thaw", false},
		{"POST", "/api/v1/contests/c1/reveal/next", false},
		{"GET", "/api/v1/contests/c1/finalize", false},
		{"POST", "/api/v1/contests/c1/finalize", false},
		{"POST", "/api/v1/contests/c1/finalize/retry", false},
		{"POST", "/api/v1/contests/c1/events", true},
		{"POST", "/api/v1/contests/c1/submissions", true},
		{"POST", "/api/v1/contests/c1/judgements", true},
		{"GET", "/metrics", true},
	}
	for _, ep := range endpoints {
		tokens := []struct {
			name, token string
			want        int
		}{
			{"none", "", http.StatusUnauthorized},
			{"unknown", "not-a-token-of-this-server", http.StatusUnauthorized},
			{"team", team, http.StatusForbidden},
			{"public", public, http.StatusForbidden}, // known, without the right
		}
		if !ep.judge {
			tokens = append(tokens, struct {
				name, token string
				want        int
			}{"judge", judgeToken, http.StatusForbidden})
		}
		for _, tk := range tokens {
			r := e.Do(t, ep.method, ep.path, tk.token, `{}`)
			if r.Status != tk.want {
				t.Errorf("%s %s with %s token: got status %d, want %d", ep.method, ep.path, tk.name, r.Status, tk.want)
				continue
			}
			var body struct{ Code, Message string }
			if err := json.Unmarshal(r.Body, &body); err != nil || body.Code == "" || body.Message == "" {
				t.Errorf("%s %s with %s token: got body %s, want a JSON error", ep.method, ep.path, tk.name, r.Body)
			}
		}
	}
	for _, view := range []string{"jury", "team"} {
		if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?view="+view, public, nil); r.Status != http.StatusForbidden {
			t.Errorf("view %s with a public token: got status %d, want %d", view, r.Status, http.StatusForbidden)
		}
	}
	// Nothing was changed by the refused requests: t2 is neither banned nor hidden.
	var sb struct{ Total int }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &sb)
	if sb.Total != 3 {
		t.Errorf("got %d ranked teams, want 3", sb.Total)
	}
}

func TestViewsFollowTokens(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	t2 := e.MustTeamToken(t, "t2")
	tests := []struct {
		name, token, query string
		want               int
	}{
		{"public anonymous", "", "", http.StatusOK},
		{"jury anonymous", "", "?view=jury", http.StatusUnauthorized},
		{"jury team", t2, "?view=jury", http.StatusForbidden},
		{"jury judge", judgeToken, "?view=jury", http.StatusOK},
		{"own team", t2, "?view=team:t2", http.StatusOK},
		{"own team short", t2, "?view=team", http.StatusOK},
		{"other team", t2, "?view=team:t1", http.StatusForbidden},
		{"team anonymous", "", "?view=team:t1", http.StatusUnauthorized},
		{"own team short anonymous", "", "?view=team", http.StatusUnauthorized},
		{"own team short judge", judgeToken, "?view=team", http.StatusForbidden},
		{"team judge", judgeToken, "?view=team:t1", http.StatusOK},
		{"bad view", "", "?view=secret", http.StatusBadRequest},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/v1/contests/c1/scoreboard", "/api/v1/contests/c1/submissions",
			"/api/v1/contests/c1/problems", "/api/v1/contests/c1/awards", "/api/contests/c1/scoreboard"} {
			if r := e.Do(t, "GET", path+tt.query, tt.token, nil); r.Status != tt.want {
				t.Errorf("%s: GET %s%s: got status %d, want %d", tt.name, path, tt.query, r.Status, tt.want)
			}
		}
	}
}

// A team sees its own frozen verdicts, never another team's.
func TestTeamSeesOnlyItsOwnFrozenVerdicts(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken, `[
		{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"},
		{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}]`, nil)
	t2 := e.MustTeamToken(t, "t2")

	var subs []struct {
		ID              string
		JudgementTypeID *string `json:"judgement_type_id"`
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/submissions", t2, nil, &subs)
	verdicts := map[string]string{}
	for _, s := range subs {
		v := "pending"
		if s.JudgementTypeID != nil {
			v = *s.JudgementTypeID
		}
		verdicts[s.ID] = v
	}
	want := map[string]string{"s1": "AC", "s2": "WA", "s3": "AC", "s4": "pending"}
	for id, w := range want {
		if verdicts[id] != w {
			t.Errorf("submission %s: got %q, want %q", id, verdicts[id], w)
		}
	}

	var sb struct {
		Rows []struct {
			TeamID string `json:"team_id"`
			Solved int
		}
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", t2, nil, &sb)
	solved := map[string]int{}
	for _, r := range sb.Rows {
		solved[r.TeamID] = r.Solved
	}
	if solved["t2"] != 1 || solved["t3"] != 0 {
		t.Errorf("team view of t2: got t2 %d solved, t3 %d; want 1 and 0 (t3's frozen solve hidden)", solved["t2"], solved["t3"])
	}
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/teams/t3?view=team:t3", t2, nil); r.Status != http.StatusForbidden {
		t.Errorf("t2 reading t3's team view: got %d, want 403", r.Status)
	}
}

// Nothing the public can read changes when frozen submissions are judged: not a byte of any endpoint, so
// neither ranks, counts, awards, statistics, submissions nor sequence numbers leak a verdict.
func TestPublicLeaksNoFrozenVerdict(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	public := []string{
		"/api/v1/contests", "/api/v1/contests/c1", "/api/v1/contests/c1/scoreboard",
		"/api/v1/contests/c1/scoreboard?group=g1", "/api/v1/contests/c1/scoreboard/teams/t2",
		"/api/v1/contests/c1/scoreboard/teams/t3", "/api/v1/contests/c1/problems", "/api/v1/contests/c1/teams",
		"/api/v1/contests/c1/submissions", "/api/v1/contests/c1/submissions?team=t3", "/api/v1/contests/c1/awards",
		"/api/contests/c1", "/api/contests/c1/scoreboard", "/api/contests/c1/state", "/api/contests/c1/awards",
		"/api/contests/c1/teams", "/api/contests/c1/problems", "/api/contests/c1/groups",
		"/api/contests/c1/scoreboard?group_id=g1",
	}
	before := map[string]string{}
	for _, p := range public {
		r := e.Do(t, "GET", p, "", nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: got %d: %s", p, r.Status, r.Body)
		}
		before[p] = string(r.Body) + r.Header.Get("ETag")
	}
	var jury struct{ Seq uint64 }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &jury)

	// Frozen submissions judged (one solve that would take the lead and first to solve B), one more
	// frozen submission, and a rejudge of one of them.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}}`,
		`{"type":"judgements","data":{"id":"j4","submission_id":"s4","judgement_type_id":"WA","start_contest_time":"4:21:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:25:00"}}`,
	}, "\n")+"\n", nil)

	for _, p := range public {
		r := e.Do(t, "GET", p, "", nil)
		if got := string(r.Body) + r.Header.Get("ETag"); got != before[p] {
			t.Errorf("GET %s changed after frozen verdicts:\ngot  %s\nwant %s", p, got, before[p])
		}
	}
	// The jury saw them.
	var after struct{ Seq uint64 }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &after)
	if after.Seq <= jury.Seq {
		t.Errorf("jury sequence: got %d after the verdicts, want more than %d", after.Seq, jury.Seq)
	}
}

// Hidden teams do not exist to the public: not counted, and a read of one is answered as of an unknown team.
// The jury counts them.
func TestHiddenTeamsDoNotExistToThePublic(t *testing.T) {
	e := MustOpen(t)
	e.MustFrozenContest(t) // t1 to t3, and t4 hidden
	for _, tt := range []struct {
		token string
		want  int
	}{{"", 3}, {adminToken, 4}, {judgeToken, 4}} {
		var list []struct{ Teams int }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests", tt.token, nil, &list)
		var one struct{ Teams int }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", tt.token, nil, &one)
		if len(list) != 1 || list[0].Teams != tt.want || one.Teams != tt.want {
			t.Errorf("token %q: got %+v and %d teams, want %d", tt.token, list, one.Teams, tt.want)
		}
	}
	// An organization only a hidden team belongs to is the jury view's to know of; the view is chosen as for
	// the teams (a jury token asking for the public view gets the public's; on the CCS API, asking for none,
	// the jury's).
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/organizations", adminToken, `{"id":"secret-org","name":"Secret"}`, nil)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		`{"id":"t4","name":"Delta","group_ids":["g1"],"organization_id":"secret-org","hidden":true}`, nil)
	for _, tt := range []struct {
		token, query string
		want         bool
	}{{"", "", false}, {adminToken, "?view=jury", true}, {adminToken, "?view=public", false}, {adminToken, "", true}} {
		var orgs []struct{ ID string }
		e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/organizations"+tt.query, tt.token, nil, &orgs)
		if got := slices.ContainsFunc(orgs, func(o struct{ ID string }) bool { return o.ID == "secret-org" }); got != tt.want {
			t.Errorf("token %q%s: the hidden team's organization listed %t, want %t", tt.token, tt.query, got, tt.want)
		}
	}
	for _, id := range []string{"t4", "nope"} {
		var body struct{ Code, Message string }
		e.MustDo(t, http.StatusNotFound, "GET", "/api/v1/contests/c1/scoreboard/teams/"+id, "", nil, &body)
		if want := `unknown team "` + id + `"`; body.Message != want {
			t.Errorf("team %s: got %q, want %q", id, body.Message, want)
		}
		// The CCS objects alike: the same message for a hidden one as for none.
		e.MustDo(t, http.StatusNotFound, "GET", "/api/contests/c1/teams/"+id, "", nil, &body)
		if want := `contest c1 has no team "` + id + `"`; body.Message != want {
			t.Errorf("CCS team %s: got %q, want %q", id, body.Message, want)
		}
	}
	e.MustDo(t, http.StatusNotFound, "GET", "/api/contests/c1/organizations/secret-org", "", nil, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/teams/t4?view=jury", adminToken, nil, nil)
	e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1/organizations/secret-org?view=jury", adminToken, nil, nil)
}

// HTTP Basic authentication carries a token as the password (or as the user name without one), as the CCS
// Contest API's clients send it.
func TestBasicAuthCarriesTheToken(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tt := range []struct {
		name, user, password string
		want                 int
	}{
		{"token as the password", "cds", judgeToken, http.StatusOK},
		{"token as the user", judgeToken, "", http.StatusOK},
		{"unknown token", "cds", "not-a-token-of-this-server", http.StatusUnauthorized},
		{"no token", "cds", "", http.StatusUnauthorized},
	} {
		req, err := http.NewRequest("GET", e.URL+"/api/contests/c1/scoreboard?view=jury", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(tt.user, tt.password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: got status %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			// A Basic challenge would have browsers ask for a password over the web board's own prompt.
			t.Errorf("%s: got WWW-Authenticate %q, want a Bearer challenge", tt.name, resp.Header.Get("WWW-Authenticate"))
		}
	}
	req, _ := http.NewRequest("GET", e.URL+"/api/contests/c1/scoreboard", nil)
	req.Header.Set("Authorization", "Basic not base64")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a malformed Basic header: got status %d, want 401", resp.StatusCode)
	}
}

// The CCS Contest API gives a judge or admin token the jury view by default, as its event feed does: a CDS
// reading the scoreboard with its credentials got the frozen public one beside the jury's feed.
func TestCCSJuryTokensSeeTheJuryView(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
	for _, path := range []string{"/api/contests/c1/scoreboard", "/api/contests/c1/awards", "/api/contests/c1/teams"} {
		jury := e.Do(t, "GET", path+"?view=jury", adminToken, nil)
		public := e.Do(t, "GET", path+"?view=public", adminToken, nil)
		for _, token := range []string{adminToken, judgeToken} {
			if got := e.Do(t, "GET", path, token, nil); got.Status != http.StatusOK || string(got.Body) != string(jury.Body) {
				t.Errorf("GET %s with a jury token: got status %d\n%s\nwant the jury view's\n%s", path, got.Status, got.Body, jury.Body)
			}
		}
		if got := e.Do(t, "GET", path, "", nil); string(got.Body) != string(public.Body) {
			t.Errorf("GET %s without a token: got\n%s\nwant the public view's\n%s", path, got.Body, public.Body)
		}
	}
	// rankd's own API keeps the public view by default, whatever the token.
	if got, public := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard", adminToken, nil), e.Do(t, "GET", "/api/v1/contests/c1/scoreboard", "", nil); string(got.Body) != string(public.Body) {
		t.Errorf("GET /api/v1/contests/c1/scoreboard with the admin token: got\n%s\nwant the public view's\n%s", got.Body, public.Body)
	}
}
