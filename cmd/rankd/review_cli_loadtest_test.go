package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rankd loadtest writes only into contests of its own (or synthetic ones, as scripts/bench-serve's): given
// the id of a real contest, it refuses before posting anything, so the real board and log stay as they were.
func TestLoadtestLeavesRealContestsAlone(t *testing.T) {
	euc := feed(t, "euc2025")
	data, err := os.ReadFile(euc)
	if err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	for _, batch := range splitLines(data, 1000) {
		if _, err := postFeed(p.URL, "euc2025", batch); err != nil {
			t.Fatal(err)
		}
	}
	synthetic := filepath.Join(t.TempDir(), "gen.ndjson")
	MustRun(t, "gen", "--id", "euc2025", "--teams", "5", "--submissions", "40", "--out", synthetic)
	t.Setenv("RANKD_ADMIN_TOKEN", testAdminToken)
	t.Setenv("RANKD_JUDGE_TOKEN", testJudgeToken)
	want := MustServedRows(t, p.URL, "euc2025", "jury")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"post", []string{"--mode", "post", "--team", "30", "--problem", "A-condorcet-elections-NMXHOY", "--clients", "1", "--duration", "300ms"}},
		{"stream", []string{"--mode", "stream", "--clients", "1", "--rate", "50", "--duration", "300ms", "--teams", "60", "--problems", "2"}},
		{"ingest", []string{"--mode", "ingest", "--feed", synthetic}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(append([]string{"loadtest", "--server", p.URL, "--contest", "euc2025"}, tt.args...)...)
			if err == nil || !strings.Contains(errOut, "not a load test's") {
				t.Errorf("got %v, %q, %q; want a refusal saying the contest is not a load test's", err, out, errOut)
			}
			if got := MustServedRows(t, p.URL, "euc2025", "jury"); got != want {
				t.Errorf("the real contest's board changed:\ngot  %.600s\nwant %.600s", got, want)
			}
		})
	}
	// A contest of the load test's own can be loaded again.
	for range 2 {
		MustRun(t, "loadtest", "--server", p.URL, "--contest", "load", "--mode", "stream", "--clients", "1",
			"--rate", "20", "--duration", "300ms", "--teams", "5", "--problems", "2")
	}
}

// loadtest --mode read reads pages whole, gzip-compressed as wrk asks for them, and counts a page that is not
// served as failed.
func TestLoadtestReadsPages(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	synthetic := filepath.Join(t.TempDir(), "gen.ndjson")
	MustRun(t, "gen", "--id", "g", "--teams", "60", "--submissions", "200", "--out", synthetic)
	data, err := os.ReadFile(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := postFeed(p.URL, "g", data); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		contest string
		ok      bool
	}{{"g", true}, {"nothing", false}} {
		out, errOut, err := run("loadtest", "--server", p.URL, "--contest", tt.contest, "--mode", "read",
			"--clients", "2", "--duration", "300ms", "--json")
		var res struct{ Requests, Failed int }
		_ = json.Unmarshal([]byte(out), &res)
		if tt.ok && (err != nil || res.Requests == 0 || res.Failed != 0) {
			t.Errorf("%s: got %+v (%v, %q), want pages read and none failed", tt.contest, res, err, errOut)
		}
		if !tt.ok && (err == nil || !strings.Contains(err.Error(), "status 404")) {
			t.Errorf("%s: got %v, %q, %q; want an error saying the page was not found", tt.contest, err, out, errOut)
		}
	}
}
