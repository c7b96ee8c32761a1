// Package http is rankd's HTTP interface: the JSON API under /api/v1, the CCS-compatible endpoints under
// /api/contests, health and readiness, and Prometheus metrics. It is the only package that maps error codes
// to HTTP statuses.
package http

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/singleflight"

	"rankd"
	"rankd/engine"
)

// Store is what the server reads directly from the store: the submissions list and issued tokens.
type Store interface {
	rankd.SubmissionStore
	rankd.TokenStore
	rankd.FinalStore
}

// DefaultMaxBody bounds request bodies: a whole event feed fits, a runaway upload does not.
const DefaultMaxBody = 64 << 20

// LargestMaxBody is the largest body limit a server takes: the stores read back no log entry beyond it.
const LargestMaxBody = 512 << 20

// DefaultMaxStreams bounds the live streams open at once: about 2 GB of the server's memory.
const DefaultMaxStreams = 25000

// Server serves the API of one engine.
type Server struct {
	Engine *engine.Engine
	Store  Store
	Auth   *Auth
	Logger *slog.Logger
	// Now is the clock for what the server does by hand (a freeze now, a thaw now).
	Now func() time.Time
	// MaxBody bounds request bodies; 0 takes DefaultMaxBody.
	MaxBody int64
	// Heartbeat is how often an idle stream gets a comment line, so that proxies keep it open.
	Heartbeat time.Duration
	// MaxStreams bounds the live streams open at once (0: DefaultMaxStreams): each holds memory, and a
	// client opening thousands must not exhaust the server. Beyond it, clients are told to poll.
	MaxStreams int
	// CrossOrigin lets web pages of any origin call the API (CORS), as NewServer sets it; without it only
	// pages of the server's own origin can read its answers.
	CrossOrigin bool
	// MaxConns bounds the connections kept open at once (0: no bound): beyond it the server closes its idle
	// connections and every answer closes its own, until a quarter of the bound is free again.
	MaxConns int
	// Projection, when set (distributed mode), serves the scoreboard pages of the jury and public views
	// whenever it holds the board's version: see standings.
	Projection rankd.Projection
	// Finalizer, when set, builds the final standings of contests (the admin's /finalize endpoints).
	Finalizer Finalizer

	streams atomic.Int64
	// revocations counts the revocations of team tokens on this server: a team's stream checks its token
	// again before a frame when it moved (see allowedStill).
	revocations atomic.Uint64
	conns       conns
	// projectionPaused is when (Unix ns) pages may be read from the Projection again after it failed.
	projectionPaused atomic.Int64

	push  *hub
	feeds sharedFeeds
	// deletions counts the deletions of each contest id (see ContestDeleted).
	deletions deletions
	stopPush  context.CancelFunc
	// closing is closed when shutdown begins: streams, which never go idle, end then.
	closing   chan struct{}
	closeOnce sync.Once

	pages    pageCache
	gatherer prometheus.Gatherer
	latency  *prometheus.HistogramVec
	// pagesRendered counts the scoreboard pages rendered, by where their rows came from.
	pagesRendered *prometheus.CounterVec
	// renders gathers the readers of a page not cached, so that it is rendered once.
	renders singleflight.Group
	// writeTimeout is how long an answer may take to write (0: two minutes).
	writeTimeout time.Duration
	// BodyTimeout is how long a request's body may send nothing (0: a minute).
	BodyTimeout time.Duration
	// snapshotsRendered counts the live streams' snapshots rendered (each shared by its version's clients).
	snapshotsRendered prometheus.Counter
	// framesSent counts the frames of live streams by how they reached their connections (see direct.go).
	framesSent struct{ direct, split, queued prometheus.Counter }
	finals     finalCache
	pasts      past // boards of past moments and teams' histories (history.go)
	finalLoads *prometheus.CounterVec
	mux        *http.ServeMux
	srv        *http.Server
}

// NewServer returns a server with its routes; reg receives the HTTP metrics and gatherer serves /metrics.
func NewServer(e *engine.Engine, store Store, auth *Auth, reg prometheus.Registerer, gatherer prometheus.Gatherer) *Server {
	s := &Server{
		Engine:   e,
		Store:    store,
		Auth:     auth,
		Logger:   slog.New(slog.DiscardHandler),
		Now:      time.Now,
		gatherer: gatherer,
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rankd_http_request_seconds",
			Help:    "HTTP request latency by route and status code.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"route", "code"}),
		pagesRendered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rankd_scoreboard_pages_rendered_total",
			Help: "Scoreboard pages rendered (not served from the page cache), by source: the shared projection or the board.",
		}, []string{"source"}),
		snapshotsRendered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rankd_stream_snapshots_rendered_total",
			Help: "Snapshots of a view rendered for live streams: one per version of a view, shared by the clients that connect to it.",
		}),
		finalLoads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rankd_final_loads_total",
			Help: "Final standings loaded into memory, by source: the store, or the shared cache (Redis). The rest are served from memory.",
		}, []string{"source"}),
		mux:         http.NewServeMux(),
		CrossOrigin: true,
	}
	sent := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rankd_stream_frames_sent_total",
		Help: "Frames of live streams given to their clients, by how: written to the connection by the frame maker (direct), in part (split: the rest by the stream's goroutine), or queued for the stream's goroutine (queued: the connection was busy, or a client behind).",
	}, []string{"how"})
	s.framesSent.direct, s.framesSent.split, s.framesSent.queued = sent.WithLabelValues("direct"), sent.WithLabelValues("split"), sent.WithLabelValues("queued")
	reg.MustRegister(s.latency, s.pagesRendered, s.snapshotsRendered, s.finalLoads, sent)
	s.push = &hub{s: s, contests: map[string]*contestChannels{}, kick: make(chan struct{}, 1)}
	s.feeds.deletions = &s.deletions
	s.closing = make(chan struct{})
	e.Notify = s.push.notify
	e.Deleted = s.ContestDeleted
	s.routes()
	return s
}

// StartPush starts making the frames of the live streams, every tick (0: DefaultTick), until Shutdown.
func (s *Server) StartPush(tick time.Duration) {
	if tick <= 0 {
		tick = DefaultTick
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopPush = cancel
	go s.push.run(ctx, tick)
}

func (s *Server) heartbeat() time.Duration {
	if s.Heartbeat > 0 {
		return s.Heartbeat
	}
	return DefaultHeartbeat
}

func (s *Server) routes() {
	s.handle("GET /healthz", s.healthz)
	s.handle("GET /readyz", s.readyz)
	// Metrics say when events come in and how many, frozen ones included: they are for the jury's eyes.
	metrics := promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{})
	s.handle("GET /metrics", s.judge(func(w http.ResponseWriter, r *http.Request) error {
		metrics.ServeHTTP(w, r)
		return nil
	}))

	s.handle("GET /api/v1/contests", s.listContests)
	s.handle("POST /api/v1/contests", s.admin(s.createContest))
	s.handle("GET /api/v1/contests/{cid}", s.getContest)
	s.handle("PATCH /api/v1/contests/{cid}", s.admin(s.updateContest))
	s.handle("DELETE /api/v1/contests/{cid}", s.admin(s.deleteContest))
	s.handle("POST /api/v1/contests/{cid}/problems", s.admin(s.postObjects(rankd.EventProblem)))
	s.handle("POST /api/v1/contests/{cid}/groups", s.admin(s.postObjects(rankd.EventGroup)))
	s.handle("POST /api/v1/contests/{cid}/organizations", s.admin(s.postObjects(rankd.EventOrganization)))
	s.handle("POST /api/v1/contests/{cid}/teams", s.admin(s.postObjects(rankd.EventTeam)))
	s.handle("POST /api/v1/contests/{cid}/teams/{tid}/ban", s.admin(s.setBan(true)))
	s.handle("DELETE /api/v1/contests/{cid}/teams/{tid}/ban", s.admin(s.setBan(false)))
	s.handle("POST /api/v1/contests/{cid}/teams/{tid}/hide", s.admin(s.setHidden(true)))
	s.handle("DELETE /api/v1/contests/{cid}/teams/{tid}/hide", s.admin(s.setHidden(false)))
	s.handle("POST /api/v1/contests/{cid}/teams/{tid}/tokens", s.admin(s.issueTeamToken))
	s.handle("DELETE /api/v1/contests/{cid}/teams/{tid}/tokens", s.admin(s.revokeTeamTokens))
	s.handle("POST /api/v1/contests/{cid}/freeze", s.admin(s.freeze))
	s.handle("POST /api/v1/contests/{cid}/thaw", s.admin(s.thaw))
	s.handle("GET /api/v1/contests/{cid}/reveal", s.getReveal)
	s.handle("POST /api/v1/contests/{cid}/reveal/next", s.admin(s.postRevealNext))
	s.handle("GET /api/v1/contests/{cid}/finalize", s.admin(s.getFinalize))
	s.handle("POST /api/v1/contests/{cid}/finalize", s.admin(s.postFinalize))
	s.handle("POST /api/v1/contests/{cid}/finalize/retry", s.admin(s.postFinalizeRetry))
	s.handle("GET /api/v1/contests/{cid}/final", s.getFinal)
	s.handle("GET /api/v1/contests/{cid}/export", s.getExport)

	s.handle("POST /api/v1/contests/{cid}/events", s.judge(s.postEvents))
	s.handle("POST /api/v1/contests/{cid}/submissions", s.judge(s.postObjects(rankd.EventSubmission)))
	s.handle("POST /api/v1/contests/{cid}/judgements", s.judge(s.postObjects(rankd.EventJudgement)))

	s.handle("GET /api/v1/contests/{cid}/scoreboard", s.getScoreboard)
	s.handle("GET /api/v1/contests/{cid}/scoreboard/stream", s.getStream)
	s.handle("GET /api/v1/contests/{cid}/scoreboard/teams/{tid}", s.getTeamRow)
	s.handle("GET /api/v1/contests/{cid}/problems", s.getProblemStats)
	s.handle("GET /api/v1/contests/{cid}/teams", s.getTeams)
	s.handle("GET /api/v1/contests/{cid}/submissions", s.getSubmissions)
	s.handle("GET /api/v1/contests/{cid}/awards", s.getAwards)
	s.handle("GET /api/v1/contests/{cid}/history", s.getHistory)

	s.handle("GET /api", s.ccsInformation)
	s.handle("GET /api/contests", s.ccsContests)
	s.handle("GET /api/contests/{cid}", s.ccsContest)
	s.handle("GET /api/contests/{cid}/scoreboard", s.ccsScoreboard)
	s.handle("GET /api/contests/{cid}/state", s.ccsState)
	s.handle("GET /api/contests/{cid}/awards", s.ccsAwards)
	s.handle("GET /api/contests/{cid}/teams", s.ccsTeams)
	s.handle("GET /api/contests/{cid}/problems", s.ccsProblems)
	s.handle("GET /api/contests/{cid}/groups", s.ccsGroups)
	s.handle("GET /api/contests/{cid}/organizations", s.ccsOrganizations)
	s.handle("GET /api/contests/{cid}/judgement-types", s.ccsJudgementTypes)
	s.handle("GET /api/contests/{cid}/event-feed", s.ccsEventFeed)
	s.handle("GET /api/contests/{cid}/awards/{oid}", s.ccsOne(s.ccsAwards, "award"))
	s.handle("GET /api/contests/{cid}/teams/{oid}", func(w http.ResponseWriter, r *http.Request) error {
		return ccsObject(s, w, r, "team", ccsTeamObjects)
	})
	s.handle("GET /api/contests/{cid}/problems/{oid}", s.ccsOne(s.ccsProblems, "problem"))
	s.handle("GET /api/contests/{cid}/groups/{oid}", s.ccsOne(s.ccsGroups, "group"))
	s.handle("GET /api/contests/{cid}/organizations/{oid}", func(w http.ResponseWriter, r *http.Request) error {
		return ccsObject(s, w, r, "organization", ccsOrganizationObjects)
	})
	s.handle("GET /api/contests/{cid}/judgement-types/{oid}", s.ccsOne(s.ccsJudgementTypes, "judgement type"))

	s.webRoutes()

	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// The catch-all matches every method, so the mux's own 405 never comes: a client that sends a POST
		// where a GET goes learns that the endpoint exists, and what it takes (OPTIONS asks just that).
		switch allow := s.allowed(r); {
		case allow != "" && r.Method == http.MethodOptions:
			w.Header().Set("Allow", allow)
			w.WriteHeader(http.StatusNoContent)
			return
		case allow != "":
			w.Header().Set("Allow", allow)
			_ = writeJSON(w, http.StatusMethodNotAllowed, errorBody{Code: codeMethodNotAllowed,
				Message: fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, allow)})
			return
		}
		if p := strings.TrimSuffix(r.URL.Path, "/"); p != r.URL.Path && p != "" {
			u := *r.URL
			u.Path, u.RawPath = p, ""
			if s.routed(r.Method, &u, r.Host) {
				s.error(w, r, rankd.Errorf(rankd.ENOTFOUND, "no such endpoint: %s %s (without the final slash: %s)", r.Method, r.URL.Path, p))
				return
			}
		}
		s.error(w, r, rankd.Errorf(rankd.ENOTFOUND, "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

// codeMethodNotAllowed is the error code of a known endpoint asked with a method it does not take: a matter
// of HTTP, so it has no domain code.
const codeMethodNotAllowed = "method_not_allowed"

// routeMethods are the methods the routes take.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}

// allowed lists the methods r's path takes ("GET, HEAD, POST"), or "" when no route has the path.
func (s *Server) allowed(r *http.Request) string {
	var allow []string
	for _, m := range routeMethods {
		if m == r.Method {
			continue
		}
		if s.routed(m, r.URL, r.Host) {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead) // a GET pattern takes HEAD too
			}
		}
	}
	return strings.Join(allow, ", ")
}

// routed reports whether a route of the API takes method on u (the catch-all is none).
func (s *Server) routed(method string, u *url.URL, host string) bool {
	_, pattern := s.mux.Handler(&http.Request{Method: method, URL: u, Host: host})
	return pattern != "/" && pattern != "" // "": a redirect to the clean path
}

// handlerFunc is a handler that returns its error for the server to report.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle registers a route with metrics, error reporting and panic recovery.
func (s *Server) handle(pattern string, h handlerFunc) {
	// Most answers are 200s: their histogram is looked up once (WithLabelValues hashes its labels), when
	// the route first answers one, so that routes never asked show no series.
	ok := sync.OnceValue(func() prometheus.Observer { return s.latency.WithLabelValues(pattern, "200") })
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		begin := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.Logger.Error("panic serving request", slog.String("route", pattern), slog.Any("panic", p))
				s.error(rec, r, rankd.Errorf(rankd.EINTERNAL, "internal error"))
			}
			latency := ok()
			if rec.code != http.StatusOK {
				latency = s.latency.WithLabelValues(pattern, strconv.Itoa(rec.code))
			}
			latency.Observe(time.Since(begin).Seconds())
		}()
		// What a request gets may depend on its token: caches must keep answers apart by token, and not
		// share one given to a token unless its handler says it is the public's.
		hdr := w.Header()
		hdr["Vary"] = varyAuthorization
		if r.Header.Get("Authorization") != "" {
			hdr["Cache-Control"] = cacheControlPrivate
		}
		if err := h(rec, r); err != nil {
			s.error(rec, r, err)
		}
	}))
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection: its flushes report a client gone (a Flush method
// here would hide that).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.conns.shedding.Load() {
		w.Header().Set("Connection", "close")
	}
	if r.ContentLength != 0 { // a body, of known length or chunked
		r.Body = newIdleBody(w, r.Body, cmp.Or(s.BodyTimeout, time.Minute))
	}
	if p := r.URL.Path; r.URL.RawPath == "" && unclean(p) {
		// Go's mux answers a path with "//", "/./" or "/../" in it with a redirect to the clean one: an HTML
		// page, which a judge whose base URL ends in a slash, POSTing, does not follow. The API's are served
		// as the clean path instead, as the redirect would have it; the web pages keep the redirect, since
		// their scripts read the contest from the address the browser shows.
		if c := cleanPath(p); c != p && strings.HasPrefix(c, "/api/") {
			r.URL.Path = c
		}
	}
	if p := r.URL.Path; s.CrossOrigin && (p == "/api" || strings.HasPrefix(p, "/api/")) {
		// Any web page may read the API (an online judge's own contest page, a stream overlay): the API
		// authenticates by a token the page sends, never by what the browser holds (cookies), so letting
		// other origins read answers gives them nothing their token does not.
		w.Header()["Access-Control-Allow-Origin"] = allowAnyOrigin
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			s.preflight(w, r)
			return
		}
		w.Header()["Access-Control-Expose-Headers"] = exposedHeaders
	}
	s.mux.ServeHTTP(w, r)
}

// Header values of cross-origin answers.
var (
	allowAnyOrigin = []string{"*"}
	exposedHeaders = []string{"ETag, Retry-After, Allow, Content-Disposition"}
	allowedHeaders = []string{"Authorization, Content-Type, Content-Encoding, If-None-Match, Last-Event-ID"}
)

// preflight answers a browser asking whether a page of another origin may send r's method to r's path (CORS):
// yes for a path the API has, with the methods it takes.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	allow := s.allowed(r)
	if allow == "" {
		s.error(w, r, rankd.Errorf(rankd.ENOTFOUND, "no such endpoint: %s", r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", allow)
	h["Access-Control-Allow-Headers"] = allowedHeaders
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// unclean reports, without allocating (it is asked of every request), whether p has an empty, "." or ".."
// element.
func unclean(p string) bool {
	return p != "" && (p[0] != '/' || strings.Contains(p, "//") || strings.Contains(p, "/./") || strings.Contains(p, "/../") ||
		strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/.."))
}

// cleanPath returns p without empty, "." and ".." elements, its final slash kept, as Go's mux cleans paths.
func cleanPath(p string) string {
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// idleBody cuts a request's body that sends nothing for its timeout. Go's server reads, before answering, up
// to 256 KB of a body its handler left unread, without a deadline: a header announcing a body that never
// comes held the connection, and its file, for good, whoever sent it. Each read gets the timeout (the time a
// handler spends between reads, waiting for a commit, is not the client's), and the deadline goes at the
// body's end, where Go starts watching the connection for the client leaving (a deadline then would cancel a
// request whose handler takes long, or a stream).
type idleBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func newIdleBody(w http.ResponseWriter, body io.ReadCloser, timeout time.Duration) *idleBody {
	b := &idleBody{ReadCloser: body, rc: http.NewResponseController(w), timeout: timeout}
	_ = b.rc.SetReadDeadline(time.Now().Add(timeout))
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	n, err := b.ReadCloser.Read(p)
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.As(err, &ne) && ne.Timeout():
		// The deadline stays: Go's server reads what is left of the body before answering. (It has cancelled
		// the request's context too, as for any failed read.)
		err = &bodyStalled{b.timeout}
	}
	return n, err
}

// bodyStalled is the error of a request body that sent nothing for timeout: the client's fault, answered
// 400 (see Server.error, and ingestFeed for the lines before it).
type bodyStalled struct{ timeout time.Duration }

func (e *bodyStalled) Error() string {
	return fmt.Sprintf("the request body stalled: it sent nothing for %s", e.timeout)
}

// Listen starts serving on addr in the background and returns the address it listens on.
func (s *Server) Listen(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.Serve(ln)
	return ln.Addr(), nil
}

// Serve serves on ln in the background, until Shutdown.
func (s *Server) Serve(ln net.Listener) {
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		// A client that does not read its answer holds it (and a page a few megabytes big) no longer than
		// this; streams set their own deadline per write, requests with a body a longer one.
		WriteTimeout: cmp.Or(s.writeTimeout, 2*time.Minute),
		IdleTimeout:  2 * time.Minute,
		// A request's header is a few hundred bytes (a token, a few standard fields): Go's default megabyte
		// let a thousand stalled connections hold a gigabyte.
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
		ConnContext:    withConn,
	}
	s.conns.max, s.conns.srv = int64(s.MaxConns), s.srv
	s.srv.ConnState = s.conns.state
	go func() {
		if err := s.srv.Serve(wholeListener{ln}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.Logger.Error("serve", slog.String("error", err.Error()))
		}
	}()
}

// Shutdown stops accepting connections and waits for the requests in flight.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	if s.stopPush != nil {
		s.stopPush()
	}
	if s.srv == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	// A request still running when ctx ends (a judge uploading slowly) is cut: it was not answered, so its
	// client sends it again, and the shutdown goes on with what it must do (commit, checkpoint).
	s.Logger.Warn("requests still running at shutdown were cut; their clients send them again")
	return s.srv.Close()
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if !s.Engine.Ready() {
		return rankd.Errorf(rankd.EUNAVAILABLE, "restoring contests from the log")
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// statuses maps error codes to HTTP statuses; this is the only place that does.
var statuses = map[string]int{
	rankd.ECONFLICT:       http.StatusConflict,
	rankd.EINTERNAL:       http.StatusInternalServerError,
	rankd.EINVALID:        http.StatusBadRequest,
	rankd.ENOTFOUND:       http.StatusNotFound,
	rankd.EUNPROCESSABLE:  http.StatusUnprocessableEntity,
	rankd.EUNAUTHORIZED:   http.StatusUnauthorized,
	rankd.EFORBIDDEN:      http.StatusForbidden,
	rankd.ETOOLARGE:       http.StatusRequestEntityTooLarge,
	rankd.EUNSUPPORTED:    http.StatusUnsupportedMediaType,
	rankd.EUNAVAILABLE:    http.StatusServiceUnavailable,
	rankd.ENOTIMPLEMENTED: http.StatusNotImplemented,
}

// StatusOf returns the HTTP status of an error code.
func StatusOf(code string) int {
	if st, ok := statuses[code]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// errorBody is the JSON of every error response.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// error writes err as JSON; internal errors are logged and shown as a generic message.
func (s *Server) error(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	var stalled *bodyStalled
	switch {
	case errors.As(err, &mbe):
		err = rankd.Errorf(rankd.ETOOLARGE, "the request body is larger than %d bytes", mbe.Limit)
	case errors.As(err, &stalled):
		err = rankd.Errorf(rankd.EINVALID, "%s", stalled.Error())
	}
	code := rankd.ErrorCode(err)
	if code == rankd.EINTERNAL {
		s.Logger.Error("request failed", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("error", err.Error()))
	}
	if code == rankd.EUNAUTHORIZED {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rankd"`)
	}
	msg := rankd.ErrorMessage(err)
	if code == rankd.EINTERNAL {
		msg = "internal error" // what went wrong is in the server's log, not for the client
	}
	_ = writeJSON(w, StatusOf(code), errorBody{Code: code, Message: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// An error here is the client gone: nothing more can be said to it.
	_ = json.NewEncoder(w).Encode(v)
	return nil
}
