package main_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"rankd/postgres/pgtest"
)

// MustDo sends a request with the admin token and fails unless it is answered with want.
func MustDo(tb testing.TB, method, url, body string, want int) {
	tb.Helper()
	resp, err := http.DefaultClient.Do(adminRequest(tb, method, url, body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if data, _ := io.ReadAll(resp.Body); resp.StatusCode != want {
		tb.Fatalf("%s %s: got status %d (%s), want %d", method, url, resp.StatusCode, data, want)
	}
}

// An admin action on one server right after a change on another builds on that change, though the server
// has not heard of it yet (Redis down: the servers read the log only every second): hiding a team just
// renamed elsewhere keeps its new name instead of writing the old one back.
func TestAdminActionsSeeOtherServersChanges(t *testing.T) {
	redis := MustStartRedis(t)
	args := []string{"--postgres", pgtest.MustSchema(t), "--redis", redis.URL()}
	a, b := StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)
	redis.stop()
	MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":{"id":"sync","name":"Sync","duration":"5:00:00"},
		"teams":[{"id":"t1","name":"Alpha"},{"id":"t2","name":"Bravo"}]}`, http.StatusCreated)
	eventually(t, "the second server knows the contest", func() string {
		resp, err := http.Get(b.URL + "/api/v1/contests/sync")
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("status %d", resp.StatusCode)
		}
		return ""
	})
	for i := range 5 {
		name := fmt.Sprintf("Alpha %d", i)
		MustDo(t, "PATCH", a.URL+"/api/v1/contests/sync", `{"teams":[{"id":"t1","name":"`+name+`"}]}`, http.StatusOK)
		MustDo(t, "POST", b.URL+"/api/v1/contests/sync/teams/t1/hide", "", http.StatusOK)
		time.Sleep(10 * time.Millisecond)
		MustDo(t, "DELETE", b.URL+"/api/v1/contests/sync/teams/t1/hide", "", http.StatusOK)
		var teams []struct {
			ID, Name string
			Hidden   bool
		}
		MustGetJSON(t, b.URL+"/api/v1/contests/sync/teams?view=jury", testAdminToken, &teams)
		for _, tm := range teams {
			if tm.ID == "t1" && (tm.Name != name || tm.Hidden) {
				t.Fatalf("after renaming t1 to %q on one server, hiding and showing it on another: got %+v", name, tm)
			}
		}
	}
}

// Servers whose Redis went away subscribe to each other's notices again once it is back: they then see each
// other's events at once, not at their next periodic look at the log, a second later.
func TestNoticesFollowOnceRedisIsBack(t *testing.T) {
	redis := MustStartRedis(t)
	args := []string{"--postgres", pgtest.MustSchema(t), "--redis", redis.URL()}
	a, b := StartRankd(t, t.TempDir(), args...), StartRankd(t, t.TempDir(), args...)
	redis.stop()
	time.Sleep(time.Second)
	redis.start(t)
	MustDo(t, "POST", a.URL+"/api/v1/contests", `{"contest":{"id":"notice","name":"Notice","duration":"5:00:00"},
		"teams":[{"id":"t1","name":"Alpha"}]}`, http.StatusCreated)
	seen := func(name string) bool {
		var teams []struct{ Name string }
		MustGetJSON(t, b.URL+"/api/v1/contests/notice/teams?view=jury", testAdminToken, &teams)
		return len(teams) == 1 && teams[0].Name == name
	}
	eventually(t, "the second server knows the contest", func() string {
		if resp, err := http.Get(b.URL + "/api/v1/contests/notice"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ""
			}
		}
		return "not yet"
	})
	time.Sleep(4 * time.Second) // the servers subscribe again within 1 + 2 s of Redis' return
	begin := time.Now()
	for i := range 5 {
		name := fmt.Sprintf("Alpha %d", i)
		MustDo(t, "PATCH", a.URL+"/api/v1/contests/notice", `{"teams":[{"id":"t1","name":"`+name+`"}]}`, http.StatusOK)
		for !seen(name) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	// By the periodic look alone, five changes take 2.5 s on average.
	if took := time.Since(begin); took > 1500*time.Millisecond {
		t.Errorf("five changes reached the other server in %s, want well under the periodic look's second each", took)
	}
}
