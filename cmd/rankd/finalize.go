package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

// finalize asks a running server to finalize a contest, and with --wait follows the finalization until it is
// done or dead.
func (m *Main) finalize(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("finalize", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	server := fs.String("server", "http://127.0.0.1:8080", "rankd's address")
	token := fs.String("token", "", "an admin token (default: $RANKD_ADMIN_TOKEN)")
	contest := fs.String("contest", "", "the contest's id")
	wait := fs.Duration("wait", time.Minute, "how long to wait for the finalization to end (0: do not wait)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "Usage: rankd finalize --contest ID [--server URL] [--token T] [--wait D]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *contest == "" {
		fmt.Fprintln(m.Stderr, "rankd finalize: --contest ID is required (and flags come before other arguments)")
		fs.Usage()
		return errUsage
	}
	if *token == "" {
		*token = os.Getenv("RANKD_ADMIN_TOKEN")
	}
	if *token == "" {
		return m.badFlag("finalize", fmt.Errorf("give the admin token: --token, or RANKD_ADMIN_TOKEN"))
	}
	base, err := serverURL(*server)
	if err != nil {
		return m.badFlag("finalize", err)
	}
	endpoint := base + "/api/v1/contests/" + url.PathEscape(*contest) + "/finalize"
	st, err := finalizeCall(ctx, "POST", endpoint, *token)
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(*wait); st.State != "done" && st.State != "dead" && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if st, err = finalizeCall(ctx, "GET", endpoint, *token); err != nil {
			return err
		}
	}
	out, _ := json.Marshal(st) // cannot fail: plain fields
	fmt.Fprintln(m.Stdout, string(out))
	switch {
	case st.State == "dead":
		return fmt.Errorf("the finalization of %s failed %d times (%s): retry with POST %s/retry", *contest, st.Attempts, st.Error, endpoint)
	case *wait > 0 && st.State != "done":
		return fmt.Errorf("the finalization of %s is still %s after %v", *contest, st.State, *wait)
	}
	return nil
}

// finalizeStatus is what the server says of a finalization.
type finalizeStatus struct {
	ContestID string `json:"contest_id"`
	State     string `json:"state"`
	Attempts  int    `json:"attempts"`
	Error     string `json:"error,omitempty"`
	Version   int64  `json:"version,omitempty"`
}

// finalizeClient gives up on a server that does not answer, rather than waiting for an interrupt.
var finalizeClient = &http.Client{Timeout: 30 * time.Second}

func finalizeCall(ctx context.Context, method, endpoint, token string) (finalizeStatus, error) {
	var st finalizeStatus
	req, err := http.NewRequestWithContext(ctx, method, endpoint, nil)
	if err != nil {
		return st, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := finalizeClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return st, err
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Message string }
		if json.Unmarshal(body, &e) == nil && e.Message != "" {
			return st, fmt.Errorf("%s: %s", resp.Status, e.Message)
		}
		return st, fmt.Errorf("%s", resp.Status)
	}
	return st, json.Unmarshal(body, &st)
}
