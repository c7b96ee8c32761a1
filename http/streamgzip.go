package http

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// A live stream of a shared view goes gzip-compressed to a client that takes it (browsers do): a snapshot of a
// board of 10,000 teams is 7 MB as JSON, a tenth of that compressed, and every spectator's page gets one when it
// connects. Each frame is compressed once for all its followers, not once per client: a gzip body is a header,
// a deflate stream and a trailer (the CRC-32 and length of what it holds), and a deflate stream may be cut into
// pieces that each end with a sync flush and refer to nothing before them. Each client's stream is the header,
// the pieces of its frames, and, when it ends cleanly, an empty final block and the trailer, whose CRC follows
// from the pieces' own (crc32Combine).

// deflated is a piece of a compressed stream: data compressed alone, ending with a sync flush.
type deflated struct {
	data []byte
	crc  uint32 // of the data before compression
	// shift is x^(8n) modulo the CRC's polynomial, n the length of the data before compression: what
	// appending it does to the CRC of what came before (crc32Combine).
	shift uint32
	size  uint32 // the length before compression, modulo 2^32 as the trailer has it
}

// lazyDeflated is the piece of a frame shared by its followers: compressed by the first that needs it.
type lazyDeflated struct {
	once sync.Once
	d    deflated
}

func (z *lazyDeflated) of(data []byte) *deflated {
	z.once.Do(func() { z.d = deflate(data) })
	return &z.d
}

// flateWriters are the compressors of deflate: each holds about a megabyte.
var flateWriters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid
	return zw
}}

// deflate compresses b alone into a piece of a stream.
func deflate(b []byte) deflated {
	var buf bytes.Buffer
	zw := flateWriters.Get().(*flate.Writer)
	zw.Reset(&buf)
	_, _ = zw.Write(b) // a bytes.Buffer does not fail
	_ = zw.Flush()     // a sync flush: byte-aligned, not final, so pieces may follow
	flateWriters.Put(zw)
	// Kept as long as the frame is (a view keeps its last 512 for resumes): its exact size, not the buffer's.
	return deflated{data: bytes.Clone(buf.Bytes()), crc: crc32.ChecksumIEEE(b), shift: crc32Shift(uint64(len(b))), size: uint32(len(b))}
}

// gzipHeader starts a gzip member: deflate, no name, no time, unknown system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// gzipEnd is an empty final block (fixed codes, end of block at once), followed by the trailer.
func gzipEnd(crc, size uint32) []byte {
	b := []byte{0x03, 0x00}
	b = binary.LittleEndian.AppendUint32(b, crc)
	return binary.LittleEndian.AppendUint32(b, size)
}

// crc32Combine returns the CRC-32 (IEEE) of A followed by B from that of A, that of B and B's shift
// (crc32Shift of its length), as zlib's crc32_combine does.
func crc32Combine(crcA, crcB, shiftB uint32) uint32 { return crcMul(shiftB, crcA) ^ crcB }

// crc32Shift returns x^(8n) modulo the CRC-32 polynomial.
func crc32Shift(n uint64) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; n, k = n>>1, k+1 {
		if n&1 != 0 {
			p = crcMul(x2n[k&31], p)
		}
	}
	return p
}

// crcMul multiplies a and b modulo the CRC-32 polynomial, in the CRC's reflected bit order.
func crcMul(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32.IEEE
		} else {
			b >>= 1
		}
	}
	return p
}

// x2n holds x^(2^k) modulo the CRC-32 polynomial.
var x2n = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	for k := range t {
		t[k] = p
		p = crcMul(p, p)
	}
	return t
}()
