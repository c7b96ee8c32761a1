package stream_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rankd/stream"
)

// A server that refuses the stream for now (too many streams open, a contest not there yet), or ends it with
// an error event, is asked again after a retry delay, not twenty times a second.
func TestFollowerWaitsAfterARefusal(t *testing.T) {
	tests := []struct {
		name   string
		status int
	}{
		{"too many streams", http.StatusServiceUnavailable},
		{"no contest yet", http.StatusNotFound},
	}
	tests = append(tests, struct {
		name   string
		status int
	}{"a stream ended with an error event (its contest deleted)", http.StatusOK})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if tt.status == http.StatusOK {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = w.Write([]byte("event: error\nid\ndata: {\"code\":\"not_found\",\"message\":\"gone\"}\n\n"))
					return
				}
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

// A refusal that asking again cannot change (a bad request, a token refused or not allowed the view) ends
// Run with its error, after one request: a follower given a wrong token said nothing and asked for ever.
func TestFollowerStopsAtAFinalRefusal(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden} {
		var requests atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			http.Error(w, `{"code":"x","message":"no"}`, status)
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		f := &stream.Follower{URL: srv.URL}
		err := f.Run(ctx)
		timedOut := ctx.Err() != nil
		cancel()
		srv.Close()
		if err == nil || timedOut || !strings.Contains(err.Error(), strconv.Itoa(status)) || requests.Load() != 1 {
			t.Errorf("status %d: got %v after %d requests, want the refusal after 1", status, err, requests.Load())
		}
	}
}
