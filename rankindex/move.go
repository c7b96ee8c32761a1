package rankindex

import "fmt"

// Move sets the Key of id to k as Set does, and returns the shared rank id had
// before (0 if it was absent) and the one it has after. It costs about one
// Set rather than a Set and two Ranks: each rank is read off the path the
// update walks anyway, and only where an equal Key precedes the item does it
// take a search by Key.
func (x *Index) Move(id int32, k Key) (oldRank, newRank int) {
	if id < 0 {
		panic(fmt.Sprintf("rankindex: negative id %d", id))
	}
	if int(id) >= len(x.leaf) {
		x.leaf = append(x.leaf, make([]*node, int(id)+1-len(x.leaf))...)
	}
	if l := x.leaf[id]; l != nil {
		p := slot(l, id)
		oldRank = x.rankAt(l, p)
		if l.keys[p] == k {
			return oldRank, oldRank
		}
		x.remove(l, p)
	}
	l, p := x.insert(k, id)
	return oldRank, x.rankAt(l, p)
}

// rankAt returns the shared rank of the item at index p of leaf l. When the
// item before it in the leaf has a smaller Key, the rank is its position plus
// one, found by walking up; otherwise it counts the smaller Keys from the root.
func (x *Index) rankAt(l *node, p int) int {
	if p == 0 || l.keys[p-1] == l.keys[p] {
		return x.CountLess(l.keys[p]) + 1
	}
	pos := p
	for n := l; n.parent != nil; n = n.parent {
		for _, c := range n.parent.in.counts[:n.pidx] {
			pos += int(c)
		}
	}
	return pos + 1
}
