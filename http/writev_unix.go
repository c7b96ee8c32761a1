//go:build darwin || linux || openbsd

package http

import "golang.org/x/sys/unix"

// canWritev says that frames can be written to a connection directly (see direct.go).
const canWritev = true

func writev(fd int, bufs [][]byte) (int, error) { return unix.Writev(fd, bufs) }
