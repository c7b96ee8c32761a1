package http_test

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"testing"
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
	if got := req(etag); got.Status != http.StatusNotModified {
		t.Errorf("If-None-Match with the current ETag: got %d, want 304", got.Status)
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
