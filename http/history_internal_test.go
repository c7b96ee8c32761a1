package http

import (
	"strconv"
	"testing"
)

// The histories kept are bounded in number and in bytes; the newest is kept whatever its size.
func TestHistoriesAreBounded(t *testing.T) {
	var p past
	put := func(key string, size int) {
		p.putHistory(&historyEntry{key: key, page: cachedPage{body: make([]byte, size)}})
	}
	for i := range 40 {
		put(strconv.Itoa(i), 1000)
	}
	if len(p.histories) != maxHistories {
		t.Errorf("small ones: got %d kept, want %d", len(p.histories), maxHistories)
	}
	put("big", maxHistoryBytes/3)
	put("bigger", maxHistoryBytes/2)
	size := 0
	for _, h := range p.histories {
		size += h.page.size()
	}
	if size > maxHistoryBytes || p.histories[0].key != "bigger" || p.histories[1].key != "big" {
		t.Errorf("got %d bytes kept, newest %q, want at most %d, the newest first", size, p.histories[0].key, maxHistoryBytes)
	}
	put("huge", 2*maxHistoryBytes)
	if len(p.histories) != 1 || p.histories[0].key != "huge" {
		t.Errorf("one larger than the bound: got %d kept, want it alone", len(p.histories))
	}
}
