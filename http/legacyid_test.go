package http_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"rankd"
	"rankd/engine"
	"rankd/sqlite"
)

// A team whose id a log stored before new ids had to be CCS identifiers (a comma, a quote, a space) still gets
// 304 for its own view's pages: its id went into the ETag as it was, which If-None-Match splits on commas.
func TestLegacyTeamIDETag(t *testing.T) {
	var db *sqlite.DB
	e := MustOpenWith(t, options{unrestored: true, wrap: func(d *sqlite.DB) engine.Store { db = d; return d }})
	ctx := context.Background()
	var entries []rankd.LogEntry
	for _, ev := range []rankd.Event{
		{Type: rankd.EventContest, ID: "c1", Contest: &rankd.Contest{ID: "c1", Name: "C", Start: contestStart,
			Duration: 5 * time.Hour, FreezeDuration: time.Hour, PenaltyTime: rankd.DefaultPenaltyTime}},
		{Type: rankd.EventProblem, ID: "A", Problem: &rankd.Problem{ID: "A", Label: "A"}},
		{Type: rankd.EventTeam, ID: `a,b "c"`, Team: &rankd.Team{ID: `a,b "c"`, Name: "Legacy"}},
	} {
		entry, err := engine.Entry(ev)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry)
	}
	if _, err := db.Append(ctx, "c1", entries, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.engine.Open(ctx); err != nil {
		t.Fatal(err)
	}
	token := e.MustTeamToken(t, url.PathEscape(`a,b "c"`))
	for _, path := range []string{"/api/v1/contests/c1/scoreboard?view=team", "/api/v1/contests/c1/scoreboard?view=team&at=1:00:00"} {
		first := e.getWith(t, path, token, "")
		etag := first.Header.Get("ETag")
		if first.Status != http.StatusOK || etag == "" {
			t.Fatalf("%s: got %d, ETag %q", path, first.Status, etag)
		}
		if again := e.getWith(t, path, token, etag); again.Status != http.StatusNotModified {
			t.Errorf("%s with If-None-Match %s: got %d, want 304", path, etag, again.Status)
		}
	}
}
