package http

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

// Pieces compressed alone, between a gzip header and an end made from their CRCs, are one gzip body that
// reads back as their concatenation, to a clean end.
func TestDeflatedPiecesMakeOneGzipBody(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{{}, {0}, {1}, {13, 0, 70000}, {5, 5, 5, 5, 5}, {300000, 1}} {
		body := append([]byte(nil), gzipHeader...)
		var want []byte
		var crc, size uint32
		for _, n := range sizes {
			piece := make([]byte, n)
			for i := range piece {
				piece[i] = "event: diff\ndata: {}\n\n"[rng.IntN(22)] // compressible, not trivially
			}
			d := deflate(piece)
			body = append(body, d.data...)
			crc, size = crc32Combine(crc, d.crc, d.shift), size+d.size
			want = append(want, piece...)
		}
		if crc != crc32.ChecksumIEEE(want) {
			t.Errorf("pieces of %v bytes: got CRC %08x, want %08x", sizes, crc, crc32.ChecksumIEEE(want))
		}
		body = append(body, gzipEnd(crc, size)...)
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("pieces of %v bytes: got %d bytes, %v; want %d bytes and a clean end", sizes, len(got), err, len(want))
		}
	}
}

// crc32Combine agrees with the CRC of the concatenation for every split of random data.
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		data := make([]byte, rng.IntN(5000))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		k := rng.IntN(len(data) + 1)
		a, b := data[:k], data[k:]
		got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), crc32Shift(uint64(len(b))))
		if want := crc32.ChecksumIEEE(data); got != want {
			t.Fatalf("%d bytes split at %d: got %08x, want %08x", len(data), k, got, want)
		}
	}
}
