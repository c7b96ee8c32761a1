package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The load tool's SSE clients read the stream's bytes themselves, without Go's HTTP client: thousands of them
// reading ten frames a second each through its transport, its chunked reader and a goroutine per connection
// cost the load tool as much CPU as the server spent writing them, on the same cores (see
// docs/benchmarks.md). Only what the measure needs is kept of each event: its name, its id and a diff's
// base_seq, from the first bytes of their lines.

// sseRequest returns the HTTP/1.1 request of a stream at u, with the token.
func sseRequest(u *url.URL, token string) []byte {
	return fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n",
		u.RequestURI(), u.Host, token)
}

// sseStats is what a client reports as it reads: every event, and the sequence numbers each frame moved it
// from and to; a diff that does not start where the client is, is a gap.
type sseStats interface {
	event()
	delivered(prev, seq uint64, at time.Time)
	gap()
}

// sseParser follows one stream's bytes: the response's header, the chunks of its body, and the lines of its
// events.
type sseParser struct {
	head []byte // the response's header until it is whole; nil after
	body bool
	// The chunked body: bytes of the current chunk left, or reading a chunk's size line (size, digits seen)
	// or the CRLF after its data.
	left    int
	inSize  bool
	size    int
	inCRLF  bool
	started bool // the first size line began
	inExt   bool // past the size, in an extension (ignored) up to the line's end
	// The current line's first bytes (enough for a field name and a number), and how many of them.
	line    [96]byte
	lineLen int
	// The current event.
	name      string
	seq, base uint64
	// at is the sequence number the client holds; have says it holds one.
	at   uint64
	have bool
	// reported says the connection said whether its stream began.
	reported bool
}

var errStreamEnded = errors.New("the stream ended")

// feed parses the bytes p read from the connection, at time now.
func (p *sseParser) feed(b []byte, now time.Time, st sseStats) error {
	if !p.body {
		p.head = append(p.head, b...)
		i := bytes.Index(p.head, []byte("\r\n\r\n"))
		if i < 0 {
			if len(p.head) > 64<<10 {
				return errors.New("the response's header is too long")
			}
			return nil
		}
		if err := checkSSEHeader(p.head[:i]); err != nil {
			return err
		}
		b = p.head[i+4:]
		p.head, p.body, p.inSize = nil, true, true
	}
	for len(b) > 0 {
		switch {
		case p.inSize:
			c := b[0]
			b = b[1:]
			switch {
			case c == '\n':
				if !p.started {
					return errors.New("a chunk without a size")
				}
				if p.size == 0 {
					return errStreamEnded
				}
				p.left, p.size, p.inSize, p.started, p.inExt = p.size, 0, false, false, false
			case p.inExt:
			case p.started && (c == '\r' || c == ';'):
				p.inExt = true // the end of the digits; an extension is ignored up to the line's end
			case unhex(c) >= 0:
				if p.size > 1<<30 {
					return errors.New("a chunk too large")
				}
				p.size, p.started = p.size<<4|unhex(c), true
			default:
				return fmt.Errorf("a chunk's size line holds %q", c)
			}
		case p.inCRLF:
			c := b[0]
			b = b[1:]
			if c == '\n' {
				p.inCRLF, p.inSize = false, true
			}
		default:
			n := min(p.left, len(b))
			p.lines(b[:n], now, st)
			b, p.left = b[n:], p.left-n
			if p.left == 0 {
				p.inCRLF = true
			}
		}
	}
	return nil
}

// lines parses the body's bytes b into lines and events.
func (p *sseParser) lines(b []byte, now time.Time, st sseStats) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		piece := b
		if i >= 0 {
			piece = b[:i]
		}
		p.lineLen += copy(p.line[p.lineLen:], piece)
		if i < 0 {
			return
		}
		b = b[i+1:]
		p.endLine(now, st)
	}
}

// endLine takes the line that just ended.
func (p *sseParser) endLine(now time.Time, st sseStats) {
	line := bytes.TrimRight(p.line[:p.lineLen], "\r")
	p.lineLen = 0
	switch {
	case len(line) == 0:
		if p.name == "" {
			return
		}
		st.event()
		if p.name == "diff" && p.have && p.base != p.at {
			st.gap()
		}
		if p.have {
			st.delivered(p.at, p.seq, now)
		}
		p.at, p.have = p.seq, true
		p.name, p.seq, p.base = "", 0, 0
	case bytes.HasPrefix(line, []byte("event: ")):
		p.name = string(line[7:])
	case bytes.HasPrefix(line, []byte("id: ")):
		p.seq, _ = strconv.ParseUint(string(line[4:]), 10, 64)
	case bytes.HasPrefix(line, []byte("data: ")) && p.name == "diff":
		if i := bytes.Index(line, []byte(`"base_seq":`)); i >= 0 {
			rest := line[i+11:]
			if j := bytes.IndexAny(rest, ",}"); j > 0 {
				p.base, _ = strconv.ParseUint(string(rest[:j]), 10, 64)
			}
		}
	}
}

// checkSSEHeader checks the response's header (without its last CRLF): 200, a chunked body.
func checkSSEHeader(h []byte) error {
	status, rest, _ := bytes.Cut(h, []byte("\r\n"))
	if f := bytes.Fields(status); len(f) < 2 || string(f[1]) != "200" {
		return fmt.Errorf("the stream answered %q", status)
	}
	for line := range bytes.SplitSeq(rest, []byte("\r\n")) {
		k, v, _ := bytes.Cut(line, []byte(":"))
		if bytes.EqualFold(bytes.TrimSpace(k), []byte("Transfer-Encoding")) &&
			bytes.EqualFold(bytes.TrimSpace(v), []byte("chunked")) {
			return nil
		}
	}
	return errors.New("the stream's body is not chunked")
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// sseCounts is what a reader of streams counts: every event, gaps, and the submit→visible latencies (the
// judgements of a frame, by when their POSTs started). One per reading loop or connection, merged at the end.
type sseCounts struct {
	frames, gaps *atomic.Int64
	post         *posted
	lat          histogram
}

func (c *sseCounts) event() { c.frames.Add(1) }
func (c *sseCounts) gap()   { c.gaps.Add(1) }
func (c *sseCounts) delivered(prev, seq uint64, now time.Time) {
	c.post.each(prev, seq, func(at time.Time) { c.lat.add(now.Sub(at)) })
}

// sseFollow is what opens and reads the load's streams: n connections to the stream at u, read until ctx
// ends. Each connection says on connected once whether its stream began; dropped counts those that ended
// before ctx did. counts gives the counter of a reading loop or connection.
type sseFollow struct {
	u         *url.URL
	token     string
	n         int
	counts    func() *sseCounts
	connected chan<- bool
	dropped   *atomic.Int64
}

// followConns reads each stream on a goroutine of its own, from a connection Go's net package (or its TLS)
// gives: the way that works everywhere.
func followConns(ctx context.Context, f sseFollow) {
	req := sseRequest(f.u, f.token)
	host := f.u.Host
	if f.u.Port() == "" {
		host = net.JoinHostPort(f.u.Hostname(), map[string]string{"http": "80", "https": "443"}[f.u.Scheme])
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 100) // connections opened at once
	for range f.n {
		wg.Go(func() {
			sem <- struct{}{}
			var d tls.Dialer
			var conn net.Conn
			var err error
			if f.u.Scheme == "https" {
				conn, err = d.DialContext(ctx, "tcp", host)
			} else {
				conn, err = d.NetDialer.DialContext(ctx, "tcp", host)
			}
			if err == nil {
				_, err = conn.Write(req)
			}
			<-sem
			if err != nil {
				f.connected <- false
				return
			}
			stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
			defer stop()
			defer func() { _ = conn.Close() }()
			counts := f.counts()
			var p sseParser
			buf := make([]byte, 32<<10)
			for {
				n, err := conn.Read(buf)
				if err == nil {
					err = p.feed(buf[:n], time.Now(), counts)
				}
				if f.began(ctx, &p, err) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// began says on connected whether the stream of p began, once: when it did, or when it ended (err) before.
// It reports whether the stream ended, counting it dropped when the load was not over.
func (f sseFollow) began(ctx context.Context, p *sseParser, err error) (ended bool) {
	if !p.reported && (p.have || err != nil) {
		p.reported = true
		f.connected <- p.have
	}
	if err != nil && p.have && ctx.Err() == nil {
		f.dropped.Add(1)
	}
	return err != nil
}
