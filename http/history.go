package http

// The past of a contest: the standings as they were at a moment (the scoreboard's ?at=) and the standings
// of teams over the contest (/history), both worked out from the contest's log, as `rankd standings --at`
// does offline. A board of a past moment is built by a board.Past of its contest, which restores a
// checkpoint of an earlier board and replays only the rest of the log; it is then kept, in a small LRU, and
// brought up to date with the events appended since (late events may change the past); readers of the
// same moment share one build (singleflight).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sync/singleflight"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/engine"
)

// The bounds of the past's caches and requests.
const (
	// maxMoments is how many boards of past moments a server keeps: each is a whole board.
	maxMoments = 4
	// maxPasts is how many contests' checkpoints a server keeps, each within board.DefaultPastBudget.
	maxPasts = 4
	// maxHistories and maxHistoryBytes bound the histories a server keeps: one of 50 teams over a long log
	// is megabytes.
	maxHistories    = 16
	maxHistoryBytes = 64 << 20
	// MaxHistoryTeams bounds the teams of one history request.
	MaxHistoryTeams = 50
	// DefaultHistoryTeams is how many teams a history follows when none are named: the view's top.
	DefaultHistoryTeams = 10
	// historyFresh is how long a history is served after the board moved on: during a contest a history is
	// worked out again at most this often per view and teams, however many readers ask.
	historyFresh = 3 * time.Second
	// maxPastWork is how many boards of past moments and histories are worked out at once: each replays a
	// log, and may take a second and a gigabyte. Readers of other moments wait for their turn, at most
	// pastWait, then are told to retry: however many ask, the server's memory stays bounded.
	maxPastWork = 2
	pastWait    = 10 * time.Second
)

// past is what a server keeps of the past of its contests.
type past struct {
	mu        sync.Mutex
	moments   []*moment       // most recently used first
	histories []*historyEntry // most recently used first
	contests  []contestPast   // most recently used first
	flight    singleflight.Group

	turnsOnce sync.Once
	turns     chan struct{} // one value per piece of work running (see maxPastWork)
	wait      atomic.Int64  // for a turn, in nanoseconds; 0: pastWait
}

// work runs fn in its turn: at most maxPastWork at once.
func (p *past) work(fn func() (any, error)) (any, error) {
	p.turnsOnce.Do(func() { p.turns = make(chan struct{}, maxPastWork) })
	t := time.NewTimer(cmp.Or(time.Duration(p.wait.Load()), pastWait))
	defer t.Stop()
	select {
	case p.turns <- struct{}{}:
	case <-t.C:
		return nil, rankd.Errorf(rankd.EUNAVAILABLE, "the server is busy working out other moments of the past; retry")
	}
	defer func() { <-p.turns }()
	return fn()
}

// contestPast is the checkpoints and log index of a contest.
type contestPast struct {
	cid  string
	past *board.Past
}

// of returns the board.Past of contest cid, most recently used.
func (p *past) of(cid string) *board.Past {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.contests, func(c contestPast) bool { return c.cid == cid })
	c := contestPast{cid: cid, past: &board.Past{}}
	if i >= 0 {
		c = p.contests[i]
		p.contests = slices.Delete(p.contests, i, i+1)
	}
	p.contests = slices.Insert(p.contests, 0, c)
	if len(p.contests) > maxPasts {
		p.contests = slices.Delete(p.contests, maxPasts, len(p.contests))
	}
	return c.past
}

// readLog returns a reader of contest cid's log for board.Past.
func (s *Server) readLog(cid string) board.LogReader {
	return func(after, upto int64, fn func(pos int64, ev *rankd.Event) error) error {
		// A read started is finished, whoever asked for it: others wait for it too.
		return s.Engine.ReadLog(context.Background(), cid, after, upto, fn)
	}
}

// moment is the board of a contest as it was at a moment, built from the log up to pos.
type moment struct {
	key   string
	cid   string
	at    time.Duration
	start time.Time

	build sync.Mutex // one replay at a time

	mu     sync.RWMutex // guards what follows: a replay writes, readers render
	b      *board.Board
	pos    int64  // the log position the board is built up to
	pubSeq uint64 // the live public view's sequence number at pos
}

// live is what a request of the past needs of the live board: where its log is, and the contest's start.
type live struct {
	pos     int64
	pubSeq  uint64
	start   time.Time
	contest rankd.Contest
}

// readLive reads the live board of a contest, under its lock.
func (s *Server) readLive(cid string, fn func(b *board.Board) error) (live, error) {
	var l live
	err := s.Engine.Read(cid, func(b *board.Board, pos int64) error {
		l = live{pos: pos, pubSeq: b.Seq(rankd.PublicView), start: b.Start(), contest: b.Contest()}
		if fn != nil {
			return fn(b)
		}
		return nil
	})
	return l, err
}

// publicLive is what anyone may know of the live board, without waiting for a commit in progress (see
// cached): a public reader's time must not tell that frozen judgements came in.
func (s *Server) publicLive(cid string) (live, error) {
	p, ok := s.Engine.Public(cid)
	if !ok {
		return s.readLive(cid, nil) // the reason: not found, or unavailable
	}
	return live{pos: -1, pubSeq: p.Seq, start: rankd.StartOf(&p.Contest, p.State), contest: p.Contest}, nil
}

// resolveAt turns the moment asked for into a contest time in whole milliseconds: one before the start is
// the start; one in the future is refused.
func (s *Server) resolveAt(text string, start time.Time) (time.Duration, error) {
	a, err := engine.ParseAt(text)
	if err != nil {
		return 0, rankd.Errorf(rankd.EINVALID, "at: %s", rankd.ErrorMessage(err))
	}
	if start.IsZero() {
		return 0, rankd.Errorf(rankd.EINVALID, "at: the contest has no start time yet, so no past")
	}
	at := max(a.ContestTime(start), 0).Truncate(time.Millisecond)
	if now := s.Now().Sub(start); at > now {
		if now < 0 {
			return 0, rankd.Errorf(rankd.EINVALID, "at: the contest has not started yet")
		}
		return 0, rankd.Errorf(rankd.EINVALID, "at %s is in the future: the contest time is now %s",
			ccs.FormatRelTime(at), ccs.FormatRelTime(now))
	}
	return at, nil
}

// getScoreboardAt answers the scoreboard as it was at a moment (?at=), in view v.
func (s *Server) getScoreboardAt(w http.ResponseWriter, r *http.Request, cid string, v rankd.View, atText, group string,
	offset, limit int) error {
	l, err := s.publicLive(cid)
	if err != nil {
		return err
	}
	at, err := s.resolveAt(atText, l.start)
	if err != nil {
		return err
	}
	p := &s.pasts
	m := p.moment(cid, at, l.start)
	m.mu.RLock()
	current := m.b != nil && v.Kind == rankd.ViewPublic && m.pubSeq == l.pubSeq
	m.mu.RUnlock()
	if !current {
		// The jury and team views are brought up to the log's position; the public view whenever the public
		// board moved (which is when the past it sees may have).
		if l, err = s.readLive(cid, nil); err != nil {
			return err
		}
		if err := p.catchUp(s, m, l); err != nil {
			return err
		}
	}
	// The page is made under the moment's lock and written after it: a client slow to read held the lock,
	// and with it every catch-up of the moment and the turns for the past that wait for one.
	page, etag, err := s.pastPage(r, cid, v, m, at, group, offset, limit)
	if err != nil {
		return err
	}
	writePage(w, r, v, page, etag)
	return nil
}

// pastPage returns the page of view v of moment m and its ETag; a page without a body when the client's
// If-None-Match names it.
func (s *Server) pastPage(r *http.Request, cid string, v rankd.View, m *moment, at time.Duration, group string,
	offset, limit int) (cachedPage, string, error) {
	pageRenders <- struct{}{}
	defer func() { <-pageRenders }()
	m.mu.RLock()
	defer m.mu.RUnlock()
	b := m.b
	if b == nil {
		// Another reader's replay failed after this one's: the board is built again on the next request.
		return cachedPage{}, "", rankd.Errorf(rankd.EUNAVAILABLE, "the board of %s could not be built; retry", ccs.FormatRelTime(at))
	}
	frozen := frozenAt(b, v, m.start.Add(at))
	etag := fmt.Sprintf(`"%s@%d+%d.%d.%t"`, etagView(v), m.start.UnixMilli(), at.Milliseconds(), b.Seq(v), frozen)
	if match(r, etag) {
		return cachedPage{}, etag, nil
	}
	key := fmt.Sprintf("%s|%s|at|%s|%s|%d|%d", cid, v, m.key, group, offset, limit)
	if page, ok := s.pages.get(key, etag); ok {
		return page, etag, nil
	}
	st, err := pageOf(b, v, group, offset, limit)
	if err != nil {
		return cachedPage{}, "", err
	}
	out := scoreboardJSON{ContestID: cid, View: v.String(), Seq: st.Seq, Group: group, Total: st.Total,
		Offset: st.Offset, Frozen: frozen, At: ccs.FormatRelTime(at), Rows: make([]rowJSON, len(st.Rows))}
	for i, row := range st.Rows {
		out.Rows[i] = renderRow(b, row)
	}
	body, err := json.Marshal(out)
	if err != nil {
		return cachedPage{}, "", err
	}
	return s.pages.put(key, etag, body), etag, nil
}

// frozenAt reports whether view v of b, the board of a past moment when, hid verdicts then (not once it hid
// none after the end, as the live page: see board.Board.RevealDone).
func frozenAt(b *board.Board, v rankd.View, when time.Time) bool {
	c := b.Contest()
	return v.Kind != rankd.ViewJury && !b.RevealDone() && publicHides(&c, b.State(), when)
}

// moment returns the board of contest cid at contest time at, most recently used, empty until caught up.
func (p *past) moment(cid string, at time.Duration, start time.Time) *moment {
	key := fmt.Sprintf("%s|%d|%d", cid, start.UnixNano(), at.Milliseconds())
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.moments, func(m *moment) bool { return m.key == key })
	var m *moment
	if i >= 0 {
		m = p.moments[i]
		p.moments = slices.Delete(p.moments, i, i+1)
	} else {
		m = &moment{key: key, cid: cid, at: at, start: start}
	}
	p.moments = slices.Insert(p.moments, 0, m)
	if len(p.moments) > maxMoments {
		p.moments = slices.Delete(p.moments, maxMoments, len(p.moments)) // which lets go of the board
	}
	return m
}

// catchUp brings the board of a moment up to the live board's log position: the first time by building it
// (board.Past.At), later by applying what was appended since. Concurrent readers of the moment share one
// build.
func (p *past) catchUp(s *Server, m *moment, l live) error {
	_, err, _ := p.flight.Do(fmt.Sprintf("at|%s|%d", m.key, l.pos), func() (any, error) {
		return p.work(func() (any, error) { return nil, m.catchUp(s, l) })
	})
	return err
}

func (m *moment) catchUp(s *Server, l live) error {
	m.build.Lock()
	defer m.build.Unlock()
	m.mu.RLock()
	b, from := m.b, m.pos
	m.mu.RUnlock()
	if b != nil && from >= l.pos {
		return nil
	}
	begin := time.Now()
	past := s.pasts.of(m.cid)
	var st board.PastStats
	if b == nil {
		var err error
		if b, st, err = past.At(m.at, m.start, l.pos, s.readLog(m.cid)); err != nil {
			return err
		}
		m.mu.Lock()
		m.b, m.pos, m.pubSeq = b, l.pos, l.pubSeq
		m.mu.Unlock()
	} else {
		m.mu.Lock()
		defer m.mu.Unlock()
		var err error
		if st, err = past.Advance(b, m.at, m.start, from, l.pos, s.readLog(m.cid)); err != nil {
			m.b, m.pos = nil, 0 // half brought up to date: built again next time
			return err
		}
		m.pos, m.pubSeq = l.pos, l.pubSeq
	}
	level := slog.LevelInfo // a board built; the tail of a board kept is routine
	if from > 0 {
		level = slog.LevelDebug
	}
	s.Logger.Log(context.Background(), level, "board of a past moment built", slog.String("contest", m.cid),
		slog.String("at", ccs.FormatRelTime(m.at)), slog.Int64("from", from), slog.Int64("pos", l.pos),
		slog.Int64("restored", st.Restored), slog.Int64("read", st.Read), slog.Int64("skipped", st.Skipped),
		slog.Int64("saved", st.Saved), slog.Duration("took", time.Since(begin)))
	return nil
}

// historyJSON is the standings of teams over a contest.
type historyJSON struct {
	ContestID string       `json:"contest_id"`
	View      string       `json:"view"`
	Rules     string       `json:"rules"`
	Teams     []seriesJSON `json:"teams"`
}

// seriesJSON is one team's standings over the contest: a point at the start, then one at each change.
type seriesJSON struct {
	TeamID   string      `json:"team_id"`
	TeamName string      `json:"team_name"`
	Points   []pointJSON `json:"points"`
}

// pointJSON is a team's standing from a contest time on: what the scoreboard at that moment (?at=) shows.
type pointJSON struct {
	Time    string  `json:"time"`
	TimeMS  int64   `json:"time_ms"`
	Rank    int     `json:"rank"`
	Solved  int     `json:"solved"`
	Penalty int64   `json:"penalty"`
	Score   float64 `json:"score"`
}

// historyEntry is a history rendered, with the version of the live board it was worked out from.
type historyEntry struct {
	key    string
	pos    int64
	pubSeq uint64
	made   time.Time
	page   cachedPage
	etag   string
}

// getHistory answers the standings of teams over a contest: ?teams=ID,ID,... (at most MaxHistoryTeams;
// the top DefaultHistoryTeams of the view now by default), ?view=public|jury.
func (s *Server) getHistory(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	if v.Kind == rankd.ViewTeam {
		if param(r, "view") != "" {
			return rankd.Errorf(rankd.EINVALID, "the history is of the public or the jury view, not of a team's")
		}
		v = rankd.PublicView // a team token's default
	}
	teams, err := historyTeams(param(r, "teams"))
	if err != nil {
		return err
	}
	key := fmt.Sprintf("%s|%s|%s", cid, v, strings.Join(teams, ","))
	p := &s.pasts
	var l live
	if v.Kind == rankd.ViewPublic {
		// Without the board's lock, as other public reads (see cached).
		if l, err = s.publicLive(cid); err != nil {
			return err
		}
		if h := p.history(key, func(h *historyEntry) bool {
			return h.pubSeq == l.pubSeq || time.Since(h.made) < historyFresh
		}); h != nil {
			return serveHistory(w, r, v, h)
		}
	}
	names := map[string]string{}
	l, err = s.readLive(cid, func(b *board.Board) error {
		if len(teams) == 0 {
			st, err := b.Standings(v, 0, DefaultHistoryTeams)
			if err != nil {
				return err
			}
			for _, row := range st.Rows {
				teams = append(teams, row.TeamID)
			}
		}
		for _, id := range teams {
			if _, err := b.Row(v, id); err != nil {
				return err // unknown, or not on the public board
			}
			t, _, _ := b.Team(id)
			names[id] = t.ShownName()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if h := p.history(key, func(h *historyEntry) bool {
		return h.pos == l.pos || (v.Kind == rankd.ViewPublic && h.pubSeq == l.pubSeq) || time.Since(h.made) < historyFresh
	}); h != nil {
		return serveHistory(w, r, v, h)
	}
	res, err, _ := p.flight.Do(fmt.Sprintf("history|%s|%d", key, l.pos), func() (any, error) {
		return p.work(func() (any, error) { return s.workOutHistory(cid, key, v, teams, names, l) })
	})
	if err != nil {
		return err
	}
	return serveHistory(w, r, v, res.(*historyEntry))
}

// historyTeams reads ?teams=: team ids separated by commas, each once, at most MaxHistoryTeams.
func historyTeams(q string) ([]string, error) {
	var teams []string
	for _, id := range strings.Split(q, ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(teams, id) {
			teams = append(teams, id)
		}
	}
	if len(teams) > MaxHistoryTeams {
		return nil, rankd.Errorf(rankd.EINVALID, "teams: at most %d teams, not %d", MaxHistoryTeams, len(teams))
	}
	return teams, nil
}

// workOutHistory reads the log up to the live board's position into a History, twice (see board.History),
// and renders the teams' series.
func (s *Server) workOutHistory(cid, key string, v rankd.View, teams []string, names map[string]string, l live) (*historyEntry, error) {
	begin := time.Now()
	h := board.NewHistory(l.start)
	h.Grow(int(l.pos))
	read := s.readLog(cid)
	err := read(0, l.pos, func(pos int64, ev *rankd.Event) error {
		h.Add(pos, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	series, err := h.Series(v, teams, func(fn func(pos int64, ev *rankd.Event) error) error { return read(0, l.pos, fn) })
	if err != nil {
		return nil, err
	}
	out := historyJSON{ContestID: cid, View: v.String(), Rules: l.contest.Rules.String(), Teams: make([]seriesJSON, len(series))}
	for i, se := range series {
		sj := seriesJSON{TeamID: se.TeamID, TeamName: cmp.Or(names[se.TeamID], se.TeamID), Points: make([]pointJSON, len(se.Points))}
		for j, pt := range se.Points {
			sj.Points[j] = pointJSON{Time: ccs.FormatRelTime(pt.Time), TimeMS: pt.Time.Milliseconds(), Rank: pt.Rank,
				Solved: pt.Solved, Penalty: pt.Penalty, Score: pt.Score}
		}
		out.Teams[i] = sj
	}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	// Named by its content: the same history has the same ETag, on any server, and says nothing more.
	etag := `"h.` + strconv.FormatUint(xxhash.Sum64(body), 36) + `"`
	entry := &historyEntry{key: key, pos: l.pos, pubSeq: l.pubSeq, made: time.Now(), etag: etag,
		page: s.pages.put(key+"|history", etag, body)}
	s.pasts.putHistory(entry)
	s.Logger.Info("history worked out", slog.String("contest", cid), slog.String("view", v.String()),
		slog.Int("teams", len(teams)), slog.Int64("pos", l.pos), slog.Duration("took", time.Since(begin)))
	return entry, nil
}

// history returns the history of key when there is one that ok accepts, most recently used.
func (p *past) history(key string, ok func(*historyEntry) bool) *historyEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.histories, func(h *historyEntry) bool { return h.key == key })
	if i < 0 || !ok(p.histories[i]) {
		return nil
	}
	h := p.histories[i]
	p.histories = slices.Delete(p.histories, i, i+1)
	p.histories = slices.Insert(p.histories, 0, h)
	return h
}

// putHistory keeps a history, in place of an older one of the same key.
func (p *past) putHistory(h *historyEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.histories = slices.DeleteFunc(p.histories, func(o *historyEntry) bool { return o.key == h.key })
	p.histories = slices.Insert(p.histories, 0, h)
	kept, size := 0, 0
	for _, o := range p.histories {
		if size += o.page.size(); kept > 0 && (kept == maxHistories || size > maxHistoryBytes) {
			break
		}
		kept++
	}
	clear(p.histories[kept:]) // lets go of their pages
	p.histories = p.histories[:kept]
}

func serveHistory(w http.ResponseWriter, r *http.Request, v rankd.View, h *historyEntry) error {
	page := h.page
	if match(r, h.etag) {
		page = cachedPage{}
	}
	writePage(w, r, v, page, h.etag)
	return nil
}
