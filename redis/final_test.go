package redis_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/redis"
	"rankd/redis/redistest"
)

// finalStandings returns version v of contest c1's final standings: teams rows in each view, every kind of
// cell among them, the public view hiding the last cell of each row unless thawed.
func finalStandings(v int64, teams int, thawed bool) rankd.FinalStandings {
	f := rankd.FinalStandings{ContestID: "c1", Version: v, Pos: 100 * v,
		Built:      time.Date(2026, 3, 1, 15, 0, 0, int(v)*1001, time.UTC),
		Awards:     []rankd.Award{{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t0"}}, {ID: "first-to-solve-A", Citation: "First to solve A"}},
		JuryAwards: []rankd.Award{{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t1"}}}}
	for i := range teams {
		r := rankd.Row{Rank: i + 1, TeamID: fmt.Sprintf("t%d", i), Solved: 2, Penalty: int64(100 + i), Score: -0.5 + float64(i)/3,
			Time: time.Duration(i)*time.Second + 7, Cells: []rankd.Cell{
				{ProblemID: "A", Solved: true, FirstToSolve: i == 0, Judged: 2, Time: 61*time.Second + 1, Penalty: 21, Score: 100},
				{ProblemID: "B,\x00{é}", Judged: 3, Pending: 1, Score: math.Copysign(0, -1)},
				{ProblemID: "C"},
				{ProblemID: "D", Solved: true, Judged: 1, Time: time.Hour, Penalty: 60, Score: math.MaxFloat64},
			}}
		if i == teams-1 {
			r.Rank = 0 // not ranked
		}
		f.Jury = append(f.Jury, r)
		pub := r
		pub.Cells = append([]rankd.Cell(nil), r.Cells...)
		if !thawed {
			pub.Cells[3] = rankd.Cell{ProblemID: "D", Pending: 1}
		}
		f.Public = append(f.Public, pub)
	}
	return f
}

// MustFinal reads the contest's final standings from Redis.
func MustFinal(tb testing.TB, p *redis.Projection, contestID string) rankd.FinalStandings {
	tb.Helper()
	f, err := p.Final(context.Background(), contestID)
	if err != nil {
		tb.Fatalf("final: %v", err)
	}
	return f
}

func TestFinalRoundTrip(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		f    rankd.FinalStandings
	}{
		{"frozen", finalStandings(1, 3, false)},
		{"thawed", finalStandings(2, 3, true)},
		{"no rows", rankd.FinalStandings{ContestID: "c1", Version: 3, Pos: 7, Built: time.Unix(0, 1).UTC()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := p.PutFinal(ctx, tt.f); err != nil {
				t.Fatal(err)
			}
			if got := MustFinal(t, p, "c1"); !reflect.DeepEqual(got, tt.f) {
				t.Fatalf("got %+v, want %+v", got, tt.f)
			}
			if v, err := p.FinalVersion(ctx, "c1"); err != nil || v != tt.f.Version {
				t.Fatalf("version: got %d, %v; want %d", v, err, tt.f.Version)
			}
		})
	}
}

// A version is never replaced by an older one; the replaced one expires soon, the active one later.
func TestFinalVersions(t *testing.T) {
	p, prefix := MustOpen(t)
	c := redistest.MustClient(t)
	ctx := context.Background()
	_, err := p.Final(ctx, "c1")
	MustCode(t, err, rankd.ENOTFOUND)
	if v, err := p.FinalVersion(ctx, "c1"); err != nil || v != 0 {
		t.Fatalf("version of none: got %d, %v; want 0", v, err)
	}
	v2, v3 := finalStandings(2, 2, false), finalStandings(3, 2, true)
	for _, put := range []rankd.FinalStandings{v2, finalStandings(1, 5, false), v2} {
		if err := p.PutFinal(ctx, put); err != nil {
			t.Fatal(err)
		}
	}
	if got := MustFinal(t, p, "c1"); !reflect.DeepEqual(got, v2) {
		t.Fatalf("after putting 2, 1, 2: got version %d, want 2", got.Version)
	}
	if err := p.PutFinal(ctx, v3); err != nil {
		t.Fatal(err)
	}
	if got := MustFinal(t, p, "c1"); got.Version != 3 {
		t.Fatalf("got version %d, want 3", got.Version)
	}
	key := prefix + ":{c1}:final"
	for k, want := range map[string]time.Duration{key: redis.FinalTTL, key + ":v3": redis.FinalTTL, key + ":v2": redis.OldFinalTTL} {
		if ttl := c.TTL(ctx, k).Val(); ttl <= 0 || ttl > want {
			t.Errorf("%s: got TTL %v, want at most %v", k, ttl, want)
		}
	}
	// Another contest is apart.
	_, err = p.Final(ctx, "c2")
	MustCode(t, err, rankd.ENOTFOUND)
}

// Once the active version is gone (expired, evicted, flushed), any version fills Redis again: the store,
// which the caller read it from, is the truth.
func TestFinalRefill(t *testing.T) {
	p, prefix := MustOpen(t)
	c := redistest.MustClient(t)
	ctx := context.Background()
	if err := p.PutFinal(ctx, finalStandings(3, 2, false)); err != nil {
		t.Fatal(err)
	}
	if err := c.Del(ctx, prefix+":{c1}:final:v3").Err(); err != nil {
		t.Fatal(err)
	}
	_, err := p.Final(ctx, "c1")
	MustCode(t, err, rankd.ENOTFOUND)
	if err := p.PutFinal(ctx, finalStandings(2, 2, false)); err != nil {
		t.Fatal(err)
	}
	if got := MustFinal(t, p, "c1"); got.Version != 2 {
		t.Fatalf("got version %d, want 2", got.Version)
	}
}

// Readers during a series of switches get whole versions, never going back.
func TestFinalReadersDuringSwitches(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	const versions, teams = 30, 200
	want := make([]rankd.FinalStandings, versions+1)
	for v := 1; v <= versions; v++ {
		want[v] = finalStandings(int64(v), teams+v, v%2 == 0)
	}
	if err := p.PutFinal(ctx, want[1]); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			last := int64(0)
			for {
				select {
				case <-done:
					return
				default:
				}
				f, err := p.Final(ctx, "c1")
				if err != nil {
					t.Error(err)
					return
				}
				if f.Version < last || f.Version > versions || !reflect.DeepEqual(f, want[f.Version]) {
					t.Errorf("read version %d after %d: not the version written", f.Version, last)
					return
				}
				last = f.Version
			}
		})
	}
	for v := 2; v <= versions; v++ {
		if err := p.PutFinal(ctx, want[v]); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
}

// What Redis holds is checked: every cut of a valid encoding is refused, never read as fewer rows.
func TestFinalCorrupt(t *testing.T) {
	p, prefix := MustOpen(t)
	c := redistest.MustClient(t)
	ctx := context.Background()
	if err := p.PutFinal(ctx, finalStandings(1, 3, false)); err != nil {
		t.Fatal(err)
	}
	key := prefix + ":{c1}:final:v1"
	data, err := c.Get(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		if err := c.Set(ctx, key, data[:n], time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Final(ctx, "c1"); err == nil || rankd.ErrorCode(err) != rankd.EINTERNAL {
			t.Fatalf("cut at %d of %d bytes: got %v, want an internal error", n, len(data), err)
		}
	}
}

func TestFinalInvalid(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	MustCode(t, p.PutFinal(ctx, rankd.FinalStandings{ContestID: "a{b}", Version: 1}), rankd.EINVALID)
	MustCode(t, p.PutFinal(ctx, rankd.FinalStandings{ContestID: "c1"}), rankd.EINVALID)
	_, err := p.Final(ctx, "")
	MustCode(t, err, rankd.EINVALID)
	_, err = p.FinalVersion(ctx, "a\x00")
	MustCode(t, err, rankd.EINVALID)
}

// Redis gone: every call says so with EUNAVAILABLE, for the caller to fall back to the store.
func TestFinalUnavailable(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	MustCode(t, p.PutFinal(ctx, finalStandings(1, 1, false)), rankd.EUNAVAILABLE)
	_, err := p.Final(ctx, "c1")
	MustCode(t, err, rankd.EUNAVAILABLE)
	_, err = p.FinalVersion(ctx, "c1")
	MustCode(t, err, rankd.EUNAVAILABLE)
}

// BenchmarkFinal measures reading the final standings of 10,000 teams (12 problems, frozen, so both views)
// from Redis, as a server does on a miss:
//
//	go test -run '^$' -bench Final ./redis/
func BenchmarkFinal(b *testing.B) {
	p, prefix := MustOpen(b)
	ctx := context.Background()
	f := finalStandings(1, 10000, false)
	for i := range f.Jury {
		for len(f.Jury[i].Cells) < 12 {
			f.Jury[i].Cells = append(f.Jury[i].Cells, rankd.Cell{ProblemID: fmt.Sprint(len(f.Jury[i].Cells))})
			f.Public[i].Cells = append(f.Public[i].Cells, rankd.Cell{ProblemID: fmt.Sprint(len(f.Public[i].Cells))})
		}
	}
	if err := p.PutFinal(ctx, f); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Final(ctx, "c1"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(redistest.MustClient(b).StrLen(ctx, prefix+":{c1}:final:v1").Val()), "bytes")
}
