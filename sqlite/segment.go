package sqlite

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"slices"
	"time"

	"github.com/klauspost/compress/s2"

	"rankd"
)

// A segment holds the entries of one Append call (or a part of a large one) in two columns, each starting
// with a byte that names its encoding (segmentFormat). keys holds, for each entry in order, what the
// store's index needs:
//
//	byte   type            rankd.EventType
//	bytes  id              the object's id (Event.ID)
//	bytes  token           "" when the sender gave none
//	hash                   packed: uvarint n<<1 | hex, then n bytes (see appendHash)
//	byte   list            what the entry does to the submissions list: listNone, listPut, listDelete
//	bytes  submission id   listPut and listDelete only
//	bytes  team id         listPut only
//	bytes  problem id      listPut only
//	varint time            listPut only: contest time, milliseconds
//
// where bytes is a uvarint length and as many bytes, and (keysSum) a CRC-32C of all the bytes before it,
// format byte included. data holds each entry's data as bytes, after its format byte: as they are
// (dataPlain, what rankd wrote first), or compressed in one S2 block (dataS2), then with a CRC-32C of the
// block before it (dataS2Sum): event lines are JSON, and a fifth of their bytes is a fifth of the pages to
// write, log and sync. An S2 block has no checksum of its own, and SQLite's pages none either: a flipped bit
// in a literal would decode into another verdict without a word. Segments of the unchecked formats, written
// by earlier versions, are still read. A segment is read whole and in order, so no entry needs to be found
// without the ones before it.
const (
	keysPlain = 1
	keysSum   = 2
	dataPlain = 1
	dataS2    = 2
	dataS2Sum = 3
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// What an entry does to the submissions list.
const (
	listNone   = 0
	listPut    = 1 // a submission's new version
	listDelete = 2 // a submission's deletion
)

// maxSegmentBytes is the size of data beyond which Append starts a new segment: a call of many large
// entries is stored in a few rows rather than one, so that a replay holds one segment of bounded size at a
// time.
const maxSegmentBytes = 1 << 20

// maxSegmentData bounds a segment's data as a replay decodes it, so that a damaged length does not take
// gigabytes: a segment is closed past maxSegmentBytes, and its last entry came in a request body of at most
// 512 MiB (rankd serve --max-body).
const maxSegmentData = 1 << 30

// errBadSegment reports a segment the store cannot read: the file is damaged, or was not written by rankd.
var errBadSegment = errors.New("damaged log segment")

// segmentWriter encodes the entries of one segment.
type segmentWriter struct {
	keys, data []byte // data without its format byte
	packed     []byte // data compressed, with its format byte
	count      int
}

// reset starts a new segment.
func (w *segmentWriter) reset() {
	w.keys = append(w.keys[:0], keysSum)
	w.data = w.data[:0]
	w.count = 0
}

// columns returns the segment's two columns, each with its checksum; the writer takes no more entries
// until it is reset.
func (w *segmentWriter) columns() (keys, data []byte) {
	w.keys = binary.LittleEndian.AppendUint32(w.keys, crc32.Checksum(w.keys, castagnoli))
	const head = 1 + 4 // format, checksum
	w.packed = slices.Grow(w.packed[:0], head+s2.MaxEncodedLen(len(w.data)))
	w.packed = append(w.packed, dataS2Sum, 0, 0, 0, 0)
	w.packed = append(w.packed, s2.Encode(w.packed[head:cap(w.packed)], w.data)...)
	binary.LittleEndian.PutUint32(w.packed[1:], crc32.Checksum(w.packed[head:], castagnoli))
	return w.keys, w.packed
}

// checkedKeys returns a segment's keys column without its checksum, or errBadSegment when it does not match.
func checkedKeys(keys []byte) ([]byte, error) {
	if len(keys) == 0 || keys[0] != keysSum {
		return keys, nil // unchecked: newKeyReader tells its format
	}
	n := len(keys) - 4
	if n < 1 || crc32.Checksum(keys[:n], castagnoli) != binary.LittleEndian.Uint32(keys[n:]) {
		return nil, errBadSegment
	}
	return keys[:n], nil
}

// add appends an entry, whose hash packed (see appendHash) is packed.
func (w *segmentWriter) add(e *rankd.LogEntry, packed string) {
	ev := &e.Event
	k := append(w.keys, byte(ev.Type))
	k = appendString(k, ev.ID)
	k = appendString(k, e.Token)
	k = append(k, packed...)
	switch {
	case !listed(ev):
		k = append(k, listNone)
	case ev.Delete:
		k = append(k, listDelete)
		k = appendString(k, submissionID(ev))
	default:
		s := ev.Submission
		k = append(k, listPut)
		k = appendString(k, submissionID(ev))
		k = appendString(k, s.TeamID)
		k = appendString(k, s.ProblemID)
		k = binary.AppendVarint(k, s.Time.Milliseconds())
	}
	w.keys = k
	w.data = binary.AppendUvarint(w.data, uint64(len(e.Data)))
	w.data = append(w.data, e.Data...)
	w.count++
}

// listed reports whether an event changes the submissions list: a submission's new version or its deletion.
func listed(ev *rankd.Event) bool {
	return ev.Type == rankd.EventSubmission && (ev.Delete || ev.Submission != nil)
}

// submissionID returns the id of the submission an event carries or deletes.
func submissionID(ev *rankd.Event) string {
	if ev.ID == "" && ev.Submission != nil {
		return ev.Submission.ID
	}
	return ev.ID
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendHash appends a hash, packed: a uvarint n<<1 | hex, then n bytes. A hash of lowercase hexadecimal
// digits (what rankd computes) is stored as the bytes it spells (hex = 1), any other as it is (hex = 0),
// so that every hash reads back as it was given. Packing is one-to-one: two hashes are equal when their
// packed forms are.
func appendHash(b []byte, h string) []byte {
	if isLowerHex(h) {
		b = binary.AppendUvarint(b, uint64(len(h)/2)<<1|1)
		b, _ = hex.AppendDecode(b, []byte(h)) // cannot fail: checked
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(h))<<1)
	return append(b, h...)
}

// isLowerHex reports whether h is a non-empty, even number of lowercase hexadecimal digits.
func isLowerHex(h string) bool {
	if len(h) == 0 || len(h)%2 != 0 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !lowerHex[h[i]] {
			return false
		}
	}
	return true
}

// lowerHex tells the lowercase hexadecimal digits.
var lowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}

// keyRecord is what a segment's keys say of one entry. Its strings are slices of the keys read.
type keyRecord struct {
	typ     rankd.EventType
	id      string
	token   string
	hash    string // packed
	list    byte
	subID   string
	team    string
	problem string
	ms      int64
}

// keyReader reads the entries of a segment's keys in order.
type keyReader struct {
	s   string
	err error
}

// newKeyReader returns a reader of keys, which must start with the format byte (and be checked, see
// checkedKeys).
func newKeyReader(keys string) keyReader {
	if len(keys) == 0 || (keys[0] != keysPlain && keys[0] != keysSum) {
		return keyReader{err: errBadSegment}
	}
	return keyReader{s: keys[1:]}
}

// next reads the next entry's record into k.
func (r *keyReader) next(k *keyRecord) error {
	k.typ = rankd.EventType(r.byte())
	k.id = r.str()
	k.token = r.str()
	k.hash = r.hash()
	k.list = r.byte()
	switch k.list {
	case listNone:
	case listDelete:
		k.subID = r.str()
	case listPut:
		k.subID = r.str()
		k.team = r.str()
		k.problem = r.str()
		k.ms = r.varint()
	default:
		r.fail()
	}
	return r.err
}

// end returns an error unless every entry was read.
func (r *keyReader) end() error {
	if r.err == nil && len(r.s) != 0 {
		r.fail()
	}
	return r.err
}

func (r *keyReader) fail() {
	r.err, r.s = errBadSegment, ""
}

func (r *keyReader) byte() byte {
	if len(r.s) == 0 {
		r.fail()
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *keyReader) uvarint() uint64 {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64 && i < len(r.s); i++ {
		c := r.s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.s = r.s[i+1:]
			return v
		}
	}
	r.fail()
	return 0
}

func (r *keyReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *keyReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// hash returns a packed hash, with its head.
func (r *keyReader) hash() string {
	s := r.s
	n := r.uvarint() >> 1
	if n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	r.s = r.s[n:]
	return s[:len(s)-len(r.s)]
}

// hashText appends the text of a packed hash to b.
func hashText(b []byte, packed string) []byte {
	r := keyReader{s: packed}
	head := r.uvarint()
	if head&1 == 1 {
		return hex.AppendEncode(b, []byte(r.s))
	}
	return append(b, r.s...)
}

// segmentDecoder decodes segments for a replay, reusing its buffers from one segment to the next.
type segmentDecoder struct {
	hashes []int // where each entry's hash ends in text
	text   []byte
}

// decode returns the entries of a segment: count entries from position first, all stored at stored.
// Their Data are slices of a buffer of their own, data being the driver's (read before its next row);
// their tokens are slices of keys, and their hashes share one string.
func (d *segmentDecoder) decode(keyColumn, data []byte, first int64, count int, stored time.Time) ([]rankd.LogEntry, error) {
	keyColumn, err := checkedKeys(keyColumn)
	if err != nil {
		return nil, err
	}
	keys := string(keyColumn)
	// Each entry takes at least 5 bytes of keys (type, id, token, hash, list): a damaged count is refused
	// before it sizes the entries.
	if count <= 0 || count > len(keys)/5 || len(data) == 0 {
		return nil, errBadSegment
	}
	switch data[0] {
	case dataPlain:
		data = bytes.Clone(data[1:])
	case dataS2, dataS2Sum:
		block := data[1:]
		if data[0] == dataS2Sum {
			if len(block) < 4 || crc32.Checksum(block[4:], castagnoli) != binary.LittleEndian.Uint32(block) {
				return nil, errBadSegment
			}
			block = block[4:]
		}
		if n, err := s2.DecodedLen(block); err != nil || n > maxSegmentData {
			return nil, errBadSegment
		}
		if data, err = s2.Decode(nil, block); err != nil {
			return nil, errBadSegment
		}
	default:
		return nil, errBadSegment
	}
	r := newKeyReader(keys)
	entries := make([]rankd.LogEntry, count)
	d.hashes, d.text = d.hashes[:0], d.text[:0]
	var k keyRecord
	for i := range entries {
		if err := r.next(&k); err != nil {
			return nil, err
		}
		d.text = hashText(d.text, k.hash)
		d.hashes = append(d.hashes, len(d.text))
		n, w := binary.Uvarint(data)
		if w <= 0 || n > uint64(len(data)-w) {
			return nil, errBadSegment
		}
		e := &entries[i]
		e.Pos = first + int64(i)
		e.Token = k.token
		e.Data = data[w : w+int(n) : w+int(n)]
		e.Stored = stored
		data = data[w+int(n):]
	}
	if err := r.end(); err != nil || len(data) != 0 {
		return nil, errBadSegment
	}
	text, start := string(d.text), 0
	for i, end := range d.hashes {
		entries[i].Hash = text[start:end]
		start = end
	}
	return entries, nil
}
