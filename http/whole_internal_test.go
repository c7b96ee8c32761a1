package http

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"rankd"
)

// writeCalls returns how many write system calls (write, writev, ...) the process has made, from Linux's
// /proc/self/io. Other goroutines' writes (the runtime waking its poller) count too: a caller takes the
// fewest of several tries.
func writeCalls(tb testing.TB) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		tb.Skipf("write calls are counted on Linux: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if n, ok := strings.CutPrefix(line, "syscw: "); ok {
			calls, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return calls
		}
	}
	tb.Fatalf("no syscw in /proc/self/io: %s", b)
	return 0
}

// A scoreboard page larger than the 4 KiB Go's server buffers per connection goes out in one write, header
// and body together: each write is a pass through the network stack, as costly as the rest of a page read.
func TestPageInOneWrite(t *testing.T) {
	for _, size := range []int{100, 10 << 10, 200 << 10} {
		body := bytes.Repeat([]byte("x"), size)
		s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
		calls := make(chan int64, 1)
		s.mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
			before := writeCalls(t)
			writePage(w, r, rankd.View{Kind: rankd.ViewPublic}, newPage(`"public-1"`, body, body), `"public-1"`)
			calls <- writeCalls(t) - before
		})
		addr := MustServe(t, s)
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		fewest := int64(math.MaxInt64)
		for i := range 5 { // one connection, kept alive
			resp, err := client.Get("http://" + addr + "/page")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes, request %d: got %d bytes (%v), want the page", size, i, len(got), err)
			}
			fewest = min(fewest, <-calls)
		}
		if fewest != 1 {
			t.Errorf("a page of %d bytes: got %d write calls, want 1", size, fewest)
		}
	}
}

// Each write of a live stream (a frame of a tick, or the frames queued for a client behind) leaves in one
// write call, chunk header, data and flush together: with thousands of clients per frame, each write is a
// pass through the network stack (a frame of 10 KB went in three).
func TestStreamPartsInOneWrite(t *testing.T) {
	frame := func(size int) []byte { return bytes.Repeat([]byte("x"), size) }
	cases := [][][]byte{{frame(100)}, {frame(10 << 10)}, {frame(10 << 10), frame(20 << 10), frame(5)}, {frame(200 << 10)}}
	const tries = 5
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	calls := make(chan int64, len(cases)*tries)
	answered := make(chan struct{})
	s.mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		sw := startStream(w, r, "text/event-stream", false)
		if !sw.write() {
			t.Error("an empty write: got false, want true")
		}
		select { // an empty write sends the answer's header (the event feed's answer to ?stream=false does)
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Error("an empty write: the client got no answer")
		}
		for range tries {
			for _, parts := range cases {
				before := writeCalls(t)
				if !sw.write(parts...) {
					t.Error("a write to a client that reads: got false, want true")
				}
				calls <- writeCalls(t) - before
			}
		}
	})
	addr := MustServe(t, s)
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	close(answered)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	var want []byte
	for range tries {
		for _, parts := range cases {
			want = append(want, bytes.Join(parts, nil)...)
		}
	}
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (%v), want the %d written", len(got), err, len(want))
	}
	fewest := make([]int64, len(cases))
	for i := range fewest {
		fewest[i] = math.MaxInt64
	}
	for range tries {
		for i := range cases {
			fewest[i] = min(fewest[i], <-calls)
		}
	}
	for i, parts := range cases {
		if fewest[i] != 1 {
			t.Errorf("%d parts of %d bytes: got %d write calls, want 1", len(parts), len(bytes.Join(parts, nil)), fewest[i])
		}
	}
}

// A client that stops reading holds no copy of its frames while the server waits on it: they are shared by
// every client of the view (each held its own copy of up to 64 KiB for up to 10 s, a client reconnecting to
// do it again).
func TestStalledStreamsHoldNoCopy(t *testing.T) {
	const clients = 100
	frame := bytes.Repeat([]byte("f"), 48<<10)
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	var stalled atomic.Int64
	s.mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		sw := startStream(w, r, "text/event-stream", false)
		for sw.write(frame) {
			stalled.Store(time.Now().UnixNano())
		}
	})
	addr := MustServe(t, s)
	before := liveHeap()
	for range clients {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		if _, err := io.WriteString(c, "GET /stream HTTP/1.1\r\nHost: rankd\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	// Every stream waits on its client once no write has gone for a while.
	for time.Since(time.Unix(0, stalled.Load())) < 500*time.Millisecond {
		time.Sleep(50 * time.Millisecond)
	}
	per := (int64(liveHeap()) - int64(before)) / clients
	t.Logf("%d bytes of heap per stalled stream", per)
	if per > 32<<10 {
		t.Errorf("a stream stalled on a frame of 48 KB holds %d KB of heap, want under 32 KB", per>>10)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
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
	s.Serve(ln)
	tb.Cleanup(func() { s.srv.Close() })
	return ln.Addr().String()
}

// What a connection sent by reference is let go once sent: a stream of small frames after a big one (a team
// view's own snapshot, rendered for its one client), or an idle connection after a big page, kept it.
func TestSentBuffersLetGo(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	sent := make(chan weak.Pointer[[8 << 20]byte], 1)
	s.mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		sw := startStream(w, r, "text/event-stream", false)
		big := new([8 << 20]byte)
		sw.write(big[:])
		for range 5 {
			sw.write([]byte("event: diff\ndata: {}\n\n"))
		}
		sent <- weak.Make(big)
		<-r.Context().Done()
	})
	addr := MustServe(t, s)
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	go func() { _, _ = io.Copy(io.Discard, resp.Body) }()
	big := <-sent
	runtime.GC()
	runtime.GC()
	if big.Value() != nil {
		t.Error("a frame of 8 MB sent, then small ones: got it still reachable, want it let go")
	}
}
