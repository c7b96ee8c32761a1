package http

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fastjson"

	"rankd"
	"rankd/board"
)

// startStream answers 200 with a body of the given type that goes on as long as the server writes it, and
// returns what writes and flushes its parts; gzip-compressed when gz (see streamgzip.go).
func startStream(w http.ResponseWriter, r *http.Request, contentType string, gz bool) *streamWriter {
	h := w.Header()
	h.Set("Content-Type", contentType)
	if h.Get("Cache-Control") == "" { // a stream for a token is private already (see handle)
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("X-Accel-Buffering", "no") // proxies must pass each part on at once
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), gzip: gz}
	if gz {
		h.Set("Content-Encoding", "gzip")
		sw.head = gzipHeader
	}
	w.WriteHeader(http.StatusOK)
	if c, ok := r.Context().Value(connKey{}).(*wholeConn); ok && r.ProtoMajor == 1 {
		sw.conn, sw.chunked = c, r.ProtoAtLeast(1, 1)
	}
	return sw
}

// A streamWriter writes a stream's parts, each flushed at once, in one write to the connection when it can:
// Go's server buffers 4 KiB per connection, so a frame of 10 KB (a tick's changes) left in three writes, the
// chunk's header and first 4 KiB, the rest, then its end, each a pass through the network stack, which with
// thousands of clients per frame is most of what the server does.
type streamWriter struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	conn     *wholeConn // nil when the connection's writes cannot be held
	chunked  bool       // the body goes in chunks (HTTP/1.1); an HTTP/1.0 client's goes as it is
	deadline time.Time
	// gzip says the body is compressed: crc and size are those of what it holds so far, head the gzip
	// header until the first write sends it.
	gzip      bool
	crc, size uint32
	head      []byte
	parts     [][]byte // scratch
	failed    bool     // a write failed: the client is gone, or stopped reading
}

// write writes parts and flushes them: false once the client is gone, or a write hung for 10 s.
func (sw *streamWriter) write(parts ...[]byte) bool {
	if !sw.gzip {
		return sw.send(parts)
	}
	sw.parts = sw.parts[:0]
	for _, p := range parts {
		d := deflate(p)
		sw.crc, sw.size = crc32Combine(sw.crc, d.crc, d.shift), sw.size+d.size
		sw.parts = append(sw.parts, d.data)
	}
	return sw.sendParts()
}

// writeFrames writes frames as write does, each compressed once for all the clients that take it compressed.
func (sw *streamWriter) writeFrames(frames []*message) bool {
	sw.parts, sw.crc, sw.size = sw.pieces(sw.parts[:0], frames)
	return sw.sendParts()
}

// pieces appends to parts what the frames are in the body, and returns them with what the gzip trailer
// would count after them.
func (sw *streamWriter) pieces(parts [][]byte, frames []*message) (_ [][]byte, crc, size uint32) {
	crc, size = sw.crc, sw.size
	for _, m := range frames {
		if !sw.gzip {
			parts = append(parts, m.data)
			continue
		}
		d := m.deflated()
		crc, size = crc32Combine(crc, d.crc, d.shift), size+d.size
		parts = append(parts, d.data)
	}
	return parts, crc, size
}

// sendParts sends the scratch parts, letting go of them: frames are shared by every client.
func (sw *streamWriter) sendParts() bool {
	ok := sw.send(sw.parts)
	clear(sw.parts)
	return ok
}

// abort breaks the connection, for a client that must not take what it got for the whole body: a gzip body
// is not ended either (end does nothing after it).
func (sw *streamWriter) abort() {
	sw.failed = true
	panic(http.ErrAbortHandler)
}

// end ends a compressed body as gzip asks, so that a stream that ends cleanly (the server shutting down, the
// contest deleted) reads to a clean end, not as one cut off.
func (sw *streamWriter) end() {
	if sw.gzip {
		sw.send([][]byte{gzipEnd(sw.crc, sw.size)})
	}
}

// send writes parts as they are and flushes them.
func (sw *streamWriter) send(parts [][]byte) (ok bool) {
	if sw.failed {
		return false
	}
	size := len(sw.head)
	for _, p := range parts {
		size += len(p)
	}
	sw.extendDeadline(size)
	ok = true
	if sw.conn != nil {
		sw.conn.hold(parts...)
		defer func() { ok = sw.conn.release() && ok; sw.failed = !ok }() // also when a write panics
	}
	if len(sw.head) > 0 {
		_, err := sw.w.Write(sw.head)
		ok, sw.head = err == nil, nil
	}
	for _, p := range parts {
		if !ok {
			break
		}
		_, err := sw.w.Write(p)
		ok = err == nil
	}
	ok = ok && sw.rc.Flush() == nil
	sw.failed = !ok
	return ok
}

// extendDeadline gives a write of size bytes time: ten seconds, and one more per 64 KiB (a client reading
// 200 KB/s gets a snapshot of a board of 10,000 teams, 7 MB, which a flat 10 s cut off for ever, each
// reconnection sending it again). It is moved once a second, not per write: with thousands of clients, timers
// cost.
func (sw *streamWriter) extendDeadline(size int) {
	need := 10*time.Second + time.Duration(size>>16)*time.Second
	if now := time.Now(); sw.deadline.Sub(now) < need-time.Second {
		sw.deadline = now.Add(need)
		_ = sw.rc.SetWriteDeadline(sw.deadline)
	}
}

// openStream counts a live stream (an SSE stream or an event feed) that is about to open, or refuses it when
// MaxStreams are open: then, unless its token is the jury's, which anyone's streams must not shut out (the
// jury's screens, the CCS tools that follow the event feed), 503 with a Retry-After. Its caller subtracts it
// from s.streams when it ends.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request) error {
	if n := s.streams.Add(1); n <= int64(cmp.Or(s.MaxStreams, DefaultMaxStreams)) {
		return nil
	}
	if t, err := s.Auth.identify(r); err == nil && t.Jury() {
		return nil
	}
	s.streams.Add(-1)
	w.Header().Set("Retry-After", "5")
	return rankd.Errorf(rankd.EUNAVAILABLE, "too many live streams open: poll the scoreboard (it has an ETag) or retry later")
}

// resumeCatchUp bounds how long a stream resumed from a sequence number this server has not reached waits
// for the server to catch up with the log.
const resumeCatchUp = 2 * time.Second

// getStream follows a view of a contest as server-sent events: a snapshot, then a diff per tick that
// changed the view (see push.go); with ?top=N&throttle=D, the top N rows as a whole at most every D (for
// a big screen). A reconnecting client sends Last-Event-ID (or ?last_event_id=) and resumes.
func (s *Server) getStream(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	var last *uint64
	if id := r.Header.Get("Last-Event-ID"); id != "" || hasParam(r, "last_event_id") {
		if id == "" {
			id = param(r, "last_event_id")
		}
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return rankd.Errorf(rankd.EINVALID, "Last-Event-ID must be a sequence number, not %q", id)
		}
		last = &n
	}
	top, err := intParam(r, "top", 0)
	if err != nil {
		return err
	}
	var throttle time.Duration
	if q := param(r, "throttle"); q != "" {
		if throttle, err = time.ParseDuration(q); err != nil || throttle < 100*time.Millisecond {
			return rankd.Errorf(rankd.EINVALID, "throttle must be a duration of at least 100ms, such as 5s")
		}
	}
	switch {
	case hasParam(r, "group"):
		// Followed whole, it looked filtered: each row says its groups, and a group is ranked from them.
		return rankd.Errorf(rankd.EINVALID, "the stream carries the whole view, each row with its group_ids: "+
			"a client keeps a group's rows from it (ranked among themselves); group is for the scoreboard's pages")
	case top == 0 && r.URL.Query().Has("top"):
		return rankd.Errorf(rankd.EINVALID, "top must be a number of rows, 1 or more, not %q", param(r, "top"))
	case (top > 0) != (throttle > 0):
		return rankd.Errorf(rankd.EINVALID, "the big-screen channel takes both top and throttle")
	}
	behind := false
	if err := s.readBoard(cid, v, func(b *board.Board, _ int64) error {
		if _, _, ok := b.Team(v.TeamID); v.Kind == rankd.ViewTeam && !ok {
			// Said before the headers, as a page says it: a client told once does not ask again and again.
			return rankd.Errorf(rankd.ENOTFOUND, "unknown team %q", v.TeamID)
		}
		behind = last != nil && *last > b.Seq(v)
		return nil
	}); err != nil {
		return err
	}
	if behind && s.Engine.Shared {
		// The client comes from a server further along the log: catch up first, or it would go back to this
		// server's older board. A log that cannot be read in time leaves it that board, exact but older.
		ctx, cancel := context.WithTimeout(r.Context(), resumeCatchUp)
		_ = s.current(ctx, cid)
		cancel()
	}
	if err := s.openStream(w, r); err != nil {
		return err
	}
	defer s.streams.Add(-1)
	// A shared view's frames are compressed once for all (see streamgzip.go); a team's view, of one follower
	// mostly, would be compressed per client.
	w.Header()["Vary"] = varyPage
	sw := startStream(w, r, "text/event-stream", v.Kind != rankd.ViewTeam && acceptsGzip(r))
	if r.Method == http.MethodHead {
		return nil // the headers only: a stream would hold the connection, its body thrown away
	}
	defer sw.end()
	if !sw.write([]byte("retry: 2000\n\n")) {
		return nil
	}
	heartbeat := time.NewTicker(s.heartbeat())
	defer heartbeat.Stop()
	if top > 0 {
		s.bigScreen(r, sw, heartbeat, cid, v, top, throttle)
		return nil
	}
	if r.Context().Err() != nil {
		return nil // gone already (a client that opens streams and drops them): no snapshot for nobody
	}
	f, err := s.push.subscribe(cid, v, last, newDirectOut(sw, s.unrevoked(v)))
	if err != nil {
		// The headers are gone: say it as an event the client can read.
		sw.write(errorEvent(errorBody{Code: rankd.ErrorCode(err), Message: rankd.ErrorMessage(err)}))
		return nil
	}
	defer s.push.unsubscribe(cid, v, f)
	defer f.end(sw, nil)
	say := func(b []byte) bool { return f.with(sw, func() bool { return sw.write(b) }, 0) }
	allowed := s.allowedStill(r, cid, v)
	var queued []*message
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil // the client reconnects to another node, or to this one once it is back
		case <-f.dropped:
			if f.gone.Load() {
				// The last thing the stream says: no frame of the outbox may follow it.
				f.end(sw, errorEvent(errorBody{Code: rankd.ENOTFOUND, Message: fmt.Sprintf("contest %q was deleted", cid)}))
			}
			return nil
		case m := <-f.events:
			if !allowed() {
				return nil
			}
			// A client that fell behind gets what is queued in one write.
			queued = append(queued[:0], m)
			for more := true; more; {
				select {
				case m := <-f.events:
					queued = append(queued, m)
				default:
					more = false
				}
			}
			ok := f.write(sw, queued)
			clear(queued) // the frames, shared by every client, are not kept for this one
			if !ok {
				return nil
			}
		case <-heartbeat.C:
			if !s.stillAllows(r, cid, v) || !say([]byte(": ping\n\n")) {
				return nil
			}
		}
	}
}

// allowedStill returns what a stream asks before each frame: whether its token still grants its view. A team's
// token is checked again only when this server revoked tokens since the last look (an atomic read per frame
// otherwise): a revoked token sent its team's frozen verdicts until the next heartbeat.
func (s *Server) allowedStill(r *http.Request, cid string, v rankd.View) func() bool {
	if v.Kind != rankd.ViewTeam {
		return func() bool { return true }
	}
	seen := s.revocations.Load()
	return func() bool {
		if n := s.revocations.Load(); n != seen {
			seen = n
			return s.stillAllows(r, cid, v)
		}
		return true
	}
}

// unrevoked returns what tells, from any goroutine, that a stream's token surely still grants its view: for a
// team's view, that no token was revoked on this server since the stream began.
func (s *Server) unrevoked(v rankd.View) func() bool {
	if v.Kind != rankd.ViewTeam {
		return func() bool { return true }
	}
	seen := s.revocations.Load()
	return func() bool { return s.revocations.Load() == seen }
}

// stillAllows reports whether the token of a stream's request still grants its view: a team's token revoked
// while its stream is open ends the stream at the next heartbeat (the client's reconnection is refused). A
// store that cannot answer now leaves the stream open.
func (s *Server) stillAllows(r *http.Request, cid string, v rankd.View) bool {
	if v.Kind != rankd.ViewTeam || r.Header.Get("Authorization") == "" {
		return true // the public view needs nothing, and jury tokens are the server's configuration
	}
	got, err := s.viewFor(r, cid)
	switch rankd.ErrorCode(err) {
	case "":
		return got == v
	case rankd.EUNAUTHORIZED, rankd.EFORBIDDEN:
		return false
	}
	return true
}

// topFrame is the body of a top event: the first rows of the view, whole.
type topFrame struct {
	Seq   uint64 `json:"seq"`
	Total int    `json:"total"`
	// Frozen says whether the view hides verdicts, as the other frames do: a big screen shows a freeze or
	// thaw by hand with its next frame.
	Frozen bool      `json:"frozen"`
	Rows   []rowJSON `json:"rows"`
}

// bigScreen sends the top rows of the view whenever it changed, at most once per throttle. The rows are a
// page of the cache: rendered once per version of the view for every screen that shows as many, and, for the
// public, read without waiting for a commit in progress (see cached).
func (s *Server) bigScreen(r *http.Request, sw *streamWriter, heartbeat *time.Ticker, cid string,
	v rankd.View, top int, throttle time.Duration) {
	r.Header.Del("If-None-Match") // each frame is the page itself
	key := "top|" + strconv.Itoa(top)
	sent := ""
	allowed := s.allowedStill(r, cid, v)
	send := func() bool {
		if !allowed() {
			return false
		}
		page, etag, err := s.cached(r, cid, v, key, func(b *board.Board) (any, error) {
			st, err := b.Standings(v, 0, top)
			if err != nil {
				return nil, err
			}
			tf := topFrame{Seq: st.Seq, Total: st.Total, Frozen: s.frozen(b, v), Rows: make([]rowJSON, len(st.Rows))}
			for i, row := range st.Rows {
				tf.Rows[i] = renderRow(b, row)
			}
			return tf, nil
		})
		if err != nil {
			// A contest deleted, a team gone: the stream ends saying why, as the diff stream does.
			sw.write(errorEvent(errorBody{Code: rankd.ErrorCode(err), Message: rankd.ErrorMessage(err)}))
			return false
		}
		if etag == sent {
			return true
		}
		sent = etag
		return sw.write(event("top", uint64(fastjson.GetInt(page.body, "seq")), json.RawMessage(page.body)))
	}
	if !send() {
		return
	}
	tick := time.NewTicker(throttle)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-tick.C:
			if !send() {
				return
			}
		case <-heartbeat.C:
			if !s.stillAllows(r, cid, v) || !sw.write([]byte(": ping\n\n")) {
				return
			}
		}
	}
}

// errorEvent formats the error event that ends a stream. Its id is empty, which clears the browser's last
// event id (EventSource keeps the last one given, and a frame without an id would leave the last diff's): the
// reconnection then starts afresh, without Last-Event-ID, as the board it would resume is no more.
func errorEvent(body errorBody) []byte {
	data, _ := json.Marshal(body)
	return fmt.Appendf(nil, "event: error\nid\ndata: %s\n\n", data)
}
