package main_test

import (
	"fmt"
	"reflect"
	"testing"

	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/redis/redistest"
)

// A database started afresh beside a Redis that served another one (a rehearsal, then the contest under the
// same ids; or a database restored from an older dump): the old projection is further on than the new log,
// and must not be taken for the new board. The rehearsal has teams the contest does not: pages from a
// projection patched on top of the rehearsal's would list them.
func TestServeNewDatabaseBesideOldRedis(t *testing.T) {
	redisURL, prefix := redistest.MustServer(t), redistest.MustPrefix(t)
	rehearsal := gen.Config{Seed: 7, ContestID: "c", Teams: 30, Problems: 5, Submissions: 600}.WithDefaults()
	contest := gen.Config{Seed: 8, ContestID: "c", Teams: 20, Problems: 5, Submissions: 1500}.WithDefaults()
	for _, cfg := range []gen.Config{rehearsal, contest} {
		node := StartRankd(t, t.TempDir(), "--postgres", pgtest.MustSchema(t), "--redis", redisURL, "--redis-prefix", prefix)
		data, _ := genFeed(t, cfg)
		for i, b := range splitLines(data, 200) {
			if res, err := postFeed(node.URL, cfg.ContestID, b); err != nil || res.Rejected > 0 {
				t.Fatalf("%d teams, batch %d: %v, %+v", cfg.Teams, i, err, res)
			}
		}
		board := MustPage(t, node.URL, cfg.ContestID, "view=jury") // every row: the board's own page
		if len(board.Rows) != cfg.Teams {
			t.Fatalf("got %d rows, want %d", len(board.Rows), cfg.Teams)
		}
		limit := 1000 // a new page each time, so that none comes from the server's cache of pages
		eventually(t, fmt.Sprintf("%d teams: a page from the projection holds the board", cfg.Teams), func() string {
			before := MustMetric(t, node.URL, `rankd_scoreboard_pages_rendered_total{source="projection"}`)
			limit--
			page := MustPage(t, node.URL, cfg.ContestID, fmt.Sprintf("view=jury&limit=%d", limit))
			switch {
			case MustMetric(t, node.URL, `rankd_scoreboard_pages_rendered_total{source="projection"}`) == before:
				return "the page came from the board"
			case page.Seq != board.Seq || !reflect.DeepEqual(page.Rows, board.Rows):
				return fmt.Sprintf("the projection's page (seq %d, %d rows) differs from the board's (seq %d, %d rows)",
					page.Seq, len(page.Rows), board.Seq, len(board.Rows))
			}
			return ""
		})
		node.Stop(t)
	}
}
