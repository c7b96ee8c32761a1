package http_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rankd/export"
	rankdhttp "rankd/http"
)

// TestExportBurstSharesOneBuild: anyone may download the public workbook, and one of 10,000 teams takes a
// second and tens of megabytes to write; requests that come together for the same file of the same board
// share one build, not one each.
func TestExportBurstSharesOneBuild(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var builds atomic.Int32
	release := make(chan struct{})
	restore := rankdhttp.WrapExportWriter("xlsx", func(write func(io.Writer, *export.Board) error) func(io.Writer, *export.Board) error {
		return func(w io.Writer, b *export.Board) error {
			builds.Add(1)
			<-release
			return write(w, b)
		}
	})
	defer restore()

	const requests = 8
	bodies := make([][]byte, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			r := e.Do(t, "GET", "/api/v1/contests/c1/export?format=xlsx", "", nil)
			if r.Status != http.StatusOK {
				t.Errorf("got status %d, want %d: %s", r.Status, http.StatusOK, r.Body)
			}
			bodies[i] = r.Body
		})
	}
	// Until every request would have started a build of its own, or a second.
	for deadline := time.Now().Add(2 * time.Second); builds.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	if got := builds.Load(); got != 1 {
		t.Errorf("got %d builds for %d requests at once, want 1", got, requests)
	}
	for i, body := range bodies {
		if len(body) == 0 || !bytes.Equal(body, bodies[0]) {
			t.Errorf("request %d: got %d bytes, want the %d bytes of the others", i, len(body), len(bodies[0]))
		}
	}
}
