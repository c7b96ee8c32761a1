package redis_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/redis"
	"rankd/redis/redistest"
)

// When Redis loses the data, writes are refused until a rebuild, which brings the board back.
func TestLoss(t *testing.T) {
	p, prefix := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("loss")
	a, b := icpcRow("a", "A", []string{"g"}, 1, -1, -1), icpcRow("b", "B", []string{"g"}, -1, -1, -1)
	q := rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10}

	// Never built: the same as lost.
	_, err := p.Project(ctx, update(c, 1, []rankd.ProjectedRow{a}, nil, rankd.JuryView))
	MustCode(t, err, rankd.ECONFLICT)

	MustRebuild(t, p, c, 1, []rankd.ProjectedRow{a, b})
	MustProject(t, p, update(c, 2, []rankd.ProjectedRow{icpcRow("b", "B", []string{"g"}, 1, 1, -1)}, nil, rankd.JuryView), true)

	if err := redistest.Delete(ctx, redistest.MustClient(t), prefix); err != nil {
		t.Fatal(err)
	}
	_, err = p.Project(ctx, update(c, 3, []rankd.ProjectedRow{a}, nil, rankd.JuryView))
	MustCode(t, err, rankd.ECONFLICT)
	if pos, err := p.Position(ctx, c.ID); err != nil || pos != 0 {
		t.Fatalf("got position %d, %v after the loss; want 0", pos, err)
	}
	_, err = p.Standings(ctx, q)
	MustCode(t, err, rankd.ENOTFOUND)

	a3 := icpcRow("a", "A", []string{"g"}, 1, 2, 3)
	b3 := icpcRow("b", "B", []string{"g"}, 1, 1, -1)
	MustRebuild(t, p, c, 3, []rankd.ProjectedRow{a3, b3})
	for _, group := range []string{"", "g"} {
		q.GroupID = group
		st := MustStandings(t, p, q)
		if st.Total != 2 || st.Seq != 3 {
			t.Errorf("group %q: got total %d, seq %d; want 2, 3", group, st.Total, st.Seq)
		}
		MustEqualRows(t, st.Rows, []rankd.Row{ranked(a3, 1), ranked(b3, 2)})
	}
	MustProject(t, p, update(c, 4, []rankd.ProjectedRow{a}, nil, rankd.JuryView), true)

	// Gone back behind what the sender knows it reached (Redis restarted from an older snapshot): the rows
	// since are missing, so an update is refused until a rebuild.
	behind := update(c, 6, []rankd.ProjectedRow{a}, nil, rankd.JuryView)
	behind.After = 5
	_, err = p.Project(ctx, behind)
	MustCode(t, err, rankd.ECONFLICT)
	if pos, err := p.Position(ctx, c.ID); err != nil || pos != 4 {
		t.Fatalf("after a refused update: got position %d, %v; want 4", pos, err)
	}
	behind.After = 4
	MustProject(t, p, behind, true)
}

// A projection of another log (a database restored from an older dump beside the Redis of the old) is further
// on than the log: a rebuild that names its position replaces it and drops its final standings; one that names
// another position (a server moved the projection on meanwhile) changes nothing.
func TestRebuildReplacesAnotherLog(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("c1")
	MustRebuild(t, p, c, 10, []rankd.ProjectedRow{icpcRow("a", "A", nil, 1, 2, 3)})
	if err := p.PutFinal(ctx, finalStandings(1, 3, false)); err != nil {
		t.Fatal(err)
	}
	restored := icpcRow("a", "A", nil, -1, -1, -1)
	q := rankd.ProjectionQuery{ContestID: c.ID, View: rankd.PublicView, Limit: 10}
	for _, tt := range []struct {
		replace int64
		pos     int64
	}{{0, 10}, {9, 10}, {10, 4}} {
		u := update(c, 4, []rankd.ProjectedRow{restored}, nil, rankd.JuryView, rankd.PublicView)
		u.Replace = tt.replace
		if err := p.Rebuild(ctx, u); err != nil {
			t.Fatalf("replace %d: %v", tt.replace, err)
		}
		if pos, err := p.Position(ctx, c.ID); err != nil || pos != tt.pos {
			t.Fatalf("replace %d: got position %d, %v; want %d", tt.replace, pos, err, tt.pos)
		}
		_, err := p.Final(ctx, c.ID)
		if tt.pos == 10 && err != nil {
			t.Fatalf("replace %d: final standings: %v", tt.replace, err)
		}
		if tt.pos == 4 {
			MustCode(t, err, rankd.ENOTFOUND)
			MustEqualRows(t, MustStandings(t, p, q).Rows, []rankd.Row{ranked(restored, 1)})
		}
	}
}

// A projection laid out by a rankd of another layout version (an older one, before an upgrade) has no
// position nor pages for this one, which rebuilds it, whether or not an update comes to find out its layout.
func TestOtherLayoutVersion(t *testing.T) {
	p, prefix := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("c1")
	MustRebuild(t, p, c, 7, []rankd.ProjectedRow{icpcRow("a", "A", nil, 1, 2, 3)})
	rc := redistest.MustClient(t)
	base := prefix + ":{" + c.ID + "}"
	active, err := rc.Get(ctx, base+":active").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.HSet(ctx, base+":v"+active+":meta", "layout", "icpc").Err(); err != nil { // version 1's name
		t.Fatal(err)
	}
	if pos, err := p.Position(ctx, c.ID); err != nil || pos != 0 {
		t.Fatalf("another layout version: got position %d, %v; want 0", pos, err)
	}
	_, err = p.Standings(ctx, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10})
	MustCode(t, err, rankd.ENOTFOUND) // read as this rankd lays it out, it could rank rows wrong
	MustRebuild(t, p, c, 7, []rankd.ProjectedRow{icpcRow("a", "A", nil, 1, 2, 3)})
	if pos, err := p.Position(ctx, c.ID); err != nil || pos != 7 {
		t.Fatalf("rebuilt: got position %d, %v; want 7", pos, err)
	}
}

// A rebuild leaves the replaced version's keys to expire, and keeps none of its own with an expiry.
func TestRebuildExpiresTheOldVersion(t *testing.T) {
	p, prefix := MustOpen(t)
	ctx := context.Background()
	client := redistest.MustClient(t)
	c := icpcContest("expire")
	rows := []rankd.ProjectedRow{icpcRow("a", "A", []string{"g"}, 1, -1, -1)}
	MustRebuild(t, p, c, 1, rows)
	MustRebuild(t, p, c, 2, rows)
	base := prefix + ":{" + c.ID + "}"
	tests := []struct {
		key     string
		expires bool
	}{
		{base + ":v1:meta", true},
		{base + ":v1:jury", true},
		{base + ":v1:jury:g:g", true},
		{base + ":v1:jury:rows", true},
		{base + ":v1:jury:members", true},
		{base + ":v1:keys", true},
		{base + ":v2:meta", false},
		{base + ":v2:jury", false},
		{base + ":v2:public:g:g", false},
		{base + ":v2:public:rows", false},
		{base + ":v2:public:members", false},
		{base + ":v2:keys", false},
	}
	for _, tt := range tests {
		ttl, err := client.TTL(ctx, tt.key).Result()
		if err != nil {
			t.Fatal(err)
		}
		// TTL is -1 for a key without expiry, -2 for a missing one.
		if got := ttl > 0; got != tt.expires || ttl == -2 {
			t.Errorf("%s: got TTL %v, want expiring %v", tt.key, ttl, tt.expires)
		}
	}
}

// Readers never see an empty or partial board while rebuilds replace it.
func TestRebuildWhileReading(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("concurrent")
	const teams = 3000
	rows := make([]rankd.ProjectedRow, teams)
	for i := range rows {
		rows[i] = icpcRow(fmt.Sprintf("t%04d", i), fmt.Sprintf("Team %d", i), []string{fmt.Sprintf("g%d", i%3)}, i%60, i%7-1, -1)
	}
	MustRebuild(t, p, c, 1, rows)

	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := range 4 {
		wg.Go(func() {
			q := rankd.ProjectionQuery{ContestID: c.ID, View: rankd.PublicView, Offset: r * 700, Limit: 50}
			if r == 3 {
				q.GroupID, q.Offset = "g1", 0
			}
			for {
				select {
				case <-done:
					return
				default:
				}
				st, err := p.Standings(ctx, q)
				if err != nil {
					errs <- err
					return
				}
				want := teams
				if q.GroupID != "" {
					want = teams / 3
				}
				if st.Total != want || len(st.Rows) != 50 {
					errs <- fmt.Errorf("got total %d and %d rows, want %d and 50", st.Total, len(st.Rows), want)
					return
				}
				for _, row := range st.Rows {
					if len(row.Cells) != len(problems) || row.Rank < 1 || row.TeamID == "" {
						errs <- fmt.Errorf("got an incomplete row %+v", row)
						return
					}
				}
			}
		})
	}
	for pos := int64(2); pos < 10; pos++ {
		MustRebuild(t, p, c, pos, rows)
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An update of more rows than one script call carries is refused as a whole, for a rebuild: applied in
// several calls, readers would see part of it.
func TestBigUpdate(t *testing.T) {
	redis.SetMaxRowsPerCall(t, 8) // rows and removed teams, counted in each view
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("big")
	var rows, moved []rankd.ProjectedRow
	for i := range 8 {
		rows = append(rows, icpcRow(fmt.Sprintf("t%02d", i), fmt.Sprintf("Team %02d", i), nil, -1, -1, -1))
		moved = append(moved, icpcRow(rows[i].TeamID, rows[i].Name, nil, i, -1, -1))
	}
	MustRebuild(t, p, c, 1, rows)
	for _, tc := range []struct {
		name    string
		u       rankd.ProjectionUpdate
		applied bool
	}{
		{"rows over the limit", update(c, 2, moved[:5], nil, rankd.JuryView, rankd.PublicView), false},
		{"rows and removed teams over the limit", update(c, 2, moved[:3], []string{"t06", "t07"}, rankd.JuryView, rankd.PublicView), false},
		{"at the limit", update(c, 2, moved[:3], []string{"t07"}, rankd.JuryView, rankd.PublicView), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := p.Project(ctx, tc.u)
			if tc.applied {
				if err != nil || !ok {
					t.Fatalf("got %v, %v; want applied", ok, err)
				}
				return
			}
			if ok || rankd.ErrorCode(err) != rankd.ECONFLICT {
				t.Fatalf("got %v, %v; want not applied, %s", ok, err, rankd.ECONFLICT)
			}
			if pos, err := p.Position(ctx, c.ID); err != nil || pos != 1 {
				t.Fatalf("got position %d, %v; want 1", pos, err)
			}
			var want []rankd.Row
			for _, r := range rows {
				want = append(want, ranked(r, 1)) // none solved: all share rank 1, by name
			}
			for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
				st := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: v, Limit: -1})
				if st.Total != len(rows) || st.Seq != 1 {
					t.Errorf("%v: got total %d, seq %d; want %d, 1", v, st.Total, st.Seq, len(rows))
				}
				MustEqualRows(t, st.Rows, want)
			}
		})
	}
}

func TestSubscribe(t *testing.T) {
	// A prefix of characters that patterns give a meaning, which must match only themselves.
	prefix := redistest.MustPrefix(t) + ":[a-z]*?"
	p, err := redis.Open(context.Background(), redistest.MustServer(t), redis.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := icpcContest("pubsub")
	type event struct {
		contest string
		pos     int64
	}
	events := make(chan event, 100)
	stopped := make(chan error, 1)
	go func() {
		stopped <- p.Subscribe(ctx, func(contest string, pos int64) { events <- event{contest, pos} })
	}()
	rows := []rankd.ProjectedRow{icpcRow("a", "A", nil, 1, -1, -1)}
	MustRebuild(t, p, c, 1, rows)
	// The subscription starts at some point: update until an update is heard of.
	deadline := time.After(10 * time.Second)
	for pos := int64(2); ; pos++ {
		MustProject(t, p, update(c, pos, rows, nil, rankd.JuryView), true)
		wait := time.After(50 * time.Millisecond)
		for waited := false; !waited; {
			select {
			case e := <-events:
				if e.contest != c.ID || e.pos > pos {
					t.Fatalf("got contest %s at %d, want %s at %d at most", e.contest, e.pos, c.ID, pos)
				}
				if e.pos < pos {
					continue // the rebuild's, or an earlier update's
				}
				cancel()
				if err := <-stopped; err != nil {
					t.Fatalf("got %v from Subscribe, want nil once ctx is done", err)
				}
				return
			case <-wait:
				waited = true
			case <-deadline:
				t.Fatal("no message within 10s")
			}
		}
	}
}

func TestInvalid(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("invalid")
	ok := icpcRow("a", "A", nil, 1, -1, -1)
	MustRebuild(t, p, c, 1, []rankd.ProjectedRow{ok})
	tests := []struct {
		name string
		u    rankd.ProjectionUpdate
	}{
		{"no contest", update(icpcContest(""), 2, nil, nil, rankd.JuryView)},
		{"contest id with braces", update(icpcContest("a}b"), 2, nil, nil, rankd.JuryView)},
		{"team view", update(c, 2, nil, nil, rankd.TeamView("a"))},
		{"NUL in a team id", update(c, 2, []rankd.ProjectedRow{icpcRow("a\x00", "A", nil, 1, -1, -1)}, nil, rankd.JuryView)},
		{"NUL in a name", update(c, 2, []rankd.ProjectedRow{icpcRow("a", "A\x00", nil, 1, -1, -1)}, nil, rankd.JuryView)},
		{"NUL in a group", update(c, 2, []rankd.ProjectedRow{icpcRow("a", "A", []string{"g\x00"}, 1, -1, -1)}, nil, rankd.JuryView)},
		{"empty group", update(c, 2, []rankd.ProjectedRow{icpcRow("a", "A", []string{""}, 1, -1, -1)}, nil, rankd.JuryView)},
		{"no team id", update(c, 2, []rankd.ProjectedRow{icpcRow("", "A", nil, 1, -1, -1)}, nil, rankd.JuryView)},
		{"contest beyond the layout", update(rankd.Contest{ID: "long", Rules: rankd.ICPC, Duration: 100 * 24 * time.Hour}, 2, nil, nil, rankd.JuryView)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Project(ctx, tt.u)
			MustCode(t, err, rankd.EINVALID)
			MustCode(t, p.Rebuild(ctx, tt.u), rankd.EINVALID)
		})
	}
	t.Run("NUL in a removed team", func(t *testing.T) {
		_, err := p.Project(ctx, update(c, 2, nil, []string{"\x00"}, rankd.JuryView))
		MustCode(t, err, rankd.EINVALID)
	})
	st := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10})
	MustEqualRows(t, st.Rows, []rankd.Row{ranked(ok, 1)})

	reads := []struct {
		name string
		q    rankd.ProjectionQuery
		code string
	}{
		{"unknown contest", rankd.ProjectionQuery{ContestID: "nope", View: rankd.JuryView}, rankd.ENOTFOUND},
		{"team view", rankd.ProjectionQuery{ContestID: c.ID, View: rankd.TeamView("a")}, rankd.EINVALID},
		{"negative offset", rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Offset: -1}, rankd.EINVALID},
		{"bad contest id", rankd.ProjectionQuery{ContestID: "{", View: rankd.JuryView}, rankd.EINVALID},
	}
	for _, tt := range reads {
		t.Run("read "+tt.name, func(t *testing.T) {
			_, err := p.Standings(ctx, tt.q)
			MustCode(t, err, tt.code)
		})
	}
	if pos, err := p.Position(ctx, "nope"); err != nil || pos != 0 {
		t.Errorf("got position %d, %v of an unknown contest; want 0", pos, err)
	}
}

// A writer whose contest encodes rows otherwise than the projection holds them is told to rebuild.
func TestLayoutChange(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := ctfContest("layout")
	rows := []rankd.ProjectedRow{ctfRow("a", "A", 1, -1, -1)}
	MustRebuild(t, p, c, 1, rows)
	MustProject(t, p, update(c, 2, rows, nil, rankd.JuryView), true)
	c.Duration *= 4 // two more bits of time
	_, err := p.Project(ctx, update(c, 3, rows, nil, rankd.JuryView))
	MustCode(t, err, rankd.ECONFLICT)
	MustRebuild(t, p, c, 3, rows)
	MustProject(t, p, update(c, 4, rows, nil, rankd.JuryView), true)
}

// Operations on a closed projection, or one whose server went away, are unavailable, not internal.
func TestUnavailable(t *testing.T) {
	p, _ := MustOpen(t)
	_ = p.Close()
	_, err := p.Position(context.Background(), "c")
	MustCode(t, err, rankd.EUNAVAILABLE)
}

// Rows written before the problems changed read with the new columns: the cells they have, by problem id,
// and empty ones for problems added since.
func TestProblemsChange(t *testing.T) {
	p, _ := MustOpen(t)
	c := icpcContest("problems")
	a, b := icpcRow("a", "A", nil, 1, -1, -1), icpcRow("b", "B", nil, 5, -1, -1)
	MustRebuild(t, p, c, 1, []rankd.ProjectedRow{a, b})

	u := update(c, 2, nil, nil, rankd.JuryView)
	u.Problems = []rankd.Problem{{ID: "C"}, {ID: "new,one"}, {ID: "A"}} // B deleted, a problem added, reordered
	b2 := rankd.ProjectedRow{Row: rankd.Row{TeamID: "b", Solved: 2, Penalty: 12, Time: 7 * time.Minute, Cells: []rankd.Cell{
		{ProblemID: "C"},
		{ProblemID: "new,one", Solved: true, Judged: 1, Time: 7 * time.Minute, Penalty: 7},
		{ProblemID: "A", Solved: true, Judged: 1, Time: 5 * time.Minute, Penalty: 5},
	}}, Name: "B"}
	u.Views[0].Rows = []rankd.ProjectedRow{b2}
	MustProject(t, p, u, true)

	st := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10})
	a2 := a.Row
	a2.Rank = 2
	a2.Cells = []rankd.Cell{a.Cells[2], {ProblemID: "new,one"}, a.Cells[0]}
	MustEqualRows(t, st.Rows, []rankd.Row{ranked(b2, 1), a2})
}

// Redis losing its data in the middle of a rebuild (a flush, a restart, a failover) fails the rebuild rather
// than switching to the part written since.
func TestLossDuringRebuild(t *testing.T) {
	p, prefix := MustOpen(t)
	client := redistest.MustClient(t)
	ctx := context.Background()
	const teams = 4000 // four batches a view
	rows := make([]rankd.ProjectedRow, teams)
	for i := range rows {
		rows[i] = icpcRow(fmt.Sprintf("t%04d", i), fmt.Sprintf("Team %d", i), nil, i%60, -1, -1)
	}
	lostMidway := 0
	for round := 0; round < 20 && lostMidway < 3; round++ {
		c := icpcContest(fmt.Sprintf("flushed%d", round))
		jury := prefix + ":{" + c.ID + "}:v1:jury"
		done := make(chan error, 1)
		go func() { done <- p.Rebuild(ctx, update(c, 1, rows, nil, rankd.JuryView, rankd.PublicView)) }()
		var err error
	poll:
		for {
			select {
			case err = <-done:
				break poll
			default:
			}
			if n := client.ZCard(ctx, jury).Val(); n > 0 && n < teams {
				if err := redistest.Delete(ctx, client, prefix); err != nil {
					t.Fatal(err)
				}
				lostMidway++
				err = <-done
				break
			}
		}
		if err != nil {
			MustCode(t, err, rankd.EUNAVAILABLE)
			continue
		}
		for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
			st, err := p.Standings(ctx, rankd.ProjectionQuery{ContestID: c.ID, View: v, Limit: 1})
			if err != nil {
				t.Fatalf("round %d, %v: %v", round, v, err)
			}
			if st.Total != teams {
				t.Fatalf("round %d, %v: got a board of %d rows after the rebuild, want %d", round, v, st.Total, teams)
			}
		}
	}
	if lostMidway == 0 {
		t.Skip("no rebuild was caught in the middle")
	}
}

// Deleting a contest removes every key of it, its projection and its final standings, and no other
// contest's; a notice at position 0 tells the servers.
func TestDeleteContest(t *testing.T) {
	p, prefix := MustOpen(t)
	c := redistest.MustClient(t)
	ctx := context.Background()
	rows := []rankd.ProjectedRow{icpcRow("t1", "Alpha", nil, 10, -1, -1), icpcRow("t2", "Bravo", nil, -1, -1, -1)}
	MustRebuild(t, p, icpcContest("c1"), 5, rows)
	MustRebuild(t, p, icpcContest("c2"), 7, rows)
	if err := p.PutFinal(ctx, finalStandings(1, 5, false)); err != nil { // c1's
		t.Fatal(err)
	}
	notices := make(chan string, 8)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_ = p.Subscribe(subCtx, func(id string, pos int64) { notices <- fmt.Sprintf("%s %d", id, pos) })
	}()
	time.Sleep(100 * time.Millisecond) // subscribed

	if err := p.DeleteContest(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if keys, err := c.Keys(ctx, prefix+":{c1}*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("c1's keys after its deletion: got %v (%v), want none", keys, err)
	}
	if pos, err := p.Position(ctx, "c1"); err != nil || pos != 0 {
		t.Errorf("c1's position: got %d (%v), want 0", pos, err)
	}
	_, err := p.Final(ctx, "c1")
	MustCode(t, err, rankd.ENOTFOUND)
	if pos, err := p.Position(ctx, "c2"); err != nil || pos != 7 {
		t.Errorf("c2's position: got %d (%v), want 7, untouched", pos, err)
	}
	select {
	case n := <-notices:
		if n != "c1 0" {
			t.Errorf("the notice: got %q, want \"c1 0\"", n)
		}
	case <-time.After(2 * time.Second):
		t.Error("no notice of the deletion within 2 s")
	}
}
