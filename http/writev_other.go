//go:build !(darwin || linux || openbsd)

package http

import "errors"

// canWritev says that frames can be written to a connection directly (see direct.go): not here, where every
// frame goes through the goroutine of its stream.
const canWritev = false

func writev(int, [][]byte) (int, error) { return 0, errors.ErrUnsupported }
