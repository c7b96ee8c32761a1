package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/engine"
)

// memProjection is a projection in memory that fails on demand: refusing calls (an unreachable server) or
// losing its data (a flushed one).
type memProjection struct {
	mu       sync.Mutex
	fail     bool
	contests map[string]*memContest
	updates  int
	rebuilds int
}

type memContest struct {
	pos  int64
	seqs [2]uint64
	rows [2]map[string]rankd.ProjectedRow
}

var errDown = rankd.Errorf(rankd.EUNAVAILABLE, "projection down")

func newMemProjection() *memProjection {
	return &memProjection{contests: map[string]*memContest{}}
}

func viewIndex(v rankd.View) int {
	if v.Kind == rankd.ViewJury {
		return 0
	}
	return 1
}

func (p *memProjection) Project(_ context.Context, u rankd.ProjectionUpdate) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return false, errDown
	}
	c, ok := p.contests[u.ContestID]
	switch {
	case !ok:
		return false, rankd.Errorf(rankd.ECONFLICT, "projection lost")
	case u.Pos <= c.pos:
		return false, nil
	case c.pos < u.After:
		return false, rankd.Errorf(rankd.ECONFLICT, "projection went back")
	}
	p.updates++
	c.pos = u.Pos
	for _, vu := range u.Views {
		i := viewIndex(vu.View)
		c.seqs[i] = vu.Seq
		for _, r := range vu.Rows {
			c.rows[i][r.TeamID] = r
		}
		for _, id := range vu.Removed {
			delete(c.rows[i], id)
		}
	}
	return true, nil
}

func (p *memProjection) Rebuild(_ context.Context, full rankd.ProjectionUpdate) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return errDown
	}
	if c, ok := p.contests[full.ContestID]; ok && c.pos > full.Pos && c.pos != full.Replace {
		return nil
	}
	p.rebuilds++
	c := &memContest{pos: full.Pos, rows: [2]map[string]rankd.ProjectedRow{{}, {}}}
	for _, vu := range full.Views {
		i := viewIndex(vu.View)
		c.seqs[i] = vu.Seq
		for _, r := range vu.Rows {
			c.rows[i][r.TeamID] = r
		}
	}
	p.contests[full.ContestID] = c
	return nil
}

func (p *memProjection) Position(_ context.Context, contestID string) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return 0, errDown
	}
	if c, ok := p.contests[contestID]; ok {
		return c.pos, nil
	}
	return 0, nil
}

func (p *memProjection) Standings(context.Context, rankd.ProjectionQuery) (rankd.Standings, error) {
	return rankd.Standings{}, errors.New("not used")
}

func (p *memProjection) setFail(fail bool) {
	p.mu.Lock()
	p.fail = fail
	p.mu.Unlock()
}

func (p *memProjection) flush() {
	p.mu.Lock()
	clear(p.contests)
	p.mu.Unlock()
}

// MustMatchProjection waits until the projection holds the board of contest id (its position, sequence
// numbers and every ranked row of both views), and fails when it does not within a few seconds.
func MustMatchProjection(tb testing.TB, e *engine.Engine, p *memProjection, id string) {
	tb.Helper()
	var why string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		err := e.Read(id, func(b *board.Board, pos int64) error {
			p.mu.Lock()
			defer p.mu.Unlock()
			c, ok := p.contests[id]
			switch {
			case !ok:
				why = "no projection"
				return nil
			case c.pos != pos:
				why = fmt.Sprintf("got position %d, want %d", c.pos, pos)
				return nil
			}
			for i, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
				want := map[string]rankd.ProjectedRow{}
				for _, r := range b.ProjectedRows(v) {
					want[r.TeamID] = r
				}
				if c.seqs[i] != b.Seq(v) {
					why = "sequence of " + v.String() + " differs"
					return nil
				}
				if !maps.EqualFunc(c.rows[i], want, func(x, y rankd.ProjectedRow) bool {
					// Ranks are the projection's own business: it works them out from the order.
					x.Rank, y.Rank = 0, 0
					return reflect.DeepEqual(x, y)
				}) {
					why = "rows of " + v.String() + " differ"
					return nil
				}
			}
			why = ""
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		if why == "" {
			return
		}
	}
	tb.Fatalf("the projection does not hold the board: %s", why)
}

// The projection follows the board through outages and losses: whatever fails, it ends up holding the
// board exactly.
func TestProjectionFollowsBoard(t *testing.T) {
	p := newMemProjection()
	e := MustProjectedEngine(t, p)
	entries := contestEntries(t)
	chunks := [][]rankd.LogEntry{}
	for len(entries) > 0 {
		n := min(len(entries), 50)
		chunks = append(chunks, entries[:n])
		entries = entries[n:]
	}
	ctx := context.Background()
	for i, chunk := range chunks {
		switch i % 5 {
		case 1:
			p.setFail(true) // down for this chunk
		case 2:
			p.setFail(false)
		case 3:
			if i%10 == 3 {
				p.flush()
			}
		}
		if _, err := e.Submit(ctx, "c", chunk); err != nil {
			t.Fatal(err)
		}
	}
	p.setFail(false)
	MustMatchProjection(t, e, p, "c")
	if p.updates == 0 || p.rebuilds < 2 {
		t.Errorf("got %d updates and %d rebuilds, want updates and a rebuild after each loss", p.updates, p.rebuilds)
	}
}

// A server that starts over a projection at its own position sends updates only; one that finds it
// elsewhere rebuilds it, also when it is further on than the log (another log's: a database restored from an
// older dump beside the Redis of the old).
func TestProjectionAtStart(t *testing.T) {
	dir := t.TempDir()
	p := newMemProjection()
	e := engine.New(MustOpenStore(t, dir), nil)
	e.Projection = p
	if err := e.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(context.Background(), "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		prepare      func()
		wantRebuilds int
	}{
		{"at its position", func() {}, 0},
		{"lost", p.flush, 1},
		{"another log's, further on", func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			c := p.contests["c"]
			c.pos += 1000
			c.seqs[1] += 1000
			c.rows[1]["nobody"] = rankd.ProjectedRow{Row: rankd.Row{TeamID: "nobody", Solved: 12}}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prepare()
			p.rebuilds = 0
			e := engine.New(MustOpenStore(t, dir), nil)
			e.Projection = p
			if err := e.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			MustMatchProjection(t, e, p, "c")
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if p.rebuilds != tc.wantRebuilds {
				t.Errorf("got %d rebuilds, want %d", p.rebuilds, tc.wantRebuilds)
			}
		})
	}
}

// A projection that loses its data while no event comes (flushed, or restarted from an older snapshot) is
// rebuilt all the same: an idle projector looks at its position now and then.
func TestProjectionLostWhileIdle(t *testing.T) {
	p := newMemProjection()
	e := MustProjectedEngine(t, p)
	if _, err := e.Submit(context.Background(), "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	for _, lose := range []struct {
		name string
		do   func(c *memContest) bool // false: drop the contest's projection
	}{
		{"flushed", func(*memContest) bool { return false }},
		{"an older snapshot", func(c *memContest) bool {
			c.pos /= 2
			clear(c.rows[1])
			return true
		}},
	} {
		p.mu.Lock()
		rebuilds := p.rebuilds
		if !lose.do(p.contests["c"]) {
			delete(p.contests, "c")
		}
		p.mu.Unlock()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			p.mu.Lock()
			n := p.rebuilds
			p.mu.Unlock()
			if n > rebuilds {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no rebuild 20 s after the projection was lost", lose.name)
			}
		}
		MustMatchProjection(t, e, p, "c")
	}
}

// A projection that goes back to an older state while events come (Redis restarted from an older snapshot)
// is rebuilt at the next update, not patched with the rows changed since the position it went back from.
func TestProjectionWentBack(t *testing.T) {
	p := newMemProjection()
	e := MustProjectedEngine(t, p)
	entries := contestEntries(t)
	half := len(entries) / 2
	if _, err := e.Submit(context.Background(), "c", entries[:half]); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	p.mu.Lock()
	rebuilds := p.rebuilds
	c := p.contests["c"]
	c.pos /= 2
	clear(c.rows[0])
	clear(c.rows[1])
	p.mu.Unlock()
	if _, err := e.Submit(context.Background(), "c", entries[half:half+1]); err != nil {
		t.Fatal(err)
	}
	MustMatchProjection(t, e, p, "c")
	if p.rebuilds == rebuilds {
		t.Error("the projection that went back was patched, not rebuilt")
	}
}

// MustProjectedEngine opens an engine over a new store projecting to p; it closes when the test ends.
func MustProjectedEngine(tb testing.TB, p *memProjection) *engine.Engine {
	tb.Helper()
	e := engine.New(MustOpenStore(tb, tb.TempDir()), nil)
	e.Projection = p
	if err := e.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// Events that change no row (an organization no team belongs to) move the projection's position too: left
// behind them, it would look lost to the idle check and be rebuilt whole.
func TestProjectionFollowsEventsWithoutRows(t *testing.T) {
	p := newMemProjection()
	e := MustProjectedEngine(t, p)
	ctx := context.Background()
	if _, err := e.Submit(ctx, "c", contestEntries(t)); err != nil {
		t.Fatal(err)
	}
	rebuilds := 0
	for i := range 2 { // the first one also carries what the rebuild at the contest's creation left marked
		id := fmt.Sprintf("nobody-%d", i)
		org, err := engine.Entry(rankd.Event{Type: rankd.EventOrganization, ID: id, Organization: &rankd.Organization{ID: id}})
		if err != nil {
			t.Fatal(err)
		}
		MustMatchProjection(t, e, p, "c")
		p.mu.Lock()
		rebuilds = p.rebuilds
		p.mu.Unlock()
		if _, err := e.Submit(ctx, "c", []rankd.LogEntry{org}); err != nil {
			t.Fatal(err)
		}
	}
	MustMatchProjection(t, e, p, "c")
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rebuilds != rebuilds {
		t.Errorf("rebuilds: got %d, want %d (the projection was only behind)", p.rebuilds, rebuilds)
	}
}

func (p *memProjection) DeleteContest(_ context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return errDown
	}
	delete(p.contests, id)
	return nil
}
