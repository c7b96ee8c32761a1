package http

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// Go's server buffers 4 KiB per connection: a response larger than that (a 50-row scoreboard page is about
// 10 KiB compressed) leaves in two writes or more, each a pass through the network stack — on loopback each
// costs as much as the rest of a page read. A wholeConn can hold what is written to it during a response and
// send it in one writev, which sendWhole and streams ask for.
type wholeConn struct {
	net.Conn
	// While holding: the caller's buffers, which go by reference; the other writes (Go's own buffer of the
	// connection, reused as soon as a write returns), copied into small, a buffer of heldBuffers; and what
	// goes, in order.
	callers [][]byte
	small   *[]byte
	pieces  []heldPiece
	out     net.Buffers
}

// heldPiece is a held write: a caller's buffer, or a part of the copies.
type heldPiece struct {
	ref      []byte
	from, to int
}

// heldBuffers are the buffers of the copies: a connection keeps none between its responses, for thousands of
// spectators' connections stay open between their reads.
var heldBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxHeld is the largest buffer heldBuffers keeps.
const maxHeld = 64 << 10

// Write holds p while the connection is holding. An HTTP/1 connection is written by one goroutine at a time
// (the one serving its request), so holding needs no lock.
func (c *wholeConn) Write(p []byte) (int, error) {
	switch {
	case c.small == nil:
		return c.Conn.Write(p)
	case c.isCallers(p):
		// Not copied: a client that stops reading would keep a copy of its frame each as long as the write
		// waits for it, where the frame itself is shared.
		c.pieces = append(c.pieces, heldPiece{ref: p})
	default:
		from := len(*c.small)
		*c.small = append(*c.small, p...)
		c.pieces = append(c.pieces, heldPiece{from: from, to: len(*c.small)})
	}
	return len(p), nil
}

// isCallers reports whether p is part of one of the caller's buffers: whether it ends where one does.
func (c *wholeConn) isCallers(p []byte) bool {
	if cap(p) == 0 {
		return false
	}
	end := &p[:cap(p)][cap(p)-1]
	for _, b := range c.callers {
		if cap(b) > 0 && &b[:cap(b)][cap(b)-1] == end {
			return true
		}
	}
	return false
}

// hold starts holding what is written; buffers, which the caller leaves as they are until release, are sent
// from where they are rather than copied.
func (c *wholeConn) hold(buffers ...[]byte) {
	c.callers = append(c.callers[:0], buffers...)
	c.small = heldBuffers.Get().(*[]byte)
	*c.small = (*c.small)[:0]
}

// release sends what was held in one writev, and reports whether it went. A failed write closes the
// connection: the server, told that its writes succeeded, would otherwise wait for the next request on a
// connection that is broken.
func (c *wholeConn) release() bool {
	for _, p := range c.pieces {
		if p.ref != nil {
			c.out = append(c.out, p.ref)
		} else {
			c.out = append(c.out, (*c.small)[p.from:p.to])
		}
	}
	out := c.out // WriteTo consumes it
	var err error
	if len(out) > 0 {
		_, err = out.WriteTo(c.Conn)
	}
	if err != nil {
		_ = c.Close()
	}
	// What was sent is let go: a connection lives on (idle, or a stream of small frames after a big one).
	clear(c.callers)
	clear(c.pieces)
	clear(c.out[:cap(c.out)])
	c.callers, c.pieces, c.out = c.callers[:0], c.pieces[:0], c.out[:0]
	if cap(*c.small) <= maxHeld {
		heldBuffers.Put(c.small)
	}
	c.small = nil
	return err == nil
}

// wholeListener gives wholeConns.
type wholeListener struct{ net.Listener }

func (l wholeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &wholeConn{Conn: c}, nil
}

type connKey struct{}

// withConn is the http.Server's ConnContext: it gives handlers their connection.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// sendWhole writes body, the whole response, in one write when the connection allows it (HTTP/1 over a
// wholeListener's connection); the header must give its length.
func sendWhole(w http.ResponseWriter, r *http.Request, body []byte) {
	c, ok := r.Context().Value(connKey{}).(*wholeConn)
	if !ok || r.ProtoMajor != 1 {
		_, _ = w.Write(body) // an error is the client gone
		return
	}
	c.hold(body)
	defer c.release() // an error is the client gone
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush()
}
