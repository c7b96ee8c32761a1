package http_test

import (
	"strings"
	"testing"
)

// The admin console acts with the admin token the browser keeps: no page of another site may frame it and
// have the admin click its buttons (a thaw, a ban) unawares.
func TestAdminConsoleNotFramed(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, path := range []string{"/admin", "/admin/contests/c1", "/admin/contests/nope"} {
		t.Run(path, func(t *testing.T) {
			r := e.Do(t, "GET", path, "", nil)
			if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy: got %q, want frame-ancestors 'none'", csp)
			}
			if got := r.Header.Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("X-Frame-Options: got %q, want DENY", got)
			}
		})
	}
}
