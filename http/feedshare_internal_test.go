package http

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// A connection of the shared event feed gets the lines after its own, or is told it fell behind.
func TestSharedFeedNext(t *testing.T) {
	// Lines 5 to 7 made together, then 8 to 10.
	sf := newSharedFeed(&feedReader{lines: 10, after: 100})
	sf.recent = []feedLines{
		{first: 5, starts: []int{0, 2, 4}, data: []byte("5\n6\n7\n")},
		{first: 8, starts: []int{0, 2, 4}, data: []byte("8\n9\nX\n")},
	}
	tests := []struct {
		after int64
		want  string // "behind": errFeedBehind
	}{
		{10, ""},
		{9, "X\n"},
		{7, "8\n9\nX\n"},
		{5, "6\n7\n8\n9\nX\n"},
		{4, "5\n6\n7\n8\n9\nX\n"},
		{3, "behind"},
	}
	for _, tt := range tests {
		out, last, _, err := sf.next(context.Background(), tt.after, 100)
		got := string(bytes.Join(out, nil))
		if errors.Is(err, errFeedBehind) {
			got = "behind"
		} else if err != nil || last != 10 {
			t.Errorf("after line %d: got last %d, error %v; want 10", tt.after, last, err)
		}
		if got != tt.want {
			t.Errorf("after line %d: got %q, want %q", tt.after, got, tt.want)
		}
	}
}
