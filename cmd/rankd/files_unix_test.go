//go:build unix

package main_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Live streams are bounded by the files the process may open: streams alone must leave files for other
// connections and the store (a client opening streams made the server refuse every connection).
func TestMaxStreamsWithinOpenFiles(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur > 1<<31 {
		t.Skipf("the process may open %d files: no bound to lower --max-streams to", l.Cur)
	}
	asked := l.Cur // more than three quarters of them
	p := StartRankd(t, t.TempDir(), "--max-streams", strconv.FormatUint(asked, 10))
	want := `"max_streams":` + strconv.FormatUint(l.Cur/4*3, 10)
	if logs := p.Logs(); !strings.Contains(logs, "fewer live streams than --max-streams") || !strings.Contains(logs, want) {
		t.Errorf("--max-streams %d with %d open files: got the log\n%s\nwant it lowered to %s", asked, l.Cur, logs, want)
	}
}
