package main_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	main "rankd/cmd/rankd"
)

// rankd import of a feed it cannot read (a directory given by mistake) fails at once with the reason, instead
// of looking for the feed's contest for ever at full speed, deaf to Ctrl-C.
func TestImportUnreadableFeedFails(t *testing.T) {
	dir := t.TempDir()
	done := make(chan error, 1)
	var errOut strings.Builder
	go func() {
		m := &main.Main{Stdout: io.Discard, Stderr: &errOut}
		// No server listens there: the feed must fail before anything is sent.
		done <- m.Run(context.Background(), []string{"import", "--server", "http://127.0.0.1:1", "--token", testAdminToken,
			"--feed", dir})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("got %v, want an error saying the feed is a directory", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("rankd import --feed DIR still running after 5 s")
	}
}
