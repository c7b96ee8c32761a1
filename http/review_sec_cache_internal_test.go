package http

import (
	"strconv"
	"testing"
)

// Requests for many different pages (a scanner, a client varying its query) do not push the pages that
// everyone reads out of the cache: a page read now and then stays, however many others come and go.
func TestPageCacheKeepsPagesInUse(t *testing.T) {
	var c pageCache
	c.put("board", "v1", []byte(`{"rows":[]}`))
	for i := range maxCachedPages + 1 {
		if i%500 == 0 {
			if _, ok := c.get("board", "v1"); !ok {
				t.Fatalf("after %d other pages: the page in use is gone", i)
			}
		}
		c.put("other"+strconv.Itoa(i), "v1", []byte(`[]`))
	}
	if _, ok := c.get("board", "v1"); !ok {
		t.Error("the page in use is gone")
	}
}
