package http

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"

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
	Accepted   int          `json:"accepted"`
	Duplicates int          `json:"duplicates"`
	Rejected   int          `json:"rejected"`
	Results    []itemResult `json:"results"`
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

// ingest submits the events of a request to the engine and answers with a result per event. A request of
// one JSON object that is rejected answers with the error itself.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, t rankd.EventType) error {
	contestID := r.PathValue("cid")
	var problemsOnly bool
	switch q := r.URL.Query().Get("results"); q {
	case "", "all":
	case "problems":
		problemsOnly = true
	default:
		return rankd.Errorf(rankd.EINVALID, "results must be all or problems, not %q", q)
	}
	if r.ContentLength > s.maxBody() {
		// Refused before a line is stored: only a body of unknown length can be cut by the limit midway.
		return &http.MaxBytesError{Limit: s.maxBody()}
	}
	// NDJSON is decoded as it arrives; JSON is read whole first.
	var feed io.Reader = http.MaxBytesReader(w, r.Body, s.maxBody())
	single := false
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-ndjson" || t != rankd.EventUnknown {
		body, err := readBody(w, r, s.maxBody())
		if err != nil {
			return err
		}
		var lines [][]byte
		if lines, single, err = jsonLines(body, t); err != nil {
			return err
		}
		feed = bytes.NewReader(bytes.Join(lines, []byte{'\n'}))
	}
	resp, err := s.ingestFeed(r, contestID, feed)
	if err != nil {
		return err
	}
	if single && len(resp.Results) == 1 && resp.Results[0].Status == engine.StatusRejected {
		res := resp.Results[0]
		return &rankd.Error{Code: res.Code, Message: res.Message}
	}
	if problemsOnly {
		// A large import asks for the events that were not accepted only: the counts say the rest.
		resp.Results = slices.DeleteFunc(resp.Results, func(r itemResult) bool { return r.Status == engine.StatusAccepted })
	}
	return writeIngest(w, http.StatusOK, &resp)
}

// readBody reads a request body of at most limit bytes, in one allocation when its length is known. A body
// that ends before its Content-Length, or whose connection breaks, is the client's error, not the server's.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	rd := http.MaxBytesReader(w, r.Body, limit)
	var body []byte
	var err error
	if n := r.ContentLength; n > 0 && n <= limit {
		body = make([]byte, n)
		_, err = io.ReadFull(rd, body)
	} else {
		body, err = io.ReadAll(rd)
	}
	var tooLarge *http.MaxBytesError
	if err != nil && !errors.As(err, &tooLarge) {
		return nil, rankd.Errorf(rankd.EINVALID, "the body could not be read to its end")
	}
	return body, nil
}

// jsonLines turns a JSON body (an object or an array of objects) into feed lines: events as they are, or
// objects of type t wrapped as events. single reports a body of one object.
func jsonLines(body []byte, t rankd.EventType) (lines [][]byte, single bool, err error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		if t == rankd.EventUnknown && bytes.Contains(bytes.TrimSpace(body), []byte("}\n{")) {
			return nil, false, rankd.Errorf(rankd.EINVALID, "the body is not JSON: %v (one event per line is NDJSON: send it with Content-Type: application/x-ndjson)", err)
		}
		return nil, false, rankd.Errorf(rankd.EINVALID, "the body is not JSON: %v", err)
	}
	var elems []*fastjson.Value
	switch v.Type() {
	case fastjson.TypeArray:
		elems, _ = v.Array()
	case fastjson.TypeObject:
		elems, single = []*fastjson.Value{v}, true
	default:
		return nil, false, rankd.Errorf(rankd.EINVALID, "the body must be a JSON object or an array of objects")
	}
	for _, e := range elems {
		var line []byte
		if t != rankd.EventUnknown {
			line = append(line, `{"type":"`...)
			line = append(line, t.String()...)
			line = append(line, `","data":`...)
			line = e.MarshalTo(line)
			line = append(line, '}')
		} else {
			line = e.MarshalTo(line)
		}
		lines = append(lines, line)
	}
	return lines, single, nil
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
func (s *Server) ingestFeed(r *http.Request, contestID string, feed io.Reader) (ingestResponse, error) {
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
	rd := ccs.NewReader(io.MultiReader(bytes.NewReader(prefix), ccs.SkipBOM(feed)))
	rd.NumberFrom(1 - bytes.Count(prefix, []byte{'\n'})) // the body's lines from 1, in items and messages
	var parts []part
	var items []item
	var entries []rankd.LogEntry
	queue := func() error {
		p, err := s.Engine.Enqueue(r.Context(), contestID, entries)
		if err != nil {
			return err
		}
		parts = append(parts, part{items: items, pending: p})
		items, entries = nil, nil
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
		var tooLarge *http.MaxBytesError
		switch {
		case err == nil, errors.As(err, &lineErr):
		case errors.As(err, &tooLarge):
			return ingestResponse{}, err
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
			items = append(items, item{n: n, err: rankd.Errorf(rankd.EINVALID, "%s", rankd.ErrorMessage(err))})
		default:
			e, err := engine.Entry(ev)
			if err == nil {
				entries = append(entries, e)
			}
			items = append(items, item{n: n, typ: ev.Type, id: ev.ID, err: err})
		}
		if len(items) == decodeChunk {
			if err := queue(); err != nil {
				return ingestResponse{}, err
			}
		}
	}
	if err := queue(); err != nil {
		return ingestResponse{}, err
	}
	return s.answer(r, parts)
}

// part is a run of items queued for commit together.
type part struct {
	items   []item
	pending *engine.Pending
}

// submit submits events the server made, in one part, and answers for each.
func (s *Server) submit(r *http.Request, contestID string, evs []rankd.Event) (ingestResponse, error) {
	items := make([]item, len(evs))
	entries := make([]rankd.LogEntry, 0, len(evs))
	for i, ev := range evs {
		e, err := engine.Entry(ev)
		if err == nil {
			entries = append(entries, e)
		}
		items[i] = item{n: i + 1, typ: ev.Type, id: ev.ID, err: err}
	}
	p, err := s.Engine.Enqueue(r.Context(), contestID, entries)
	if err != nil {
		return ingestResponse{}, err
	}
	return s.answer(r, []part{{items: items, pending: p}})
}

// answer waits for the commit of each part and gathers a result per item, in order.
func (s *Server) answer(r *http.Request, parts []part) (ingestResponse, error) {
	var resp ingestResponse
	for _, p := range parts {
		results, err := p.pending.Wait(r.Context())
		if err != nil {
			return ingestResponse{}, err
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
