package rankindex

import "fmt"

// Fanout exposes the node capacity so tests can size trees to several levels.
const Fanout = fanout

// Height returns the number of levels of the tree (1 for a lone leaf).
func (x *Index) Height() int {
	h := 1
	for n := x.root; n.in != nil; n = n.in.kids[0] {
		h++
	}
	return h
}

// Check verifies the tree's invariants: node fill, equal leaf depth, subtree
// counts, separators equal to each child's first item, strict item order,
// parent links, agreement with the per-id slice, and the leaf chain.
func (x *Index) Check() error {
	c := checker{x: x, depth: -1}
	total, err := c.node(x.root, 0)
	if err != nil {
		return err
	}
	if total != x.n {
		return fmt.Errorf("tree holds %d items, Len is %d", total, x.n)
	}
	if x.root.parent != nil {
		return fmt.Errorf("root has a parent")
	}
	in := 0
	for _, l := range x.leaf {
		if l != nil {
			in++
		}
	}
	if in != x.n {
		return fmt.Errorf("%d ids marked present, Len is %d", in, x.n)
	}
	for i, l := range c.leaves {
		var want *node
		if i+1 < len(c.leaves) {
			want = c.leaves[i+1]
		}
		if l.next != want {
			return fmt.Errorf("leaf %d: next link broken", i)
		}
	}
	return nil
}

type checker struct {
	x      *Index
	depth  int
	leaves []*node
	seen   bool
	lastK  Key
	lastID int32
}

func (c *checker) node(n *node, level int) (int, error) {
	root := n == c.x.root
	switch {
	case n.n > fanout:
		return 0, fmt.Errorf("level %d: %d entries exceed fanout", level, n.n)
	case !root && n.n < minFill:
		return 0, fmt.Errorf("level %d: %d entries under minFill", level, n.n)
	case root && n.in != nil && n.n < 2:
		return 0, fmt.Errorf("inner root with %d children", n.n)
	}
	if n.in == nil {
		if c.depth < 0 {
			c.depth = level
		} else if c.depth != level {
			return 0, fmt.Errorf("leaves at levels %d and %d", c.depth, level)
		}
		c.leaves = append(c.leaves, n)
		for i := range int(n.n) {
			k, id := n.keys[i], n.ids[i]
			if c.x.leaf[id] != n {
				return 0, fmt.Errorf("id %d: per-id slice points to another leaf", id)
			}
			if c.seen && !c.lastK.Less(k) && (c.lastK != k || !c.x.tieLess(c.lastID, id)) {
				return 0, fmt.Errorf("id %d (%v) not after id %d (%v)", id, k, c.lastID, c.lastK)
			}
			c.seen, c.lastK, c.lastID = true, k, id
		}
		return int(n.n), nil
	}
	total := 0
	for i, kid := range n.in.kids[:n.n] {
		if kid.parent != n || int(kid.pidx) != i {
			return 0, fmt.Errorf("level %d child %d: wrong parent link", level, i)
		}
		cnt, err := c.node(kid, level+1)
		if err != nil {
			return 0, err
		}
		if int(n.in.counts[i]) != cnt {
			return 0, fmt.Errorf("level %d child %d: count %d, subtree has %d", level, i, n.in.counts[i], cnt)
		}
		if kid.n > 0 && (n.keys[i] != kid.keys[0] || n.ids[i] != kid.ids[0]) {
			return 0, fmt.Errorf("level %d child %d: stale separator", level, i)
		}
		total += cnt
	}
	return total, nil
}
