package rankindex

import "fmt"

// loadFill is the number of entries Load puts in a node: three quarters full, so that the items moving
// after a Load split few nodes, and well above minFill, so that they merge few.
const loadFill = fanout * 3 / 4

// Load replaces the items of x with ids[i] at keys[i], which must be in the Index's order: by Key, then
// tie, then id, each id once. Building the tree bottom-up costs O(n) where n Sets would cost O(n log n):
// when a large share of the items move at once, sort the movers and merge them with the others, in order,
// and Load the result. Load panics, leaving x empty, if ids and keys differ in length or are out of order,
// or if tie panics.
func (x *Index) Load(ids []int32, keys []Key) {
	x.Reset()
	if len(ids) != len(keys) {
		panic(fmt.Sprintf("rankindex: Load of %d ids with %d keys", len(ids), len(keys)))
	}
	maxID := int32(-1)
	for _, id := range ids {
		if id < 0 {
			panic(fmt.Sprintf("rankindex: negative id %d", id))
		}
		maxID = max(maxID, id)
	}
	if int(maxID) >= len(x.leaf) {
		x.leaf = append(x.leaf, make([]*node, int(maxID)+1-len(x.leaf))...)
	}
	checked := false
	defer func() {
		if !checked { // a panic, ours or tie's: leave x empty
			clear(x.leaf)
		}
	}()
	for i, id := range ids {
		// Each id is marked present (in the root for now) as it is checked; the tree built next puts it
		// in its leaf.
		if x.leaf[id] != nil || i > 0 && !x.before(keys[i-1], ids[i-1], keys[i], id) {
			panic(fmt.Sprintf("rankindex: Load out of order at %d: (%v, %d) after (%v, %d)", i, keys[i], id, keys[i-1], ids[i-1]))
		}
		x.leaf[id] = x.root
	}
	checked = true
	if len(ids) == 0 {
		return
	}
	x.n = len(ids)

	// Leaves, evenly filled and linked left to right; the first is the empty root Reset left.
	level := x.level[:0]
	var prev *node
	for from, k := 0, 0; from < len(ids); k++ {
		cnt := share(len(ids), k)
		l := x.root
		if prev != nil {
			l = x.alloc(false)
			prev.next = l
		}
		copy(l.keys[:], keys[from:from+cnt])
		copy(l.ids[:], ids[from:from+cnt])
		l.n = int32(cnt)
		for _, id := range l.ids[:cnt] {
			x.leaf[id] = l
		}
		level = append(level, l)
		prev, from = l, from+cnt
	}
	// Inner levels, built the same way, until one node holds them all.
	for len(level) > 1 {
		m := len(level)
		up := level[:0] // written behind the reads
		for from, k := 0, 0; from < m; k++ {
			cnt := share(m, k)
			n := x.alloc(true)
			for j, kid := range level[from : from+cnt] {
				n.keys[j], n.ids[j] = kid.keys[0], kid.ids[0]
				n.in.kids[j], n.in.counts[j] = kid, kid.weight(0, int(kid.n))
				kid.parent, kid.pidx = n, int32(j)
			}
			n.n = int32(cnt)
			up = append(up, n)
			from += cnt
		}
		level = up
	}
	x.root = level[0]
	x.root.parent = nil
	clear(level)
	x.level = level[:0]
}

// share returns the number of entries the k-th node gets when n entries are spread as evenly as possible
// over nodes of at most loadFill entries: every node but a lone root holds at least loadFill/2, above
// minFill.
func share(n, k int) int {
	nodes := (n + loadFill - 1) / loadFill
	c := n / nodes
	if k < n%nodes {
		c++
	}
	return c
}

// before reports whether item (ka, a) orders strictly before item (kb, b).
func (x *Index) before(ka Key, a int32, kb Key, b int32) bool {
	if ka != kb {
		return ka.Less(kb)
	}
	return a != b && x.tieLess(a, b)
}
