package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The public view of a contest finalized before its thaw (the CCS allows it) is its final board, as for a
// thawed one: the server keeps its public board frozen until the thaw, the offline standings show the
// results the feed says are final, and so do the exports.
func TestStandingsOfAFinalizedContestAreFinal(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	unthawed := regexp.MustCompile(`,"thawed":"[^"]*"`).ReplaceAll(data, nil)
	path := filepath.Join(t.TempDir(), "finalized.ndjson")
	if err := os.WriteFile(path, unthawed, 0o644); err != nil {
		t.Fatal(err)
	}
	want := MustRun(t, "standings", "--feed", feed(t, "euc2025"))
	if got := MustRun(t, "standings", "--feed", path); got != want {
		t.Errorf("text: got\n%.800s\nwant the thawed contest's\n%.800s", got, want)
	}
	want = scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", feed(t, "euc2025"), "--format", "ccs")))
	if got := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--format", "ccs"))); got != want {
		t.Errorf("ccs rows: got\n%.800s\nwant the thawed contest's\n%.800s", got, want)
	}
	// The exports are the same standings.
	for _, format := range []string{"csv", "tsv"} {
		want := MustRun(t, "export", "--format", format, feed(t, "euc2025"))
		if got := MustRun(t, "export", "--format", format, path); got != want {
			t.Errorf("export %s: got\n%.800s\nwant the thawed contest's\n%.800s", format, got, want)
		}
	}
}
