package pgtest

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy stands between a test and the PostgreSQL server on loopback and can cut the line: Cut closes every
// connection and refuses new ones (they are accepted and closed at once) until Restore, as when the database
// goes away and comes back on the same address. It can also silence the server: Freeze holds every byte either
// way, and new connections are accepted but get no answer, until Thaw, as when the server is stopped (kill
// -STOP) or beyond a network that drops packets.
type Proxy struct {
	// URL is the server's URL with the proxy's address in place of the server's.
	URL string

	ln     net.Listener
	target string
	up     atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
	frozen chan struct{} // while frozen, closed by Thaw; guarded by mu
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
	tb.Cleanup(func() { _ = ln.Close(); p.Cut(); p.Thaw() })
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
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		go p.connect(c)
	}
}

// connect joins c to a new connection to the server, once the proxy is not frozen.
func (p *Proxy) connect(c net.Conn) {
	p.wait()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, s)
	p.mu.Unlock()
	go p.pipe(s, c)
	go p.pipe(c, s)
}

// pipe copies src to dst, holding what it read while the proxy is frozen, until either fails; then it closes
// dst.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	_ = dst.Close()
}

// wait returns once the proxy is not frozen.
func (p *Proxy) wait() {
	p.mu.Lock()
	frozen := p.frozen
	p.mu.Unlock()
	if frozen != nil {
		<-frozen
	}
}

// Freeze silences the server: every byte either way is held, and new connections are accepted but not
// answered, until Thaw.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen == nil {
		p.frozen = make(chan struct{})
	}
}

// Thaw lets the bytes held by Freeze through, and new connections reach the server again.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
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
