package engine_test

import (
	"context"
	"hash/crc32"
	"sync"
	"testing"

	"rankd"
	"rankd/board"
	"rankd/engine"
	"rankd/postgres"
	"rankd/postgres/pgtest"
)

func MustOpenShared(tb testing.TB, url string) *engine.Engine {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	e := engine.New(db, nil)
	e.Shared = true
	if err := e.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// offlineStandings is the jury board of entries applied in order by one board.
func offlineStandings(tb testing.TB, entries []rankd.LogEntry) rankd.Standings {
	tb.Helper()
	b := board.New()
	for i := range entries {
		if _, err := b.Apply(&entries[i].Event); err != nil {
			tb.Fatal(err)
		}
	}
	st, err := b.Standings(rankd.JuryView, 0, -1)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// Three servers over one log, each taking a share of the events concurrently (retries included), end up
// with the same board, the board of the log.
func TestSharedLog(t *testing.T) {
	u := pgtest.MustSchema(t)
	servers := []*engine.Engine{MustOpenShared(t, u), MustOpenShared(t, u), MustOpenShared(t, u)}
	entries := contestEntries(t)
	ctx := context.Background()
	// The contest is defined on one server; the others learn it from the log.
	setup := 0
	for setup < len(entries) && entries[setup].Event.Type != rankd.EventSubmission {
		setup++
	}
	if _, err := servers[0].Submit(ctx, "c", entries[:setup]); err != nil {
		t.Fatal(err)
	}
	// Each server takes the events of its share of the teams, in order, as a judge of its own would.
	shares := make([][]rankd.LogEntry, len(servers))
	teamOf := map[string]string{}
	for _, e := range entries[setup:] {
		team := ""
		switch ev := e.Event; ev.Type {
		case rankd.EventSubmission:
			team = ev.Submission.TeamID
			teamOf[ev.ID] = team
		case rankd.EventJudgement:
			team = teamOf[ev.Judgement.SubmissionID]
		}
		i := int(crc32.ChecksumIEEE([]byte(team))) % len(servers)
		shares[i] = append(shares[i], e)
	}
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for share := shares[i]; len(share) > 0; {
				chunk := share[:min(10, len(share))]
				share = share[len(chunk):]
				for try := range 2 { // the second time, a retry: nothing new
					res, err := s.Submit(ctx, "c", chunk)
					if err != nil {
						t.Error(err)
						return
					}
					for _, r := range res {
						if r.Status == engine.StatusRejected || (try == 1 && r.Status != engine.StatusDuplicate) {
							t.Errorf("server %d, try %d: got %+v", i, try, r)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	// The log's order is the order the servers committed in: a server that starts now reads it.
	fresh := MustOpenShared(t, u)
	_ = fresh.Read("c", func(b *board.Board, pos int64) error {
		if pos != int64(len(entries)) {
			t.Errorf("got %d entries in the log, want %d", pos, len(entries))
		}
		return nil
	})
	want := MustStandings(t, fresh, "c")
	for i, s := range servers {
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := MustStandings(t, s, "c"); !equalStandings(got, want) {
			t.Errorf("server %d: its board differs from the log's", i)
		}
	}
	// Every event of the generated contest is in: the log's board is the contest's whatever the order of
	// submissions and judgements (ranks and cells; sequence numbers count events, in any order alike).
	off := offlineStandings(t, entries)
	off.Seq = want.Seq
	if !equalStandings(want, off) {
		t.Error("the log's board differs from the contest's")
	}
}
