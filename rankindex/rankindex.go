// Package rankindex is an order-statistic index of scoreboard rows: it keeps
// items (an int32 id with a Key) in a total order and answers "where is this
// item", "what is its shared rank" and "which items are on this page" in
// logarithmic time while items keep moving.
//
// The structure is a B+tree with up to 64 entries per node. Leaves hold the
// items as parallel (Key, id) arrays and are linked left to right, so a page
// is read by walking leaves. An inner node holds, for each child, the child's
// first item (the separator used to descend) and the number of items in the
// child's subtree, so positions are found by summing counts. Every node knows
// its parent and its index there, and a per-id slice points to each id's
// leaf, so Remove, Position and Rank start at the item and walk up or search
// by Key alone; only Set and CountBefore descend by (Key, tie, id), calling
// tie only among items whose Key equals the one sought.
//
// Complexity with n items: Set, Remove, Position, Rank, RankOfKey, CountLess
// and At are O(log n); Range is O(log n + limit); Len, Contains and Key are
// O(1). Memory is about 50 bytes per item once updates have churned the
// tree (42 right after inserting), the per-id slice included. Nodes freed by
// merges are kept on free lists, so once the tree has reached its working
// size, updates do not allocate.
//
// An Index is not safe for concurrent use with writers. The read methods
// (Len, Contains, Key, Position, Rank, RankOfKey, CountLess, CountBefore, At,
// Range) do not modify the Index, so they may run concurrently with each
// other; of them only CountBefore calls tie, which it then needs to be safe
// for concurrent use.
package rankindex

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

const (
	// fanout is the capacity of every node. 64 keeps trees shallow (three
	// levels at 100k items) while shifting an entry within a node stays a
	// short memmove; 32 and 128 measured no better.
	fanout = 64
	// minFill is the occupancy below which a non-root node is merged or
	// refilled. A quarter rather than a half leaves a wide gap to the split
	// point, so an item moving back and forth does not merge and split the
	// same nodes over and over.
	minFill = fanout / 4
)

// Key orders rows: smaller is better. Keys compare by Hi, then Lo, both
// unsigned. Rows with equal Key share a rank.
type Key struct{ Hi, Lo uint64 }

// Less reports whether a orders strictly before b.
func (a Key) Less(b Key) bool { return below(a, b) == 1 }

// Index is an order-statistic index over items identified by dense
// non-negative int32 ids. Items are ordered by Key, then by the tie function,
// then by id, so the order is total and deterministic. The zero value is not
// usable; create one with New.
type Index struct {
	root  *node
	n     int
	leaf  []*node // leaf holding each id, nil if absent
	tie   func(a, b int32) int
	free  [2]*node // free lists of leaves [0] and inner nodes [1], linked by next
	level []*node  // scratch of Load
}

// node is a tree node, a leaf when in is nil. Pointer fields come first so
// the garbage collector stops scanning a node after them; ids follow the
// header so that a leaf's first cache line already holds some of them.
type node struct {
	in     *inner // inner nodes only: children and their counts
	next   *node  // leaf: right neighbour; free node: next free node
	parent *node
	pidx   int32         // index among the parent's children
	n      int32         // number of entries in use
	ids    [fanout]int32 // leaf: item ids; inner: id of each child's first item
	keys   [fanout]Key   // leaf: item keys; inner: key of each child's first item
}

// inner is the part of an inner node that leaves do without, kept apart so
// leaves stay a fifth smaller.
type inner struct {
	kids   [fanout]*node
	counts [fanout]int32 // number of items in each child's subtree
}

// New returns an empty Index. Items with equal Key are ordered by tie(a, b),
// negative when a goes first, and then by id; tie may be nil to order them by
// id alone. Only Set and CountBefore call tie, comparing the id given with
// present ids of the same Key, so it should be cheap: comparing each team's
// precomputed place in name order costs far less than comparing name
// strings. If what tie says about a present id changes (a team renamed),
// Remove the id before the change and Set it after; otherwise items sharing
// its Key may be misordered among themselves.
func New(tie func(a, b int32) int) *Index {
	x := &Index{tie: tie}
	x.root = x.alloc(false)
	return x
}

// Len returns the number of items.
func (x *Index) Len() int { return x.n }

// Contains reports whether id is present.
func (x *Index) Contains(id int32) bool { return x.leafOf(id) != nil }

// Key returns the Key of id and whether id is present.
func (x *Index) Key(id int32) (Key, bool) {
	l := x.leafOf(id)
	if l == nil {
		return Key{}, false
	}
	return l.keys[slot(l, id)], true
}

// Set inserts id with Key k, or moves it to k if it is present. Setting the
// Key an item already has does nothing. id must not be negative; the per-id
// slice grows to the largest id seen. If tie panics, id is left absent.
func (x *Index) Set(id int32, k Key) {
	if id < 0 {
		panic(fmt.Sprintf("rankindex: negative id %d", id))
	}
	if int(id) >= len(x.leaf) {
		x.leaf = append(x.leaf, make([]*node, int(id)+1-len(x.leaf))...)
	}
	if l := x.leaf[id]; l != nil {
		p := slot(l, id)
		if l.keys[p] == k {
			return
		}
		x.remove(l, p)
	}
	x.insert(k, id)
}

// Remove deletes id and reports whether it was present.
func (x *Index) Remove(id int32) bool {
	l := x.leafOf(id)
	if l == nil {
		return false
	}
	x.remove(l, slot(l, id))
	return true
}

// Position returns the 0-based position of id in the total order, or -1 if
// id is absent.
func (x *Index) Position(id int32) int {
	l := x.leafOf(id)
	if l == nil {
		return -1
	}
	pos := slot(l, id)
	for n := l; n.parent != nil; n = n.parent {
		par := n.parent
		for _, c := range par.in.counts[:n.pidx] {
			pos += int(c)
		}
	}
	return pos
}

// Rank returns the shared rank of id: 1 + the number of items with a strictly
// smaller Key, so equal Keys get equal ranks ("1, 2, 2, 4"). It returns 0 if
// id is absent.
func (x *Index) Rank(id int32) int {
	l := x.leafOf(id)
	if l == nil {
		return 0
	}
	return x.CountLess(l.keys[slot(l, id)]) + 1
}

// RankOfKey returns the rank an item with Key k has or would have: 1 + the
// number of items with a strictly smaller Key. k need not be present.
func (x *Index) RankOfKey(k Key) int { return x.CountLess(k) + 1 }

// CountLess returns the number of items with a Key strictly smaller than k.
func (x *Index) CountLess(k Key) int {
	n, c := x.root, 0
	for {
		// In an inner node every child before j-1 lies entirely below k and
		// every child from j on does not.
		j := lowerBound(n.keys[:n.n], k)
		if n.in == nil {
			return c + j
		}
		if j == 0 {
			return c
		}
		for _, v := range n.in.counts[:j-1] {
			c += int(v)
		}
		n = n.in.kids[j-1]
	}
}

// At returns the item at 0-based position pos. It panics if pos is not in
// [0, Len()).
func (x *Index) At(pos int) (id int32, k Key) {
	if pos < 0 || pos >= x.n {
		panic(fmt.Sprintf("rankindex: position %d out of range [0, %d)", pos, x.n))
	}
	n, p := x.locate(pos)
	return n.ids[p], n.keys[p]
}

// Range calls fn for the items from position offset on, in order, at most
// limit of them (all remaining ones if limit < 0), with each item's shared
// rank, and stops early when fn returns false. A negative offset counts as 0;
// an offset at or past Len calls nothing. fn must not modify the Index.
func (x *Index) Range(offset, limit int, fn func(id int32, k Key, rank int) bool) {
	offset = max(offset, 0)
	if offset >= x.n || limit == 0 {
		return
	}
	end := x.n
	if limit > 0 && limit < end-offset {
		end = offset + limit
	}
	n, p := x.locate(offset)
	prev := n.keys[p]
	rank := x.CountLess(prev) + 1 // offset may fall inside a run of equal keys
	for pos := offset; pos < end; pos++ {
		if p == int(n.n) {
			n, p = n.next, 0
		}
		if k := n.keys[p]; k != prev {
			prev, rank = k, pos+1 // everything before pos has a smaller key
		}
		if !fn(n.ids[p], prev, rank) {
			return
		}
		p++
	}
}

// Reset removes all items, keeping the allocated nodes and per-id slice for
// reuse.
func (x *Index) Reset() {
	x.releaseTree(x.root)
	x.root = x.alloc(false)
	x.n = 0
	clear(x.leaf)
}

// releaseTree puts all nodes of the subtree under n on the free lists.
func (x *Index) releaseTree(n *node) {
	if n.in != nil {
		for _, c := range n.in.kids[:n.n] {
			x.releaseTree(c)
		}
	}
	x.release(n)
}

// leafOf returns the leaf holding id, or nil if id is absent.
func (x *Index) leafOf(id int32) *node {
	if uint(id) >= uint(len(x.leaf)) {
		return nil
	}
	return x.leaf[id]
}

// slot returns the index of id in leaf l, which holds it.
func slot(l *node, id int32) int {
	return slices.Index(l.ids[:l.n], id)
}

// upper returns the number of entries of n that order at or before (k, id):
// in a leaf the insertion point, in an inner node one more than the child
// whose subtree holds (k, id). Keys are searched first, so tie is called only
// within a run of entries whose Key equals k.
func (x *Index) upper(n *node, k Key, id int32) int {
	keys := n.keys[:n.n]
	a := lowerBound(keys, k)
	if a == len(keys) || keys[a] != k {
		return a
	}
	// The run of k is keys[a:b]: b is the first key not below k+1, or the
	// end if k is the largest Key.
	b := len(keys)
	if lo, c := bits.Add64(k.Lo, 1, 0); k.Hi != math.MaxUint64 || c == 0 {
		b = a + lowerBound(keys[a:], Key{k.Hi + c, lo})
	}
	for a < b {
		m := int(uint(a+b) >> 1)
		if x.tieLess(id, n.ids[m]) {
			b = m
		} else {
			a = m + 1
		}
	}
	return a
}

// tieLess reports whether id a goes before id b when their Keys are equal.
func (x *Index) tieLess(a, b int32) bool {
	if x.tie != nil {
		if c := x.tie(a, b); c != 0 {
			return c < 0
		}
	}
	return a < b
}

// lowerBound returns the index of the first key not below k in sorted keys.
// The search is branch-free (the 128-bit compare is a subtraction's borrow),
// so it costs no mispredictions on the hot path.
func lowerBound(keys []Key, k Key) int {
	if len(keys) == 0 {
		return 0
	}
	base, n := 0, len(keys)
	for n > 1 {
		half := n >> 1
		base += half & -below(keys[base+half], k)
		n -= half
	}
	return base + below(keys[base], k)
}

// below returns 1 if a < b and 0 otherwise.
func below(a, b Key) int {
	_, c := bits.Sub64(a.Lo, b.Lo, 0)
	_, c = bits.Sub64(a.Hi, b.Hi, c)
	return int(c)
}

// locate returns the leaf and index of the item at position pos < x.n.
func (x *Index) locate(pos int) (*node, int) {
	n := x.root
	for n.in != nil {
		i := 0
		for pos >= int(n.in.counts[i]) {
			pos -= int(n.in.counts[i])
			i++
		}
		n = n.in.kids[i]
	}
	return n, pos
}

// insert adds an absent id and returns the leaf and index where it went. All
// tie calls happen before the tree changes, so a panicking tie function leaves
// the id absent and the tree intact.
func (x *Index) insert(k Key, id int32) (*node, int) {
	n := x.root
	for n.in != nil {
		n = n.in.kids[max(x.upper(n, k, id)-1, 0)]
	}
	p := x.upper(n, k, id)
	r := x.put(n, p, k, id, 0, nil)
	x.n++
	at, ap := n, p
	if r != nil && p > fanout/2 {
		at, ap = r, p-fanout/2
	}
	// Walk up counting the new item, linking in the right half of any split,
	// and copying a changed first entry into the parent's separator.
	first := p == 0
	for par := n.parent; par != nil; n, par = par, par.parent {
		i := int(n.pidx)
		par.in.counts[i]++
		if first {
			par.keys[i], par.ids[i] = n.keys[0], n.ids[0]
			first = i == 0
		}
		if r != nil {
			c := r.weight(0, int(r.n))
			par.in.counts[i] -= c
			r = x.put(par, i+1, r.keys[0], r.ids[0], c, r)
		}
	}
	if r != nil {
		x.root = x.alloc(true)
		x.put(x.root, 0, n.keys[0], n.ids[0], n.weight(0, int(n.n)), n)
		x.put(x.root, 1, r.keys[0], r.ids[0], r.weight(0, int(r.n)), r)
	}
	return at, ap
}

// put inserts an entry (for a leaf: an item; for an inner node: a child with
// its first item and count) at index p of n. If n is full it is split first
// and the new right half is returned, for the caller to link into n's parent.
func (x *Index) put(n *node, p int, k Key, id int32, c int32, kid *node) *node {
	var r *node
	if n.n == fanout {
		r = x.alloc(n.in != nil)
		const h = fanout / 2
		x.move(r, 0, n, h, fanout-h)
		r.n, n.n = fanout-h, h
		if n.in == nil {
			r.next, n.next = n.next, r
		}
		if p > h {
			n, p = r, p-h
		}
	}
	x.move(n, p+1, n, p, int(n.n)-p)
	n.keys[p], n.ids[p] = k, id
	if n.in != nil {
		n.in.counts[p], n.in.kids[p], kid.parent, kid.pidx = c, kid, n, int32(p)
	} else {
		x.leaf[id] = n
	}
	n.n++
	return r
}

// remove deletes the item at index p of leaf l.
func (x *Index) remove(l *node, p int) {
	x.leaf[l.ids[p]] = nil
	x.move(l, p, l, p+1, int(l.n)-p-1)
	l.n--
	x.n--
	// Walk up uncounting the item, refilling underfull nodes, and copying a
	// changed first entry into the parent's separator.
	first := p == 0
	for n, par := l, l.parent; par != nil; n, par = par, par.parent {
		i := int(n.pidx)
		par.in.counts[i]--
		switch {
		case n.n < minFill:
			x.rebalance(par, i)
			first = i == 0
		case first:
			par.keys[i], par.ids[i] = n.keys[0], n.ids[0]
			first = i == 0
		}
	}
	for x.root.in != nil && x.root.n == 1 {
		old := x.root
		x.root = old.in.kids[0]
		x.root.parent = nil
		x.release(old)
	}
}

// rebalance fixes the underfull child i of par by merging it with a sibling
// or, if both do not fit in one node, by sharing their entries evenly. It
// refreshes the separators of the children it changes. par always has a
// sibling to offer: non-root inner nodes have at least minFill children, and
// remove collapses a root left with one child.
func (x *Index) rebalance(par *node, i int) {
	li := i
	if i+1 == int(par.n) {
		li = i - 1
	}
	l, r := par.in.kids[li], par.in.kids[li+1]
	ln, rn := int(l.n), int(r.n)
	if ln+rn <= fanout {
		x.move(l, ln, r, 0, rn)
		l.n += r.n
		if l.in == nil {
			l.next = r.next
		}
		par.in.counts[li] += par.in.counts[li+1]
		x.move(par, li+1, par, li+2, int(par.n)-li-2)
		par.n--
		x.release(r)
	} else {
		t := (ln + rn) / 2 // l's share
		var c int32
		if ln > t {
			c = l.weight(t, ln)
			x.move(r, ln-t, r, 0, rn)
			x.move(r, 0, l, t, ln-t)
		} else {
			c = -r.weight(0, t-ln)
			x.move(l, ln, r, 0, t-ln)
			x.move(r, 0, r, t-ln, rn-(t-ln))
		}
		l.n, r.n = int32(t), int32(ln+rn-t)
		par.in.counts[li] -= c
		par.in.counts[li+1] += c
		par.keys[li+1], par.ids[li+1] = r.keys[0], r.ids[0]
	}
	if l.n > 0 {
		par.keys[li], par.ids[li] = l.keys[0], l.ids[0]
	}
}

// weight returns the number of items under entries [from, to) of n.
func (n *node) weight(from, to int) int32 {
	if n.in == nil {
		return int32(to - from)
	}
	var c int32
	for _, v := range n.in.counts[from:to] {
		c += v
	}
	return c
}

// move copies cnt entries of src starting at si to dst starting at di; src
// and dst may be the same node with overlapping ranges. Moved children learn
// their new parent and index in it, and items arriving in another leaf are
// recorded in the per-id slice.
func (x *Index) move(dst *node, di int, src *node, si, cnt int) {
	copy(dst.keys[di:], src.keys[si:si+cnt])
	copy(dst.ids[di:], src.ids[si:si+cnt])
	if src.in != nil {
		copy(dst.in.counts[di:], src.in.counts[si:si+cnt])
		copy(dst.in.kids[di:], src.in.kids[si:si+cnt])
		for j, c := range dst.in.kids[di : di+cnt] {
			c.parent, c.pidx = dst, int32(di+j)
		}
	} else if dst != src {
		for _, id := range dst.ids[di : di+cnt] {
			x.leaf[id] = dst
		}
	}
}

// alloc returns an empty node, from the free lists when possible.
func (x *Index) alloc(isInner bool) *node {
	f := &x.free[0]
	if isInner {
		f = &x.free[1]
	}
	n := *f
	if n == nil {
		n = new(node)
		if isInner {
			n.in = new(inner)
		}
		return n
	}
	*f, n.next, n.parent, n.n = n.next, nil, nil, 0
	return n
}

// release puts n on its free list.
func (x *Index) release(n *node) {
	f := &x.free[0]
	if n.in != nil {
		f = &x.free[1]
	}
	n.next, *f = *f, n
}
