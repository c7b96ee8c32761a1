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
// send it in one write, which sendWhole asks for.
type wholeConn struct {
	net.Conn
	held *[]byte // while holding: what was written, in a buffer of heldBuffers
}

// heldBuffers are the buffers of responses held: a connection keeps none between its requests, for
// thousands of spectators' connections stay open between their reads.
var heldBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxHeld is the largest buffer heldBuffers keeps.
const maxHeld = 64 << 10

// Write holds p while the connection is holding. An HTTP/1 connection is written by one goroutine at a time
// (the one serving its request), so holding needs no lock.
func (c *wholeConn) Write(p []byte) (int, error) {
	if c.held != nil {
		*c.held = append(*c.held, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// hold starts holding what is written.
func (c *wholeConn) hold() {
	c.held = heldBuffers.Get().(*[]byte)
	*c.held = (*c.held)[:0]
}

// release sends what was held in one write, and reports whether it went. A failed write closes the
// connection: the server, told that its writes succeeded, would otherwise wait for the next request on a
// connection that is broken.
func (c *wholeConn) release() bool {
	held := c.held
	c.held = nil
	var err error
	if len(*held) > 0 {
		_, err = c.Conn.Write(*held)
	}
	if err != nil {
		_ = c.Close()
	}
	if cap(*held) <= maxHeld {
		heldBuffers.Put(held)
	}
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
	if !ok || r.ProtoMajor != 1 || len(body) > maxHeld {
		// A large body costs its writes whatever it is sent in, and a copy of it held per connection would
		// stay as long as a client leaves it unread.
		_, _ = w.Write(body) // an error is the client gone
		return
	}
	c.hold()
	defer c.release() // an error is the client gone
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush()
}
