package http_test

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"rankd"
)

// discardWriter is a ResponseWriter that keeps only its header, cleared for each response.
type discardWriter struct {
	header http.Header
	code   int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// A page read from the cache allocates little: it is what a big contest's spectators ask for most, and
// at tens of thousands of reads a second each allocation (a header value, a parsed query, a formatted
// key) showed in its cost.
func TestCachedPageAllocations(t *testing.T) {
	e := MustOpen(t)
	cid := e.MustGenContest(t, rankd.ICPC)
	for _, tc := range []struct {
		query, inm string
		code       int
		max        float64
	}{
		{"offset=0&limit=50", "", http.StatusOK, 6},
		{"offset=50&limit=50&view=public", "", http.StatusOK, 6},
		{"offset=0&limit=50", "x", http.StatusNotModified, 8},
	} {
		req := httptest.NewRequest("GET", "/api/v1/contests/"+cid+"/scoreboard?"+tc.query, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		w := &discardWriter{header: http.Header{}}
		e.server.ServeHTTP(w, req) // rendered and cached
		if tc.inm != "" {
			req.Header.Set("If-None-Match", w.header.Get("ETag"))
		}
		got := testing.AllocsPerRun(100, func() {
			clear(w.header)
			e.server.ServeHTTP(w, req)
		})
		if code := cmp.Or(w.code, http.StatusOK); code != tc.code {
			t.Fatalf("%s: got status %d, want %d", tc.query, code, tc.code)
		}
		if got > tc.max {
			t.Errorf("%s (If-None-Match %t): got %.0f allocations per read, want at most %.0f", tc.query, tc.inm != "", got, tc.max)
		}
	}
}

// The CCS scoreboard sends its cached rows as they are: encoded into each answer, they made a copy of
// megabytes per request of a big board, held while its client did not read. Two answers being written at
// once write the same rows.
func TestCCSScoreboardNotCopied(t *testing.T) {
	e := MustOpen(t)
	cid := e.MustGenContest(t, rankd.ICPC)
	path := "/api/contests/" + cid + "/scoreboard"
	e.server.ServeHTTP(&stalledWriter{header: http.Header{}}, httptest.NewRequest("GET", path, nil)) // rendered and cached
	release := make(chan struct{})
	var writing, done sync.WaitGroup
	writers := []*stalledWriter{{header: http.Header{}}, {header: http.Header{}}}
	for _, w := range writers {
		writing.Add(1)
		w.stalled, w.release = &writing, release
		req := httptest.NewRequest("GET", path, nil) // each its own, as the server gives
		done.Go(func() { e.server.ServeHTTP(w, req) })
	}
	writing.Wait() // both answers are being written, neither read
	close(release)
	done.Wait()
	if writers[0].largest == nil || writers[0].largest != writers[1].largest {
		t.Errorf("two answers written at once: got their largest writes from %p and %p, want the same cached rows", writers[0].largest, writers[1].largest)
	}
}

// stalledWriter is a ResponseWriter whose first write waits for release, as a client that does not read;
// it keeps where its largest write came from.
type stalledWriter struct {
	header  http.Header
	size    int
	largest *byte
	stalled *sync.WaitGroup
	release chan struct{}
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Write(p []byte) (int, error) {
	if w.stalled != nil {
		w.stalled.Done()
		w.stalled = nil
		<-w.release
	}
	if len(p) > w.size {
		w.size, w.largest = len(p), &p[0]
	}
	return len(p), nil
}
