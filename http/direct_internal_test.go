package http

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A stream that ends writes what a direct write left of its chunk before anything else: its last event, and
// the end of the body that Go's server writes after it.
func TestStreamEndWritesTheRestFirst(t *testing.T) {
	server, client := net.Pipe()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(client)
		got <- string(b)
	}()
	rec := httptest.NewRecorder()
	sw := &streamWriter{w: rec, rc: http.NewResponseController(rec), conn: &wholeConn{Conn: server}, chunked: true}
	f := &follower{out: &directOut{sw: sw, granted: func() bool { return true },
		rest: net.Buffers{[]byte("the rest of a frame\n\n"), []byte("\r\n")}}}
	f.end(sw, []byte("event: error\ndata: {}\n\n"))
	server.Close()
	if rest := <-got; rest != "the rest of a frame\n\n\r\n" {
		t.Errorf("the connection got %q before the stream's end, want the rest of the chunk", rest)
	}
	if !strings.Contains(rec.Body.String(), "event: error") {
		t.Errorf("the last event was not written after the rest: body %q", rec.Body.String())
	}
	if !f.out.closed {
		t.Error("direct writes go on after the stream's end")
	}
	f.end(sw, nil) // the deferred end, after the last event: nothing more
}
