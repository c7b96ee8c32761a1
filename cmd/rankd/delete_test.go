package main_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rankd/gen"
)

// A contest deleted on one server of the distributed mode is gone from the other at once (Redis' notice),
// its events sent there are refused as of an unknown contest, and the id created again on that server makes
// a new contest that both serve as its own log says, pages from the shared projection included.
func TestDistributedDeleteContest(t *testing.T) {
	cfg := gen.Config{Seed: 5, ContestID: "del", Teams: 20, Problems: 4, Submissions: 300, Start: runningStart()}.WithDefaults()
	nodes, batches, _ := MustStartCluster(t, 2, cfg)
	for _, b := range batches {
		if _, err := postFeed(nodes[0].URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
	}
	contest := "/api/v1/contests/" + cfg.ContestID
	MustDo(t, "DELETE", nodes[1].URL+contest, "", http.StatusOK)
	eventually(t, "server 0 forgets the contest", func() string {
		if code := MustStatus(t, nodes[0].URL+contest+"/scoreboard", testAdminToken); code != http.StatusNotFound {
			return "status " + http.StatusText(code)
		}
		return ""
	})
	if _, err := postFeed(nodes[0].URL, cfg.ContestID, batches[0]); err == nil || !strings.Contains(err.Error(), "status 404") {
		t.Errorf("events of the deleted contest on server 0: got %v, want status 404", err)
	}

	again := gen.Config{Seed: 6, ContestID: cfg.ContestID, Teams: 12, Problems: 3, Submissions: 150, Start: runningStart()}.WithDefaults()
	data, _ := genFeed(t, again)
	path := filepath.Join(t.TempDir(), "again.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range splitLines(data, 100) {
		if _, err := postFeed(nodes[0].URL, again.ContestID, b); err != nil {
			t.Fatal(err)
		}
	}
	want := offlineRows(t, path, "public")
	for i, n := range nodes {
		eventually(t, "the contest created again", func() string {
			if got := MustServedRows(t, n.URL, again.ContestID, "public"); got != want {
				return "server " + string(rune('0'+i)) + " serves another board"
			}
			return ""
		})
	}
}
