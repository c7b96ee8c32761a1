package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// A --server that is no http(s) URL (the scheme forgotten) is a usage mistake said at once, not a connection
// tried again for half a minute.
func TestServerFlagMustBeAURL(t *testing.T) {
	t.Setenv("RANKD_ADMIN_TOKEN", testAdminToken)
	t.Setenv("RANKD_JUDGE_TOKEN", testJudgeToken)
	euc := feed(t, "euc2025")
	for _, args := range [][]string{
		{"import", "--server", "localhost:8080", "--feed", euc},
		{"import", "--server", "ftp://127.0.0.1:8080", "--feed", euc},
		{"finalize", "--server", "localhost:8080", "--contest", "euc2025"},
		{"loadtest", "--server", "localhost:8080", "--contest", "c", "--mode", "read", "--duration", "100ms"},
	} {
		t.Run(strings.Join(args[:3], " "), func(t *testing.T) {
			var stderr strings.Builder
			begin := time.Now()
			code := (&main.Main{Stdout: &stderr, Stderr: &stderr}).Exit(context.Background(), args)
			if code != 2 || !strings.Contains(stderr.String(), "--server") || time.Since(begin) > 2*time.Second {
				t.Errorf("got status %d after %v and %q, want 2 at once and a message about --server", code,
					time.Since(begin).Round(time.Millisecond), stderr.String())
			}
		})
	}
}
