package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A page of submissions far beyond the list, whatever its offset, is answered at once, and holds up
// neither the board nor its commits.
func TestSubmissionsHugeOffset(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, q := range []string{
		"?offset=9223372036854775000",
		"?offset=9223372036854775807&limit=1",
		"?offset=9223372036854775743&limit=0",
		"?offset=1000000000",
	} {
		t.Run(q, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/v1/contests/c1/submissions"+q, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("got %v, want an answer at once", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(body) != "[]" {
				t.Errorf("got %d %s, want 200 []", resp.StatusCode, body)
			}
		})
	}
}

// What the public and another team read does not change when frozen submissions are judged: not the
// past, the history, the exports, the reveal, the event feed, nor their ETags and lengths.
func TestFrozenVerdictsLeakNowhere(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	t1 := e.MustTeamToken(t, "t1")
	paths := []string{
		"/api/v1/contests/c1/scoreboard?at=4:20:00", "/api/v1/contests/c1/scoreboard?at=4:29:00&limit=1",
		"/api/v1/contests/c1/history", "/api/v1/contests/c1/history?teams=t2,t3",
		"/api/v1/contests/c1/export?format=csv", "/api/v1/contests/c1/export?format=tsv",
		"/api/v1/contests/c1/export?format=json", "/api/v1/contests/c1/reveal",
		"/api/contests/c1/event-feed?stream=false", "/api/v1/contests/c1/scoreboard/teams/t3",
		"/api/v1/contests/c1/submissions?team=t2", "/api/v1/contests/c1/problems",
		"/api/contests/c1/organizations", "/api/v1/contests/c1/awards",
	}
	read := func(path, token string) string {
		t.Helper()
		r := e.Do(t, "GET", path, token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: got %d: %s", path, r.Status, r.Body)
		}
		return fmt.Sprintf("%s\nETag %s, Content-Length %s", r.Body, r.Header.Get("ETag"), r.Header.Get("Content-Length"))
	}
	before := map[string]string{}
	for _, p := range paths {
		for _, token := range []string{"", t1} {
			before[token+p] = read(p, token)
		}
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}}`,
		`{"type":"judgements","data":{"id":"j4","submission_id":"s4","judgement_type_id":"WA","start_contest_time":"4:21:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:25:00"}}`,
	}, "\n")+"\n", nil)
	for _, p := range paths {
		for _, token := range []string{"", t1} {
			if got, want := read(p, token), before[token+p]; got != want {
				t.Errorf("GET %s (token %q) changed after frozen verdicts:\ngot  %s\nwant %s", p, token, got, want)
			}
		}
	}
}

// A team token exports the public standings, as it reads the public history: the export has no team view.
// An export that fails is an error to read, not a download named as the file.
func TestExportTeamTokenAndErrors(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	t1 := e.MustTeamToken(t, "t1")
	for _, tc := range []struct {
		path, token string
		status      int
		file        string
	}{
		{"/api/v1/contests/c1/export?format=csv", t1, http.StatusOK, `attachment; filename="c1-public.csv"`},
		{"/api/v1/contests/c1/export?format=json", t1, http.StatusOK, `attachment; filename="c1-public.json"`},
		{"/api/v1/contests/c1/export?format=csv&view=team", t1, http.StatusBadRequest, ""},
		{"/api/v1/contests/nope/export?format=csv", "", http.StatusNotFound, ""},
		{"/api/v1/contests/nope/export?format=json", "", http.StatusNotFound, ""},
		{"/api/v1/contests/nope/export?format=xlsx", "", http.StatusNotFound, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := e.Do(t, "GET", tc.path, tc.token, nil)
			if r.Status != tc.status {
				t.Fatalf("got status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			if got := r.Header.Get("Content-Disposition"); got != tc.file {
				t.Errorf("Content-Disposition: got %q, want %q", got, tc.file)
			}
			if tc.status != http.StatusOK {
				return
			}
			public := e.Do(t, "GET", tc.path, "", nil)
			if string(r.Body) != string(public.Body) {
				t.Errorf("got\n%s\nwant the public export\n%s", r.Body, public.Body)
			}
		})
	}
}

// The public reads that need no board answer while a commit (of a frozen judgement) holds the board: their
// time says nothing of it.
func TestPublicDefinitionsDoNotWaitForCommits(t *testing.T) {
	env, store := MustOpenHolding(t)
	checkServedDuringHiddenCommit(t, env, store,
		"/api/contests", "/api/contests/c1", "/api/contests/c1/state", "/contests/c1", "/admin/contests/c1")
}

// checkServedDuringHiddenCommit GETs each path, without a token, while the store holds the commit of a frozen
// judgement, and wants each answered 200 within 2 s.
func checkServedDuringHiddenCommit(t *testing.T, env *env, store *blockingStore, paths ...string) {
	t.Helper()
	store.arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`)
	}()
	<-store.holding // the frozen judgement's commit is under way, held
	for _, p := range paths {
		if code, ok := getWithin(env.URL+p, 2*time.Second); !ok {
			t.Errorf("GET %s waited for the commit", p)
		} else if code != http.StatusOK {
			t.Errorf("GET %s during a commit: got %d, want 200", p, code)
		}
	}
	store.hold <- struct{}{}
	<-done
}

// The public reads that need the board answer while a commit of a frozen judgement, applied, waits for the
// disk: the public view is as it was, and their time says nothing of the commit.
func TestPublicReadsDoNotWaitForHiddenSyncs(t *testing.T) {
	env, store := MustOpenHolding(t)
	store.syncing = true
	checkServedDuringHiddenCommit(t, env, store, "/api/v1/contests", "/api/v1/contests/c1",
		"/api/v1/contests/c1/scoreboard?offset=1&limit=1", "/api/v1/contests/c1/scoreboard/teams/t1",
		"/api/v1/contests/c1/problems", "/api/v1/contests/c1/teams", "/api/v1/contests/c1/submissions",
		"/api/v1/contests/c1/awards", "/api/v1/contests/c1/reveal", "/api/v1/contests/c1/export?format=csv",
		"/api/contests/c1/scoreboard", "/api/contests/c1/awards", "/api/contests/c1/teams", "/api/contests/c1/problems",
		"/api/contests/c1/groups", "/api/contests/c1/organizations", "/api/contests/c1/judgement-types", "/contests/c1")
}

// The public stream's frames do not wait for the sync of a commit of hidden verdicts, though the jury's
// stream has a frame to make of it: a spectator would see a frame late whenever the jury's verdicts come.
func TestPublicFramesDoNotWaitForHiddenSyncs(t *testing.T) {
	env, store := mustOpenHoldingTick(t, 500*time.Millisecond)
	store.syncing = true
	jury, _ := env.MustStream(t, "?view=jury", map[string]string{"Authorization": "Bearer " + adminToken})
	public, _ := env.MustStream(t, "", nil)
	for _, next := range []func() sseEvent{jury, public} {
		for _, want := range []string{"retry", "snapshot"} {
			if ev := nextFrame(next); ev.name != want {
				t.Fatalf("got %+v, want %s", ev, want)
			}
		}
	}
	// A public change gets its frame at once; the next one, within the tick, at the tick's end.
	env.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:02:00"}`, nil)
	if ev := nextFrame(public); ev.name != "diff" {
		t.Fatalf("got %+v, want the diff of t2's solve", ev)
	}
	env.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s5","team_id":"t1","problem_id":"B","contest_time":"4:25:00"}`, nil)
	store.arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`)
	}()
	<-store.holding // the frozen judgement is applied, its commit waiting for the disk
	if ev := nextFrame(public); ev.name != "diff" || !strings.Contains(ev.data, `"t1"`) {
		t.Errorf("the public stream during the sync: got %+v, want the diff of t1's frozen submission", ev)
	}
	store.hold <- struct{}{}
	<-done
	for {
		ev := nextFrame(jury)
		if ev.name != "diff" {
			t.Fatalf("the jury's stream after the sync: got %+v, want the diff of t2's frozen solve", ev)
		}
		if strings.Contains(ev.data, `"B"`) && strings.Contains(ev.data, `"t2"`) {
			break
		}
	}
}

// The jury's stream gets the frame of a commit as soon as its sync ends, though the next commit starts at
// once and waits for the disk in turn: a busy committer kept the jury's and the teams' frames waiting.
func TestJuryFramesBetweenBusyCommits(t *testing.T) {
	env, store := MustOpenHolding(t)
	store.syncing = true
	jury, _ := env.MustStream(t, "?view=jury", map[string]string{"Authorization": "Bearer " + adminToken})
	for _, want := range []string{"retry", "snapshot"} {
		if ev := nextFrame(jury); ev.name != want {
			t.Fatalf("got %+v, want %s", ev, want)
		}
	}
	store.always = true
	post := func(body string) chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken, body)
		}()
		return done
	}
	first := post(`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`)
	// The first commit waits for the disk, and its jury frame for it: time for the push to find it so.
	<-store.holding
	time.Sleep(300 * time.Millisecond)
	second := post(`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`)
	store.hold <- struct{}{}
	<-first
	<-store.holding // the second commit waits for the disk
	if ev := nextFrame(jury); ev.name != "diff" || !strings.Contains(ev.data, `"t2"`) {
		t.Errorf("the jury's stream while the next commit syncs: got %+v, want the diff of t2's solve", ev)
	}
	store.hold <- struct{}{}
	<-second
}

// The public big screen goes on while a commit (of a frozen judgement) holds the board: its frames come
// from the cache, so neither its pings nor its frames wait, and their time says nothing of the commit.
func TestBigScreenDoesNotWaitForCommits(t *testing.T) {
	env, store := MustOpenHolding(t)
	next, _ := env.MustStream(t, "?top=2&throttle=100ms", nil)
	if ev := nextFrame(next); ev.name != "retry" {
		t.Fatalf("got %+v, want the retry hint", ev)
	}
	if ev := nextFrame(next); ev.name != "top" {
		t.Fatalf("got %+v, want the top rows", ev)
	}
	store.arm()
	done := make(chan struct{})
	go func() {
		defer close(done)
		env.Do(t, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`)
	}()
	<-store.holding // the frozen judgement's commit is under way, holding the board
	released := false
	release := func() {
		if !released {
			released = true
			store.hold <- struct{}{}
			<-done
		}
	}
	t.Cleanup(release)
	begin := time.Now()
	for range 5 { // pings every 50 ms, and frames looked for every 100 ms
		if ev := next(); ev.name != ":" {
			t.Fatalf("got %+v, want pings only: the public view did not change", ev)
		}
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("5 pings took %v during the commit, want them on time", took)
	}
	release()
}
