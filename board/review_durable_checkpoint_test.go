package board_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"testing"

	"rankd"
	"rankd/board"
)

// MustCheckpoint returns b's checkpoint.
func MustCheckpoint(tb testing.TB, b *board.Board) []byte {
	tb.Helper()
	data, err := b.Checkpoint()
	if err != nil {
		tb.Fatalf("Checkpoint: %v", err)
	}
	return data
}

// TestDamagedCheckpointNeverRestoresAnotherBoard: a checkpoint damaged on disk (a bit flipped anywhere, or
// bytes lost at its end) is refused, so that the engine replays the log instead; it never restores a
// board other than the one checkpointed. A flipped bit in a submission's time or verdict passed every
// check and restored a wrong board, silently.
func TestDamagedCheckpointNeverRestoresAnotherBoard(t *testing.T) {
	cases := checkpointCases()
	for _, c := range []checkpointCase{cases[1], cases[len(cases)-1]} { // an ICPC board frozen, a CTF board
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			data := MustCheckpoint(t, MustBoard(t, c.evs))
			check := func(what string, d []byte) {
				t.Helper()
				b, err := board.Restore(d)
				if err != nil {
					if rankd.ErrorCode(err) != rankd.EINVALID {
						t.Errorf("%s: got %v, want an error with code %s", what, err, rankd.EINVALID)
					}
					return
				}
				if got := MustCheckpoint(t, b); !bytes.Equal(got, data) {
					t.Errorf("%s: restored a board other than the one checkpointed, want it refused", what)
				}
			}
			for i := range data {
				for _, mask := range []byte{0x01, 0x10, 0x80} {
					d := bytes.Clone(data)
					d[i] ^= mask
					check(fmt.Sprintf("byte %d ^ %#x", i, mask), d)
				}
			}
			for n := range len(data) {
				check(fmt.Sprintf("first %d of %d bytes", n, len(data)), data[:n])
			}
		})
	}
}

// TestCheckpointWithoutChecksumRestores: a checkpoint written before checkpoints carried a checksum (its
// snapshot alone, of the same version) is still restored after an upgrade, rather than the whole log
// replayed.
func TestCheckpointWithoutChecksumRestores(t *testing.T) {
	orig := MustBoard(t, checkpointCases()[1].evs)
	data := MustCheckpoint(t, orig)
	var layout checkpointLayout
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&layout); err != nil {
		t.Fatalf("decoding the snapshot of a checkpoint: %v", err)
	}
	layout.Version = 3 // the snapshot is version 3's, without the checksum
	restored, err := board.Restore(layout.encode(t))
	if err != nil {
		t.Fatalf("Restore of a checkpoint without checksum: %v", err)
	}
	if got := MustCheckpoint(t, restored); !bytes.Equal(got, data) {
		t.Errorf("a checkpoint without checksum restored another board")
	}
}
