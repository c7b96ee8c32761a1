package http

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/score"
	"rankd/stream"
)

// contestJSON describes a contest in the native API.
type contestJSON struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	FormalName     string  `json:"formal_name,omitempty"`
	Rules          string  `json:"rules"`
	StartTime      *string `json:"start_time"`
	Duration       string  `json:"duration"`
	FreezeDuration string  `json:"scoreboard_freeze_duration"`
	PenaltyTime    int64   `json:"penalty_time"`
	Phase          string  `json:"phase"`
	// Frozen says whether the public board hides verdicts now (a finalized contest's phase does not say
	// whether it was thawed).
	Frozen   bool          `json:"frozen"`
	Teams    int           `json:"teams"`
	Problems []problemJSON `json:"problems,omitempty"`
	Groups   []groupJSON   `json:"groups,omitempty"`
	// Rankd is rankd's extension of the CCS contest object, as /api/contests/{id} carries it.
	Rankd *contestExtJSON `json:"rankd,omitempty"`
}

type problemJSON struct {
	ID       string  `json:"id"`
	Label    string  `json:"label"`
	Name     string  `json:"name"`
	Ordinal  int     `json:"ordinal"`
	RGB      string  `json:"rgb,omitempty"`
	Color    string  `json:"color,omitempty"`
	MaxScore float64 `json:"max_score,omitempty"`
	Value    int64   `json:"value,omitempty"`
	// Rankd is rankd's extension of the CCS problem object, as /api/contests/{id}/problems carries it.
	Rankd *problemExtJSON `json:"rankd,omitempty"`
}

type groupJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Hidden bool   `json:"hidden,omitempty"`
}

// The phases of a contest, as its times, its state and the clock make it.
const (
	PhaseScheduled = "scheduled"
	PhaseRunning   = "running"
	PhaseFrozen    = "frozen"
	PhaseEnded     = "ended"
	PhaseThawed    = "thawed"
	PhaseFinalized = "finalized"
)

func phase(c *rankd.Contest, st rankd.State, now time.Time) string {
	start := rankd.StartOf(c, st)
	switch {
	case st.Finalized != nil:
		return PhaseFinalized
	case st.Thawed != nil:
		return PhaseThawed
	case start.IsZero() || now.Before(start):
		return PhaseScheduled
	case now.Sub(start) >= c.Duration || st.Ended != nil:
		return PhaseEnded
	case now.Sub(start) >= rankd.FreezeOf(c, st):
		return PhaseFrozen
	}
	return PhaseRunning
}

// contestDetail is how much describe tells of a contest.
type contestDetail int

const (
	contestSummary contestDetail = iota // as the list of contests shows it
	contestPublic                       // the whole definition but the hidden groups
	contestJury                         // the whole definition
)

// describe describes a contest; jury counts every team, others only those on the public board (hidden and
// banned teams do not exist to the public).
func (s *Server) describe(b *board.Board, detail contestDetail, jury bool) contestJSON {
	c := b.Contest()
	teams := len(b.Teams())
	if !jury {
		teams = len(listedTeams(b, rankd.PublicView, ""))
	}
	cj := contestJSON{
		ID: c.ID, Name: c.Name, FormalName: c.FormalName, Rules: c.Rules.String(),
		Duration:       ccs.FormatRelTime(c.Duration),
		FreezeDuration: ccs.FormatRelTime(c.FreezeDuration),
		PenaltyTime:    int64(c.PenaltyTime / time.Minute),
		Phase:          phase(&c, b.State(), s.Now()),
		Frozen:         s.frozenNow(&c, b.State(), b.RevealDone(), rankd.PublicView),
		Teams:          teams,
	}
	if !c.Start.IsZero() {
		st := ccs.FormatTime(c.Start)
		cj.StartTime = &st
	}
	if detail == contestSummary {
		return cj
	}
	ext := contestExtOf(&c)
	cj.Rankd = &ext
	for _, p := range b.Problems() {
		cj.Problems = append(cj.Problems, problemJSON{ID: p.ID, Label: p.Label, Name: p.Name, Ordinal: p.Ordinal,
			RGB: p.RGB, Color: p.Color, MaxScore: p.MaxScore, Value: p.Value, Rankd: ccsProblemOf(p).Rankd})
	}
	for _, g := range b.Groups() {
		// A hidden group's name may say more than the organisers want (a guest or test group): jury only.
		if !g.Hidden || detail == contestJury {
			cj.Groups = append(cj.Groups, groupJSON{ID: g.ID, Name: g.Name, Hidden: g.Hidden})
		}
	}
	return cj
}

func (s *Server) listContests(w http.ResponseWriter, r *http.Request) error {
	t, err := s.Auth.identify(r)
	if err != nil {
		return err
	}
	jury := t.Jury()
	if jury {
		w.Header().Set("Cache-Control", "private, no-cache")
	}
	out := []contestJSON{}
	s.eachContest(viewOf(t), func(b *board.Board) { out = append(out, s.describe(b, contestSummary, jury)) })
	return writeJSON(w, http.StatusOK, out)
}

// eachContest calls fn with the board of every defined contest that can be read now, in id order, under
// its read lock. A contest being rebuilt from the log, or whose commit has waited for its store longer than
// listWait (a database that does not answer), is left out, not the whole list: its own address says more.
func (s *Server) eachContest(v rankd.View, fn func(b *board.Board)) {
	for _, id := range s.Engine.ContestIDs() {
		_, _ = s.Engine.ReadWithin(id, v.Kind == rankd.ViewPublic, listWait, func(b *board.Board, _ int64) error {
			fn(b)
			return nil
		})
	}
}

// listWait is how long the list of contests waits for a contest whose commit holds its board.
const listWait = time.Second

// getContest describes a contest; a jury token also learns its hidden groups.
func (s *Server) getContest(w http.ResponseWriter, r *http.Request) error {
	t, err := s.Auth.identify(r)
	if err != nil {
		return err
	}
	detail := contestPublic
	if t.Jury() {
		detail = contestJury
		w.Header().Set("Cache-Control", "private, no-cache")
	}
	return s.writeRead(w, r.PathValue("cid"), viewOf(t), func(b *board.Board) any { return s.describe(b, detail, detail == contestJury) })
}

// readBoard calls fn with the board of a contest, to read view v of it: readers of the public view do not
// wait for the disk after a commit that leaves it as it was (see engine.Engine.ReadPublic).
func (s *Server) readBoard(contestID string, v rankd.View, fn func(b *board.Board, pos int64) error) error {
	if v.Kind == rankd.ViewPublic {
		return s.Engine.ReadPublic(contestID, fn)
	}
	return s.Engine.Read(contestID, fn)
}

// viewOf is the view a request with token t reads of a contest's definition: the jury's with a jury token.
func viewOf(t rankd.Token) rankd.View {
	if t.Jury() {
		return rankd.JuryView
	}
	return rankd.PublicView
}

// writeRead writes what fn reads of view v of a contest's board, under its read lock.
func (s *Server) writeRead(w http.ResponseWriter, contestID string, v rankd.View, fn func(b *board.Board) any) error {
	var out any
	if err := s.readBoard(contestID, v, func(b *board.Board, _ int64) error {
		out = fn(b)
		return nil
	}); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// scoreboardJSON is a page of a view of the board.
type scoreboardJSON struct {
	ContestID string    `json:"contest_id"`
	View      string    `json:"view"`
	Seq       uint64    `json:"seq"`
	Group     string    `json:"group,omitempty"`
	Total     int       `json:"total"`
	Offset    int       `json:"offset"`
	Frozen    bool      `json:"frozen"`
	At        string    `json:"at,omitempty"` // the moment of a board of the past (?at=), as a contest time
	Rows      []rowJSON `json:"rows"`
}

// rowJSON and cellJSON are a row and a cell on the wire: the stream client's types, so that server and
// client share one definition.
type (
	rowJSON  = stream.RowData
	cellJSON = stream.Cell
)

func renderRow(b *board.Board, row rankd.Row) rowJSON {
	rj := rowJSON{Rank: row.Rank, TeamID: row.TeamID, Solved: row.Solved, Penalty: row.Penalty, Score: row.Score,
		TimeMS: row.Time.Milliseconds(), Cells: make([]cellJSON, len(row.Cells))}
	if t, _, ok := b.Team(row.TeamID); ok {
		rj.TeamName = t.ShownName()
		rj.GroupIDs = t.GroupIDs
		if o, ok := b.Organization(t.OrganizationID); ok {
			rj.Organization = o.Name
		}
	}
	for i, c := range row.Cells {
		rj.Cells[i] = cellJSON{ProblemID: c.ProblemID, Solved: c.Solved, FirstToSolve: c.FirstToSolve, Judged: c.Judged,
			Pending: c.Pending, TimeMS: c.Time.Milliseconds(), Penalty: c.Penalty, Score: c.Score}
	}
	return rj
}

// frozen reports whether view v of b hides verdicts now.
func (s *Server) frozen(b *board.Board, v rankd.View) bool {
	c := b.Contest()
	return s.frozenNow(&c, b.State(), b.RevealDone(), v)
}

// frozenNow reports whether view v of a board of contest c in state st hides verdicts now; revealDone says
// that its stepwise reveal is complete (nothing is hidden any more, the thaw not recorded yet).
func (s *Server) frozenNow(c *rankd.Contest, st rankd.State, revealDone bool, v rankd.View) bool {
	return v.Kind != rankd.ViewJury && !revealDone && publicHides(c, st, s.Now())
}

// publicHides reports whether the public board hides verdicts at now: an OI or IOI contest hidden until its
// end hides them from its start until its end is recorded (as the board does: a freeze then plays no part),
// others while frozen.
func publicHides(c *rankd.Contest, st rankd.State, now time.Time) bool {
	if c.HidesUntilEnd() {
		return c.HidingAt(st, now)
	}
	return publicFrozen(c, st, now)
}

// publicFrozen reports whether the public board hides verdicts at now: from the freeze until the thaw,
// which may come after the finalization.
func publicFrozen(c *rankd.Contest, st rankd.State, now time.Time) bool {
	switch phase(c, st, now) {
	case PhaseFrozen:
		return true
	case PhaseEnded, PhaseFinalized:
		return st.Thawed == nil && rankd.FreezeOf(c, st) < c.Duration
	}
	return false
}

// pageETag names a version of a page: the view, its sequence number and whether it is frozen (which the
// clock moves).
func pageETag(v rankd.View, seq uint64, frozen bool) string {
	b := make([]byte, 0, 32)
	b = append(b, '"')
	b = append(b, etagView(v)...)
	b = append(b, '.')
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '.')
	b = strconv.AppendBool(b, frozen)
	b = append(b, '"')
	return string(b)
}

// etagView names view v in an ETag: a team's id escaped, so that one stored before new ids had to be CCS
// identifiers (with a comma, a quote, a space) still makes an ETag that If-None-Match matches.
func etagView(v rankd.View) string {
	if v.Kind == rankd.ViewTeam {
		return "team:" + url.QueryEscape(v.TeamID)
	}
	return v.Kind.String()
}

// intParam reads an integer query parameter, def when absent.
func intParam(r *http.Request, name string, def int) (int, error) {
	q := param(r, name)
	if q == "" {
		return def, nil
	}
	n, err := strconv.Atoi(q)
	if err != nil || n < 0 {
		return 0, rankd.Errorf(rankd.EINVALID, "%s must be a whole number, not %q", name, q)
	}
	return n, nil
}

// page reads offset and limit; no limit means every row.
func page(r *http.Request) (offset, limit int, err error) {
	if offset, err = intParam(r, "offset", 0); err != nil {
		return 0, 0, err
	}
	limit, err = intParam(r, "limit", -1)
	return offset, limit, err
}

func (s *Server) getScoreboard(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	offset, limit, err := page(r)
	if err != nil {
		return err
	}
	group := param(r, "group")
	if at := param(r, "at"); at != "" {
		return s.getScoreboardAt(w, r, cid, v, at, group, offset, limit)
	}
	key := "scoreboard|" + group + "|" + strconv.Itoa(offset) + "|" + strconv.Itoa(limit)
	return s.cachedRead(w, r, cid, v, key, func(b *board.Board) (any, error) {
		st, err := s.standings(r.Context(), b, rankd.ProjectionQuery{ContestID: cid, View: v, GroupID: group,
			Offset: offset, Limit: limit})
		if err != nil {
			return nil, err
		}
		out := scoreboardJSON{ContestID: cid, View: v.String(), Seq: st.Seq, Group: group, Total: st.Total,
			Offset: st.Offset, Frozen: s.frozen(b, v), Rows: make([]rowJSON, len(st.Rows))}
		for i, row := range st.Rows {
			out.Rows[i] = renderRow(b, row)
		}
		return out, nil
	})
}

// standings reads a page of board b: from the shared projection when there is one and it holds the
// board's version of the view (it may lag, or be rebuilding), else from b itself. Either way the page is
// that of b's sequence number, which names it in the cache.
func (s *Server) standings(ctx context.Context, b *board.Board, q rankd.ProjectionQuery) (rankd.Standings, error) {
	if err := checkGroup(b, q.View, q.GroupID); err != nil {
		return rankd.Standings{}, err
	}
	if s.Projection != nil && q.View.Kind != rankd.ViewTeam && q.Limit > 0 && (q.GroupID == "" || hasGroup(b, q.GroupID)) &&
		time.Now().UnixNano() >= s.projectionPaused.Load() {
		// The board's read lock is held, and a commit waits for it: a projection slow to answer is left
		// for the board, and for a while (a Redis that does not answer, where one that refuses fails at once).
		pctx, cancel := context.WithTimeout(ctx, projectionWait)
		st, err := s.Projection.Standings(pctx, q)
		cancel()
		switch {
		case err == nil && st.Seq == b.Seq(q.View):
			s.pagesRendered.WithLabelValues("projection").Inc()
			return st, nil
		case err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND:
			s.projectionPaused.Store(time.Now().Add(projectionPause).UnixNano())
		}
	}
	s.pagesRendered.WithLabelValues("board").Inc()
	return pageOf(b, q.View, q.GroupID, q.Offset, q.Limit)
}

// pageOf reads a page of view v of b, of a group's teams when groupID is set.
func pageOf(b *board.Board, v rankd.View, groupID string, offset, limit int) (rankd.Standings, error) {
	if groupID == "" {
		return b.Standings(v, offset, limit)
	}
	if err := checkGroup(b, v, groupID); err != nil {
		return rankd.Standings{}, err
	}
	return b.GroupStandings(v, groupID, offset, limit)
}

// checkGroup refuses a hidden group outside the jury view as if it did not exist, so that whether it does
// says nothing.
func checkGroup(b *board.Board, v rankd.View, groupID string) error {
	if v.Kind != rankd.ViewJury && slices.ContainsFunc(b.Groups(), func(g rankd.Group) bool { return g.ID == groupID && g.Hidden }) {
		return rankd.Errorf(rankd.ENOTFOUND, "unknown group %q", groupID)
	}
	return nil
}

// How long a page waits for the projection, and how long the projection is left alone after it failed.
const (
	projectionWait  = 100 * time.Millisecond
	projectionPause = 5 * time.Second
)

func hasGroup(b *board.Board, id string) bool {
	return slices.ContainsFunc(b.Groups(), func(g rankd.Group) bool { return g.ID == id })
}

// cachedRead answers a GET whose answer is a function of a view of the board: it is rendered once per
// version of the view (its sequence number, and whether it is frozen, which the clock moves), kept
// compressed too, named by an ETag (If-None-Match gets 304), and served from the cache. A public answer
// already rendered is served without the board's lock, so that no public reader waits for a commit — of
// frozen judgements, say — and learns from the wait that one happened.
func (s *Server) cachedRead(w http.ResponseWriter, r *http.Request, cid string, v rankd.View, key string,
	render func(b *board.Board) (any, error)) error {
	page, etag, err := s.cached(r, cid, v, key, render)
	if err != nil {
		return err
	}
	writePage(w, r, v, page, etag)
	return nil
}

// writePage writes a rendered answer of view v with its ETag: 304 for a page without a body (the client's
// If-None-Match names it), else the body, compressed when the client takes gzip.
func writePage(w http.ResponseWriter, r *http.Request, v rankd.View, page cachedPage, etag string) {
	// The header's values are shared, made once (Header.Set makes a slice per value): a page read is so
	// cheap that these made a tenth of its cost. No one changes a value in place.
	h := w.Header()
	if page.etag == etag {
		h["Etag"] = page.header.etag
	} else {
		h["Etag"] = []string{etag}
	}
	h["Cache-Control"] = cacheControl(v)
	h["Vary"] = varyPage
	if page.body == nil {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = contentTypeJSON
	body, length := page.body, page.header.bodyLength
	if acceptsGzip(r) {
		h["Content-Encoding"] = contentEncodingGzip
		body, length = page.gzip, page.header.gzipLength
	}
	h["Content-Length"] = length
	sendWhole(w, r, body)
}

// Header values of pages.
var (
	// varyPage: a page depends on its token (as every answer does, see Server.handle) and on whether the
	// client takes gzip.
	varyPage            = []string{"Authorization", "Accept-Encoding"}
	varyAuthorization   = []string{"Authorization"}
	contentTypeJSON     = []string{"application/json"}
	contentEncodingGzip = []string{"gzip"}
	cacheControlPublic  = []string{"public, no-cache"}
	cacheControlPrivate = []string{"private, no-cache"}
)

// pageRenders bounds the reads of the board for pages the cache may lack (see cached), and of past
// moments' pages.
var pageRenders = make(chan struct{}, 4)

// cached returns the rendered answer of the current version of view v and its ETag, from the cache when it
// has it (without the board's lock for the public view); a page without a body means the client's
// If-None-Match already names that version.
func (s *Server) cached(r *http.Request, cid string, v rankd.View, key string,
	render func(b *board.Board) (any, error)) (cachedPage, string, error) {
	key = cid + "|" + v.String() + "|" + key
	var page cachedPage
	var etag string
	found := false
	if v.Kind == rankd.ViewPublic {
		if p, ok := s.Engine.Public(cid); ok {
			etag = pageETag(v, p.Seq, s.frozenNow(&p.Contest, p.State, p.RevealDone, v))
			if found = match(r, etag); !found {
				page, found = s.pages.get(key, etag)
			}
		}
	}
	if !found {
		// The board is read for a few pages at once: each may be rendered, and a flood of different pages
		// of a big board (megabytes each) grew memory by gigabytes and kept commits waiting for the lock.
		pageRenders <- struct{}{}
		defer func() { <-pageRenders }()
		err := s.readBoard(cid, v, func(b *board.Board, _ int64) error {
			etag = pageETag(v, b.Seq(v), s.frozen(b, v))
			if match(r, etag) {
				return nil
			}
			var ok bool
			if page, ok = s.pages.get(key, etag); ok {
				return nil
			}
			// Readers that miss the same page at once wait for one rendering: a big board's whole page is
			// megabytes and tens of milliseconds.
			rendered, err, _ := s.renders.Do(key+"|"+etag, func() (any, error) {
				if page, ok := s.pages.get(key, etag); ok {
					return page, nil // rendered by a flight just over
				}
				out, err := render(b)
				if err != nil {
					return nil, err
				}
				body, err := json.Marshal(out)
				if err != nil {
					return nil, err
				}
				return s.pages.put(key, etag, body), nil
			})
			if err != nil {
				return err
			}
			page = rendered.(cachedPage)
			return nil
		})
		if err != nil {
			return cachedPage{}, "", err
		}
	}
	return page, etag, nil
}

// match reports whether the request's If-None-Match names etag. The comparison is weak (RFC 9110, 13.1.2):
// a proxy that compresses what it passes on (nginx's gzip) makes the ETag weak, W/"...", and its clients
// send it back so.
func match(r *http.Request, etag string) bool {
	for t := range strings.SplitSeq(r.Header.Get("If-None-Match"), ",") {
		if t = strings.TrimPrefix(strings.TrimSpace(t), "W/"); t == etag || t == "*" {
			return true
		}
	}
	return false
}

// cacheControl lets shared caches keep public pages (revalidating each time, so they never serve an old
// board) and keeps private views out of them.
func cacheControl(v rankd.View) []string {
	if v.Kind == rankd.ViewPublic {
		return cacheControlPublic
	}
	return cacheControlPrivate
}

// pageCache keeps rendered scoreboard pages by request and version, so that a burst of readers of an
// unchanged board costs one rendering. It keeps two generations: when the current one is full, it becomes
// the previous one, and a page read from the previous one moves to the current one. A flood of different
// requests then only costs renderings of its own pages, not of those that readers keep asking for.
type pageCache struct {
	mu       sync.Mutex
	m, prev  map[string]cachedPage
	size     int // bytes held in m
	prevSize int // bytes held in prev
}

type cachedPage struct {
	etag       string
	body, gzip []byte
	header     *pageHeader
}

// size is the memory of a page's bodies.
func (p cachedPage) size() int { return len(p.body) + len(p.gzip) }

// pageHeader holds the values of a cached page's header, made once.
type pageHeader struct {
	etag, bodyLength, gzipLength []string
}

// newPage makes the page of a version, its body and that body compressed.
func newPage(etag string, body, gzip []byte) cachedPage {
	return cachedPage{etag: etag, body: body, gzip: gzip, header: &pageHeader{etag: []string{etag},
		bodyLength: []string{strconv.Itoa(len(body))}, gzipLength: []string{strconv.Itoa(len(gzip))}}}
}

// The cache's bounds, in pages and in bytes, of both generations together: a reader asking for many
// different pages of a big board must not fill the memory.
const (
	maxCachedPages = 4096
	maxCachedBytes = 256 << 20
)

func (c *pageCache) get(key, etag string) (cachedPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[key]; ok {
		return p, p.etag == etag
	}
	p, ok := c.prev[key]
	if !ok || p.etag != etag {
		return cachedPage{}, false
	}
	c.add(key, p)
	return p, true
}

// put keeps a page, compressed too: it is compressed once, then served compressed to every client that
// takes gzip (browsers do), which makes pages of big contests a tenth of their size.
func (c *pageCache) put(key, etag string, body []byte) cachedPage {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	_, _ = zw.Write(body) // a bytes.Buffer does not fail
	_ = zw.Close()
	gzipWriters.Put(zw)
	p := newPage(etag, body, buf.Bytes())
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(key, p)
	return p
}

// gzipWriters are the compressors of put: each holds about a megabyte, too much to make one per page when
// many small pages are rendered.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // the level is valid
	return zw
}}

// add keeps a page in the current generation, with c.mu held.
func (c *pageCache) add(key string, p cachedPage) {
	n := p.size()
	if old, ok := c.prev[key]; ok {
		c.prevSize -= old.size()
		delete(c.prev, key)
	}
	if old, ok := c.m[key]; ok {
		c.size -= old.size()
		delete(c.m, key)
	}
	if c.m == nil || len(c.m) >= maxCachedPages/2 || c.size+n > maxCachedBytes/2 {
		c.prev, c.prevSize = c.m, c.size
		c.m, c.size = make(map[string]cachedPage), 0
	}
	c.m[key] = p
	c.size += n
}

// acceptsGzip reports whether the client takes gzip-encoded answers.
func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(coding) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// teamRowJSON is one team's row with the sequence number of its view.
type teamRowJSON struct {
	ContestID string `json:"contest_id"`
	View      string `json:"view"`
	Seq       uint64 `json:"seq"`
	rowJSON
}

func (s *Server) getTeamRow(w http.ResponseWriter, r *http.Request) error {
	cid, tid := r.PathValue("cid"), r.PathValue("tid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	return s.cachedRead(w, r, cid, v, "row|"+tid, func(b *board.Board) (any, error) {
		row, err := b.Row(v, tid)
		if err != nil {
			return nil, err
		}
		out := teamRowJSON{ContestID: cid, View: v.String(), Seq: b.Seq(v), rowJSON: renderRow(b, row)}
		return out, nil
	})
}

// problemStatsJSON is what a view shows of one problem's submissions.
type problemStatsJSON struct {
	problemJSON
	Solved   int `json:"solved"`   // teams that solved it
	Attempts int `json:"attempts"` // submissions counted: judged and pending
	Pending  int `json:"pending"`
	// FirstSolveMS is the contest time of the first solve, in ms; absent when unsolved.
	FirstSolveMS *int64 `json:"first_solve_ms,omitempty"`
	// CurrentValue is what a CTF challenge is worth to each of its solvers now in the view, before bonuses
	// (value is its initial value when it is dynamic).
	CurrentValue *int64 `json:"current_value,omitempty"`
}

// getProblemStats returns each problem with its solves and attempts in a view: the public view during the
// freeze counts frozen submissions as pending only.
func (s *Server) getProblemStats(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	var out struct {
		ContestID string             `json:"contest_id"`
		View      string             `json:"view"`
		Seq       uint64             `json:"seq"`
		Problems  []problemStatsJSON `json:"problems"`
	}
	return s.cachedRead(w, r, cid, v, "problems", func(b *board.Board) (any, error) {
		st, err := b.Standings(v, 0, -1)
		if err != nil {
			return nil, err
		}
		probs := b.Problems()
		out.ContestID, out.View, out.Seq = cid, v.String(), st.Seq
		out.Problems = make([]problemStatsJSON, len(probs))
		full := make([]float64, len(probs)) // OI and IOI: the score that solves a problem; 0 when unknown
		scored := b.Contest().Rules == rankd.OI || b.Contest().Rules == rankd.IOI
		for i, p := range probs {
			out.Problems[i].problemJSON = problemJSON{ID: p.ID, Label: p.Label, Name: p.Name, Ordinal: p.Ordinal,
				RGB: p.RGB, Color: p.Color, MaxScore: p.MaxScore, Value: p.Value}
			if b.Contest().Rules == rankd.CTF {
				worth, err := b.ProblemValue(v, p.ID)
				if err != nil {
					return nil, err
				}
				out.Problems[i].CurrentValue = &worth
			}
			full[i] = p.MaxScore
			if len(p.Subtasks) > 0 {
				full[i] = 0
				for _, st := range p.Subtasks {
					full[i] += st
				}
				full[i] = score.Round(full[i]) // as a cell's sum of subtasks is
			}
		}
		for _, row := range st.Rows {
			for i, c := range row.Cells {
				ps := &out.Problems[i]
				ps.Attempts += c.Judged + c.Pending
				ps.Pending += c.Pending
				// A score contest's cell is "solved" with any points; the problem is solved at full marks.
				if c.Solved && (!scored || full[i] > 0 && c.Score >= full[i]) {
					ps.Solved++
					if t := c.Time.Milliseconds(); ps.FirstSolveMS == nil || t < *ps.FirstSolveMS {
						ps.FirstSolveMS = &t
					}
				}
			}
		}
		return out, nil
	})
}

// teamJSON is a team as the native API lists it; hidden and banned show in the jury's list only.
type teamJSON struct {
	ID             string   `json:"id"`
	Label          string   `json:"label,omitempty"`
	Name           string   `json:"name"`
	DisplayName    string   `json:"display_name,omitempty"`
	OrganizationID string   `json:"organization_id,omitempty"`
	GroupIDs       []string `json:"group_ids,omitempty"`
	Hidden         bool     `json:"hidden,omitempty"`
	Banned         bool     `json:"banned,omitempty"`
}

// listedTeams returns the teams view v may list: the public not hidden ones, nor those of hidden groups,
// nor banned ones. Given only, it considers the team with that id alone.
func listedTeams(b *board.Board, v rankd.View, only string) []teamJSON {
	hiddenGroup := map[string]bool{}
	for _, g := range b.Groups() {
		hiddenGroup[g.ID] = g.Hidden
	}
	var teams []rankd.Team
	if only == "" {
		teams = b.Teams()
	} else if t, _, ok := b.Team(only); ok {
		teams = []rankd.Team{t}
	}
	out := []teamJSON{}
	for _, t := range teams {
		_, banned, _ := b.Team(t.ID)
		if v.Kind != rankd.ViewJury {
			off := t.Hidden || banned
			for _, g := range t.GroupIDs {
				off = off || hiddenGroup[g]
			}
			if off && (v.Kind != rankd.ViewTeam || v.TeamID != t.ID) {
				continue
			}
		}
		out = append(out, teamJSON{ID: t.ID, Label: t.Label, Name: t.Name, DisplayName: t.DisplayName,
			OrganizationID: t.OrganizationID, GroupIDs: t.GroupIDs, Hidden: t.Hidden, Banned: banned})
	}
	return out
}

func (s *Server) getTeams(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	return s.cachedRead(w, r, cid, v, "teams", func(b *board.Board) (any, error) {
		return listedTeams(b, v, ""), nil
	})
}

// submissionJSON is one submission as a view may see it: judgement_type_id is absent while it is pending,
// and for the public during the freeze.
type submissionJSON struct {
	ID              string  `json:"id"`
	TeamID          string  `json:"team_id"`
	ProblemID       string  `json:"problem_id"`
	ContestTime     string  `json:"contest_time"`
	JudgementTypeID *string `json:"judgement_type_id"`
	Score           float64 `json:"score,omitempty"`
}

// getSubmissions lists a contest's submissions (?team=, ?problem=, offset, limit), each verdict as the view
// may see it.
func (s *Server) getSubmissions(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	offset, limit, err := page(r)
	if err != nil {
		return err
	}
	if limit < 0 || limit > 1000 {
		limit = 1000
	}
	q := r.URL.Query()
	// The page is one of the submissions the view may see: paging the store's list, hidden teams' included,
	// would make the pages short by as many as those teams sent, and shift when they send more.
	f := rankd.SubmissionFilter{TeamID: q.Get("team"), ProblemID: q.Get("problem")}
	key := fmt.Sprintf("submissions|%s|%s|%d|%d", f.TeamID, f.ProblemID, offset, limit)
	// Under the board's lock the store's list is at the board's version: commits update both at once.
	return s.cachedRead(w, r, cid, v, key, func(b *board.Board) (any, error) {
		out := []submissionJSON{}
		skip := offset
		// Read in chunks of about the page's end: most submissions are visible, so one chunk is the rule.
		// The chunk is bounded, so that a huge offset neither overflows (a limit <= 0 is none: the loop
		// would never end) nor asks for more at once than a list holds.
		f.Limit = min(offset, 1<<20) + limit + 64
		for len(out) < limit {
			recs, err := s.Store.Submissions(r.Context(), cid, f)
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				jt, sc, ok := b.Verdict(v, rec.ID)
				if !ok || len(out) == limit {
					continue
				}
				if skip > 0 {
					skip--
					continue
				}
				sj := submissionJSON{ID: rec.ID, TeamID: rec.TeamID, ProblemID: rec.ProblemID,
					ContestTime: ccs.FormatRelTime(rec.Time), Score: sc}
				if jt != "" {
					sj.JudgementTypeID = &jt
				}
				out = append(out, sj)
			}
			if len(recs) < f.Limit {
				break
			}
			f.Offset += len(recs)
		}
		return out, nil
	})
}

func (s *Server) getAwards(w http.ResponseWriter, r *http.Request) error {
	return s.writeAwards(w, r, s.viewFor)
}

// writeAwards writes the awards of the view that viewFor says the request asks for.
func (s *Server) writeAwards(w http.ResponseWriter, r *http.Request, viewFor func(*http.Request, string) (rankd.View, error)) error {
	cid := r.PathValue("cid")
	v, err := viewFor(r, cid)
	if err != nil {
		return err
	}
	return s.cachedRead(w, r, cid, v, "awards", func(b *board.Board) (any, error) {
		return ccs.Awards(b.Awards(v)), nil
	})
}
