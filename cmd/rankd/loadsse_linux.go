package main

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// followStreams reads the load's streams (see sseFollow): over plain HTTP, from sockets of its own that a
// loop per core waits on with epoll, one read per frame that arrived (Go's net package reads once more to
// learn that nothing is left, then parks the goroutine and wakes it: three times a frame's work on the
// cores the server needs).
func followStreams(ctx context.Context, f sseFollow) {
	addr, err := net.ResolveTCPAddr("tcp", f.u.Host)
	if f.u.Scheme != "http" || f.u.Port() == "" || err != nil {
		followConns(ctx, f)
		return
	}
	loops := make([]*epollLoop, runtime.GOMAXPROCS(0))
	for i := range loops {
		if loops[i], err = newEpollLoop(f.n/len(loops) + 1); err != nil {
			for _, l := range loops[:i] {
				l.close()
			}
			followConns(ctx, f)
			return
		}
	}
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Go(func() { l.run(ctx, f) })
	}
	req := sseRequest(f.u, f.token)
	for i := range f.n {
		fd, err := -1, ctx.Err()
		if err == nil {
			fd, err = dialRaw(addr, req)
		}
		if err == nil {
			err = loops[i%len(loops)].add(fd) // refused once the loop ended
		}
		if err != nil {
			f.connected <- false
		}
	}
	wg.Wait()
}

// An epollLoop reads the streams of its sockets.
type epollLoop struct {
	epfd  int
	conns []sseParser // by the slot an event's Pad gives; only run touches them
	mu    sync.Mutex
	fds   []int // by slot, -1 once closed
}

func newEpollLoop(size int) (*epollLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &epollLoop{epfd: epfd, conns: make([]sseParser, size)}, nil
}

// add has the loop read fd, which it closes.
func (l *epollLoop) add(fd int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	slot := len(l.fds)
	if slot == len(l.conns) || l.epfd < 0 {
		_ = unix.Close(fd)
		return errors.New("no room for the connection")
	}
	l.fds = append(l.fds, fd)
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd), Pad: int32(slot)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.fds[slot] = -1
		_ = unix.Close(fd)
		return err
	}
	return nil
}

// run reads what arrives until ctx ends, then closes the sockets, saying that the streams not begun by then
// did not.
func (l *epollLoop) run(ctx context.Context, f sseFollow) {
	defer func() {
		l.mu.Lock()
		for slot := range l.fds {
			if p := &l.conns[slot]; !p.reported {
				p.reported = true
				f.connected <- false
			}
		}
		l.mu.Unlock()
		l.close()
	}()
	counts := f.counts()
	events := make([]unix.EpollEvent, 256)
	buf := make([]byte, 64<<10)
	for ctx.Err() == nil {
		k, err := unix.EpollWait(l.epfd, events, 100)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		for _, ev := range events[:max(k, 0)] {
			p := &l.conns[ev.Pad]
			n, err := unix.Read(int(ev.Fd), buf)
			switch {
			case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
				continue
			case err == nil && n == 0:
				err = io.EOF
			case err == nil:
				err = p.feed(buf[:n], time.Now(), counts)
			}
			if f.began(ctx, p, err) {
				l.closeSlot(int(ev.Pad))
			}
		}
	}
}

func (l *epollLoop) closeSlot(slot int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if fd := l.fds[slot]; fd >= 0 {
		_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
		_ = unix.Close(fd)
		l.fds[slot] = -1
	}
}

func (l *epollLoop) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, fd := range l.fds {
		if fd >= 0 {
			_ = unix.Close(fd)
			l.fds[i] = -1
		}
	}
	if l.epfd >= 0 {
		_ = unix.Close(l.epfd)
		l.epfd = -1
	}
}

// dialRaw connects a socket of its own to addr and sends req on it, and returns it non-blocking.
func dialRaw(addr *net.TCPAddr, req []byte) (int, error) {
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip4 := addr.IP.To4(); ip4 != nil {
		s := &unix.SockaddrInet4{Port: addr.Port}
		copy(s.Addr[:], ip4)
		sa = s
	} else {
		s := &unix.SockaddrInet6{Port: addr.Port}
		copy(s.Addr[:], addr.IP.To16())
		sa, family = s, unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	err = unix.Connect(fd, sa)
	for len(req) > 0 && err == nil {
		var n int
		if n, err = unix.Write(fd, req); err == nil {
			req = req[n:]
		}
	}
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
