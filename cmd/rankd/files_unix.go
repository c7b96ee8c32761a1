//go:build unix

package main

import "syscall"

// openFilesLimit returns how many files the process may have open (Go raises the soft limit to the hard
// one at start), and whether it could tell.
func openFilesLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	return l.Cur, true
}
