//go:build unix

package storetest

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system; benchmarks report it beside the
// elapsed time, which on a shared machine says as much about the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
