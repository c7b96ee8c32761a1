package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd/postgres/pgtest"
)

// adminRequest is a request with the admin token; a body of several lines is NDJSON, another JSON.
func adminRequest(tb testing.TB, method, url, body string) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(method, url, bytes.NewBufferString(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	req.Header.Set("Content-Type", "application/json")
	if strings.Count(body, "\n") > 1 {
		req.Header.Set("Content-Type", "application/x-ndjson")
	}
	return req
}

// statusOf sends a request with the admin token and returns its status.
func statusOf(tb testing.TB, method, url, body string) int {
	tb.Helper()
	resp, err := http.DefaultClient.Do(adminRequest(tb, method, url, body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// atOnce sends the requests at the same moment and returns their statuses, in order.
func atOnce(tb testing.TB, reqs ...[3]string) []int {
	tb.Helper()
	statuses := make([]int, len(reqs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, r := range reqs {
		wg.Go(func() {
			<-start
			statuses[i] = statusOf(tb, r[0], r[1], r[2])
		})
	}
	close(start)
	wg.Wait()
	return statuses
}

// Admin actions sent at the same moment to two servers of the distributed mode, each built from what its
// server read: none undoes another's change, whichever commits first, and a step or a contest is made once.
// (A team sent whole replaces the team: hidden, it is shown again; the hide must not write the old name back.)
func TestAdminActionsRaceOnTwoServers(t *testing.T) {
	redis := MustStartRedis(t)
	args := []string{"--postgres", pgtest.MustSchema(t), "--redis", redis.URL()}
	a, b := StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)
	now := time.Now().UTC()
	contest := func(id string, start time.Time, penalty int) string {
		return fmt.Sprintf(`{"id":%q,"name":"Race","start_time":%q,"duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","penalty_time":%d}`,
			id, start.Format(time.RFC3339), penalty)
	}

	t.Run("hide and rename", func(t *testing.T) {
		MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":`+contest("hide", now.Add(-time.Hour), 20)+`,
			"teams":[{"id":"t1","name":"Alpha"}]}`, http.StatusCreated)
		for k := range 12 {
			name := fmt.Sprintf("Alpha %d", k)
			got := atOnce(t,
				[3]string{"PATCH", a.URL + "/api/v1/contests/hide", `{"teams":[{"id":"t1","name":"` + name + `"}]}`},
				[3]string{"POST", b.URL + "/api/v1/contests/hide/teams/t1/hide", ""})
			if got[0] != http.StatusOK || got[1] != http.StatusOK {
				t.Fatalf("round %d: got statuses %v, want 200 and 200", k, got)
			}
			for _, srv := range []*rankdProc{a, b} {
				eventually(t, "both changes on "+srv.URL, func() string {
					var teams []struct {
						ID, Name string
						Hidden   bool
					}
					MustGetJSON(t, srv.URL+"/api/v1/contests/hide/teams?view=jury", testAdminToken, &teams)
					if len(teams) != 1 || teams[0].Name != name {
						return fmt.Sprintf("round %d: got %+v, want t1 named %q", k, teams, name)
					}
					return ""
				})
			}
			MustDo(t, "DELETE", b.URL+"/api/v1/contests/hide/teams/t1/hide", "", http.StatusOK)
		}
	})

	t.Run("freeze and redefine", func(t *testing.T) {
		MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":`+contest("freeze", now.Add(-time.Hour), 20)+`}`, http.StatusCreated)
		for k := range 8 {
			penalty := 21 + k
			got := atOnce(t,
				[3]string{"PATCH", a.URL + "/api/v1/contests/freeze", `{"contest":` + contest("freeze", now.Add(-time.Hour), penalty) + `}`},
				[3]string{"POST", b.URL + "/api/v1/contests/freeze/freeze", ""})
			// The redefinition keeps the freeze at 4:00: after the freeze by hand, it is refused.
			if got[1] != http.StatusOK || got[0] != http.StatusOK && got[0] != http.StatusConflict {
				t.Fatalf("round %d: got statuses %v, want 200 or 409, and 200", k, got)
			}
			for _, srv := range []*rankdProc{a, b} {
				eventually(t, "the freeze, and the redefinition if taken, on "+srv.URL, func() string {
					var c struct {
						PenaltyTime int    `json:"penalty_time"`
						Freeze      string `json:"scoreboard_freeze_duration"`
					}
					MustGetJSON(t, srv.URL+"/api/v1/contests/freeze", testAdminToken, &c)
					if got[0] == http.StatusOK && c.PenaltyTime != penalty || c.Freeze == "1:00:00.000" {
						return fmt.Sprintf("round %d (statuses %v): got penalty %d and freeze %s, want penalty %d and the freeze by hand",
							k, got, c.PenaltyTime, c.Freeze, penalty)
					}
					return ""
				})
			}
			MustDo(t, "POST", b.URL+"/api/v1/contests/freeze/thaw", "", http.StatusOK)
			MustDo(t, "PATCH", a.URL+"/api/v1/contests/freeze", `{"contest":`+contest("freeze", now.Add(-time.Hour), 20)+`}`, http.StatusOK)
		}
	})

	t.Run("freeze and a judge system's contest", func(t *testing.T) {
		MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":`+contest("feed", now.Add(-time.Hour), 20)+`}`, http.StatusCreated)
		for k := range 8 {
			// The contest as the judge system sends it again (its freeze at 4:00), once per round.
			line := `{"type":"contest","id":"feed","data":` + contest("feed", now.Add(-time.Hour), 30+k) + "}\n"
			got := atOnce(t,
				[3]string{"POST", a.URL + "/api/v1/contests/feed/events", line},
				[3]string{"POST", b.URL + "/api/v1/contests/feed/freeze", ""})
			// The contest, sent after the freeze by hand, would move it back: refused (one event: the request's status).
			if got[0] != http.StatusOK && got[0] != http.StatusConflict || got[1] != http.StatusOK {
				t.Fatalf("round %d: got statuses %v, want 200 or 409, and 200", k, got)
			}
			for _, srv := range []*rankdProc{a, b} {
				eventually(t, "the freeze by hand on "+srv.URL, func() string {
					var c struct {
						Freeze string `json:"scoreboard_freeze_duration"`
						Frozen bool
					}
					MustGetJSON(t, srv.URL+"/api/v1/contests/feed", testAdminToken, &c)
					if !c.Frozen || c.Freeze == "1:00:00.000" {
						return fmt.Sprintf("round %d: got %+v, want the freeze by hand", k, c)
					}
					return ""
				})
			}
			MustDo(t, "POST", b.URL+"/api/v1/contests/feed/thaw", "", http.StatusOK)
			MustDo(t, "PATCH", a.URL+"/api/v1/contests/feed", `{"contest":`+contest("feed", now.Add(-time.Hour), 20)+`}`, http.StatusOK)
		}
	})

	t.Run("create", func(t *testing.T) {
		for k := range 6 {
			id := fmt.Sprintf("new%d", k)
			got := atOnce(t,
				[3]string{"POST", a.URL + "/api/v1/contests", `{"contest":` + contest(id, now, 20) + `,"teams":[{"id":"ta","name":"A"}]}`},
				[3]string{"POST", b.URL + "/api/v1/contests", `{"contest":` + contest(id, now, 20) + `,"teams":[{"id":"tb","name":"B"}]}`})
			created := 0
			for _, s := range got {
				switch s {
				case http.StatusCreated:
					created++
				case http.StatusConflict:
				default:
					t.Fatalf("round %d: got statuses %v, want one 201 and one 409", k, got)
				}
			}
			var teams []struct{ ID string }
			MustGetJSON(t, a.URL+"/api/v1/contests/"+id+"/teams?view=jury", testAdminToken, &teams)
			if created != 1 || len(teams) != 1 {
				t.Fatalf("round %d: got statuses %v and teams %v, want one contest created with its team", k, got, teams)
			}
		}
	})

	t.Run("reveal", func(t *testing.T) {
		// Ended and frozen: each team's solve in the last hour is a step of the reveal.
		MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":`+contest("rev", now.Add(-6*time.Hour), 20)+`,
			"problems":[{"id":"p","label":"A","name":"P","ordinal":0}],
			"teams":[{"id":"t1","name":"One"},{"id":"t2","name":"Two"},{"id":"t3","name":"Three"},{"id":"t4","name":"Four"}]}`, http.StatusCreated)
		var lines []string
		for i := 1; i <= 4; i++ {
			lines = append(lines,
				fmt.Sprintf(`{"type":"submissions","id":"%d","data":{"id":"%d","team_id":"t%d","problem_id":"p","contest_time":"4:%02d:00"}}`, i, i, i, 10*i),
				fmt.Sprintf(`{"type":"judgements","id":"%d","data":{"id":"%d","submission_id":"%d","judgement_type_id":"AC","start_contest_time":"4:%02d:01"}}`, i, i, i, 10*i))
		}
		if got := statusOf(t, "POST", a.URL+"/api/v1/contests/rev/events", strings.Join(lines, "\n")+"\n"); got != http.StatusOK {
			t.Fatalf("posting the submissions: got status %d, want 200", got)
		}
		eventually(t, "the events on the second server", func() string {
			if got := statusOf(t, "GET", b.URL+"/api/v1/contests/rev/scoreboard/teams/t4?view=jury", ""); got != http.StatusOK {
				return fmt.Sprintf("status %d", got)
			}
			var row struct{ Solved int }
			MustGetJSON(t, b.URL+"/api/v1/contests/rev/scoreboard/teams/t4?view=jury", testAdminToken, &row)
			if row.Solved != 1 {
				return "not yet"
			}
			return ""
		})
		// Step 1 named on both servers: made once. Then "the next step" on both: two steps.
		body := `{"step":1}`
		got := atOnce(t, [3]string{"POST", a.URL + "/api/v1/contests/rev/reveal/next", body},
			[3]string{"POST", b.URL + "/api/v1/contests/rev/reveal/next", body})
		if got[0] != http.StatusOK || got[1] != http.StatusOK {
			t.Fatalf("step 1 on both servers: got statuses %v, want 200 and 200", got)
		}
		got = atOnce(t, [3]string{"POST", a.URL + "/api/v1/contests/rev/reveal/next", ""},
			[3]string{"POST", b.URL + "/api/v1/contests/rev/reveal/next", ""})
		if got[0] != http.StatusOK || got[1] != http.StatusOK {
			t.Fatalf("the next step on both servers: got statuses %v, want 200 and 200", got)
		}
		req, _ := http.NewRequest("GET", a.URL+"/api/contests/rev/event-feed?stream=false", nil)
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		feed, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var steps []string
		for line := range strings.SplitSeq(string(feed), "\n") {
			if strings.Contains(line, `"type":"reveal"`) {
				var ev struct{ ID string }
				_ = json.Unmarshal([]byte(line), &ev)
				steps = append(steps, ev.ID)
			}
		}
		if strings.Join(steps, ",") != "1,2,3" {
			t.Errorf("reveal steps in the event feed: got %v, want 1, 2 and 3, each once", steps)
		}
	})
}
