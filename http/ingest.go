package http

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/engine"
)

// itemResult is what became of one event of a request.
type itemResult struct {
	// Item is the event's place in the request: its line (NDJSON) or array element, from 1.
	Item int    `json:"item"`
	Type string `json:"type,omitempty"`
	ID   string `json:"id,omitempty"`
	engine.Result
}

// ingestResponse answers a batch of events.
type ingestResponse struct {
	Accepted   int `json:"accepted"`
	Duplicates int `json:"duplicates"`
	Rejected   int `json:"rejected"`
	// Skipped counts the lines of each type rankd skips (languages, clarifications, ... and unknown ones).
	Skipped map[string]int `json:"skipped,omitempty"`
	Results []itemResult   `json:"results"`
}

// postEvents takes events in the CCS event-feed shape {"type","id","data","token"}: NDJSON lines
// (Content-Type application/x-ndjson), one JSON object, or a JSON array of them.
func (s *Server) postEvents(w http.ResponseWriter, r *http.Request) error {
	return s.ingest(w, r, rankd.EventUnknown)
}

// postObjects takes objects of one type (CCS objects: submissions, judgements, teams, ...): one JSON object
// or an array of them.
func (s *Server) postObjects(t rankd.EventType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error { return s.ingest(w, r, t) }
}

// ndjsonTypes are the media types of an NDJSON body: the CCS's, and the names other tools give the same
// format (JSON Lines).
var ndjsonTypes = map[string]bool{
	"application/x-ndjson": true, "application/ndjson": true,
	"application/jsonl": true, "application/x-jsonl": true,
	"application/jsonlines": true, "application/x-jsonlines": true,
}

// ingest submits the events of a request to the engine and answers with a result per event. A request of
// one JSON object that is rejected answers with the error itself.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, t rankd.EventType) error {
	contestID := r.PathValue("cid")
	var problemsOnly bool
	switch q := param(r, "results"); q {
	case "", "all":
	case "problems":
		problemsOnly = true
	default:
		return rankd.Errorf(rankd.EINVALID, "results must be all or problems, not %q", q)
	}
	var dropTaken bool
	switch q := param(r, "taken_tokens"); q {
	case "", "refuse":
	case "drop":
		dropTaken = true
	default:
		return rankd.Errorf(rankd.EINVALID, "taken_tokens must be refuse or drop, not %q", q)
	}
	if r.ContentLength > s.maxBody() {
		// Refused before a line is stored: only a body of unknown length can be cut by the limit midway.
		return tooLarge(s.maxBody(), 0)
	}
	feed, size, err := requestBody(w, r, s.maxBody())
	if err != nil {
		return err
	}
	// NDJSON is decoded as it arrives; JSON is read whole first.
	single, isJSON := false, false
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ndjson := ndjsonTypes[mt]; !ndjson || t != rankd.EventUnknown {
		body, err := readBody(feed, size)
		if err != nil {
			return err
		}
		var lines []byte
		if lines, _, single, err = jsonLines(body, t); err != nil {
			return err
		}
		feed, isJSON = bytes.NewReader(lines), true
	}
	var sent countedReader
	if !isJSON {
		sent.r, feed = feed, &sent
	}
	resp, err := s.ingestFeed(r, contestID, feed, dropTaken, nil)
	if err == nil && !isJSON && sent.n == 0 {
		// Nothing at all, not even a blank line: a file curl could not read (@path mistyped) is sent as nothing.
		return rankd.Errorf(rankd.EINVALID, "the body is empty: send NDJSON lines of events (curl: --data-binary @FILE)")
	}
	for i := range resp.Results {
		// Every refusal names its line, as the reader's do (an element's item, for a JSON body: below).
		res := &resp.Results[i]
		if prefix := "line " + strconv.Itoa(res.Item) + ": "; res.Status == engine.StatusRejected && !strings.HasPrefix(res.Message, prefix) {
			res.Message = prefix + res.Message
		}
	}
	if e, ok := errors.AsType[*rankd.Error](err); ok && isJSON {
		// The reader numbers lines; a JSON body has elements.
		return &rankd.Error{Code: e.Code, Message: strings.Replace(e.Message, "before line ", "before item ", 1)}
	}
	if err != nil {
		return err
	}
	if isJSON {
		// The reader numbers lines; a JSON body has elements, or one object.
		for i := range resp.Results {
			resp.Results[i].Message = elementMessage(resp.Results[i].Message, resp.Results[i].Item, single)
		}
	}
	if single && len(resp.Results) == 1 && resp.Results[0].Status == engine.StatusRejected {
		res := resp.Results[0]
		return &rankd.Error{Code: res.Code, Message: res.Message}
	}
	if problemsOnly {
		// A large import asks for the events that were not accepted only: the counts say the rest.
		resp.Results = slices.DeleteFunc(resp.Results, func(r itemResult) bool { return r.Status == engine.StatusAccepted && r.Cause == "" })
	}
	return writeIngest(w, http.StatusOK, &resp)
}

// countedReader counts the bytes read through it.
type countedReader struct {
	r io.Reader
	n int64
}

func (c *countedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bodyWriteTimeout is how long a request with a body has to be sent and answered.
const bodyWriteTimeout = 30 * time.Minute

// requestBody returns the body of r as sent, decompressed when its Content-Encoding is gzip, and its length
// when known (0 if not). The limit holds for the bytes sent and for the bytes they decompress to.
func requestBody(w http.ResponseWriter, r *http.Request, limit int64) (io.Reader, int64, error) {
	// The server's write timeout counts from the request's header: a body of tens of megabytes sent slowly
	// would leave no time to answer it, and a judge would resend what was stored.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(bodyWriteTimeout))
	rd := http.MaxBytesReader(w, r.Body, limit)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return rd, r.ContentLength, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, 0, tooLarge(limit, 0)
			}
			return nil, 0, rankd.Errorf(rankd.EINVALID, "the body is not gzip-compressed, though its Content-Encoding says so")
		}
		return http.MaxBytesReader(w, zr, limit), 0, nil
	default:
		// Read as it is, another encoding would be taken for malformed lines, each rejected. The answer says
		// which encodings are read (RFC 9110, 12.5.3).
		w.Header().Set("Accept-Encoding", "gzip")
		return nil, 0, rankd.Errorf(rankd.EUNSUPPORTED, "Content-Encoding %q is not supported: send the body as it is, or gzip-compressed", enc)
	}
}

// tooLarge is the error of a body beyond limit. stored, when not 0, is the line before which the events
// read may have been stored.
func tooLarge(limit int64, stored int) error {
	msg := fmt.Sprintf("the request body is larger than the server's limit of %d bytes: send the events in smaller requests", limit)
	return &rankd.Error{Code: rankd.ETOOLARGE, Message: msg + mayBeStored(stored)}
}

// otherContest is the error of a request that defines contest id at line n of a feed sent to contest want.
func otherContest(id, want string, n, stored int) error {
	return rankd.Errorf(rankd.EINVALID, "line %d: the events define contest %q, not %q%s", n, id, want, mayBeStored(stored))
}

// storedBefore returns the line before which the events of a request's queued parts are, 0 when none is.
func storedBefore(parts []part) int {
	for i := len(parts) - 1; i >= 0; i-- {
		if items := parts[i].items; len(items) > 0 {
			return items[len(items)-1].n + 1
		}
	}
	return 0
}

// partlyStored returns err, which refused a request committed in parts, saying that its events before line
// n are stored: told that nothing was, a sender of thousands of events stored would take them for lost.
func partlyStored(err error, n int) error {
	if n == 0 || rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		return err
	}
	return &rankd.Error{Code: rankd.EUNAVAILABLE, Err: err, Message: fmt.Sprintf(
		"%s (the events before line %d are stored: sent again, they are duplicates)", rankd.ErrorMessage(err), n)}
}

// refusedAfter returns err, which stopped a request while it queued its parts for commit, saying which of
// its events are stored: it waits for each part queued, in order, as answer does. The first that failed
// (the one err may come from, waited for to keep the commits in flight bounded) says so; when none did,
// err came from the part being queued, and every one before it is stored.
func (s *Server) refusedAfter(r *http.Request, parts []part, err error) error {
	if _, failed := s.answer(r, parts); failed != nil {
		return failed
	}
	return partlyStored(err, storedBefore(parts))
}

// mayBeStored says, for a request refused after it was partly committed, which of its events may be stored.
func mayBeStored(stored int) string {
	if stored == 0 {
		return ""
	}
	return fmt.Sprintf(" (the events before line %d may have been stored: sent again, they are duplicates)", stored)
}

// elementMessage is the message of a JSON body's item n: the reader's "line n: " prefix says "item n: "
// for an array's element, and nothing for a body of one object.
func elementMessage(msg string, n int, single bool) string {
	rest, ok := strings.CutPrefix(msg, "line "+strconv.Itoa(n)+": ")
	switch {
	case !ok:
		return msg
	case single:
		return rest
	}
	return "item " + strconv.Itoa(n) + ": " + rest
}

// readBody reads a request body, in one allocation when its size is known. A body that ends before its
// Content-Length, or whose connection breaks, is the client's error, not the server's.
func readBody(rd io.Reader, size int64) ([]byte, error) {
	var body []byte
	var err error
	if size > 0 {
		body = make([]byte, size)
		_, err = io.ReadFull(rd, body)
	} else {
		body, err = io.ReadAll(rd)
	}
	var mbe *http.MaxBytesError
	var stalled *bodyStalled
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge(mbe.Limit, 0)
	case errors.As(err, &stalled):
		return nil, rankd.Errorf(rankd.EINVALID, "%s", stalled.Error())
	case err != nil:
		return nil, rankd.Errorf(rankd.EINVALID, "the body could not be read to its end")
	}
	return body, nil
}

var utf8BOM = []byte("\ufeff")

// jsonLines turns a JSON body (an object or an array of objects) into feed lines: events as they are, or
// objects of type t wrapped as events. single reports a body of one object.
func jsonLines(body []byte, t rankd.EventType) (feed []byte, n int, single bool, err error) {
	// A byte order mark, which some editors and Windows tools write at the start of a UTF-8 file.
	body = bytes.TrimSpace(bytes.TrimPrefix(body, utf8BOM))
	if len(body) == 0 {
		return nil, 0, false, rankd.Errorf(rankd.EINVALID, "the body is empty: send a JSON object or an array of objects")
	}
	if err := fastjson.ValidateBytes(body); err != nil {
		var hint string
		switch {
		case !severalValues(body):
		case t == rankd.EventUnknown:
			// curl -d drops line ends: its NDJSON arrives as values side by side.
			hint = " (one event per line is NDJSON: send it with Content-Type: application/x-ndjson, " +
				"and with curl --data-binary, which keeps the line ends)"
		default:
			hint = " (several objects go in a JSON array; NDJSON lines of events go to the events endpoint)"
		}
		return nil, 0, false, rankd.Errorf(rankd.EINVALID, "the body is not JSON: %s%s", ccs.JSONProblem(body, err), hint)
	}
	// Each element is compacted onto a line of its own as the decoder walks the array, without a parse tree:
	// the tree of a 63 MB array held over a gigabyte.
	wrap := 0 // what a line adds to its element
	if t != rankd.EventUnknown {
		wrap = len(`{"type":"","data":}`) + len(t.String())
	}
	// Room for every line at once: each element is an object, so there are at most as many as '{' (but a
	// string full of them must not size a huge buffer).
	out := bytes.NewBuffer(make([]byte, 0, len(body)+min((wrap+1)*bytes.Count(body, []byte{'{'}), len(body)/2)))
	add := func(elem []byte) error {
		if elem[0] != '{' {
			// An array in an array would be read as a whole collection, a null as a deletion without an id.
			what := "an event"
			if t != rankd.EventUnknown {
				what = "an object of " + t.String()
			}
			return rankd.Errorf(rankd.EINVALID, "element %d of the array is not a JSON object: each element is %s", n+1, what)
		}
		if n > 0 {
			out.WriteByte('\n')
		}
		n++
		if t != rankd.EventUnknown {
			out.WriteString(`{"type":"`)
			out.WriteString(t.String())
			out.WriteString(`","data":`)
		}
		if err := json.Compact(out, elem); err != nil {
			return rankd.Errorf(rankd.EINVALID, "the body is not JSON: %v", err)
		}
		if t != rankd.EventUnknown {
			out.WriteByte('}')
		}
		return nil
	}
	switch body[0] {
	case '[':
		dec := json.NewDecoder(bytes.NewReader(body))
		if _, err := dec.Token(); err != nil {
			return nil, 0, false, rankd.Errorf(rankd.EINVALID, "the body is not JSON: %v", err)
		}
		var elem json.RawMessage
		for dec.More() {
			if err := dec.Decode(&elem); err != nil {
				return nil, 0, false, rankd.Errorf(rankd.EINVALID, "the body is not JSON: %v", err)
			}
			if err := add(elem); err != nil {
				return nil, 0, false, err
			}
		}
	case '{':
		single = true
		if err := add(body); err != nil {
			return nil, 0, false, err
		}
	default:
		return nil, 0, false, rankd.Errorf(rankd.EINVALID, "the body must be a JSON object or an array of objects")
	}
	return out.Bytes(), n, single, nil
}

// severalValues reports whether body is JSON values one after another (NDJSON, or lines run together)
// rather than one malformed value.
func severalValues(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	var first json.RawMessage
	return dec.Decode(&first) == nil && dec.More()
}

// item is one event decoded from a request, or why it could not be. The event's log entry is kept apart
// (entries are large): the items of a part that decoded have, in order, the part's entries.
type item struct {
	n   int // line or element, from 1
	typ rankd.EventType
	id  string
	err error
}

// decodeChunk is how many decoded events are queued for commit at a time: the commit of one part then
// overlaps the decoding of the next.
const decodeChunk = 1000

// commitWindow is how many parts of a request may wait for their commit at once: a large request is decoded
// as fast as it is committed, not held in memory whole.
const commitWindow = 8

// ingestFeed decodes event-feed lines into log entries as they are read and submits them, in parts, and
// answers for each line. The contest's definition is read first, unseen, so that absolute times in the
// lines are read against the contest's start. An error reading the feed (too large, the client gone) fails
// the request; the parts queued before it are committed all the same, and sent again are duplicates.
// guard, when not nil, is asked once, with the board as the request's first event commits: an error refuses
// every event of the request (see guardOnce).
func (s *Server) ingestFeed(r *http.Request, contestID string, feed io.Reader, dropTaken bool, guard func(*board.Board) error) (ingestResponse, error) {
	guarded := guardOnce(guard)
	var prefix []byte
	err := s.Engine.Read(contestID, func(b *board.Board, _ int64) error {
		c := b.Contest()
		var err error
		if prefix, err = ccs.AppendEvent(prefix, rankd.Event{Type: rankd.EventContest, ID: c.ID, Contest: &c}); err != nil {
			return err
		}
		if st := b.State(); st.Started != nil {
			prefix, err = ccs.AppendEvent(prefix, rankd.Event{Type: rankd.EventState, State: &st})
		}
		return err
	})
	if err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND {
		return ingestResponse{}, err
	}
	// A judge may not thaw a contest before its end (engine.CheckThaw); an admin may, as POST .../thaw does.
	t, err := s.Auth.identify(r)
	if err != nil {
		return ingestResponse{}, err
	}
	admin := t.Role == rankd.RoleAdmin
	rd := ccs.NewReader(io.MultiReader(bytes.NewReader(prefix), ccs.SkipBOM(feed)))
	rd.NumberFrom(1 - bytes.Count(prefix, []byte{'\n'})) // the body's lines from 1, in items and messages
	var parts []part
	var items []item
	var entries []rankd.LogEntry
	var reads map[int]readAt // by entry of the part: what a change of the freeze was checked against
	var finalOut *bool       // whether rankd built the contest's final standings, once a state asks
	queue := func() error {
		queued, read := entries, reads
		p, err := s.Engine.EnqueueChecked(r.Context(), contestID, entries, func(b *board.Board, i int) error {
			if guarded != nil {
				if err := guarded(b, i); err != nil {
					return err
				}
			}
			return s.recheckFreezeChange(b, &queued[i].Event, read[i], admin)
		})
		if err != nil {
			return err
		}
		parts = append(parts, part{items: items, pending: p})
		items, entries, reads = nil, nil, nil
		if n := len(parts) - commitWindow; n >= 0 {
			_, err = parts[n].pending.Wait(r.Context())
		}
		return err
	}
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var lineErr *rankd.Error
		var mbe *http.MaxBytesError
		var stalled *bodyStalled
		switch {
		case err == nil && ev.Type == rankd.EventContest && !ev.Delete && ev.Contest != nil && ev.Contest.ID != contestID:
			// Another contest's feed: none of it is this contest's, though its teams and submissions would fit.
			return ingestResponse{}, otherContest(ev.Contest.ID, contestID, rd.Line(), storedBefore(parts))
		case err == nil, errors.As(err, &lineErr):
		case errors.As(err, &mbe):
			return ingestResponse{}, tooLarge(mbe.Limit, storedBefore(parts))
		case errors.As(err, &stalled):
			return ingestResponse{}, rankd.Errorf(rankd.EINVALID, "%s, after line %d%s", stalled.Error(), rd.Line(), mayBeStored(storedBefore(parts)))
		default:
			return ingestResponse{}, rankd.Errorf(rankd.EINVALID, "the body could not be read to its end, after line %d", rd.Line())
		}
		n := rd.Line()
		if n > 0 && items == nil {
			room := decodeChunk
			if len(parts) == 0 {
				room = 16 // most requests are a few events
			}
			items, entries = make([]item, 0, room), make([]rankd.LogEntry, 0, room)
		}
		switch {
		case n <= 0:
			continue
		case err != nil:
			msg := rankd.ErrorMessage(err)
			if strings.Contains(msg, "invalid character '{' after top-level value") {
				// Events run together on a line: curl -d drops the line ends of the file it sends.
				msg += " (one event per line: curl --data-binary keeps a file's line ends, -d drops them)"
			}
			items = append(items, item{n: n, err: rankd.Errorf(rankd.EINVALID, "%s", msg)})
		default:
			var read readAt
			reopens := false
			if _, _, ok := freezeChange(&ev); ok {
				err = s.Engine.Read(contestID, func(b *board.Board, _ int64) error {
					if ev.Type == rankd.EventState && !ev.Delete {
						cur := b.State()
						st := ev.State.KeepingThaw(cur)
						if dropTaken && ev.State.Thawed == nil && cur.Thawed != nil && saysNothingNew(st, cur) {
							// A state from before the thaw in a feed read again: history, a repeat of the state
							// now (kept with the thaw, it would be a version never sent, stored anew).
							st = cur
						}
						ev.State = &st
					}
					read = readAt{known: true, c: b.Contest(), st: b.State()}
					if ev.Type == rankd.EventState {
						_, ns, _ := freezeChange(&ev)
						reopens = engine.Reopens(b, ns, s.Now())
					}
					return s.checkFreezeChange(b, &ev, admin)
				})
				if rankd.ErrorCode(err) == rankd.ENOTFOUND {
					err = nil // a new contest
				}
				if reopens {
					// Asked of the store once per request, outside the board's lock; a store that cannot
					// tell counts as one that has them.
					if finalOut == nil {
						_, ferr := s.Store.ActiveFinal(r.Context(), contestID)
						out := rankd.ErrorCode(ferr) != rankd.ENOTFOUND
						finalOut = &out
					}
					read.final = *finalOut
				}
			}
			var e rankd.LogEntry
			if err == nil {
				e, err = engine.Entry(ev)
				e.DropTakenToken = dropTaken
			}
			if err == nil {
				if read.known {
					if reads == nil {
						reads = map[int]readAt{}
					}
					reads[len(entries)] = read
				}
				entries = append(entries, e)
			}
			items = append(items, item{n: n, typ: ev.Type, id: ev.ID, err: err})
		}
		if len(items) == decodeChunk {
			if err := queue(); err != nil {
				return ingestResponse{}, s.refusedAfter(r, parts, err)
			}
		}
	}
	if err := queue(); err != nil {
		return ingestResponse{}, s.refusedAfter(r, parts, err)
	}
	resp, err := s.answer(r, parts)
	if err == nil && len(rd.Skipped()) > 0 {
		// A type rankd skips gets no result: the counts tell a sender that misspelt one ("judgment").
		resp.Skipped = rd.Skipped()
	}
	return resp, err
}

// readAt is the contest's definition and state that a change of its freeze was checked against as it was
// read (known: the contest existed).
type readAt struct {
	known bool
	c     rankd.Contest
	st    rankd.State
	final bool // a state that reopens the contest: whether rankd built its final standings (engine.CheckReopen)
}

// checkFreezeChange refuses a change of the contest's definition or state, ev, that would move the freeze
// of its public board (engine.CheckFreeze), or thaw it when the sender is not an admin (engine.CheckThaw).
func (s *Server) checkFreezeChange(b *board.Board, ev *rankd.Event, admin bool) error {
	nc, ns, _ := freezeChange(ev)
	if err := engine.CheckFreeze(b, nc, ns, s.Now()); err != nil || admin {
		return err
	}
	return engine.CheckThaw(b, ns, s.Now())
}

// recheckFreezeChange checks a change of the freeze again as it commits, when the contest's definition or
// state changed since it was checked as it was read (r): a freeze made by hand meanwhile, on another server,
// would otherwise be moved back by a definition read before it, showing the public what it hid.
// A state that reopens the contest is refused here, as it commits, once results are out: a state sent again
// as history (a feed read again) is a duplicate, never committed, and refused as it is read, it would be
// rejected instead.
func (s *Server) recheckFreezeChange(b *board.Board, ev *rankd.Event, r readAt, admin bool) error {
	if _, ns, _ := freezeChange(ev); ev.Type == rankd.EventState {
		if err := engine.CheckReopen(b, ns, r.final, s.Now()); err != nil {
			return err
		}
	}
	if !r.known || sameContest(b, r.c, r.st) {
		return nil
	}
	return s.checkFreezeChange(b, ev, admin)
}

// saysNothingNew reports whether each time st gives is cur's.
func saysNothingNew(st, cur rankd.State) bool {
	for _, f := range [][2]*time.Time{{st.Started, cur.Started}, {st.Frozen, cur.Frozen}, {st.Ended, cur.Ended},
		{st.Thawed, cur.Thawed}, {st.Finalized, cur.Finalized}, {st.EndOfUpdates, cur.EndOfUpdates}} {
		if f[0] != nil && (f[1] == nil || !f[0].Equal(*f[1])) {
			return false
		}
	}
	return true
}

// part is a run of items queued for commit together.
type part struct {
	items   []item
	pending *engine.Pending
}

// submit submits events the server made, in one part, and answers for each; guard, when not nil, is asked
// as the first of them commits (see guardOnce). They are its own (see rankd.LogEntry.Own): an admin's thaw
// that sets the state back as an earlier thaw left it is stored.
func (s *Server) submit(r *http.Request, contestID string, evs []rankd.Event, guard func(*board.Board) error) (ingestResponse, error) {
	items := make([]item, len(evs))
	entries := make([]rankd.LogEntry, 0, len(evs))
	for i, ev := range evs {
		e, err := engine.Entry(ev)
		if err == nil {
			e.Own = true
			entries = append(entries, e)
		}
		items[i] = item{n: i + 1, typ: ev.Type, id: ev.ID, err: err}
	}
	p, err := s.Engine.EnqueueChecked(r.Context(), contestID, entries, guardOnce(guard))
	if err != nil {
		return ingestResponse{}, err
	}
	return s.answer(r, []part{{items: items, pending: p}})
}

// guardOnce returns the engine.Check of a request whose events stand or fall together: guard is asked once,
// with the board as the first of them commits (what other servers stored applied), and its error refuses
// each of them. An action built from what it read of the board guards against a change stored since, by
// another server or another request. nil for a nil guard.
func guardOnce(guard func(*board.Board) error) engine.Check {
	if guard == nil {
		return nil
	}
	asked := false
	var err error
	return func(b *board.Board, _ int) error {
		if !asked {
			asked, err = true, guard(b)
		}
		return err
	}
}

// answer waits for the commit of each part and gathers a result per item, in order.
func (s *Server) answer(r *http.Request, parts []part) (ingestResponse, error) {
	var resp ingestResponse
	for k, p := range parts {
		results, err := p.pending.Wait(r.Context())
		if err != nil {
			return ingestResponse{}, partlyStored(err, storedBefore(parts[:k]))
		}
		if resp.Results == nil {
			resp.Results = make([]itemResult, 0, len(parts)*len(p.items))
		}
		k := 0
		for _, it := range p.items {
			res := itemResult{Item: it.n}
			if it.err != nil {
				res.Result = engine.Rejected(it.err)
			} else {
				res.Type, res.ID = it.typ.String(), it.id
				res.Result = results[k]
				k++
			}
			switch res.Status {
			case engine.StatusAccepted:
				resp.Accepted++
			case engine.StatusDuplicate:
				resp.Duplicates++
			default:
				resp.Rejected++
			}
			resp.Results = append(resp.Results, res)
		}
	}
	if resp.Results == nil {
		resp.Results = []itemResult{}
	}
	return resp, nil
}

func (s *Server) maxBody() int64 {
	if s.MaxBody > 0 {
		return s.MaxBody
	}
	return DefaultMaxBody
}

// freezeChange returns what an event sent changes of a contest's freeze (see engine.CheckFreeze): its
// definition or its state (a state deleted is an empty one); false for another event.
func freezeChange(ev *rankd.Event) (*rankd.Contest, *rankd.State, bool) {
	switch {
	case ev.Type == rankd.EventContest && !ev.Delete && ev.Contest != nil:
		return ev.Contest, nil, true
	case ev.Type == rankd.EventState && ev.Delete:
		return nil, &rankd.State{}, true
	case ev.Type == rankd.EventState && ev.State != nil:
		return nil, ev.State, true
	}
	return nil, nil, false
}
