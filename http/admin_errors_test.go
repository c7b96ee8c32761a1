package http_test

import (
	"net/http"
	"strings"
	"testing"
)

// A contest bundle that is wrong is answered 400 with what is wrong in the user's terms: an invalid contest
// was answered 404 "no contest", a member of the wrong type with Go's type names, and a bad object was
// numbered after six default judgement types the request never had.
func TestContestBundleErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(b map[string]any)
		want    string // in the message
		without string // not in the message
	}{
		{name: "contest without a duration", edit: func(b map[string]any) { delete(b["contest"].(map[string]any), "duration") },
			want: `"duration"`, without: "line 1"},
		{name: "start time without its zone", edit: func(b map[string]any) { b["contest"].(map[string]any)["start_time"] = "2026-03-01T10:00:00" },
			want: `"start_time"`},
		{name: "unknown rules", edit: func(b map[string]any) { b["contest"].(map[string]any)["rankd"] = map[string]any{"rules": "foo"} },
			want: "foo"},
		{name: "teams as an object", edit: func(b map[string]any) { b["teams"] = map[string]any{"id": "t1"} },
			want: `"teams" must be a list of objects`, without: "Go"},
		{name: "unknown member", edit: func(b map[string]any) { b["contestants"] = []any{} },
			want: `unknown field "contestants"`, without: "json:"},
		{name: "a team without its id", edit: func(b map[string]any) { b["teams"] = []any{map[string]any{"name": "Nameless"}} },
			want: `item 3: teams: "id": required`}, // the contest, a group, then the team
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := MustOpen(t)
			b := testContest()
			delete(b, "problems")
			tc.edit(b)
			var body struct{ Code, Message string }
			status := http.StatusBadRequest
			if strings.HasPrefix(tc.want, "item") {
				status = http.StatusCreated // the contest is created, the team rejected
				var res struct {
					Results []struct{ Code, Message string }
				}
				e.MustDo(t, status, "POST", "/api/v1/contests", adminToken, b, &res)
				for _, r := range res.Results {
					if r.Code != "" {
						body.Code, body.Message = r.Code, r.Message
					}
				}
			} else {
				e.MustDo(t, status, "POST", "/api/v1/contests", adminToken, b, &body)
			}
			if body.Code != "invalid" || !strings.Contains(body.Message, tc.want) || tc.without != "" && strings.Contains(body.Message, tc.without) {
				t.Errorf("got %s %q, want invalid saying %q (and not %q)", body.Code, body.Message, tc.want, tc.without)
			}
		})
	}
}
