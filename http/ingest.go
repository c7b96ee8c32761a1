package http

import (
	"bytes"
	"io"
	"mime"
	"net/http"

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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody()))
	if err != nil {
		return err
	}
	var lines [][]byte
	single := false
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/x-ndjson" && t == rankd.EventUnknown {
		lines = bytes.Split(bytes.TrimRight(body, "\n"), []byte{'\n'})
	} else {
		lines, single, err = jsonLines(body, t)
		if err != nil {
			return err
		}
	}
	items, err := s.decode(contestID, lines)
	if err != nil {
		return err
	}
	resp, err := s.submit(r, contestID, items)
	if err != nil {
		return err
	}
	if single && len(resp.Results) == 1 && resp.Results[0].Status == engine.StatusRejected {
		res := resp.Results[0]
		return &rankd.Error{Code: res.Code, Message: res.Message}
	}
	return writeJSON(w, http.StatusOK, resp)
}

// jsonLines turns a JSON body (an object or an array of objects) into feed lines: events as they are, or
// objects of type t wrapped as events. single reports a body of one object.
func jsonLines(body []byte, t rankd.EventType) (lines [][]byte, single bool, err error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
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

// item is one event decoded from a request, or why it could not be.
type item struct {
	n     int // line or element, from 1
	entry rankd.LogEntry
	err   error
}

// decode reads feed lines into log entries. The contest's definition is read first, unseen, so that
// absolute times in the lines are read against the contest's start.
func (s *Server) decode(contestID string, lines [][]byte) ([]item, error) {
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
		return nil, err
	}
	skip := bytes.Count(prefix, []byte{'\n'})
	var feed bytes.Buffer
	feed.Grow(len(prefix) + len(lines)*256)
	feed.Write(prefix)
	for _, l := range lines {
		feed.Write(bytes.TrimSpace(l))
		feed.WriteByte('\n')
	}
	rd := ccs.NewReader(&feed)
	var items []item
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return items, nil
		}
		n := rd.Line() - skip
		if n <= 0 {
			continue
		}
		if err != nil {
			items = append(items, item{n: n, err: rankd.Errorf(rankd.EINVALID, "%s", rankd.ErrorMessage(err))})
			continue
		}
		e, err := engine.Entry(ev)
		if err != nil {
			items = append(items, item{n: n, err: err})
			continue
		}
		items = append(items, item{n: n, entry: e})
	}
}

// submit sends the decodable items to the engine and gathers the results of all.
func (s *Server) submit(r *http.Request, contestID string, items []item) (ingestResponse, error) {
	var entries []rankd.LogEntry
	for _, it := range items {
		if it.err == nil {
			entries = append(entries, it.entry)
		}
	}
	results, err := s.Engine.Submit(r.Context(), contestID, entries)
	if err != nil {
		return ingestResponse{}, err
	}
	resp := ingestResponse{Results: make([]itemResult, 0, len(items))}
	k := 0
	for _, it := range items {
		res := itemResult{Item: it.n}
		if it.err != nil {
			res.Result = engine.Rejected(it.err)
		} else {
			res.Type, res.ID = it.entry.Event.Type.String(), it.entry.Event.ID
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
	return resp, nil
}

func (s *Server) maxBody() int64 {
	if s.MaxBody > 0 {
		return s.MaxBody
	}
	return DefaultMaxBody
}
