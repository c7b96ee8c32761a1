package stream_test

import (
	"errors"
	"strings"
	"testing"

	"rankd/stream"
)

func ranks(b stream.Board) string {
	var parts []string
	for _, r := range b.Rows {
		parts = append(parts, r.TeamID+"="+string(rune('0'+r.Rank)))
	}
	return strings.Join(parts, " ")
}

func MustSnapshot(tb testing.TB, data string) stream.Board {
	tb.Helper()
	var b stream.Board
	if err := b.ApplySnapshot([]byte(data)); err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestApplyDiff(t *testing.T) {
	const snap = `{"seq":10,"rows":[{"team_id":"a","key":"1"},{"team_id":"b","key":"2"},{"team_id":"c","key":"2"},{"team_id":"d","key":"3"}]}`
	tests := []struct {
		name, diff string
		want       string
		seq        uint64
		err        error
	}{
		{"climb past two", `{"seq":11,"base_seq":10,"rows":[{"team_id":"d","pos":0,"key":"0"}]}`, "d=1 a=2 b=3 c=3", 11, nil},
		{"join a tie", `{"seq":12,"base_seq":10,"rows":[{"team_id":"a","pos":2,"key":"2"}]}`, "b=1 c=1 a=1 d=4", 12, nil},
		{"two moves", `{"seq":12,"base_seq":10,"rows":[{"team_id":"d","pos":0,"key":"0"},{"team_id":"a","pos":3,"key":"4"}]}`, "d=1 b=2 c=2 a=4", 12, nil},
		{"starts before", `{"seq":12,"base_seq":9,"rows":[]}`, "a=1 b=2 c=2 d=4", 10, stream.ErrGap},
		{"removed", `{"seq":11,"base_seq":10,"rows":[],"removed":["b"]}`, "a=1 c=2 d=3", 11, nil},
		{"stale", `{"seq":10,"base_seq":8,"rows":[{"team_id":"d","pos":0,"key":"0"}]}`, "a=1 b=2 c=2 d=4", 10, nil},
		{"gap", `{"seq":13,"base_seq":11,"rows":[]}`, "a=1 b=2 c=2 d=4", 10, stream.ErrGap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := MustSnapshot(t, snap)
			err := b.ApplyDiff([]byte(tt.diff))
			if !errors.Is(err, tt.err) {
				t.Fatalf("got error %v, want %v", err, tt.err)
			}
			if got := ranks(b); got != tt.want || b.Seq != tt.seq {
				t.Errorf("got %s at %d, want %s at %d", got, b.Seq, tt.want, tt.seq)
			}
		})
	}
}

func TestApplyBadJSON(t *testing.T) {
	var b stream.Board
	if err := b.ApplySnapshot([]byte(`{"seq":`)); err == nil {
		t.Error("a broken snapshot was applied")
	}
	if err := b.ApplyDiff([]byte(`[]`)); err == nil {
		t.Error("a broken diff was applied")
	}
}

func TestApplyDiffMergesCells(t *testing.T) {
	b := MustSnapshot(t, `{"seq":1,"rows":[{"team_id":"a","key":"1","cells":[{"problem_id":"A"},{"problem_id":"B","judged":1}]}]}`)
	if err := b.ApplyDiff([]byte(`{"seq":2,"base_seq":1,"rows":[{"team_id":"a","pos":0,"key":"0","solved":1,"cells":[{"problem_id":"A","solved":true,"judged":1}]}]}`)); err != nil {
		t.Fatal(err)
	}
	got := b.Rows[0]
	if got.Solved != 1 || len(got.Cells) != 2 || !got.Cells[0].Solved || got.Cells[1].Judged != 1 {
		t.Errorf("got %+v, want A solved and B kept", got)
	}
}

// Whatever a server sends, applying it does not panic, and ranks stay consistent with positions.
func FuzzApply(f *testing.F) {
	f.Add([]byte(`{"seq":1,"rows":[{"team_id":"a","key":"1"},{"team_id":"b","key":"1"}]}`),
		[]byte(`{"seq":2,"base_seq":1,"rows":[{"team_id":"b","pos":0,"key":"0","cells":[{"problem_id":"A"}]}],"removed":["a"]}`))
	f.Add([]byte(`{"seq":1,"rows":[]}`), []byte(`{"seq":2,"base_seq":1,"rows":[{"team_id":"x","pos":99}]}`))
	f.Add([]byte(`{}`), []byte(`{"seq":2,"base_seq":0,"rows":[{"team_id":"x","pos":-5},{"team_id":"x","pos":0}]}`))
	f.Fuzz(func(t *testing.T, snap, diff []byte) {
		var b stream.Board
		if b.ApplySnapshot(snap) != nil {
			return
		}
		_ = b.ApplyDiff(diff)
		for i, r := range b.Rows {
			if r.Pos != i || r.Rank < 1 || r.Rank > i+1 {
				t.Fatalf("row %d: pos %d rank %d", i, r.Pos, r.Rank)
			}
		}
	})
}
