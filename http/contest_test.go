package http_test

import (
	"net/http"
	"slices"
	"testing"
)

// GET /api/v1/contests/{id} carries rankd's settings as the CCS objects do, and names a hidden group to the
// jury only.
func TestGetContest(t *testing.T) {
	e := MustOpen(t)
	c := testContest()
	c["contest"].(map[string]any)["rankd"] = map[string]any{"rules": "icpc",
		"medals": map[string]int{"gold": 1, "silver": 1, "bronze": 1}}
	c["groups"] = append(c["groups"].([]any), map[string]any{"id": "g2", "name": "Guests", "hidden": true})
	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, c, nil)
	team := e.MustTeamToken(t, "t1")

	tests := []struct {
		name   string
		token  string
		groups []string
	}{
		{name: "public", groups: []string{"g1"}},
		{name: "team", token: team, groups: []string{"g1"}},
		{name: "judge", token: judgeToken, groups: []string{"g1", "g2"}},
		{name: "admin", token: adminToken, groups: []string{"g1", "g2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Rules  string
				Groups []struct{ ID string }
				Rankd  struct {
					Rules  string
					Medals struct{ Gold, Silver, Bronze int }
				}
				Problems []struct{ ID string }
			}
			e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", tt.token, nil, &got)
			var groups []string
			for _, g := range got.Groups {
				groups = append(groups, g.ID)
			}
			if !slices.Equal(groups, tt.groups) {
				t.Errorf("groups: got %v, want %v", groups, tt.groups)
			}
			if got.Rankd.Rules != "icpc" || got.Rankd.Medals.Gold != 1 || got.Rankd.Medals.Bronze != 1 {
				t.Errorf("rankd: got %+v, want rules icpc and one medal of each", got.Rankd)
			}
			if len(got.Problems) != 2 {
				t.Errorf("problems: got %d, want 2", len(got.Problems))
			}
		})
	}
}
