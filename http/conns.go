package http

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// conns counts the server's open connections and stops keeping idle ones while there are too many: each
// is an open file, and clients leaving thousands of kept-alive connections idle (two minutes each) would
// otherwise use up the files the process may open, after which it accepts no connection at all.
type conns struct {
	max int64 // 0: no bound
	// shedding: connections that go idle are closed, and every answer closes its own (Server.ServeHTTP).
	shedding atomic.Bool
	open     atomic.Int64

	mu  sync.Mutex // one sweep of idle connections at a time
	srv *http.Server
}

// state is the http.Server's ConnState hook.
func (c *conns) state(nc net.Conn, st http.ConnState) {
	if c.max == 0 {
		return
	}
	switch st {
	case http.StateNew:
		if c.open.Add(1) > c.max && c.shedding.CompareAndSwap(false, true) {
			// On a goroutine of its own: the accept loop, which calls this, must go on.
			go c.sweep()
		}
	case http.StateIdle:
		if c.shedding.Load() {
			_ = nc.Close()
		}
	case http.StateClosed, http.StateHijacked:
		if c.open.Add(-1) <= c.max/4*3 {
			c.shedding.Store(false) // a quarter of the bound is free
		}
	}
}

// sweep closes the connections idle when shedding began. Go's server does that when keep-alives are
// disabled; they are enabled again at once, since answers close their connections while shedding anyway.
func (c *conns) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.srv.SetKeepAlivesEnabled(false)
	c.srv.SetKeepAlivesEnabled(true)
}
