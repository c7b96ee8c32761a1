package http_test

import (
	"net/http"
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
		{"/api/contests", "contests.json"},
		{"/api/contests/c1", "contest.json"},
		{"/api/contests/c1/scoreboard", "scoreboard.json"},
		{"/api/contests/c1/state", "state.json"},
		{"/api/contests/c1/awards", "awards.json"},
		{"/api/contests/c1/teams", "teams.json"},
		{"/api/contests/c1/problems", "problems.json"},
		{"/api/contests/c1/groups", "groups.json"},
		{"/api/contests/c1/organizations", "organizations.json"},
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
