package sqlite

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"unsafe"
)

// table is the index's map from a name (an object's type and id, or a token) to where its latest version
// is in the log and, for objects, its content hash. The garbage collector never scans it, however many
// names it holds: its map and its entries hold no pointers, names living in a byte arena.
//
// A name is found by a 64-bit hash of it, computed once per lookup (see key), which the map takes to the
// index of its entry; the entries are in chunks that never move, so that an entry found is changed in place.
// When two names have the same hash, the first one added has the map's key and the others are in extra, a
// map by name: each entry says its name, so a collision costs a comparison, never a wrong answer.
type table struct {
	m       map[uint64]int // the index of an entry, by its name's hash
	extra   map[name]int   // the names whose hash another name has in m
	entries [][]entry      // in chunks of entryChunk entries
	n       int            // the number of entries
	arena   arena          // the names of the entries, and content hashes too long to keep in an entry
}

// entryChunk is the number of entries of a chunk of a table.
const entryChunk = 1024

// arena holds a table's names, in chunks, so that it grows without copying what it holds.
type arena struct {
	chunks [][]byte
}

// chunkSize is the size of an arena's chunks; a longer string gets a chunk of its own.
const chunkSize = 64 << 10

// add copies s into the arena and returns where it is: the chunk's index, shifted 32 bits left, and the
// offset in the chunk.
func (a *arena) add(s string) uint64 {
	n := len(a.chunks)
	if n == 0 || len(a.chunks[n-1])+len(s) > cap(a.chunks[n-1]) {
		a.chunks = append(a.chunks, make([]byte, 0, max(chunkSize, len(s))))
		n++
	}
	c := &a.chunks[n-1]
	off := uint64(n-1)<<32 | uint64(len(*c))
	*c = append(*c, s...)
	return off
}

// get returns the n bytes at off (what add returned), as a string the caller keeps only while the
// arena holds them.
func (a *arena) get(off uint64, n uint64) string {
	if n == 0 {
		return ""
	}
	c := a.chunks[off>>32]
	o := off & (1<<32 - 1)
	return unsafe.String(&c[o], n)
}

// equal reports whether the n bytes at off (what add returned) are s.
func (a *arena) equal(off uint64, n uint64, s string) bool {
	c := a.chunks[off>>32]
	o := off & (1<<32 - 1)
	return string(c[o:o+n]) == s
}

// arenaMark is an arena's size, which truncate takes it back to.
type arenaMark struct{ chunks, last int }

func (a *arena) mark() arenaMark {
	if len(a.chunks) == 0 {
		return arenaMark{}
	}
	return arenaMark{len(a.chunks), len(a.chunks[len(a.chunks)-1])}
}

// truncate takes the arena back to mark m: what was added since is dropped.
func (a *arena) truncate(m arenaMark) {
	clear(a.chunks[m.chunks:])
	a.chunks = a.chunks[:m.chunks]
	if m.chunks > 0 {
		a.chunks[m.chunks-1] = a.chunks[m.chunks-1][:m.last]
	}
}

// name is a name of a table: a tag (an object's type; 0 for tokens) and its bytes.
type name struct {
	tag  uint8
	text string
}

// entry is a name's entry in a table.
type entry struct {
	pos  int64  // the position of the latest version
	off  uint64 // the name's text: see arena.get
	len  uint32
	tag  uint8
	hash hashDigest // objects: the latest version's content hash
}

// hashDigest is a content hash as the index keeps it: packed (see appendHash), in the entry when it fits, in
// the table's arena otherwise. Packing is one-to-one, so two hashes are equal when their digests say so. The
// zero hashDigest is the empty hash.
type hashDigest struct {
	b     [16]byte // the packed hash's bytes (after its head); hashLong: arena offset and length
	n     uint8    // the number of bytes of b in use
	flags uint8    // hashHex, hashLong
}

// The flags of a hashDigest.
const (
	hashHex  = 1 // a hash of lowercase hexadecimal digits, kept as the bytes they spell (as packed)
	hashLong = 2 // more than 16 bytes packed: b holds their offset in the arena and their number
)

// seed seeds the hashes of every table.
var seed = maphash.MakeSeed()

// keyMask masks the hashes of names: tests make most names collide with it.
var keyMask = ^uint64(0)

// key returns the hash a table knows a name by.
func key(n name) uint64 { return keyOf(nameHash(n)) }

// keyOf returns the key of a name whose nameHash is h.
func keyOf(h uint64) uint64 { return h & keyMask }

// nameHash returns the 64-bit hash of a name.
func nameHash(n name) uint64 {
	return maphash.String(seed, n.text) ^ uint64(n.tag)*0x9e3779b97f4a7c15
}

// at returns entry i.
func (t *table) at(i int) *entry {
	return &t.entries[i/entryChunk][i%entryChunk]
}

// get returns the index of the entry of name n, whose key is k, and whether the table has it; and whether
// the table has a name with key k (n or another).
func (t *table) get(k uint64, n name) (i int, found, taken bool) {
	i, taken = t.m[k]
	if !taken {
		return 0, false, false
	}
	if e := t.at(i); e.tag == n.tag && t.arena.equal(e.off, uint64(e.len), n.text) {
		return i, true, true
	}
	i, found = t.extra[n]
	return i, found, true
}

// add adds name n, whose key is k and which the table does not have (taken: what get said), and returns
// the index of its entry.
func (t *table) add(k uint64, n name, taken bool, pos int64, d hashDigest) int {
	if t.m == nil {
		t.m = make(map[uint64]int)
	}
	i := t.n
	if i%entryChunk == 0 && i/entryChunk == len(t.entries) {
		t.entries = append(t.entries, make([]entry, entryChunk))
	}
	*t.at(i) = entry{pos: pos, off: t.arena.add(n.text), len: uint32(len(n.text)), tag: n.tag, hash: d}
	t.n++
	if !taken {
		t.m[k] = i
		return i
	}
	if t.extra == nil {
		t.extra = make(map[name]int)
	}
	n.text = strings.Clone(n.text) // the caller's may be a slice of a larger string
	t.extra[n] = i
	return i
}

// removeLast removes the entry added last. Its name stays in the arena: the caller truncates it.
func (t *table) removeLast() {
	t.n--
	e := t.at(t.n)
	n := name{e.tag, t.arena.get(e.off, uint64(e.len))}
	k := key(n)
	if i, ok := t.m[k]; ok && i == t.n {
		// The names of extra with key k were added after this one, so removed before it.
		delete(t.m, k)
	} else {
		delete(t.extra, n)
	}
	*e = entry{}
}

// makeDigest returns the hashDigest of a packed hash (see appendHash), keeping it in the arena when it does not
// fit in a hashDigest.
func (t *table) makeDigest(packed string) hashDigest {
	r := keyReader{s: packed}
	head := r.uvarint()
	b := r.s
	d := hashDigest{flags: uint8(head & hashHex)}
	if len(b) > len(d.b) {
		d.flags |= hashLong
		binary.LittleEndian.PutUint64(d.b[:8], t.arena.add(b))
		binary.LittleEndian.PutUint64(d.b[8:], uint64(len(b)))
		return d
	}
	d.n = uint8(copy(d.b[:], b))
	return d
}

// packed returns the packed hash (see appendHash) that hashDigest d holds.
func (t *table) packed(d *hashDigest) string {
	b := string(d.b[:d.n])
	if d.flags&hashLong != 0 {
		b = t.arena.get(binary.LittleEndian.Uint64(d.b[:8]), binary.LittleEndian.Uint64(d.b[8:]))
	}
	return string(binary.AppendUvarint(nil, uint64(len(b))<<1|uint64(d.flags&hashHex))) + b
}

// sameHash reports whether hashDigest d is that of the packed hash packed.
func (t *table) sameHash(d *hashDigest, packed string) bool {
	r := keyReader{s: packed}
	head := r.uvarint()
	b := r.s
	if uint8(head&hashHex) != d.flags&hashHex {
		return false
	}
	if d.flags&hashLong != 0 {
		off := binary.LittleEndian.Uint64(d.b[:8])
		n := binary.LittleEndian.Uint64(d.b[8:])
		return t.arena.get(off, n) == b
	}
	return int(d.n) == len(b) && string(d.b[:d.n]) == b
}
