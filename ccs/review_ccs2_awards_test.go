package ccs_test

import (
	"bytes"
	"reflect"
	"testing"

	"rankd/ccs"
)

// MustFilterLines runs a log through a FeedFilter and returns the lines it sent, as sent.
func MustFilterLines(tb testing.TB, log []string) []string {
	tb.Helper()
	f := ccs.NewFeedFilter()
	f.Fetch = func(pos int64) ([]byte, error) { return []byte(log[pos-1]), nil }
	var got []string
	for i, line := range log {
		if err := f.Add(int64(i+1), []byte(line), func(l []byte) error {
			got = append(got, string(bytes.Clone(l)))
			return nil
		}); err != nil {
			tb.Fatalf("entry %d: %v", i+1, err)
		}
	}
	return got
}

// An award of the log names only the teams the public feed has: a team hidden, banned or in a hidden group
// is left out of the award's team_ids (the award would tell the public of a team the feed leaves out, and a
// client would find no such team), and the award is sent again when a team it names comes or goes. The
// award sent with all its teams is the log's line.
func TestReviewCCS2FeedFilterAwardTeams(t *testing.T) {
	const (
		contest  = `{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00.000Z","duration":"5:00:00.000","scoreboard_freeze_duration":"1:00:00.000","penalty_time":20}}`
		team1    = `{"type":"teams","id":"t1","data":{"id":"t1","label":"1","name":"Alpha"}}`
		team2    = `{"type":"teams","id":"t2","data":{"id":"t2","label":"2","name":"Bravo"}}`
		team2Hid = `{"type":"teams","id":"t2","data":{"id":"t2","label":"2","name":"Bravo","hidden":true}}`
		ban1     = `{"type":"bans","id":"t1","data":{"team_id":"t1","banned":true}}`
		unban1   = `{"type":"bans","id":"t1","data":{"team_id":"t1","banned":false}}`
		thawed   = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z","thawed":"2026-03-01T16:00:00.000Z"}}`
		award    = `{"type":"awards","id":"winner","data":{"id":"winner","citation":"Contest winner","team_ids":["t1","t2"]}}`
		award1   = `{"type":"awards","id":"winner","data":{"id":"winner","citation":"Contest winner","team_ids":["t1"]}}`
		award2   = `{"type":"awards","id":"winner","data":{"id":"winner","citation":"Contest winner","team_ids":["t2"]}}`
		award0   = `{"type":"awards","id":"winner","data":{"id":"winner","citation":"Contest winner","team_ids":[]}}`
	)
	for _, tc := range []struct {
		name string
		log  []string
		want []string
	}{
		{"an award of public teams is the log's line",
			[]string{contest, team1, team2, award, thawed},
			[]string{contest, team1, team2, thawed, award}},
		{"a hidden team is left out of an award",
			[]string{contest, team1, team2Hid, award, thawed},
			[]string{contest, team1, thawed, award1}},
		{"a team banned after the award is taken out of it before it goes",
			[]string{contest, team1, team2, thawed, award, ban1},
			[]string{contest, team1, team2, thawed, award, award2,
				`{"type":"teams","id":"t1","data":null}`}},
		{"a team shown again comes back into the award after itself",
			[]string{contest, team1, team2Hid, thawed, award, team2},
			[]string{contest, team1, thawed, award1, team2, award}},
		{"an award whose teams are all left out has none",
			[]string{contest, team1, thawed, award1, ban1, unban1},
			[]string{contest, team1, thawed, award1, award0, `{"type":"teams","id":"t1","data":null}`, team1, award1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MustFilterLines(t, tc.log); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
