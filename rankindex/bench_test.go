package rankindex_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"rankd/rankindex"
)

var benchSizes = []int{1_000, 10_000, 100_000, 1_000_000}

// benchState is a filled index of n teams, cached across benchmarks because
// building the 1M one takes seconds. The benchmarks leave it valid, and its
// random source carries on, so a rerun with -count does not replay moves that
// are no-ops by now.
type benchState struct {
	x   *rankindex.Index
	rng *rand.Rand
}

var benchStates = map[string]benchState{}

// scoreKey turns 64 random bits into a realistic scoreboard key: Hi is
// 12 - solved (more solved is better), Lo is the penalty in 0..5000.
func scoreKey(r uint64) K {
	return K{Hi: 12 - r%13, Lo: (r >> 8) % 5001}
}

// benchIndex returns n teams with random scores. With byString the tie
// compares team names as strings; otherwise it compares each team's
// precomputed place in name order, the cheap tie a server should use.
func benchIndex(n int, byString bool) benchState {
	name := fmt.Sprint(n, byString)
	if s, ok := benchStates[name]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	var tie func(a, b int32) int
	if byString {
		names := make([]string, n)
		for i, p := range rng.Perm(n) {
			names[i] = fmt.Sprintf("team %07d", p)
		}
		tie = byName(names)
	} else {
		order := make([]int32, n)
		for i, p := range rng.Perm(n) {
			order[i] = int32(p)
		}
		tie = func(a, b int32) int { return cmp.Compare(order[a], order[b]) }
	}
	x := rankindex.New(tie)
	for id := range int32(n) {
		x.Set(id, scoreKey(rng.Uint64()))
	}
	// Churn until node fill settles: a freshly built tree still splits and
	// merges more, and allocates, while it drifts to its steady state.
	for range n {
		randomMove(x, n, rng)
	}
	s := benchState{x, rng}
	benchStates[name] = s
	runtime.GC() // keep the collection of the build garbage out of the timings
	return s
}

// benchAtSizes runs op as a sub-benchmark for each size.
func benchAtSizes(b *testing.B, byString bool, op func(x *rankindex.Index, n int, rng *rand.Rand)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := benchIndex(n, byString)
			b.ReportAllocs()
			for b.Loop() {
				op(s.x, n, s.rng)
			}
		})
	}
}

// randomMove moves a random team to a random key. One random draw feeds
// both so the generator costs little next to Set.
func randomMove(x *rankindex.Index, n int, rng *rand.Rand) {
	r := rng.Uint64()
	x.Set(int32((r>>32)*uint64(n)>>32), scoreKey(r))
}

func BenchmarkSet(b *testing.B) { benchAtSizes(b, false, randomMove) }

// BenchmarkSetNameTie is BenchmarkSet with a tie comparing name strings,
// which are cold in cache at large sizes: the difference is the tie's cost.
func BenchmarkSetNameTie(b *testing.B) { benchAtSizes(b, true, randomMove) }

func BenchmarkRank(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		x.Rank(int32(rng.IntN(n)))
	})
}

func BenchmarkPosition(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		x.Position(int32(rng.IntN(n)))
	})
}

// BenchmarkRange50 reads a 50-row page at a random offset.
func BenchmarkRange50(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		x.Range(rng.IntN(n-50), 50, func(int32, K, int) bool { return true })
	})
}

// BenchmarkRemoveInsert removes a random team and inserts it with a new key.
func BenchmarkRemoveInsert(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		r := rng.Uint64()
		id := int32((r >> 32) * uint64(n) >> 32)
		x.Remove(id)
		x.Set(id, scoreKey(r))
	})
}

// BenchmarkMove is BenchmarkSet reporting the ranks before and after, as a
// board needs for its diffs.
func BenchmarkMove(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		r := rng.Uint64()
		x.Move(int32((r>>32)*uint64(n)>>32), scoreKey(r))
	})
}

// BenchmarkSetRank is what Move replaces: Rank, Set, Rank.
func BenchmarkSetRank(b *testing.B) {
	benchAtSizes(b, false, func(x *rankindex.Index, n int, rng *rand.Rand) {
		r := rng.Uint64()
		id := int32((r >> 32) * uint64(n) >> 32)
		x.Rank(id)
		x.Set(id, scoreKey(r))
		x.Rank(id)
	})
}
