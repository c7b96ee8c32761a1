package board_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// sumlessLayout mirrors every field of the board's checkpoint (gob matches fields by name). Encoded, it has no
// checksum, as checkpoints of version 3 (uncheckedLayout sets it): the fuzzer's changes then reach the checks
// behind the checksum.
type sumlessLayout struct {
	checkpointLayout
	OlderAt       []uint32
	OlderID       []uint64
	OlderStart    []int64
	OlderJType    []uint8
	OlderScore    []float64
	OlderSubtasks [][]float64
	RevealTeam    []int32
	RevealProb    []uint16
}

// FuzzRestore restores arbitrary checkpoints, seeded with those of the checkpoint tests' boards with and
// without their checksum. A checkpoint is refused with EINVALID or restored into a board that reads without
// panicking, takes further events, and checkpoints and restores again into an equal board.
func FuzzRestore(f *testing.F) {
	for _, tc := range checkpointCases() {
		b := MustBoard(f, tc.evs)
		for i := range tc.further {
			ev := tc.further[i]
			_, _ = b.Apply(&ev) // refused ones too: the case has some
		}
		for _, bd := range []*board.Board{MustBoard(f, tc.evs), b} {
			data, err := bd.Checkpoint()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			l := uncheckedLayout(f, data)
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(&l); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	further := checkpointCases()[1].further
	f.Fuzz(func(t *testing.T, data []byte) { checkRestore(t, data, further) })
}

// uncheckedLayout decodes a checkpoint into a layout whose encoding has no checksum: version 3's.
func uncheckedLayout(tb testing.TB, data []byte) sumlessLayout {
	tb.Helper()
	var l sumlessLayout
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&l); err != nil {
		tb.Fatal(err)
	}
	l.Version = 3
	return l
}

// checkRestore restores data: refused with EINVALID, or a board that reads without panicking, checkpoints and
// restores again into an equal board, and takes further events.
func checkRestore(t *testing.T, data []byte, further []rankd.Event) {
	t.Helper()
	b, err := restoreBoard(data)
	if err != nil {
		if rankd.ErrorCode(err) != rankd.EINVALID {
			t.Fatalf("got %v, want success or an error with code %s", err, rankd.EINVALID)
		}
		return
	}
	if err := restoreSafely(data); err != nil {
		t.Fatalf("reading the restored board: %v", err)
	}
	again, err := b.Checkpoint()
	if err != nil {
		t.Fatalf("checkpoint of a restored board: %v", err)
	}
	restored, err := board.Restore(again)
	if err != nil {
		t.Fatalf("restoring the checkpoint of a restored board: %v", err)
	}
	compareBoards(t, "a restored board checkpointed and restored again", restored, b, true)
	for i := range further {
		ev := further[i]
		if err := applySafely(b, &ev); err != nil {
			t.Fatalf("%s %s applied to the restored board: %v", ev.Type, ev.ID, err)
		}
	}
}

// restoreBoard restores a checkpoint, turning a panic into an error that is not EINVALID.
func restoreBoard(data []byte) (b *board.Board, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return board.Restore(data)
}

// applySafely applies an event, turning a panic into an error; the event being refused is no error.
func applySafely(b *board.Board, ev *rankd.Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	_, _ = b.Apply(ev)
	return nil
}

// FuzzRestoreFields changes one number or string of a well-formed checkpoint without a checksum (a field
// chosen by position among the layout's numbers, strings and lists of them, then an element), which is
// what damage that gob still reads looks like; the board restored, if any, must hold as in FuzzRestore.
func FuzzRestoreFields(f *testing.F) {
	f.Add(uint8(1), uint16(0), uint16(0), int64(-1))
	f.Add(uint8(1), uint16(14), uint16(3), int64(1<<20))
	f.Add(uint8(4), uint16(30), uint16(1), int64(7))
	cases := checkpointCases()
	further := cases[1].further
	layouts := make([][]byte, len(cases))
	for i, tc := range cases {
		b := MustBoard(f, tc.evs)
		for j := range tc.further[:len(tc.further)/2] {
			ev := tc.further[j]
			_, _ = b.Apply(&ev)
		}
		data, err := b.Checkpoint()
		if err != nil {
			f.Fatal(err)
		}
		layouts[i] = data
	}
	f.Fuzz(func(t *testing.T, tc uint8, field, index uint16, value int64) {
		l := uncheckedLayout(t, layouts[int(tc)%len(layouts)])
		if !setField(reflect.ValueOf(&l).Elem(), int(field), int(index), value) {
			return
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(&l); err != nil {
			return // gob refuses to write some values (such as a nil element of a list); so does the board
		}
		checkRestore(t, buf.Bytes(), further)
	})
}

// setField sets the field-th number or string found walking v (structs, lists, arrays), or the index-th
// element of the field-th list of them, to value; it reports whether it found one.
func setField(v reflect.Value, field, index int, value int64) bool {
	n := 0
	var walk func(v reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				if n++; n-1 == field {
					v.Set(reflect.ValueOf(time.Unix(0, value)))
					return true
				}
				return false
			}
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() && walk(v.Field(i)) {
					return true
				}
			}
		case reflect.Pointer:
			if !v.IsNil() {
				return walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			if v.Len() == 0 {
				return false
			}
			switch v.Type().Elem().Kind() {
			case reflect.Struct, reflect.Slice, reflect.Pointer:
				for i := range v.Len() {
					if walk(v.Index(i)) {
						return true
					}
				}
				return false
			}
			if n++; n-1 == field {
				return set(v.Index(index%v.Len()), value)
			}
		default:
			if n++; n-1 == field {
				return set(v, value)
			}
		}
		return false
	}
	return walk(v)
}

// set sets a number, bool or string to value.
func set(v reflect.Value, value int64) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(value)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(value))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(uint64(value)))
	case reflect.Bool:
		v.SetBool(value&1 == 1)
	case reflect.String:
		v.SetString(strconv.FormatInt(value%8, 10))
	default:
		return false
	}
	return true
}
