package http

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
)

// The CCS event feed, GET /api/contests/{cid}/event-feed: the contest's log as NDJSON, one event per line
// ({"type","id","data","token"}), in log order, streamed as it grows.
//
// Judge and admin tokens get the jury feed: every entry of the log, each line the log's own bytes with a token
// added, except that submissions and judgements get back the absolute times the log leaves out and the 2023-06
// schemas require (ccs.FeedTimes; the relative ones still win when read). Everyone else (anonymous, public and team tokens) gets the public feed of ccs.FeedFilter: no hidden or
// banned team nor anything of it, no judgement of a submission hidden by the freeze until the thaw (then they
// follow the event that thaws, in log order), no bans, no awards before the thaw (then naming only the teams
// it shows). ?view=public gives a jury
// token the public feed; ?view=jury needs a jury token.
//
// A token is a place in the feed. In the jury feed, "P": after the line of log position P. In the public feed,
// "pN": after its N-th line — not a log position, whose gaps would tell how many events the public does not see
// (judgements during the freeze), nor anything a client could probe the log's length with. Both feeds depend
// on the log alone, so a token resumes exactly, on any server over the same log, without expiry. Resuming reads
// the log from its start (without sending it): the lines depend on all before them.
//
// New entries are found by looking at the board's log position every FeedPoll: an event committed on this
// server reaches the clients within FeedPoll plus the time to read it from the store; one stored by another
// server (distributed mode) once this server has followed the log. The store is read outside the board's lock,
// in chunks, so that neither a slow client nor a long log holds up commits or other readers.

// Defaults of the event feed.
const (
	// DefaultFeedKeepAlive is the longest an idle event feed goes without a byte. The CCS asks for a newline
	// at least every 120 s; sent that late, it raced a client timing out at 120 s, and a proxy reading with
	// nginx's default of 60 s cut the feed. Server.Heartbeat, when set, is used instead.
	DefaultFeedKeepAlive = 30 * time.Second
	// FeedPoll is how often a streaming event feed looks for new log entries.
	FeedPoll = 100 * time.Millisecond
	// feedChunk bounds the log entries and bytes read from the store at once.
	feedChunk      = 4096
	feedChunkBytes = 1 << 20
)

// errChunkFull stops a Replay once a chunk is full.
var errChunkFull = errors.New("chunk full")

func (s *Server) feedKeepAlive() time.Duration { return cmp.Or(s.Heartbeat, DefaultFeedKeepAlive) }

// feedToken is a place in an event feed: after the line of log position pos (the jury feed's), or after the
// public feed's line n.
type feedToken struct {
	pos int64
	n   int64
}

func (t feedToken) append(b []byte) []byte {
	if t.n > 0 {
		b = strconv.AppendInt(append(b, 'p'), ccs.FeedFilterVersion, 10)
		return strconv.AppendInt(append(b, '.'), t.n, 10)
	}
	return strconv.AppendInt(b, t.pos, 10)
}

// parseFeedToken reads a token as the feed writes it: "12" in the jury feed, "p2.12" in the public one (the
// version of its lines, see ccs.FeedFilterVersion, and the line's number); "0" is the start of either. A
// public token of another version (an earlier rankd's; "p12" before tokens had one) is refused, saying so: it
// counts lines made otherwise: taken for one of these, its client would skip lines or get some twice.
func parseFeedToken(s string, public bool) (feedToken, error) {
	bad := rankd.Errorf(rankd.EINVALID, "since_token %q is not a token of this event feed", s)
	num := func(s string) (int64, bool) {
		if s == "" || len(s) > 18 || s[0] == '0' && len(s) > 1 {
			return 0, false
		}
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	if s == "0" {
		return feedToken{}, nil
	}
	if rest, ok := strings.CutPrefix(s, "p"); public && ok {
		v, line, versioned := strings.Cut(rest, ".")
		if !versioned {
			v, line = "1", rest
		}
		version, vok := num(v)
		n, nok := num(line)
		switch {
		case !vok || !nok || n == 0:
		case version != ccs.FeedFilterVersion:
			return feedToken{}, rankd.Errorf(rankd.EINVALID, "since_token %q is a token of another rankd version's "+
				"public event feed, whose lines were made otherwise: read the feed from its start (without since_token)", s)
		default:
			return feedToken{n: n}, nil
		}
	} else if pos, ok := num(s); !public && ok {
		return feedToken{pos: pos}, nil
	}
	return feedToken{}, bad
}

// appendFeedLine appends a log line with its token, and a newline: the line is a JSON object without a token
// (see rankd.LogEntry.Data), so the token goes in before its closing brace, and nothing is encoded again.
func appendFeedLine(b, line []byte, pos int64, t feedToken) ([]byte, error) {
	line = bytes.TrimRight(line, " \t\r\n")
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return b, rankd.Errorf(rankd.EINTERNAL, "log entry %d is not a JSON object", pos)
	}
	b = append(b, line[:len(line)-1]...)
	if len(line) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"token":"`...)
	b = t.append(b)
	return append(b, "\"}\n"...), nil
}

// feedReader reads a contest's log after a position and makes the lines of its event feed.
type feedReader struct {
	log    rankd.EventLog
	cid    string
	filter *ccs.FeedFilter // the public feed's; nil for the jury feed
	times  *ccs.FeedTimes
	after  int64     // the last log position read
	skip   feedToken // lines up to this place are not written: the client has them
	lines  int64     // the public feed's lines made so far
	out    []byte    // lines made, to write
	starts []int     // where each line of out starts

	arena []byte
	chunk []feedEntry
}

type feedEntry struct {
	pos        int64
	start, end int // the entry's line in arena
}

// read reads the next chunk of the log and makes its lines; done reports that it reached the end of the log.
func (f *feedReader) read(ctx context.Context) (done bool, err error) {
	f.arena, f.chunk = f.arena[:0], f.chunk[:0]
	err = f.log.Replay(ctx, f.cid, f.after, func(le *rankd.LogEntry) error {
		start := len(f.arena)
		f.arena = append(f.arena, le.Data...)
		f.chunk = append(f.chunk, feedEntry{pos: le.Pos, start: start, end: len(f.arena)})
		if len(f.chunk) == feedChunk || len(f.arena) >= feedChunkBytes {
			return errChunkFull
		}
		return nil
	})
	full := errors.Is(err, errChunkFull)
	if err != nil && !full {
		return false, err
	}
	for _, e := range f.chunk {
		if err := f.add(e.pos, f.arena[e.start:e.end]); err != nil {
			return false, err
		}
		f.after = e.pos
	}
	if cap(f.arena) > 4*feedChunkBytes {
		f.arena = nil // one huge entry: do not keep its memory
	}
	return !full, nil
}

// add makes the lines of one log entry.
func (f *feedReader) add(pos int64, data []byte) error {
	if f.filter == nil {
		return f.line(data, pos, feedToken{pos: pos}, pos <= f.skip.pos)
	}
	return f.filter.Add(pos, data, func(line []byte) error {
		f.lines++
		return f.line(line, pos, feedToken{n: f.lines}, f.lines <= f.skip.n)
	})
}

// line makes one line of the feed, of the log's entry pos, unless the client has it (skip).
func (f *feedReader) line(line []byte, pos int64, t feedToken, skip bool) error {
	line, err := f.times.Line(line, skip)
	if err != nil || skip {
		return err
	}
	f.starts = append(f.starts, len(f.out))
	f.out, err = appendFeedLine(f.out, line, pos, t)
	return err
}

// fetch reads the log's line at pos again (for the public feed's filter).
func (f *feedReader) fetch(ctx context.Context, pos int64) ([]byte, error) {
	var line []byte
	err := f.log.Replay(ctx, f.cid, pos-1, func(le *rankd.LogEntry) error {
		if le.Pos == pos {
			line = bytes.Clone(le.Data)
		}
		return errChunkFull
	})
	if err != nil && !errors.Is(err, errChunkFull) {
		return nil, err
	}
	if line == nil {
		return nil, rankd.Errorf(rankd.EINTERNAL, "contest %s: log entry %d is gone", f.cid, pos)
	}
	return line, nil
}

// seek reads the log up to the place a client resumes from, keeping the lines after it; an error with code
// EINVALID when the log has no such place. Both feeds read the log from its start: the lines depend on the
// contest's start as the log gave it up to them (absolute times), and the public one on all it withholds.
func (f *feedReader) seek(ctx context.Context, t feedToken) error {
	f.skip = t
	for f.after < t.pos || f.lines < t.n {
		done, err := f.read(ctx)
		if err != nil {
			return err
		}
		if done && (f.after < t.pos || f.lines < t.n) {
			return rankd.Errorf(rankd.EINVALID, "since_token %q is beyond the end of this event feed", t.append(nil))
		}
	}
	return nil
}

// feedUnreadable logs why contest cid's log could not be read for its event feed (at most once per 10 s:
// every client asks again), and returns the error its client gets: the contest's feed is unavailable (its
// board may be served still, from memory or a checkpoint), for now when the store is (a database down).
func (s *Server) feedUnreadable(cid string, err error) error {
	down := rankd.ErrorCode(err) == rankd.EUNAVAILABLE
	if s.Engine.Quietly("event feed " + cid) {
		if down {
			s.Logger.Warn("event feed: the store is unavailable", slog.String("contest", cid), slog.String("error", err.Error()))
		} else {
			s.Logger.Error("event feed: reading the log failed", slog.String("contest", cid), slog.String("error", err.Error()))
		}
	}
	if down {
		return rankd.Errorf(rankd.EUNAVAILABLE, "the event feed of contest %q cannot be read now: the store is unavailable; retry", cid)
	}
	return rankd.Errorf(rankd.EUNAVAILABLE, "the event feed of contest %q cannot be read: its stored log could not be read (the server's log says why)", cid)
}

// feedJury tells whether a request gets the jury feed: a judge or admin token does, unless it asks for
// ?view=public; ?view=jury without such a token is refused (401 without a token, 403 with another one).
func (s *Server) feedJury(r *http.Request, cid string) (bool, error) {
	v, err := s.ccsViewFor(r, cid)
	if err != nil {
		return false, err
	}
	return v.Kind == rankd.ViewJury, nil
}

// ccsEventFeed serves the event feed: ?since_token= resumes after a token, ?stream=false ends once the log
// as it is has been sent (by default the feed follows the log until the client or the server goes).
func (s *Server) ccsEventFeed(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	jury, err := s.feedJury(r, cid)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	stream := true
	if v := q.Get("stream"); v != "" {
		if stream, err = strconv.ParseBool(v); err != nil {
			return rankd.Errorf(rankd.EINVALID, "stream must be true or false, not %q", v)
		}
	}
	var since feedToken
	if q.Has("since_token") {
		if since, err = parseFeedToken(q.Get("since_token"), !jury); err != nil {
			return err
		}
	}
	log, ok := s.Store.(rankd.EventLog)
	if !ok {
		return rankd.Errorf(rankd.ENOTIMPLEMENTED, "this server's store cannot read its log back")
	}
	if _, err := s.public(cid); err != nil {
		return err
	}
	if err := s.openStream(w, r); err != nil {
		return err
	}
	defer s.streams.Add(-1)

	ctx := r.Context()
	gen := s.deletions.of(cid) // a deletion after it ends the connection
	f := &feedReader{log: log, cid: cid, times: ccs.NewFeedTimes()}
	if !jury {
		f.filter = ccs.NewFeedFilter()
		f.filter.Fetch = func(pos int64) ([]byte, error) { return f.fetch(ctx, pos) }
	}
	// The place to resume from, and the first chunk after it, are read before answering: a token the log
	// does not have is a 400, a log that cannot be read a 503.
	err = f.seek(ctx, since)
	var done bool
	if err == nil {
		done, err = f.read(ctx)
	}
	if err != nil {
		if rankd.ErrorCode(err) == rankd.EINVALID || ctx.Err() != nil {
			return err
		}
		return s.feedUnreadable(cid, err)
	}
	// Compressed for a client that takes gzip: the feed of a big contest is hundreds of megabytes of JSON, a
	// seventh to a tenth of that compressed. A client's lines are its own (its token, its view): compressed
	// for each connection, each chunk of lines read from the log alone (see streamgzip.go).
	w.Header()["Vary"] = varyPage
	sw := startStream(w, r, "application/x-ndjson", acceptsGzip(r))
	if r.Method == http.MethodHead {
		return nil // the headers only: a stream would hold the connection, its body thrown away
	}
	defer sw.end()
	keepAlive := s.feedKeepAlive()
	idle := time.NewTimer(keepAlive)
	defer idle.Stop()
	// catchUp sends what the log holds after what was sent, chunk by chunk. A log that cannot be read once
	// the answer began breaks the connection: ended cleanly, the feed would tell the client it has it all.
	read := false // the first chunk is read already
	catchUp := func() bool {
		for {
			if read {
				if done, err = f.read(ctx); err != nil {
					if ctx.Err() != nil {
						return false
					}
					_ = s.feedUnreadable(cid, err)
					sw.abort()
				}
			}
			read = true
			if len(f.out) > 0 {
				if !sw.write(f.out) {
					return false
				}
				f.out, f.starts = f.out[:0], f.starts[:0]
				idle.Reset(keepAlive)
			}
			if done {
				return true
			}
			select {
			case <-s.closing:
				return false
			default:
			}
		}
	}
	if !catchUp() || !stream {
		if !stream {
			// A client that asked for what there is gets at least an empty, flushed answer.
			sw.write()
		}
		return nil
	}
	poll := time.NewTicker(FeedPoll)
	defer poll.Stop()
	view := rankd.PublicView
	if jury {
		view = rankd.JuryView
	}
	// A public connection that caught up with the log goes on with the contest's shared reader (see
	// sharedFeed), from its last line n.
	var shared *sharedFeed
	var n int64
	defer func() {
		if shared != nil {
			s.feeds.leave(cid, shared)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil // the client reconnects with its last token, here or to another server
		case <-idle.C:
			if !sw.write([]byte{'\n'}) {
				return nil
			}
			idle.Reset(keepAlive)
		case <-poll.C:
			var pos int64
			err := s.readBoard(cid, view, func(_ *board.Board, p int64) error {
				pos = p
				return nil
			})
			switch {
			case rankd.ErrorCode(err) == rankd.ENOTFOUND:
				return nil
			case err != nil:
				continue // being rebuilt
			}
			if shared == nil && !jury {
				if shared, err = s.feeds.join(cid, gen, f); shared != nil {
					n, f = f.lines, nil
				}
			}
			switch {
			case errors.Is(err, errFeedGone) || shared == nil && s.deletions.of(cid) != gen:
				return nil // the log read so far is no more
			case shared == nil:
				if pos > f.after && !catchUp() {
					return nil
				}
				continue
			}
			for more := true; more; {
				select {
				case <-s.closing:
					return nil
				default:
				}
				var lines [][]byte
				lines, n, more, err = shared.next(ctx, n, pos)
				switch {
				case errors.Is(err, errFeedGone) || ctx.Err() != nil:
					return nil
				case errors.Is(err, errFeedBehind):
					sw.abort() // it resumes with its token
				case err != nil:
					_ = s.feedUnreadable(cid, err)
					sw.abort()
				}
				if len(lines) > 0 {
					if !sw.write(lines...) {
						return nil
					}
					idle.Reset(keepAlive)
				}
			}
		}
	}
}
