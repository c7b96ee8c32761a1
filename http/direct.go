package http

import (
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// A frame reaches most followers without waking the goroutine that serves their stream: the frame maker
// writes it to the connection itself when nothing is queued for the follower and the connection takes it at
// once (one non-blocking write). With thousands of followers, waking each one's goroutine per frame, and the
// layers of Go's server it wrote through, cost as much as the writes (docs/benchmarks.md). What a connection
// does not take at once, and every frame behind it, goes through the goroutine, which waits for a slow
// client as before (with its deadline), and a follower whose queue overflows is dropped as before.

// follower is one client's queue of events; when it overflows, the client is dropped.
type follower struct {
	id      uint64        // which goroutine of fanOut sends to it
	events  chan *message // shared by the channel's followers: a queue of 256 costs 2 KB, not 16
	dropped chan struct{}
	// gone says, once dropped is closed, that the contest was deleted: the client is told so, and does not
	// resume (with the number of a board that is no more, on a contest created again with the id).
	gone atomic.Bool
	// queued counts what was sent on events and is not written yet: frames go directly (out) only when
	// nothing is, so that they leave in order.
	queued atomic.Int64
	out    *directOut // nil: every frame goes through events
	// stopped says that a frame found the queue full: the follower gets no frame after it (it is dropped,
	// and resumes from the last it had).
	stopped atomic.Bool
}

// resumeWrite is sent on a follower's events when a direct write left part of its chunk for the goroutine.
var resumeWrite = &message{}

// queue sends m on the follower's events, and reports false when they are full.
func (f *follower) queue(m *message) bool {
	f.queued.Add(1)
	select {
	case f.events <- m:
		return true
	default:
		f.queued.Add(-1)
		return false
	}
}

// How send gave a frame to a follower.
type sent int

const (
	sentNot    sent = iota // its queue is full
	sentQueued             // for the stream's goroutine
	sentDirect             // written to the connection
	sentSplit              // written in part, the rest left to the goroutine
)

// send gives m to the follower: written at once when it can be, else queued.
func (f *follower) send(m *message) sent {
	if f.stopped.Load() {
		return sentNot
	}
	if f.out != nil && f.queued.Load() == 0 {
		if how := f.out.try(f, m); how != sentNot {
			return how
		}
	}
	if f.queue(m) {
		return sentQueued
	}
	f.stopped.Store(true)
	return sentNot
}

// write writes frames that came through events, with what a direct write left first.
func (f *follower) write(sw *streamWriter, frames []*message) bool {
	n := int64(len(frames))
	frames = removeAll(frames, resumeWrite)
	return f.with(sw, func() bool { return len(frames) == 0 || sw.writeFrames(frames) }, n)
}

// with runs a write of the stream's goroutine: with the connection to itself, after what a direct write
// left, and then counting done frames of the queue as written.
func (f *follower) with(sw *streamWriter, write func() bool, done int64) bool {
	if o := f.out; o != nil {
		o.mu.Lock()
		defer o.mu.Unlock()
		if !o.flushRest() {
			return false
		}
	}
	defer f.queued.Add(-done)
	return write()
}

// end ends direct writes, with last written when not nil: the stream's response is over, and Go's server may
// write the connection's next one.
func (f *follower) end(sw *streamWriter, last []byte) {
	o := f.out
	if o == nil {
		if last != nil {
			sw.write(last)
		}
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	if o.flushRest() && last != nil {
		sw.write(last)
	}
	o.closed = true
}

func removeAll(ms []*message, m *message) []*message {
	out := ms[:0]
	for _, x := range ms {
		if x != m {
			out = append(out, x)
		}
	}
	clear(ms[len(out):])
	return out
}

// directOut is the connection of a stream whose frames the frame maker may write itself: an HTTP/1 stream,
// whose body is chunked, on a socket. The stream's goroutine or the frame maker writes it, one at a time.
type directOut struct {
	mu sync.Mutex
	sw *streamWriter
	// granted says that the stream's token surely still grants its view; when not, frames go through the
	// goroutine, which asks.
	granted func() bool
	raw     syscall.RawConn
	rest    net.Buffers // of a chunk the connection took in part, written before anything else
	closed  bool
	head    []byte   // scratch: a chunk's header
	iov     [][]byte // scratch
}

// newDirectOut returns the directOut of a stream, or nil when its frames can only go through Go's server.
func newDirectOut(sw *streamWriter, granted func() bool) *directOut {
	if sw.conn == nil || !sw.chunked || !canWritev {
		return nil
	}
	sc, ok := sw.conn.Conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &directOut{sw: sw, granted: granted, raw: raw}
}

// try writes m as a chunk of the stream's body, if the connection is free and takes at least part of it at
// once; what it does not take is left to the stream's goroutine, woken for it.
func (o *directOut) try(f *follower, m *message) sent {
	if !o.mu.TryLock() {
		return sentNot
	}
	defer o.mu.Unlock()
	sw := o.sw
	if o.closed || o.rest != nil || f.queued.Load() != 0 || sw.failed || len(sw.head) > 0 || !o.granted() {
		return sentNot
	}
	body, crc, size := sw.pieces(sw.parts[:0], []*message{m})
	length := 0
	for _, p := range body {
		length += len(p)
	}
	o.head = strconv.AppendInt(o.head[:0], int64(length), 16)
	o.head = append(o.head, "\r\n"...)
	o.iov = append(append(append(o.iov[:0], o.head), body...), crlf)
	clear(body)
	var n int
	var werr error
	if err := o.raw.Write(func(fd uintptr) bool {
		n, werr = writev(int(fd), o.iov)
		return true // once: never wait for the client here
	}); err != nil || n <= 0 {
		if werr != nil && !errors.Is(werr, syscall.EAGAIN) {
			sw.failed = true // the goroutine's write fails as well, and ends the stream
		}
		clear(o.iov)
		return sentNot
	}
	sw.crc, sw.size = crc, size
	how := sentDirect
	if rest := skip(o.iov, n); len(rest) > 0 {
		how, o.rest = sentSplit, append(net.Buffers(nil), rest...)
		if !f.queue(resumeWrite) {
			sw.failed = true
		}
	}
	clear(o.iov)
	return how
}

// flushRest writes what a direct write left of its chunk, waiting for the client as the goroutine's writes do.
func (o *directOut) flushRest() bool {
	sw := o.sw
	if o.rest == nil {
		return !sw.failed
	}
	size := 0
	for _, b := range o.rest {
		size += len(b)
	}
	sw.extendDeadline(size)
	_, err := o.rest.WriteTo(sw.conn.Conn)
	o.rest = nil
	if err != nil {
		sw.failed = true
	}
	return !sw.failed
}

var crlf = []byte("\r\n")

// skip returns what of bufs is left after n bytes.
func skip(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if len(bufs) > 0 && n > 0 {
		bufs = append([][]byte{bufs[0][n:]}, bufs[1:]...)
	}
	return bufs
}
