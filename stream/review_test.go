package stream_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"rankd/stream"
)

// A server that refuses the stream (a wrong token, too many streams open) is asked again after a retry
// delay, not twenty times a second.
func TestFollowerWaitsAfterARefusal(t *testing.T) {
	tests := []struct {
		name   string
		status int
	}{
		{"unauthorized", http.StatusUnauthorized},
		{"too many streams", http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				http.Error(w, `{"code":"x","message":"no"}`, tt.status)
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
			defer cancel()
			f := &stream.Follower{URL: srv.URL}
			_ = f.Run(ctx)
			if got := requests.Load(); got > 1 {
				t.Errorf("got %d requests in 600 ms, want 1: a refused follower waits %v", got, stream.DefaultRetry)
			}
		})
	}
}
