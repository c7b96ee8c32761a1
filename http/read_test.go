package http_test

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"rankd"
)

func TestScoreboardETag(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	first := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard", "", nil)
	etag := first.Header.Get("ETag")
	if first.Status != http.StatusOK || etag == "" || first.Header.Get("Cache-Control") != "public, no-cache" {
		t.Fatalf("got %d, ETag %q, Cache-Control %q", first.Status, etag, first.Header.Get("Cache-Control"))
	}
	req := func(tag string) response {
		r, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("If-None-Match", tag)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return response{Status: resp.StatusCode, Header: resp.Header}
	}
	for _, tag := range []string{etag, "W/" + etag, `"other", ` + etag, `"other", W/` + etag} {
		// Weak (W/"..."): a proxy that compresses the page (nginx's gzip) makes the ETag so.
		if got := req(tag); got.Status != http.StatusNotModified {
			t.Errorf("If-None-Match %s with the current ETag: got %d, want 304", tag, got.Status)
		}
	}
	if got := req(`W/"other"`); got.Status != http.StatusOK {
		t.Errorf("If-None-Match with another weak ETag: got %d, want 200", got.Status)
	}
	// A verdict before the freeze changes the public board: a new ETag, and the old one gets the page.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	if got := req(etag); got.Status != http.StatusOK || got.Header.Get("ETag") == etag {
		t.Errorf("after a public change: got %d with ETag %q, want 200 with a new ETag", got.Status, got.Header.Get("ETag"))
	}
	jury := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil)
	if cc := jury.Header.Get("Cache-Control"); cc != "private, no-cache" {
		t.Errorf("jury page: got Cache-Control %q, want private", cc)
	}
}

// Every read says that it depends on the token, and one a team got in its own view is for no shared cache
// (nor are the jury's: TestScoreboardETag).
func TestCachingByToken(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	team := e.MustTeamToken(t, "t1")
	for _, path := range []string{
		"/api/v1/contests/c1",
		"/api/v1/contests/c1/scoreboard",
		"/api/v1/contests/c1/scoreboard?view=public",
		"/api/v1/contests/c1/submissions",
		"/api/contests/c1/scoreboard",
		"/api/contests/c1/teams",
		"/api/contests/c1/problems",
		"/api/contests/c1/awards",
	} {
		for _, tc := range []struct {
			who, token string
			private    bool
		}{{"anyone", "", false}, {"team", team, !strings.Contains(path, "view=public")}, {"jury", judgeToken, false}} {
			r := e.Do(t, "GET", path, tc.token, nil)
			if r.Status != http.StatusOK {
				t.Errorf("%s by %s: got %d, want 200", path, tc.who, r.Status)
				continue
			}
			if vary := strings.Join(r.Header.Values("Vary"), ", "); !strings.Contains(vary, "Authorization") {
				t.Errorf("%s by %s: got Vary %q, want Authorization in it", path, tc.who, vary)
			}
			if cc := r.Header.Get("Cache-Control"); tc.private && !strings.HasPrefix(cc, "private") {
				t.Errorf("%s by %s: got Cache-Control %q, want private", path, tc.who, cc)
			}
		}
	}
}

// A client that takes gzip gets the page compressed.
func TestScoreboardGzip(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip") // set by hand, so the client does not decompress it itself
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("got Content-Encoding %q, want gzip", ce)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var sb struct{ Total int }
	if err := json.NewDecoder(zr).Decode(&sb); err != nil || sb.Total != 3 {
		t.Errorf("got %+v, %v; want the page of 3 teams", sb, err)
	}
}

// A submission after its team's solve, and its verdict, show in the submissions lists already read (cached
// by the view's sequence number, which they now move), the public's and the jury's.
func TestSubmissionsListAfterASolve(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	list := func(token string) string {
		path := "/api/v1/contests/c1/submissions?team=t1"
		if token != "" {
			path += "&view=jury"
		}
		r := e.Do(t, "GET", path, token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: got %d: %s", path, r.Status, r.Body)
		}
		return string(r.Body)
	}
	for _, token := range []string{"", adminToken} {
		list(token) // cached
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s9","team_id":"t1","problem_id":"A","contest_time":"1:30:00"}`, nil)
	for _, token := range []string{"", adminToken} {
		if got := list(token); !strings.Contains(got, `"s9"`) {
			t.Errorf("token %q: got %s, want s9 listed", token, got)
		}
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j9","submission_id":"s9","judgement_type_id":"WA","start_contest_time":"1:31:00"}`, nil)
	for _, token := range []string{"", adminToken} {
		if got := list(token); !strings.Contains(got, `"id":"s9","team_id":"t1","problem_id":"A","contest_time":"1:30:00.000","judgement_type_id":"WA"`) {
			t.Errorf("token %q: got %s, want s9 with its WA", token, got)
		}
	}
}

// Readers that ask at once for a page not rendered yet share one rendering.
func TestPageRenderedOnceForABurst(t *testing.T) {
	e := MustOpen(t)
	cid := e.MustGenContest(t, rankd.ICPC)
	rendered := func() int { return e.MustCounter(t, `rankd_scoreboard_pages_rendered_total{source="board"}`) }
	before := rendered()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			<-start
			if r := e.Do(t, "GET", "/api/v1/contests/"+cid+"/scoreboard", "", nil); r.Status != http.StatusOK {
				t.Errorf("got %d: %s", r.Status, r.Body)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := rendered() - before; got != 1 {
		t.Errorf("20 readers at once of a page not rendered: got %d renderings, want 1", got)
	}
}

// A path with "//", "/./" or "/../" in it (a judge's base URL ending in a slash) is served as the clean
// path: Go's mux answered it with a redirect, an HTML page, which a POST does not follow.
func TestUncleanPathsServed(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct{ method, path, token, body string }{
		{"POST", "/api/v1/contests//c1/submissions", judgeToken, `{"id":"s90","team_id":"t3","problem_id":"A","contest_time":"0:10:00"}`},
		{"POST", "/api/v1/contests/c1/./judgements", judgeToken, `{"id":"j90","submission_id":"s90","judgement_type_id":"AC","start_contest_time":"0:11:00"}`},
		{"GET", "/api/v1/contests/x/../c1/scoreboard/teams/t3", "", ""},
		{"GET", "//api/v1/contests/c1/scoreboard/teams/t3", "", ""},
	} {
		req, err := http.NewRequest(tc.method, e.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Accepted int
			Solved   int
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || tc.method == "POST" && out.Accepted != 1 || tc.method == "GET" && out.Solved != 1 {
			t.Errorf("%s %s: got %d %s (%v) %+v, want 200 JSON, the event accepted, t3 solving it", tc.method, tc.path,
				resp.StatusCode, resp.Header.Get("Content-Type"), err, out)
		}
	}
	// A web page keeps the redirect: its script reads the contest from the address the browser shows.
	resp, err := noRedirect.Get(e.URL + "/contests//c1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode/100 != 3 || loc != "/contests/c1" {
		t.Errorf("GET /contests//c1: got %d to %q, want a redirect to /contests/c1", resp.StatusCode, loc)
	}
}
