package http_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// MustHiddenTeam adds a hidden group g9 with a team t9 in it, which submits between the others' submissions.
func (e *env) MustHiddenTeam(tb testing.TB) {
	tb.Helper()
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/groups", adminToken,
		map[string]any{"id": "g9", "name": "Jury test teams", "hidden": true}, nil)
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t9", "name": "Test", "group_ids": []string{"g9"}}, nil)
	feed := strings.Join([]string{
		`{"type":"submissions","data":{"id":"h1","team_id":"t9","problem_id":"A","contest_time":"0:10:00"}}`,
		`{"type":"submissions","data":{"id":"h2","team_id":"t9","problem_id":"A","contest_time":"0:40:00"}}`,
		`{"type":"submissions","data":{"id":"h3","team_id":"t9","problem_id":"B","contest_time":"4:15:00"}}`,
	}, "\n") + "\n"
	var res struct{ Accepted int }
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, feed, &res)
	if res.Accepted != 3 {
		tb.Fatalf("got %d submissions of the hidden team accepted, want 3", res.Accepted)
	}
}

// A hidden group does not exist outside the jury view: filtering by it answers as for an unknown group,
// not with an empty page that tells it is there.
func TestHiddenGroupFilterIsUnknown(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustHiddenTeam(t)
	team := e.MustTeamToken(t, "t1")
	tests := []struct {
		name, path, token string
		want              int
	}{
		{"public", "/api/v1/contests/c1/scoreboard?group=g9", "", http.StatusNotFound},
		{"public page", "/api/v1/contests/c1/scoreboard?group=g9&limit=5", "", http.StatusNotFound},
		{"public at", "/api/v1/contests/c1/scoreboard?group=g9&at=2:00:00", "", http.StatusNotFound},
		{"team", "/api/v1/contests/c1/scoreboard?group=g9", team, http.StatusNotFound},
		{"jury", "/api/v1/contests/c1/scoreboard?view=jury&group=g9", judgeToken, http.StatusOK},
		{"public visible group", "/api/v1/contests/c1/scoreboard?group=g1", "", http.StatusOK},
		{"CCS public", "/api/contests/c1/scoreboard?group_id=g9", "", http.StatusNotFound},
		{"CCS jury", "/api/contests/c1/scoreboard?group_id=g9", judgeToken, http.StatusOK},
		{"CCS public visible group", "/api/contests/c1/scoreboard?group_id=g1", "", http.StatusOK},
	}
	unknown := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?group=g8", "", nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do(t, "GET", tt.path, tt.token, nil)
			if r.Status != tt.want {
				t.Fatalf("got status %d, want %d: %s", r.Status, tt.want, r.Body)
			}
			if tt.want == http.StatusNotFound {
				if got, want := strings.ReplaceAll(string(r.Body), "g9", "g8"), string(unknown.Body); got != want {
					t.Errorf("got %s, want the answer for an unknown group: %s", got, want)
				}
			}
		})
	}
}

// The public's pages of submissions are pages of the submissions it may see: a hidden team's submissions
// neither shorten them nor shift them.
func TestSubmissionPagesSkipHiddenTeams(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustHiddenTeam(t)
	ids := func(path, token string) string {
		t.Helper()
		var subs []struct{ ID string }
		e.MustDo(t, http.StatusOK, "GET", path, token, nil, &subs)
		var out []string
		for _, s := range subs {
			out = append(out, s.ID)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		name, query, token, want string
	}{
		{"all", "", "", "s1 s2 s3 s4"},
		{"first two", "?limit=2", "", "s1 s2"},
		{"second", "?offset=1&limit=1", "", "s2"},
		{"from the third", "?offset=2&limit=5", "", "s3 s4"},
		{"problem B", "?problem=B&limit=1", "", "s3"},
		{"problem B second", "?problem=B&offset=1", "", "s4"},
		{"jury", "?view=jury&limit=3", judgeToken, "h1 s1 h2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids("/api/v1/contests/c1/submissions"+tt.query, tt.token); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A verdict the public does not see (a frozen submission's) does not hold back the public's next frame:
// frames are paced per view, so that their timing says nothing of hidden events.
func TestStreamPublicTimingIgnoresHiddenEvents(t *testing.T) {
	e := MustOpenWith(t, options{tick: 3 * time.Second})
	e.MustContest(t)
	next, _ := e.MustStream(t, "", nil)
	if ev := nextFrame(next); ev.name != "retry" {
		t.Fatalf("got %+v, want the retry hint", ev)
	}
	if ev := nextFrame(next); ev.name != "snapshot" {
		t.Fatalf("got %+v, want a snapshot", ev)
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`, nil)
	begin := time.Now()
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s5","team_id":"t1","problem_id":"B","contest_time":"4:25:00"}`, nil)
	ev := nextFrame(next)
	if took := time.Since(begin); ev.name != "diff" || took > time.Second {
		t.Errorf("got %q %v after the public change, want a diff at once", ev.name, took)
	}
}
