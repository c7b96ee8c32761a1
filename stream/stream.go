// Package stream follows a view of a rankd scoreboard live and keeps an exact copy of it: it reads the
// server-sent events of /api/v1/contests/{id}/scoreboard/stream (a snapshot, then diffs), applies them,
// and reconnects with Last-Event-ID when the connection drops or a frame is missing.
package stream

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Cell is one problem of a row, as the API gives it; members that are zero are left out on the wire.
type Cell struct {
	ProblemID    string  `json:"problem_id"`
	Solved       bool    `json:"solved,omitempty"`
	FirstToSolve bool    `json:"first_to_solve,omitempty"`
	Judged       int     `json:"judged,omitempty"`
	Pending      int     `json:"pending,omitempty"`
	TimeMS       int64   `json:"time_ms,omitempty"`
	Penalty      int64   `json:"penalty,omitempty"`
	Score        float64 `json:"score,omitempty"`
}

// RowData is one team's row as the API gives it (scoreboard pages, a team's row).
type RowData struct {
	Rank         int      `json:"rank"`
	TeamID       string   `json:"team_id"`
	TeamName     string   `json:"team_name"`
	Organization string   `json:"organization,omitempty"`
	GroupIDs     []string `json:"group_ids,omitempty"`
	Solved       int      `json:"solved"`
	Penalty      int64    `json:"penalty"`
	Score        float64  `json:"score"`
	TimeMS       int64    `json:"time_ms"`
	Cells        []Cell   `json:"cells"`
}

// Row is a row as the stream carries it, with its place: Pos orders the view, rows with equal Key share a
// Rank.
type Row struct {
	RowData
	Pos int    `json:"pos"`
	Key string `json:"key"`
}

// Board is a copy of a view: its rows in order, the sequence number it is at, and whether the view hides
// verdicts (frozen, or hidden until the contest's end).
type Board struct {
	Seq    uint64
	Frozen bool
	Rows   []Row
}

type snapshot struct {
	Seq    uint64 `json:"seq"`
	Frozen bool   `json:"frozen"`
	Rows   []Row  `json:"rows"`
}

type diff struct {
	Seq     uint64   `json:"seq"`
	BaseSeq uint64   `json:"base_seq"`
	Frozen  bool     `json:"frozen"`
	Rows    []Row    `json:"rows"`
	Removed []string `json:"removed"`
}

// ErrGap reports a diff that does not start at the board's sequence number: frames were missed.
var ErrGap = errors.New("stream: a frame is missing")

// ApplySnapshot replaces the board with the snapshot event's data.
func (b *Board) ApplySnapshot(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("stream: snapshot: %w", err)
	}
	b.Seq, b.Frozen, b.Rows = s.Seq, s.Frozen, s.Rows
	b.rank()
	return nil
}

// ApplyDiff applies a diff event's data: the listed rows go to their positions (with the cells they carry
// in place of their old ones), removed rows go, every rank follows from the keys. A diff the board is already
// past changes nothing, but one at the board's number from it (the clock froze the view) changes Frozen; one
// that does not start at the board's sequence number is ErrGap.
func (b *Board) ApplyDiff(data []byte) error {
	var d diff
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("stream: diff: %w", err)
	}
	switch {
	case d.Seq == b.Seq && d.BaseSeq == b.Seq:
		b.Frozen = d.Frozen
		return nil
	case d.Seq <= b.Seq:
		return nil
	case d.BaseSeq != b.Seq:
		// A frame's cells are the changes since its start: applied to another state they could leave one stale.
		return ErrGap
	}
	out := make(map[string]bool, len(d.Rows)+len(d.Removed))
	for _, r := range d.Rows {
		out[r.TeamID] = true
	}
	for _, id := range d.Removed {
		out[id] = true
	}
	// A diff carries only the cells that changed of a row the client has: the others stay.
	old := make(map[string][]Cell, len(d.Rows))
	for _, r := range b.Rows {
		if out[r.TeamID] {
			old[r.TeamID] = r.Cells
		}
	}
	for i := range d.Rows {
		r := &d.Rows[i]
		if prev, ok := old[r.TeamID]; ok {
			r.Cells = mergeCells(prev, r.Cells)
		}
	}
	b.Rows = slices.DeleteFunc(b.Rows, func(r Row) bool { return out[r.TeamID] })
	slices.SortFunc(d.Rows, func(x, y Row) int { return x.Pos - y.Pos })
	for _, r := range d.Rows {
		b.Rows = slices.Insert(b.Rows, min(max(r.Pos, 0), len(b.Rows)), r)
	}
	b.Seq, b.Frozen = d.Seq, d.Frozen
	b.rank()
	return nil
}

// mergeCells returns prev with the cells of changed in place of those of the same problem.
func mergeCells(prev, changed []Cell) []Cell {
	cells := slices.Clone(prev)
	for _, c := range changed {
		i := slices.IndexFunc(cells, func(x Cell) bool { return x.ProblemID == c.ProblemID })
		if i < 0 {
			cells = append(cells, c)
		} else {
			cells[i] = c
		}
	}
	return cells
}

// rank sets positions and ranks from the order and the keys.
func (b *Board) rank() {
	for i := range b.Rows {
		r := &b.Rows[i]
		r.Pos = i
		if i > 0 && r.Key == b.Rows[i-1].Key {
			r.Rank = b.Rows[i-1].Rank
		} else {
			r.Rank = i + 1
		}
	}
}

// Follower keeps a Board up to date from a stream, reconnecting as needed.
type Follower struct {
	// URL is the stream's address, with its query (?view=...).
	URL string
	// Token is sent as a bearer token when not empty.
	Token  string
	Client *http.Client
	// Silence is how long a connection may bring nothing before the follower takes it for dead and
	// reconnects: a server whose host went down, or a network cut, closes nothing. The server sends a
	// comment every 15 s when idle. Zero means DefaultSilence.
	Silence time.Duration
	// OnFrame, when set, is called after each event is applied, under the follower's lock, with the event's
	// name and the board.
	OnFrame func(event string, b *Board)

	mu         sync.Mutex
	board      Board
	have       bool          // a snapshot was applied
	retry      time.Duration // the server's reconnection delay (its "retry:" field)
	reconnects int
	gaps       int
}

// DefaultRetry is how long a follower waits before asking again after the server refused the stream (an
// error status), until the server's "retry:" field says otherwise.
const DefaultRetry = 2 * time.Second

// DefaultSilence is a follower's Silence when it sets none: three of the server's idle comments.
const DefaultSilence = 45 * time.Second

// errSilent ends a connection that brought nothing for longer than the follower's Silence.
var errSilent = errors.New("stream: the connection went silent")

// statusError is a refused stream: the server answered with another status than 200.
type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("stream: status %d: %s", e.status, e.body) }

// endedError is a stream the server ended with an error event (its contest deleted): asked again at once, it
// would most likely end the same way, so the follower waits the server's retry delay, as after a refusal.
type endedError struct{ data []byte }

func (e *endedError) Error() string { return fmt.Sprintf("stream: the server says: %s", e.data) }

// permanent reports whether the same request would be refused again whatever the wait.
func (e *statusError) permanent() bool {
	switch e.status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return true
	}
	return false
}

// Board returns a copy of the board as it is now and whether it has one yet.
func (f *Follower) Board() (Board, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Board{Seq: f.board.Seq, Frozen: f.board.Frozen, Rows: slices.Clone(f.board.Rows)}, f.have
}

// Stats returns how often the follower reconnected and how many gaps it found.
func (f *Follower) Stats() (reconnects, gaps int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reconnects, f.gaps
}

// Run follows the stream until ctx is done, reconnecting after errors: at once, after a short pause, when the
// stream broke off or missed a frame; after the server's retry delay when it refused the stream for now (too
// many streams open, a contest not there yet, the server unavailable), so that followers do not hammer a
// server that said no. A refusal that asking again cannot change (a bad request, a token refused or not
// allowed the view) ends it with that error.
func (f *Follower) Run(ctx context.Context) error {
	for {
		err := f.follow(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var refused *statusError
		if errors.As(err, &refused) && refused.permanent() {
			return err
		}
		pause := 50 * time.Millisecond
		f.mu.Lock()
		f.reconnects++
		if errors.Is(err, ErrGap) {
			f.gaps++
		}
		var se *statusError
		var ee *endedError
		if errors.As(err, &se) || errors.As(err, &ee) {
			pause = cmp.Or(f.retry, DefaultRetry)
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// follow reads one connection's events until it ends.
func (f *Follower) follow(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	silence := cmp.Or(f.Silence, DefaultSilence)
	quiet := time.AfterFunc(silence, func() { cancel(errSilent) })
	defer quiet.Stop()
	req, err := http.NewRequestWithContext(ctx, "GET", f.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if f.Token != "" {
		req.Header.Set("Authorization", "Bearer "+f.Token)
	}
	f.mu.Lock()
	if f.have {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(f.board.Seq, 10))
	}
	f.mu.Unlock()
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return cmp.Or(context.Cause(ctx), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return &statusError{status: resp.StatusCode, body: body}
	}
	err = f.read(&aliveReader{r: resp.Body, quiet: quiet, silence: silence})
	if errors.Is(context.Cause(ctx), errSilent) {
		return errSilent
	}
	return err
}

// aliveReader reads a connection's body, putting off its silence timer whenever bytes come.
type aliveReader struct {
	r       io.Reader
	quiet   *time.Timer
	silence time.Duration
}

func (a *aliveReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.quiet.Reset(a.silence)
	}
	return n, err
}

// read applies the events of a stream body.
func (f *Follower) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	var name string
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if name != "" || data != nil {
				if err := f.apply(name, data); err != nil {
					return err
				}
			}
			name, data = "", nil
		case line[0] == ':':
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				name = string(value)
			case "data":
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, value...)
			case "retry":
				if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
					f.mu.Lock()
					f.retry = time.Duration(ms) * time.Millisecond
					f.mu.Unlock()
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

func (f *Follower) apply(name string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	switch name {
	case "snapshot":
		err = f.board.ApplySnapshot(data)
		f.have = err == nil
	case "diff":
		if !f.have {
			return ErrGap
		}
		err = f.board.ApplyDiff(data)
	case "error":
		// A contest deleted: the board held is of no contest any more, and a resume from its number would
		// take one created again with the id for it. The next connection starts afresh.
		f.have = false
		return &endedError{data: data}
	default:
		return nil
	}
	if err == nil && f.OnFrame != nil {
		f.OnFrame(name, &f.board)
	}
	return err
}
