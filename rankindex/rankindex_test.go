package rankindex_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rankd/rankindex"
)

type K = rankindex.Key

// item is one Set call, and one row of an expected order.
type item struct {
	id  int32
	key K
}

// row is what Range reports for one item.
type row struct {
	id   int32
	key  K
	rank int
}

func build(t *testing.T, tie func(a, b int32) int, items ...item) *rankindex.Index {
	t.Helper()
	x := rankindex.New(tie)
	for _, it := range items {
		x.Set(it.id, it.key)
	}
	mustCheck(t, x)
	return x
}

func mustCheck(t *testing.T, x *rankindex.Index) {
	t.Helper()
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

func collect(x *rankindex.Index, offset, limit int) []row {
	var got []row
	x.Range(offset, limit, func(id int32, k K, rank int) bool {
		got = append(got, row{id, k, rank})
		return true
	})
	return got
}

// byName orders ids by names[id]; equal names fall back to the id order.
func byName(names []string) func(a, b int32) int {
	return func(a, b int32) int { return strings.Compare(names[a], names[b]) }
}

// sample has ranks 1, 2, 2, 2, 5, 6, 6: ids 1..3 tie on {1,0}, 5 and 6 on {2,7}.
var sample = []item{
	{3, K{1, 0}}, {0, K{0, 9}}, {2, K{1, 0}}, {6, K{2, 7}}, {4, K{1, 5}}, {5, K{2, 7}}, {1, K{1, 0}},
}

var sampleRows = []row{
	{0, K{0, 9}, 1}, {1, K{1, 0}, 2}, {2, K{1, 0}, 2}, {3, K{1, 0}, 2}, {4, K{1, 5}, 5}, {5, K{2, 7}, 6}, {6, K{2, 7}, 6},
}

func TestEmpty(t *testing.T) {
	x := build(t, nil)
	if x.Len() != 0 || x.Contains(0) || x.Position(0) != -1 || x.Rank(0) != 0 || x.Remove(0) {
		t.Fatal("empty index reports an item")
	}
	if _, ok := x.Key(0); ok {
		t.Fatal("Key of absent id reports ok")
	}
	if r := x.RankOfKey(K{5, 5}); r != 1 {
		t.Fatalf("RankOfKey = %d, want 1", r)
	}
	if got := collect(x, 0, -1); got != nil {
		t.Fatalf("Range = %v", got)
	}
}

func TestSetAndKey(t *testing.T) {
	tests := []struct {
		name  string
		items []item
		want  []item // total order
	}{
		{"single", []item{{7, K{3, 3}}}, []item{{7, K{3, 3}}}},
		{"by Hi then Lo", []item{{0, K{2, 0}}, {1, K{1, 9}}, {2, K{1, 3}}}, []item{{2, K{1, 3}}, {1, K{1, 9}}, {0, K{2, 0}}}},
		{"unsigned", []item{{0, K{1 << 63, 0}}, {1, K{0, ^uint64(0)}}}, []item{{1, K{0, ^uint64(0)}}, {0, K{1 << 63, 0}}}},
		{"all equal by id", []item{{2, K{}}, {0, K{}}, {1, K{}}}, []item{{0, K{}}, {1, K{}}, {2, K{}}}},
		{"move", []item{{0, K{1, 0}}, {1, K{2, 0}}, {0, K{3, 0}}}, []item{{1, K{2, 0}}, {0, K{3, 0}}}},
		{"same key", []item{{0, K{1, 0}}, {1, K{1, 0}}, {0, K{1, 0}}}, []item{{0, K{1, 0}}, {1, K{1, 0}}}},
		{"sparse ids", []item{{1000, K{1, 0}}, {3, K{0, 0}}}, []item{{3, K{0, 0}}, {1000, K{1, 0}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := build(t, nil, tt.items...)
			if x.Len() != len(tt.want) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(tt.want))
			}
			for pos, w := range tt.want {
				if k, ok := x.Key(w.id); !ok || k != w.key {
					t.Errorf("Key(%d) = %v, %v; want %v", w.id, k, ok, w.key)
				}
				if !x.Contains(w.id) {
					t.Errorf("Contains(%d) = false", w.id)
				}
				if id, k := x.At(pos); id != w.id || k != w.key {
					t.Errorf("At(%d) = %d, %v; want %d, %v", pos, id, k, w.id, w.key)
				}
				if p := x.Position(w.id); p != pos {
					t.Errorf("Position(%d) = %d, want %d", w.id, p, pos)
				}
			}
		})
	}
}

func TestTie(t *testing.T) {
	names := []string{"delta", "bravo", "alpha", "bravo", "charlie"}
	x := build(t, byName(names),
		item{0, K{}}, item{1, K{}}, item{2, K{}}, item{3, K{}}, item{4, K{}}, item{4, K{1, 0}}, item{4, K{}})
	want := []int32{2, 1, 3, 4, 0} // alpha, bravo(1), bravo(3), charlie, delta
	for pos, id := range want {
		if got, _ := x.At(pos); got != id {
			t.Errorf("At(%d) = %d, want %d", pos, got, id)
		}
		if p := x.Position(id); p != pos {
			t.Errorf("Position(%d) = %d, want %d", id, p, pos)
		}
		if r := x.Rank(id); r != 1 {
			t.Errorf("Rank(%d) = %d, want 1", id, r)
		}
	}
}

// TestExtremeKeys covers runs of equal keys at the top of the key space,
// where the end of a run cannot be found by searching for the next key up.
func TestExtremeKeys(t *testing.T) {
	const m = ^uint64(0)
	names := []string{"e", "d", "c", "b", "a", "f"}
	x := build(t, byName(names),
		item{0, K{m, m}}, item{1, K{m - 1, m}}, item{2, K{m, m}}, item{3, K{m, m - 1}},
		item{4, K{m, m}}, item{5, K{m - 1, m}})
	want := []row{
		{1, K{m - 1, m}, 1}, {5, K{m - 1, m}, 1}, {3, K{m, m - 1}, 3},
		{4, K{m, m}, 4}, {2, K{m, m}, 4}, {0, K{m, m}, 4},
	}
	if got := collect(x, 0, -1); !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if c := x.CountLess(K{m, m}); c != 3 {
		t.Fatalf("CountLess(max) = %d, want 3", c)
	}
}

// TestTieCalls checks that only a Set that moves or inserts consults the tie
// function, so readers never run user code and Remove works whatever tie
// would say.
func TestTieCalls(t *testing.T) {
	allowed := false
	x := rankindex.New(func(a, b int32) int {
		if !allowed {
			t.Fatalf("tie(%d, %d) called outside Set", a, b)
		}
		return int(b - a) // reverse id order
	})
	setAndCheck := func(id int32, k K) {
		allowed = true
		defer func() { allowed = false }()
		x.Set(id, k)
		mustCheck(t, x) // the checker compares neighbours with tie
	}
	for id := range int32(300) {
		setAndCheck(id, K{uint64(id % 3), 0})
		x.Position(id)
		x.Rank(id)
		x.Key(id)
	}
	collect(x, 0, -1)
	x.At(150)
	x.RankOfKey(K{1, 0})
	x.Set(5, K{2, 0}) // the key 5 already has: nothing to do, nothing to compare
	for id := range int32(300) {
		x.Remove(id)
	}
	setAndCheck(0, K{})
}

// TestTiePanics checks that a tie function panicking in Set leaves the id
// absent and the index intact.
func TestTiePanics(t *testing.T) {
	boom := false
	x := rankindex.New(func(a, b int32) int {
		if boom {
			panic("boom")
		}
		return 0
	})
	for id := range int32(200) {
		x.Set(id, K{uint64(id % 2), 0})
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("tie did not panic")
			}
		}()
		boom = true
		x.Set(7, K{}) // moves 7 among 100 equal keys: tie is called and panics
	}()
	boom = false
	mustCheck(t, x)
	if x.Contains(7) || x.Len() != 199 {
		t.Fatalf("after panic: Contains(7) = %v, Len = %d", x.Contains(7), x.Len())
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name   string
		remove int32
		ok     bool
	}{
		{"present", 2, true},
		{"first", 0, true},
		{"last", 6, true},
		{"never set", 9, false},
		{"beyond table", 1 << 30, false},
		{"negative", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := build(t, nil, sample...)
			if ok := x.Remove(tt.remove); ok != tt.ok {
				t.Fatalf("Remove(%d) = %v, want %v", tt.remove, ok, tt.ok)
			}
			mustCheck(t, x)
			want := len(sample)
			if tt.ok {
				want--
			}
			if x.Len() != want || x.Contains(tt.remove) || x.Position(tt.remove) != -1 || x.Rank(tt.remove) != 0 {
				t.Fatalf("after Remove(%d): Len %d, Contains %v", tt.remove, x.Len(), x.Contains(tt.remove))
			}
			if x.Remove(tt.remove) {
				t.Fatal("second Remove reported true")
			}
		})
	}
}

func TestRank(t *testing.T) {
	x := build(t, nil, sample...)
	for _, w := range sampleRows {
		if r := x.Rank(w.id); r != w.rank {
			t.Errorf("Rank(%d) = %d, want %d", w.id, r, w.rank)
		}
	}
	for _, id := range []int32{-1, 7, 100} {
		if r := x.Rank(id); r != 0 {
			t.Errorf("Rank(%d) = %d, want 0", id, r)
		}
	}
}

func TestRankOfKeyAndCountLess(t *testing.T) {
	x := build(t, nil, sample...)
	tests := []struct {
		key  K
		less int
	}{
		{K{0, 0}, 0},
		{K{0, 9}, 0},
		{K{0, 10}, 1},
		{K{1, 0}, 1},
		{K{1, 1}, 4},
		{K{1, 5}, 4},
		{K{2, 7}, 5},
		{K{2, 8}, 7},
		{K{^uint64(0), ^uint64(0)}, 7},
	}
	for _, tt := range tests {
		if c := x.CountLess(tt.key); c != tt.less {
			t.Errorf("CountLess(%v) = %d, want %d", tt.key, c, tt.less)
		}
		if r := x.RankOfKey(tt.key); r != tt.less+1 {
			t.Errorf("RankOfKey(%v) = %d, want %d", tt.key, r, tt.less+1)
		}
	}
}

func TestCountBefore(t *testing.T) {
	x := build(t, nil, sample...)
	tests := []struct {
		key    K
		id     int32
		before int
	}{
		{K{1, 0}, 2, 2}, // its own place
		{K{1, 0}, 9, 4}, // absent id, after the run by id
		{K{0, 0}, 6, 0}, // above everything
		{K{3, 0}, 0, 6}, // below everything, not counting itself
		{K{1, 5}, 0, 3}, // moved down into a run it would head
		{K{2, 7}, 5, 5}, // first of its run
		{K{2, 7}, 6, 6}, // last of its run
	}
	for _, tt := range tests {
		if got := x.CountBefore(tt.key, tt.id); got != tt.before {
			t.Errorf("CountBefore(%v, %d) = %d, want %d", tt.key, tt.id, got, tt.before)
		}
	}
}

func TestAt(t *testing.T) {
	x := build(t, nil, sample...)
	for pos, w := range sampleRows {
		if id, k := x.At(pos); id != w.id || k != w.key {
			t.Errorf("At(%d) = %d, %v; want %d, %v", pos, id, k, w.id, w.key)
		}
	}
	for _, pos := range []int{-1, len(sample)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) did not panic", pos)
				}
			}()
			x.At(pos)
		}()
	}
}

func TestRange(t *testing.T) {
	x := build(t, nil, sample...)
	tests := []struct {
		name          string
		offset, limit int
		want          []row
	}{
		{"all", 0, -1, sampleRows},
		{"limit past end", 0, 100, sampleRows},
		{"zero limit", 0, 0, nil},
		{"head", 0, 2, sampleRows[:2]},
		{"mid tie run", 2, 3, sampleRows[2:5]},
		{"last of tie run", 3, -1, sampleRows[3:]},
		{"second of trailing tie", 6, 10, sampleRows[6:]},
		{"offset at end", 7, -1, nil},
		{"offset past end", 50, 5, nil},
		{"negative offset", -3, 1, sampleRows[:1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := collect(x, tt.offset, tt.limit); !slices.Equal(got, tt.want) {
				t.Fatalf("Range(%d, %d) = %v, want %v", tt.offset, tt.limit, got, tt.want)
			}
		})
	}
	t.Run("stop", func(t *testing.T) {
		calls := 0
		x.Range(1, -1, func(int32, K, int) bool { calls++; return calls < 2 })
		if calls != 2 {
			t.Fatalf("fn called %d times after returning false, want 2", calls)
		}
	})
}

func TestReset(t *testing.T) {
	x := build(t, nil)
	for id := range int32(5000) {
		x.Set(id, K{uint64(id % 7), 0})
	}
	x.Reset()
	mustCheck(t, x)
	if x.Len() != 0 || x.Contains(0) || x.Position(10) != -1 || collect(x, 0, -1) != nil {
		t.Fatal("Reset left items behind")
	}
	x.Set(3, K{1, 1})
	x.Set(1, K{0, 1})
	mustCheck(t, x)
	if got := collect(x, 0, -1); !slices.Equal(got, []row{{1, K{0, 1}, 1}, {3, K{1, 1}, 2}}) {
		t.Fatalf("after Reset and Set: %v", got)
	}
}

// TestGrowShrink builds a tree several levels deep and takes it apart again
// in different orders, exercising splits, merges, redistribution between
// leaves and between inner nodes in both directions, and root collapse.
func TestGrowShrink(t *testing.T) {
	n := rankindex.Fanout * rankindex.Fanout * 4
	ascending := make([]int, n)
	for i := range ascending {
		ascending[i] = i
	}
	descending := slices.Clone(ascending)
	slices.Reverse(descending)
	orders := map[string][]int{
		"random":     rand.New(rand.NewPCG(1, 2)).Perm(n),
		"ascending":  ascending,
		"descending": descending,
	}
	for name, order := range orders {
		t.Run(name, func(t *testing.T) {
			// Inserting in random order leaves nodes fuller than in key order,
			// so underfull nodes meet siblings too full to merge with.
			x := rankindex.New(nil)
			for _, id := range rand.New(rand.NewPCG(3, 4)).Perm(n) {
				x.Set(int32(id), K{uint64(id / 3), 0})
			}
			mustCheck(t, x)
			if h := x.Height(); h < 3 {
				t.Fatalf("height %d, want at least 3", h)
			}
			for i, id := range order {
				if !x.Remove(int32(id)) {
					t.Fatalf("Remove(%d) = false", id)
				}
				if i%251 == 0 {
					mustCheck(t, x)
				}
			}
			mustCheck(t, x)
			if x.Len() != 0 || x.Height() != 1 {
				t.Fatalf("after removing all: Len %d, height %d", x.Len(), x.Height())
			}
		})
	}
}

func TestSetDoesNotAllocate(t *testing.T) {
	const n = 20000
	x := rankindex.New(nil)
	rng := rand.New(rand.NewPCG(3, 4))
	move := func() { x.Set(int32(rng.IntN(n)), K{rng.Uint64N(13), rng.Uint64N(5001)}) }
	for range 4 * n {
		move()
	}
	if a := testing.AllocsPerRun(20000, move); a != 0 {
		t.Fatalf("Set allocates %v times per call in steady state", a)
	}
}

func TestLoad(t *testing.T) {
	for _, n := range []int{0, 1, 2, 47, 48, 49, 96, 97, 2305, 2400, 150000} {
		items := make([]item, n)
		for i := range items {
			items[i] = item{int32(n - 1 - i), K{uint64(i / 3), 0}} // ids fall within equal keys: by id
		}
		slices.SortFunc(items, func(a, b item) int {
			if a.key != b.key {
				if a.key.Less(b.key) {
					return -1
				}
				return 1
			}
			return int(a.id - b.id)
		})
		ids, keys := make([]int32, n), make([]K, n)
		for i, it := range items {
			ids[i], keys[i] = it.id, it.key
		}
		x := build(t, nil, item{int32(n + 5), K{9, 9}}) // Load replaces what was there
		x.Load(ids, keys)
		mustCheck(t, x)
		if x.Len() != n || x.Contains(int32(n+5)) {
			t.Fatalf("n=%d: Len %d, old item present %v", n, x.Len(), x.Contains(int32(n+5)))
		}
		for i, id := range ids {
			if got := x.Position(id); got != i {
				t.Fatalf("n=%d: Position(%d) = %d, want %d", n, id, got, i)
			}
		}
		// The loaded tree takes updates like any other.
		for i := range min(n, 500) {
			x.Set(ids[i], K{uint64(i % 7), 1})
			if i%3 == 0 {
				x.Remove(ids[n-1-i])
			}
		}
		mustCheck(t, x)
	}
}

func TestLoadOutOfOrder(t *testing.T) {
	for name, c := range map[string]struct {
		ids  []int32
		keys []K
	}{
		"keys":     {[]int32{1, 2}, []K{{2, 0}, {1, 0}}},
		"tie":      {[]int32{2, 1}, []K{{1, 0}, {1, 0}}},
		"twice":    {[]int32{1, 1}, []K{{1, 0}, {2, 0}}},
		"lengths":  {[]int32{1, 2}, []K{{1, 0}}},
		"negative": {[]int32{-1}, []K{{1, 0}}},
	} {
		t.Run(name, func(t *testing.T) {
			x := build(t, nil, sample...)
			defer func() {
				if recover() == nil {
					t.Errorf("Load(%v, %v) did not panic", c.ids, c.keys)
				}
				if x.Len() != 0 {
					t.Errorf("after a refused Load: Len %d, want 0", x.Len())
				}
				mustCheck(t, x)
			}()
			x.Load(c.ids, c.keys)
		})
	}
}
