package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// A line waiting for rankd (down, or slow to answer) longer than the feed may stay silent is neither lost
// nor a reason to connect again: the feed was not silent, the relay was busy. Before, the line was taken
// for passed on, and the connection opened again after it.
func TestFollowSlowRankdIsNoSilence(t *testing.T) {
	lines := []string{`{"type":"contest","id":null,"data":{"id":"c"},"token":"1"}`,
		`{"type":"teams","id":"t1","data":{"id":"t1","name":"T1"},"token":"2"}`,
		`{"type":"teams","id":"t2","data":{"id":"t2","name":"T2"},"token":"3"}`}
	var conns atomic.Int32
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := 0
		if r.URL.Query().Has("since_token") {
			fmt.Sscan(r.URL.Query().Get("since_token"), &from)
		}
		conns.Add(1)
		for _, l := range lines[from:] {
			io.WriteString(w, l+"\n")
		}
		// Keep-alives far more often than the silence allowed.
		for {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
				io.WriteString(w, "\n")
			}
		}
	}))
	defer src.Close()
	u, err := url.Parse(src.URL)
	if err != nil {
		t.Fatal(err)
	}
	f := &feedSource{url: u, client: src.Client(), silence: 50 * time.Millisecond, stderr: io.Discard, authorize: func(*http.Request) {}}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan []byte)
	done := make(chan error, 1)
	go func() { done <- f.run(ctx, out) }()

	var got []string
	for range lines {
		select {
		case l := <-out:
			got = append(got, string(l))
		case <-time.After(5 * time.Second):
		}
		time.Sleep(200 * time.Millisecond) // rankd takes its time
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, lines) || conns.Load() != 1 {
		t.Errorf("got lines %q over %d connections, want %q over one", got, conns.Load(), lines)
	}
}
