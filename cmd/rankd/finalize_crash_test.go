package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"rankd"
	"rankd/gen"
	"rankd/sqlite"
	"rankd/stream"
)

// rescueAfter is the test servers' --finalize-rescue-after: the build of the test contest takes well under
// half of it, even with the race detector.
const rescueAfter = "8s"

// A server killed (SIGKILL) while it builds a contest's final standings leaves the job building; once
// restarted, the job is taken up again and done, exactly once: one version of the final standings, equal to
// the offline board, after a second attempt.
func TestFinalizeSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: waits for the job to be rescued")
	}
	// 2,000 teams: storing their rows takes long enough to be seen building. The contest has no start time
	// (none scheduled, none recorded in its state), so that only the finalization asked for runs: none is
	// scheduled at an end, and none refused before it.
	cfg := gen.Config{Seed: 11, ContestID: "kill", Teams: 2000, Problems: 12, Submissions: 6000}
	data, _ := genFeed(t, cfg)
	data = regexp.MustCompile(`"(start_time|started)":"[^"]*"`).ReplaceAll(data, []byte(`"$1":null`))
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := StartRankd(t, dir, "--finalize-rescue-after", rescueAfter)
	for _, batch := range splitLines(data, 5000) {
		if _, err := postFeed(p.URL, cfg.ContestID, batch); err != nil {
			t.Fatal(err)
		}
	}

	base := "/api/v1/contests/" + cfg.ContestID + "/finalize"
	var st struct {
		finalStatus
		RunAt time.Time `json:"run_at"`
	}
	MustPostAdmin(t, p.URL+base, http.StatusAccepted, &st)
	for deadline := time.Now().Add(30 * time.Second); st.State != "building"; time.Sleep(2 * time.Millisecond) {
		if st.Version != 0 || time.Now().After(deadline) {
			t.Fatalf("the finalization was not seen building: %+v", st)
		}
		MustGetJSON(t, p.URL+base, testAdminToken, &st)
	}
	p.Kill()
	killed := time.Now()

	p = StartRankd(t, dir, "--finalize-rescue-after", rescueAfter)
	MustGetJSON(t, p.URL+base, testAdminToken, &st)
	if st.State != "building" || st.Version != 0 {
		t.Fatalf("after the restart: got %+v, want still building, no version", st)
	}
	// The job is rescued once the dead server's lease of the jobs ran out (up to 15 s) and it was building
	// for longer than rescueAfter, then retried after 2 s.
	for deadline := killed.Add(45 * time.Second); st.Version == 0 || st.State == "building"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the finalization is not done %v after the kill: %+v\n%s", time.Since(killed).Round(time.Second), st, p.Logs())
		}
		MustGetJSON(t, p.URL+base, testAdminToken, &st)
	}
	t.Logf("done %v after the kill", time.Since(killed).Round(100*time.Millisecond))
	if st.Version != 1 || st.State != "done" {
		t.Errorf("got %+v, want version 1, done", st)
	}

	offline, _ := MustLoad(t, path)
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		var final struct {
			Version int64
			Rows    []stream.RowData
		}
		MustGetJSON(t, p.URL+"/api/v1/contests/"+cfg.ContestID+"/final?view="+v.String(), testAdminToken, &final)
		want, err := offline.Standings(v, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		wantVersion := int64(1)
		if v.Kind == rankd.ViewPublic {
			wantVersion = 0 // the jury's only
		}
		if got, want := finalRows(final.Rows), offlineFinalRows(want.Rows); final.Version != wantVersion || !slices.Equal(got, want) {
			t.Errorf("%s view: got version %d with %d rows, want %d with the offline board's %d", v, final.Version, len(got), wantVersion, len(want))
		}
	}

	p.Stop(t)
	if n := finalVersions(t, dir, cfg.ContestID); n != 1 {
		t.Errorf("got %d versions of the final standings stored, want 1", n)
	}
	if got := handRuns(t, dir); !slices.Equal(got, []string{"completed after 2 attempts"}) {
		t.Errorf("finalizations by hand: got %q, want one completed after 2 attempts", got)
	}
}

// finalRows summarizes rows served: rank, team, totals and each cell.
func finalRows(rows []stream.RowData) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%d %s %d %d %g %d", r.Rank, r.TeamID, r.Solved, r.Penalty, r.Score, r.TimeMS)
		for _, c := range r.Cells {
			out[i] += fmt.Sprintf(" %s:%t/%t/%d/%d/%d/%d", c.ProblemID, c.Solved, c.FirstToSolve, c.Judged, c.Pending, c.TimeMS, c.Penalty)
		}
	}
	return out
}

// offlineFinalRows summarizes a board's rows as finalRows does.
func offlineFinalRows(rows []rankd.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%d %s %d %d %g %d", r.Rank, r.TeamID, r.Solved, r.Penalty, r.Score, r.Time.Milliseconds())
		for _, c := range r.Cells {
			out[i] += fmt.Sprintf(" %s:%t/%t/%d/%d/%d/%d", c.ProblemID, c.Solved, c.FirstToSolve, c.Judged, c.Pending, c.Time.Milliseconds(), c.Penalty)
		}
	}
	return out
}

// handRuns describes the finalization jobs run by hand in River's database of a data directory.
func handRuns(tb testing.TB, dir string) []string {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "jobs.db")+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), `SELECT state, attempt FROM river_job
		WHERE kind = 'finalize' AND json_extract(args, '$.run') IS NOT NULL ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var state string
		var attempt int
		if err := rows.Scan(&state, &attempt); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s after %d attempts", state, attempt))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// finalVersions counts the versions of a contest's final standings in the store of a data directory.
func finalVersions(tb testing.TB, dir, contestID string) int {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM final_versions WHERE contest_id = ?`, contestID).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
