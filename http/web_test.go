package http_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// assetURL matches the addresses of the embedded assets in a page.
var assetURL = regexp.MustCompile(`/assets/[0-9a-f]{12}/[^"]+`)

// get sends a GET with the headers given.
func (e *env) get(tb testing.TB, path string, header map[string]string) response {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // as sent: no gzip added or undone
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

func TestWebPages(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct {
		path   string
		status int
		script string
	}{
		{"/", http.StatusOK, "js/list.js"},
		{"/contests/c1", http.StatusOK, "js/board.js"},
		{"/contests/c1?view=jury&bigscreen=1", http.StatusOK, "js/board.js"},
		{"/contests/nope", http.StatusNotFound, "js/board.js"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(t, tc.path, nil)
			if r.Status != tc.status {
				t.Fatalf("got status %d, want %d", r.Status, tc.status)
			}
			for k, want := range map[string]string{
				"Content-Type":           "text/html; charset=utf-8",
				"Cache-Control":          "no-cache",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := r.Header.Get(k); got != want {
					t.Errorf("%s: got %q, want %q", k, got, want)
				}
			}
			if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy: got %q, want default-src 'self'", csp)
			}
			if !regexp.MustCompile(`<script type="module" src="/assets/[0-9a-f]{12}/` + tc.script + `">`).Match(r.Body) {
				t.Errorf("the page does not load %s:\n%s", tc.script, r.Body)
			}
			if tc.status != http.StatusOK {
				return
			}
			etag := r.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if again := e.get(t, tc.path, map[string]string{"If-None-Match": etag}); again.Status != http.StatusNotModified {
				t.Errorf("If-None-Match with its ETag: got %d, want 304", again.Status)
			}
		})
	}
}

// Every file of assets/ is served, byte for byte, with its type, for good (its address names the build),
// and compressed to a client that takes it.
func TestWebAssets(t *testing.T) {
	e := MustOpen(t)
	page := e.get(t, "/contests/c1", nil)
	first := assetURL.Find(page.Body)
	if first == nil {
		t.Fatalf("no asset in the page:\n%s", page.Body)
	}
	prefix := string(first[:len("/assets/")+13])
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	served := 0
	err := fs.WalkDir(os.DirFS("assets"), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(name, "pages/") {
			return err
		}
		want, err := os.ReadFile("assets/" + name)
		if err != nil {
			return err
		}
		t.Run(name, func(t *testing.T) {
			r := e.get(t, prefix+name, nil)
			if r.Status != http.StatusOK || !bytes.Equal(r.Body, want) {
				t.Fatalf("got status %d and %d bytes, want 200 and the %d bytes of the file", r.Status, len(r.Body), len(want))
			}
			ext := name[strings.LastIndex(name, "."):]
			if got := r.Header.Get("Content-Type"); got != types[ext] {
				t.Errorf("Content-Type: got %q, want %q", got, types[ext])
			}
			if got := r.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control: got %q, want immutable", got)
			}
			z := e.get(t, prefix+name, map[string]string{"Accept-Encoding": "gzip"})
			if z.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("with Accept-Encoding gzip: got Content-Encoding %q", z.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(z.Body))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, want) {
				t.Errorf("gzip: got %d bytes (%v), want the file", len(got), err)
			}
		})
		served++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if served < 5 {
		t.Errorf("served %d assets, want the stylesheet and the scripts", served)
	}
	// A page of another build still gets the file, which no cache keeps.
	r := e.get(t, "/assets/000000000000/js/board.js", nil)
	if r.Status != http.StatusOK || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("another build's address: got %d, Cache-Control %q; want 200, no-cache", r.Status, r.Header.Get("Cache-Control"))
	}
}

// Paths that are not pages or assets keep the API's JSON 404.
func TestWebUnknownPathsAreJSON404(t *testing.T) {
	e := MustOpen(t)
	page := e.get(t, "/", nil)
	prefix := string(assetURL.Find(page.Body)[:len("/assets/")+13])
	for _, path := range []string{
		"/nope", "/api/v1/nope", "/api/v1/contests/nope", "/contests/c1/more", "/contests/",
		prefix + "nope.js", prefix + "pages/board.html", "/assets/", "/index.html",
	} {
		t.Run(path, func(t *testing.T) {
			r := e.get(t, path, nil)
			var body struct{ Code string }
			if r.Status != http.StatusNotFound || r.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(r.Body, &body) != nil || body.Code != "not_found" {
				t.Errorf("got %d %q %s, want a JSON 404", r.Status, r.Header.Get("Content-Type"), r.Body)
			}
		})
	}
}

// The pages load nothing from another host: no font, script, style or connection outside rankd.
func TestWebAssetsNameNoOtherHost(t *testing.T) {
	absolute := regexp.MustCompile(`(?i)https?://`)
	err := fs.WalkDir(os.DirFS("assets"), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile("assets/" + name)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if absolute.MatchString(line) {
				t.Errorf("%s:%d names an absolute URL: %s", name, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
