package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"rankd/stream"
)

// A connection that goes silent (its server's host down, a network cut: nothing is closed) is taken for
// dead once it has brought nothing for the follower's Silence, and the follower reconnects, here to a server
// that has moved on.
func TestFollowerLeavesASilentConnection(t *testing.T) {
	var requests atomic.Int64
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: 2000\n\nevent: snapshot\nid: %d\ndata: {\"seq\":%d,\"rows\":[]}\n\n", n, n)
		w.(http.Flusher).Flush()
		select { // then silence, not even a comment
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := &stream.Follower{URL: srv.URL, Silence: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	for {
		if b, _ := f.Board(); b.Seq >= 2 {
			break
		}
		select {
		case <-ctx.Done():
			b, _ := f.Board()
			t.Fatalf("got seq %d after 10 s on a silent connection, want 2: the follower never left it", b.Seq)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	<-done
}
