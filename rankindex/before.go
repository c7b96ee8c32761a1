package rankindex

// CountBefore returns the number of items that order strictly before an item (k, id) would, whether or not
// id is present (and with whatever Key): the position (k, id) takes in the total order, not counting id
// itself. A viewer's own row can so be placed among the others without modifying the Index.
func (x *Index) CountBefore(k Key, id int32) int {
	n, c := x.root, 0
	for n.in != nil {
		i := max(x.upper(n, k, id)-1, 0)
		for _, v := range n.in.counts[:i] {
			c += int(v)
		}
		n = n.in.kids[i]
	}
	c += x.upper(n, k, id)
	if l := x.leafOf(id); l != nil && !k.Less(l.keys[slot(l, id)]) {
		c-- // id itself, at or before (k, id), was counted
	}
	return c
}
