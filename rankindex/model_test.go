package rankindex_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"rankd/rankindex"
)

// model is the naive reference: a slice of ids kept sorted by (key, name, id).
type model struct {
	ids   int // ids are 0..ids-1
	names []string
	key   map[int32]K
	order []int32
}

func (m *model) cmp(a, b int32) int { return m.cmpItem(m.key[a], a, m.key[b], b) }

// cmpItem compares items (ka, a) and (kb, b), which need not be present.
func (m *model) cmpItem(ka K, a int32, kb K, b int32) int {
	switch {
	case ka != kb && ka.Less(kb):
		return -1
	case ka != kb:
		return 1
	case m.names != nil && m.names[a] != m.names[b]:
		if m.names[a] < m.names[b] {
			return -1
		}
		return 1
	}
	return int(a) - int(b)
}

// countBefore counts the items other than id that order before (k, id).
func (m *model) countBefore(k K, id int32) int {
	n := 0
	for _, o := range m.order {
		if o != id && m.cmpItem(m.key[o], o, k, id) < 0 {
			n++
		}
	}
	return n
}

func (m *model) set(id int32, k K) {
	m.remove(id)
	m.key[id] = k
	i, _ := slices.BinarySearchFunc(m.order, id, m.cmp)
	m.order = slices.Insert(m.order, i, id)
}

func (m *model) remove(id int32) bool {
	if _, ok := m.key[id]; !ok {
		return false
	}
	p := m.position(id)
	m.order = slices.Delete(m.order, p, p+1)
	delete(m.key, id)
	return true
}

func (m *model) position(id int32) int {
	return slices.Index(m.order, id)
}

// countLess finds the first item whose key is not below k; order is sorted by key.
func (m *model) countLess(k K) int {
	return sort.Search(len(m.order), func(i int) bool { return !m.key[m.order[i]].Less(k) })
}

// rows returns what Range(offset, limit) must report, ranks computed from scratch.
func (m *model) rows(offset, limit int) []row {
	var out []row
	for pos := max(offset, 0); pos < len(m.order) && (limit < 0 || len(out) < limit); pos++ {
		id := m.order[pos]
		out = append(out, row{id, m.key[id], m.countLess(m.key[id]) + 1})
	}
	return out
}

func TestAgainstModel(t *testing.T) {
	configs := []struct {
		ids, keys, ops, fullEvery int
		names, extreme            bool // extreme: keys at the top of the key space
	}{
		{ids: 40, keys: 3, ops: 20000, fullEvery: 5},
		{ids: 300, keys: 3, ops: 30000, fullEvery: 10, names: true},
		{ids: 8000, keys: 2, ops: 50000, fullEvery: 2500, names: true},
		{ids: 10000, keys: 60, ops: 50000, fullEvery: 2500},
		{ids: 2000, keys: 3, ops: 20000, fullEvery: 1000, names: true, extreme: true},
	}
	for ci, c := range configs {
		t.Run(fmt.Sprintf("ids=%d,keys=%d,names=%v,extreme=%v", c.ids, c.keys, c.names, c.extreme), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 99))
			m := &model{ids: c.ids, key: map[int32]K{}}
			var tie func(a, b int32) int
			if c.names {
				// Few distinct names, so equal names (falling back to id) occur too.
				m.names = make([]string, c.ids)
				for i := range m.names {
					m.names[i] = fmt.Sprintf("team%d", rng.IntN(c.ids/2+1))
				}
				tie = byName(m.names)
			}
			x := rankindex.New(tie)
			randKey := func() K {
				k := K{rng.Uint64N(uint64(c.keys)), rng.Uint64N(uint64(c.keys))}
				if c.extreme {
					k = K{^k.Hi, ^k.Lo}
				}
				return k
			}
			for op := range c.ops {
				id := int32(rng.IntN(c.ids))
				switch r := rng.IntN(100); {
				case r < 60:
					k := randKey()
					if old, ok := m.key[id]; ok && r < 10 {
						k = old // Set with the key already held
					}
					if r%2 == 0 {
						x.Set(id, k)
						m.set(id, k)
						break
					}
					// Move reports the ranks before and after.
					wantOld := 0
					if old, ok := m.key[id]; ok {
						wantOld = m.countLess(old) + 1
					}
					m.set(id, k)
					gotOld, gotNew := x.Move(id, k)
					if wantNew := m.countLess(k) + 1; gotOld != wantOld || gotNew != wantNew {
						t.Fatalf("op %d: Move(%d, %v) = %d, %d, want %d, %d", op, id, k, gotOld, gotNew, wantOld, wantNew)
					}
				case r < 62:
					// Many items move at once, and the whole order is loaded.
					for range rng.IntN(c.ids/4 + 1) {
						id := int32(rng.IntN(c.ids))
						if rng.IntN(4) == 0 {
							m.remove(id)
						} else {
							m.set(id, randKey())
						}
					}
					keys := make([]K, len(m.order))
					for i, id := range m.order {
						keys[i] = m.key[id]
					}
					x.Load(slices.Clone(m.order), keys)
				default:
					if got, want := x.Remove(id), m.remove(id); got != want {
						t.Fatalf("op %d: Remove(%d) = %v, want %v", op, id, got, want)
					}
				}
				if op == c.ops/2 {
					x.Reset()
					m.key, m.order = map[int32]K{}, nil
				}
				checkItem(t, x, m, id)
				if op%c.fullEvery == 0 {
					checkFull(t, x, m, rng, randKey())
				}
			}
			checkFull(t, x, m, rng, randKey())
			t.Logf("final: %d items, height %d", x.Len(), x.Height())
		})
	}
}

func checkItem(t *testing.T, x *rankindex.Index, m *model, id int32) {
	t.Helper()
	wantPos, wantRank := m.position(id), 0
	if wantPos >= 0 {
		wantRank = m.countLess(m.key[id]) + 1
	}
	if x.Len() != len(m.order) || x.Position(id) != wantPos || x.Rank(id) != wantRank {
		t.Fatalf("id %d: Len %d Position %d Rank %d, want %d %d %d",
			id, x.Len(), x.Position(id), x.Rank(id), len(m.order), wantPos, wantRank)
	}
}

func checkFull(t *testing.T, x *rankindex.Index, m *model, rng *rand.Rand, k K) {
	t.Helper()
	mustCheck(t, x)
	if got, want := collect(x, 0, -1), m.rows(0, -1); !slices.Equal(got, want) {
		t.Fatalf("order differs:\n got %v\nwant %v", got, want)
	}
	for pos, id := range m.order {
		if gid, gk := x.At(pos); gid != id || gk != m.key[id] {
			t.Fatalf("At(%d) = %d, %v; want %d, %v", pos, gid, gk, id, m.key[id])
		}
		if p := x.Position(id); p != pos {
			t.Fatalf("Position(%d) = %d, want %d", id, p, pos)
		}
		if r, want := x.Rank(id), m.countLess(m.key[id])+1; r != want {
			t.Fatalf("Rank(%d) = %d, want %d", id, r, want)
		}
	}
	if got, want := x.RankOfKey(k), m.countLess(k)+1; got != want {
		t.Fatalf("RankOfKey(%v) = %d, want %d", k, got, want)
	}
	for range 5 { // ids present or not, keys below, at or above their own
		id := int32(rng.IntN(m.ids))
		if got, want := x.CountBefore(k, id), m.countBefore(k, id); got != want {
			t.Fatalf("CountBefore(%v, %d) = %d, want %d", k, id, got, want)
		}
	}
	offset, limit := rng.IntN(len(m.order)+3)-1, rng.IntN(60)-1
	if got, want := collect(x, offset, limit), m.rows(offset, limit); !slices.Equal(got, want) {
		t.Fatalf("Range(%d, %d):\n got %v\nwant %v", offset, limit, got, want)
	}
}
