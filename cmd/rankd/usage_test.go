package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// Asking a command for its options (-h) is no failure: they are printed and the command succeeds.
func TestHelpSucceeds(t *testing.T) {
	for _, cmd := range []string{"serve", "standings", "awards", "export", "import", "follow", "finalize", "gen", "bench", "loadtest"} {
		t.Run(cmd, func(t *testing.T) {
			_, errOut, err := run(cmd, "-h")
			if err != nil {
				t.Errorf("got %v, want no error", err)
			}
			if !strings.Contains(errOut, "-") || strings.Count(errOut, "sage") != 1 {
				t.Errorf("got %q, want the options once", errOut)
			}
		})
	}
}

// What the commands say of a mistake in their flags: the mistake, before any long work.
func TestFlagMistakes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.ndjson")
	euc := feed(t, "euc2025")
	t.Setenv("RANKD_ADMIN_TOKEN", testAdminToken)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"import batch 0", []string{"import", "--feed", euc, "--batch", "0"}, "--batch must be at least 1"},
		{"export flags after the feed", []string{"export", euc, "--format", "tsv"}, "after the flags"},
		{"serve tick 0", []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tick", "0"}, "--tick must be positive"},
		{"serve max-streams 0", []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--max-streams", "0"}, "--max-streams at least 1"},
		{"standings format checked first", []string{"standings", "--feed", missing, "--format", "xml"}, `unknown format "xml"`},
		{"finalize without contest", []string{"finalize"}, "--contest ID is required"},
		{"loadtest stray argument", []string{"loadtest", "--contest", "c", "read"}, "--contest ID is required (and flags come before"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Cancelled: a server the mistake does not stop stops at once.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var errOut strings.Builder
			err := (&main.Main{Stdout: io.Discard, Stderr: &errOut}).Run(ctx, tt.args)
			if err == nil {
				t.Fatalf("got no error; it said %q", errOut.String())
			}
			if msg := errOut.String() + err.Error(); !strings.Contains(msg, tt.want) {
				t.Errorf("got %q, want it to say %q", msg, tt.want)
			}
		})
	}
}

// gen --out leaves no file behind when it fails or is interrupted: a feed cut short would read as a
// smaller contest.
func TestGenLeavesNoPartialFeed(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		cancel bool
	}{
		{"a freeze longer than the contest", []string{"--freeze", "10h"}, false},
		{"interrupted", []string{"--teams", "50", "--submissions", "20000"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "gen.ndjson")
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			m := &main.Main{Stdout: io.Discard, Stderr: io.Discard}
			if err := m.Run(ctx, append([]string{"gen", "--out", out}, tt.args...)); err == nil {
				t.Fatal("got no error")
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("got %v, want no file %s", err, out)
			}
		})
	}
}

// rankd import says once that it is done, not once for the last batch and again for the end.
func TestImportReportsTheEndOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gen.ndjson")
	MustRun(t, "gen", "--id", "once", "--teams", "5", "--submissions", "40", "--out", path)
	p := StartRankd(t, t.TempDir())
	_, errOut, err := run("import", "--server", p.URL, "--token", testAdminToken, "--feed", path, "--state", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if n := strings.Count(errOut, "100%"); n != 1 {
		t.Errorf("got %d reports of 100%%, want 1:\n%s", n, errOut)
	}
}

// The exit status tells a script what happened: 2 a usage mistake, 1 a failure, 130 an interruption.
func TestExitStatus(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), "RANKD_TEST_EXEC=1")
		return cmd
	}
	status := func(cmd *exec.Cmd) int {
		err := cmd.Wait()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"success", []string{"help"}, 0},
		{"a usage mistake", []string{"standings", "--no-such-flag"}, 2},
		{"a flag's value", []string{"standings", "--feed", "x.ndjson", "--format", "xml"}, 2},
		{"a view", []string{"standings", "--feed", "x.ndjson", "--view", "nobody"}, 2},
		{"a moment", []string{"standings", "--feed", "x.ndjson", "--at", "noon"}, 2},
		{"an export's format", []string{"export", "--format", "pdf", "x.ndjson"}, 2},
		{"a failure", []string{"standings", "--feed", filepath.Join(t.TempDir(), "missing.ndjson")}, 1},
	} {
		cmd := command(tc.args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if got := status(cmd); got != tc.want {
			t.Errorf("%s: got exit status %d, want %d", tc.name, got, tc.want)
		}
	}
	// Interrupted while it reads a feed that sends nothing more.
	cmd := command("standings", "--feed", "-")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 { // more than one batch of the pipeline, which then waits for the next
		fmt.Fprintf(in, `{"type":"teams","id":"t%d","data":{"id":"t%d","name":"T"}}`+"\n", i, i)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- status(cmd) }()
	select {
	case got := <-done:
		if got != 130 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("interrupted: got exit status %d and %q, want 130 and that it was interrupted", got, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("interrupted: rankd did not stop")
	}
}
