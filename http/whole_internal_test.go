package http

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
)

// countingConn counts the writes that reach the network.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, &l.writes}, nil
}

// A scoreboard page larger than the 4 KiB Go's server buffers per connection goes out in one write, header
// and body together: each write is a pass through the network stack, as costly as the rest of a page read.
// One larger than maxHeld goes as it comes, not copied first (an unread answer would hold the copy).
func TestPageInOneWrite(t *testing.T) {
	for _, size := range []int{100, 10 << 10, 200 << 10} {
		body := bytes.Repeat([]byte("x"), size)
		s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
		s.mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
			writePage(w, r, rankd.View{Kind: rankd.ViewPublic}, newPage(`"public-1"`, body, body), `"public-1"`)
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		counting := &countingListener{Listener: ln}
		s.serve(counting)
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		for i := range 3 { // one connection, kept alive
			before := counting.writes.Load()
			resp, err := client.Get("http://" + ln.Addr().String() + "/page")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes, request %d: got %d bytes (%v), want the page", size, i, len(got), err)
			}
			if n := counting.writes.Load() - before; n != 1 && size <= maxHeld {
				t.Errorf("%d bytes, request %d: got %d writes, want 1", size, i, n)
			}
		}
		if err := s.srv.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// Each write of a live stream (a frame of a tick, or the frames queued for a client behind) leaves in one
// write to the network, chunk header, data and flush together: with thousands of clients per frame, each
// write is a pass through the network stack (a frame of 10 KB went in three). One larger than maxHeld goes
// as it comes, not copied.
func TestStreamPartsInOneWrite(t *testing.T) {
	frame := func(size int) []byte { return bytes.Repeat([]byte("x"), size) }
	cases := [][][]byte{{frame(100)}, {frame(10 << 10)}, {frame(10 << 10), frame(20 << 10), frame(5)}, {frame(200 << 10)}}
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingListener{Listener: ln}
	writes := make(chan int64, len(cases))
	s.mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		sw := startStream(w, r, "text/event-stream", false)
		for _, parts := range cases {
			before := counting.writes.Load()
			if !sw.write(parts...) {
				t.Error("a write to a client that reads: got false, want true")
			}
			writes <- counting.writes.Load() - before
		}
	})
	s.serve(counting)
	defer s.srv.Shutdown(context.Background())
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Get("http://" + ln.Addr().String() + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	var want []byte
	for _, parts := range cases {
		want = append(want, bytes.Join(parts, nil)...)
	}
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (%v), want the %d written", len(got), err, len(want))
	}
	for _, parts := range cases {
		size := len(bytes.Join(parts, nil))
		if n := <-writes; size <= maxHeld && n != 1 {
			t.Errorf("%d parts of %d bytes: got %d writes, want 1", len(parts), size, n)
		}
	}
}

// A request whose header is beyond 64 KiB is refused (431): rankd needs a few hundred bytes, and Go's default
// megabyte let stalled connections hold a gigabyte between them.
func TestLargeHeaderRefused(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {})
	addr := MustServe(t, s)
	for _, tt := range []struct{ size, want int }{{4 << 10, http.StatusOK}, {100 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, err := http.NewRequest("GET", "http://"+addr+"/page", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Padding", strings.Repeat("x", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("a header of %d bytes: got %d, want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
}

// An answer not written within the server's write timeout is cut off (a client that never reads holds it no
// longer), but a request with a body has longer: a large body sent slowly is still answered.
func TestWriteTimeout(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux(), writeTimeout: 300 * time.Millisecond}
	s.mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(600 * time.Millisecond)
		_, _ = w.Write([]byte("late"))
	})
	s.mux.HandleFunc("POST /body", func(w http.ResponseWriter, r *http.Request) {
		body, _, err := requestBody(w, r, 1<<20)
		if err == nil {
			_, err = io.Copy(io.Discard, body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("stored"))
	})
	addr := MustServe(t, s)
	url := "http://" + addr
	if resp, err := http.Get(url + "/slow"); err == nil {
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && string(b) == "late" {
			t.Errorf("an answer written after the write timeout: got it whole, want it cut off")
		}
	}
	pr, pw := io.Pipe()
	go func() {
		for range 6 { // 600 ms of body
			time.Sleep(100 * time.Millisecond)
			_, _ = pw.Write([]byte("event\n"))
		}
		pw.Close()
	}()
	resp, err := http.Post(url+"/body", "application/x-ndjson", pr)
	if err != nil {
		t.Fatalf("a body sent over twice the write timeout: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "stored" {
		t.Errorf("a body sent over twice the write timeout: got %q, %v; want it answered", b, err)
	}
}

// Beyond MaxConns connections the server closes the idle ones and stops keeping any, and keeps them again
// once a quarter of the bound is free: clients leaving thousands of kept-alive connections idle used up the
// files the process may open, and then no one could connect.
func TestIdleConnectionsShed(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux(), MaxConns: 4}
	s.mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("page")) })
	addr := MustServe(t, s)
	// get sends a request on its own connection, reads the answer and leaves the connection open; it
	// returns the connection and whether the answer closes it.
	get := func() (net.Conn, bool) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("GET /page HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return c, resp.Close
	}
	// closedByServer reports whether the server closes c within a second.
	closedByServer := func(c net.Conn) bool {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, err := c.Read(make([]byte, 1))
		return err == io.EOF
	}
	var idle []net.Conn
	for i := range 4 {
		c, closes := get()
		if closes {
			t.Fatalf("connection %d of 4: got Connection: close, want it kept alive", i+1)
		}
		idle = append(idle, c)
	}
	fifth, _ := get() // closed or kept alive: by then the idle ones may have gone
	fifth.Close()
	// Idle connections close until a quarter of the bound is free: 3 of the 5 left open at most.
	shed := 0
	for _, c := range idle {
		if closedByServer(c) {
			shed++
		}
		c.Close()
	}
	if shed < 2 {
		t.Errorf("4 idle connections and a fifth over a bound of 4: got %d closed by the server, want 2 or more", shed)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, closes := get()
		c.Close()
		if !closes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("connections closed: got Connection: close still, want connections kept alive again")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request whose body stalls (a header announcing ten bytes, then nothing) is answered once it has sent nothing
// for the body timeout, whether its handler reads the body or not: Go's server reads what a handler left
// unread before answering, with no deadline, so such a request held its connection for good, and a few
// thousand of them, sent without a token, took every file the process may open. A body that keeps coming, or a
// handler that takes long after reading it, is not cut.
func TestStalledBody(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux(), BodyTimeout: 300 * time.Millisecond}
	s.mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("page")) })
	s.mux.HandleFunc("POST /pause", func(w http.ResponseWriter, r *http.Request) {
		// Reads a little, waits (for a commit, say) longer than the body timeout, then reads the rest, which
		// the client sent long ago: the wait is the server's, not the client's.
		first := make([]byte, 64<<10) // read past what the connection buffers
		_, err := io.ReadFull(r.Body, first)
		time.Sleep(600 * time.Millisecond)
		if err == nil {
			_, err = io.Copy(io.Discard, r.Body)
		}
		if err != nil {
			s.error(w, r, err)
			return
		}
		_, _ = w.Write([]byte("read"))
	})
	s.mux.HandleFunc("POST /body", func(w http.ResponseWriter, r *http.Request) {
		body, _, err := requestBody(w, r, 1<<20)
		if err == nil {
			_, err = io.Copy(io.Discard, body)
		}
		if err != nil {
			s.error(w, r, err)
			return
		}
		time.Sleep(600 * time.Millisecond) // a commit that takes long, after the body
		if r.Context().Err() != nil {
			_, _ = w.Write([]byte("cancelled"))
			return
		}
		_, _ = w.Write([]byte("stored"))
	})
	addr := MustServe(t, s)
	for _, req := range []string{"GET /page", "POST /body"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "%s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n", req)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("%s with a stalled body: got %v, want an answer within the body timeout", req, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if req == "POST /body" && (resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "nothing for 300ms")) {
			t.Errorf("%s with a stalled body: got %d %s, want 400 saying the body stalled", req, resp.StatusCode, b)
		}
	}
	resp, err := http.Post("http://"+addr+"/pause", "application/octet-stream", bytes.NewReader(make([]byte, 256<<10)))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "read" {
		t.Errorf("a handler waiting twice the body timeout between reads: got %q, %v; want the body read", b, err)
	}
	resp.Body.Close()
	pr, pw := io.Pipe()
	go func() {
		for range 6 { // 600 ms of body, never 300 ms without a byte
			time.Sleep(100 * time.Millisecond)
			_, _ = pw.Write([]byte("event\n"))
		}
		pw.Close()
	}()
	resp, err = http.Post("http://"+addr+"/body", "application/x-ndjson", pr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "stored" {
		t.Errorf("a body that keeps coming, then a handler that takes twice the body timeout: got %q, %v; want it answered", b, err)
	}
}

// MustServe serves s on a loopback port until the test ends and returns its address.
func MustServe(tb testing.TB, s *Server) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.serve(ln)
	tb.Cleanup(func() { s.srv.Close() })
	return ln.Addr().String()
}
