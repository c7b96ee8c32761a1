package http

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"rankd"
	"rankd/board"
)

// The web scoreboard: plain HTML, CSS and JavaScript modules embedded in the binary, with no build step and
// no request to another host. The pages are served at / (the contests), /contests/{cid} (a board) and /admin
// and /admin/contests/{cid} (the admin console); the scripts read everything else from the JSON API and the
// live stream, and the console changes things through the same API, with the admin token.

//go:embed assets
var assetFiles embed.FS

// asset is one embedded file as it is served.
type asset struct {
	contentType string
	body, gzip  []byte
}

// webPage is a page rendered once at start-up: it changes only with the binary.
type webPage struct {
	etag       string
	body, gzip []byte
	// unframed keeps the page out of frames of other sites: the admin console acts with the admin token
	// the browser keeps, and a page that framed it could have the admin click its buttons unawares.
	unframed bool
}

// web holds the assets and pages, ready to serve.
type web struct {
	// version names this build's assets: their URLs carry it, so that browsers may keep them for good and a
	// new build is fetched at once.
	version string
	assets  map[string]asset
	index   webPage
	board   webPage
	admin   webPage
}

// assetTypes are the content types of the files assets/ holds; a file of another kind is refused at start-up
// rather than served with a guessed type.
var assetTypes = map[string]string{
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".html": "text/html; charset=utf-8",
}

// contentSecurityPolicy keeps the pages to this server: no script, style, font or connection elsewhere.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'"

// loadWeb reads the embedded assets and renders the pages.
func loadWeb() (*web, error) {
	w := &web{assets: map[string]asset{}}
	sum := sha256.New()
	err := fs.WalkDir(assetFiles, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := assetFiles.ReadFile(p)
		if err != nil {
			return err
		}
		ctype, ok := assetTypes[path.Ext(p)]
		if !ok {
			return rankd.Errorf(rankd.EINTERNAL, "web asset %s: no content type for its extension", p)
		}
		name := strings.TrimPrefix(p, "assets/")
		sum.Write([]byte(name))
		sum.Write(body)
		w.assets[name] = asset{contentType: ctype, body: body, gzip: gzipped(body)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.version = hex.EncodeToString(sum.Sum(nil))[:12]
	prefix := "/assets/" + w.version + "/"
	if w.index, err = w.page("index.html", prefix); err != nil {
		return nil, err
	}
	if w.board, err = w.page("board.html", prefix); err != nil {
		return nil, err
	}
	if w.admin, err = w.page("admin.html", prefix); err != nil {
		return nil, err
	}
	w.admin.unframed = true
	return w, nil
}

// page renders a page template of assets/pages with the URL prefix of this build's assets.
func (w *web) page(name, prefix string) (webPage, error) {
	src, err := assetFiles.ReadFile("assets/pages/" + name)
	if err != nil {
		return webPage{}, err
	}
	t, err := template.New(name).Parse(string(src))
	if err != nil {
		return webPage{}, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, struct{ Assets string }{prefix}); err != nil {
		return webPage{}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return webPage{etag: `"` + hex.EncodeToString(sum[:8]) + `"`, body: buf.Bytes(), gzip: gzipped(buf.Bytes())}, nil
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
	_, _ = zw.Write(b)                                       // a bytes.Buffer does not fail
	_ = zw.Close()
	return buf.Bytes()
}

// webRoutes registers the pages and assets.
func (s *Server) webRoutes() {
	w, err := loadWeb()
	if err != nil {
		panic(err) // the embedded files are part of the binary: a test catches this before it ships
	}
	s.handle("GET /{$}", func(rw http.ResponseWriter, r *http.Request) error {
		servePage(rw, r, w.index, http.StatusOK)
		return nil
	})
	s.handle("GET /contests/{cid}", func(rw http.ResponseWriter, r *http.Request) error {
		status := http.StatusOK
		if !s.exists(r.PathValue("cid")) {
			// The page itself says so, with a way back to the contests.
			status = http.StatusNotFound
		}
		servePage(rw, r, w.board, status)
		return nil
	})
	// The admin console: the page asks for the admin token and does everything through the API, which checks
	// it. The page itself holds no secret, so it is served to anyone, like the board.
	s.handle("GET /admin", func(rw http.ResponseWriter, r *http.Request) error {
		servePage(rw, r, w.admin, http.StatusOK)
		return nil
	})
	s.handle("GET /admin/contests/{cid}", func(rw http.ResponseWriter, r *http.Request) error {
		status := http.StatusOK
		if !s.exists(r.PathValue("cid")) {
			status = http.StatusNotFound // the page says so, with a link to the contests
		}
		servePage(rw, r, w.admin, status)
		return nil
	})
	s.handle("GET /assets/{version}/{file...}", func(rw http.ResponseWriter, r *http.Request) error {
		a, ok := w.assets[r.PathValue("file")]
		if !ok || strings.HasPrefix(r.PathValue("file"), "pages/") {
			return rankd.Errorf(rankd.ENOTFOUND, "no such asset: %s", r.URL.Path)
		}
		h := rw.Header()
		if r.PathValue("version") == w.version {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			// A page of another build (a node not yet upgraded, a page open across an upgrade) still gets
			// an answer, which no cache keeps.
			h.Set("Cache-Control", "no-cache")
		}
		h.Set("Content-Type", a.contentType)
		h.Set("X-Content-Type-Options", "nosniff")
		writeBody(rw, r, a.body, a.gzip, http.StatusOK)
		return nil
	})
}

// exists reports whether a contest exists, without waiting for a commit in progress (see cached): the time
// of a page says nothing of frozen judgements being committed.
func (s *Server) exists(cid string) bool {
	if _, ok := s.Engine.Public(cid); ok {
		return true
	}
	err := s.Engine.ReadPublic(cid, func(*board.Board, int64) error { return nil })
	return rankd.ErrorCode(err) != rankd.ENOTFOUND
}

// servePage writes a page: revalidated on every load (its ETag changes with the build), under a policy that
// allows nothing from another host.
func servePage(rw http.ResponseWriter, r *http.Request, p webPage, status int) {
	h := rw.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	if p.unframed {
		h.Set("Content-Security-Policy", contentSecurityPolicy+"; frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY") // for browsers without frame-ancestors
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if status == http.StatusOK {
		h.Set("ETag", p.etag)
		if match(r, p.etag) {
			rw.WriteHeader(http.StatusNotModified)
			return
		}
	}
	writeBody(rw, r, p.body, p.gzip, status)
}

// writeBody writes body, or its gzip form to a client that takes it.
func writeBody(rw http.ResponseWriter, r *http.Request, body, gz []byte, status int) {
	h := rw.Header()
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = rw.Write(body) // an error is the client gone
	}
}
