package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy stands between a test and the PostgreSQL server on loopback and can cut the line: Cut closes every
// connection and refuses new ones (they are accepted and closed at once) until Restore, as when the database
// goes away and comes back on the same address.
type Proxy struct {
	// URL is the server's URL with the proxy's address in place of the server's.
	URL string

	ln     net.Listener
	target string
	up     atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

// MustProxy starts a proxy to the server of the postgres:// URL u. It stops when the test ends.
func MustProxy(tb testing.TB, u string) *Proxy {
	tb.Helper()
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		tb.Fatalf("pgtest: %q is not a postgres:// URL with a host: cannot put a proxy in front of it", u)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: pu.Host}
	pu.Host = ln.Addr().String()
	p.URL = pu.String()
	p.up.Store(true)
	go p.serve()
	tb.Cleanup(func() { _ = ln.Close(); p.Cut() })
	return p
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.up.Load() {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
		go func() { _, _ = io.Copy(c, s); _ = c.Close() }()
	}
}

// Cut closes every connection through the proxy and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.up.Store(false)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// Restore lets connections through again.
func (p *Proxy) Restore() { p.up.Store(true) }
