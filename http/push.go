package http

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"rankd"
	"rankd/board"
	"rankd/stream"
)

// The push: every change of a board reaches the clients that follow its view as frames. Per contest and
// view (a channel), the rows that changed during a tick become one diff frame: each such row with its
// content and its place (position and sort key), numbered with the view's sequence number (seq) and the
// number of the frame before it (base_seq). A client holding the view at base_seq applies it: it takes the
// listed rows out, puts them back at their positions in increasing order, and works out every rank from the
// keys (rows with equal keys share a rank). A row that left the view is in removed. A row the client has
// carries only the cells that changed since base_seq, so a client is at a frame's boundary: a snapshot is
// taken right after a frame, and a client resumes from the end of a frame the channel still keeps. In the
// distributed mode, one that followed another server, at a number within a frame, gets one diff of whole rows
// instead (catchUp), as does every client of a team's view that resumes (see channel.bounds).

// Defaults of the push.
const (
	DefaultTick      = 100 * time.Millisecond
	DefaultWindow    = 512 // frames kept per channel for resuming
	DefaultBuffer    = 256 // frames queued per client before it is dropped as too slow
	DefaultHeartbeat = 15 * time.Second
	// ClockCheck is how often the views the clock freezes (or hides until their end) are looked at: their
	// followers hear of it within that.
	ClockCheck = time.Second
)

// pushRow is a row as frames carry it: its content, position and key.
type pushRow = stream.Row

// diffFrame is the body of a diff event.
type diffFrame struct {
	Seq     uint64 `json:"seq"`
	BaseSeq uint64 `json:"base_seq"`
	// Frozen says whether the view hides verdicts, as the snapshot's: a page learns of a freeze by hand (or
	// of the clock's) with the first frame it changes.
	Frozen  bool      `json:"frozen"`
	Rows    []pushRow `json:"rows"`
	Removed []string  `json:"removed,omitempty"`
}

// snapshotFrame is the body of a snapshot event: the whole view, in order.
type snapshotFrame struct {
	ContestID string    `json:"contest_id"`
	View      string    `json:"view"`
	Seq       uint64    `json:"seq"`
	Frozen    bool      `json:"frozen"`
	Rows      []pushRow `json:"rows"`
}

// message is one server-sent event, ready to write.
type message struct {
	seq  uint64
	base uint64
	data []byte
	// teams are those a diff lists, in its rows or removed.
	teams []string
	// frozen is what the event says of whether the view hides verdicts.
	frozen bool
	z      *lazyDeflated // data compressed, for the followers that take it so
}

// deflated returns the message's data compressed, as a piece of a gzip stream.
func (m *message) deflated() *deflated {
	if m.z == nil {
		d := deflate(m.data)
		return &d
	}
	return m.z.of(m.data)
}

// hub keeps the channels that have followers, by contest.
type hub struct {
	s        *Server
	mu       sync.Mutex
	contests map[string]*contestChannels
	// kick wakes the frame maker when rows change, so that a change after a quiet spell goes out at once
	// rather than at the next tick.
	kick chan struct{}
	// tick is the least time between two frames of a channel.
	tick time.Duration
	// outbox holds the frames made and not yet sent to their followers (see fanOut).
	outbox []delivery
	// followers numbers the followers (follower.id).
	followers atomic.Uint64

	// snaps are the latest snapshot of each view followed, shared by its subscribers of that version (a board
	// of 10,000 teams is megabytes and tens of milliseconds to render: a burst of connections rendered one
	// each); dropped with the view's last follower.
	snapMu     sync.Mutex
	snaps      map[snapKey]snapEntry
	snapRender singleflight.Group
}

type snapKey struct {
	contest string
	view    rankd.View
}

type snapEntry struct {
	seq    uint64
	frozen bool
	msg    message
}

// contestChannels are the channels of one contest. Team views see the public changes too: those are
// gathered once in teamPublic and handed to every team channel when frames are made, so that a change
// costs the same however many teams follow their own view.
type contestChannels struct {
	views      map[rankd.View]*channel
	teamPublic map[string]struct{}
	// ownCheck says that the jury view changed since the last frames: a team's own cells may have too,
	// which moves its view alone. The engine reports that change with the team's view, except when it
	// rebuilt a board from the log, where it reports only the jury and public views.
	ownCheck bool
	teams    int // team-view channels
	slots    teamSlots
	// syncing says that a goroutine waits for a commit's sync to make the frames of the views other than the
	// public one (see flush).
	syncing bool
}

type channel struct {
	contest string
	view    rankd.View
	// problems names the board's problems as the clients have them: when they change, a diff cannot say so
	// (it adds or replaces cells, never takes one out), and the clients get a snapshot instead.
	problems string
	dirty    map[string]struct{} // teams whose row changed since the last frame
	sent     sentRows
	slots    teamSlots // the contest's, shared by its channels
	seq      uint64    // the view's sequence number the last frame (or the start) brought clients to
	// frozen is whether the view hid verdicts as the last frame (or the start) told clients: the clock
	// freezes a view (or hides it until its end) without moving its number (see checkClock). clocked says
	// that the last frame was such a change, at seq: a client resuming there may have missed it.
	frozen, clocked bool
	// own is, for a team's view, the part of seq its own cells moved (see ownSeq) at the last frame.
	own uint64
	// next is when the channel's next frame may go: each view is paced on its own, so that when a public
	// frame goes says nothing of the jury's changes.
	next time.Time
	// window holds the recent frames, oldest first, each one's base the seq of the one before: a client
	// resumes with those after its number. A team's view keeps instead the numbers its recent frames ended at
	// (bounds, oldest first, from the channel's start), and a client resumes with one diff of the rows changed
	// since (catchUp, from sent): the view is one team's, followed by its pages alone, and a window for each
	// of thousands of teams, every frame repeating the public changes, was megabytes a team.
	window []message
	bounds []uint64
	subs   map[*follower]struct{}
	// idle is when the last follower left: the channel goes on making frames for DefaultWindow ticks, so
	// that a client that reconnects (a page whose network blinked, often the view's only one) resumes.
	idle time.Time
}

// notify records the rows changed by an event; the engine calls it under the contest's write lock.
func (h *hub) notify(contestID string, diffs []board.Diff) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cc := h.contests[contestID]
	if cc == nil {
		return
	}
	for _, d := range diffs {
		mark := func(set map[string]struct{}) {
			for _, r := range d.Rows {
				set[r.TeamID] = struct{}{}
			}
		}
		if ch := cc.views[d.View]; ch != nil {
			mark(ch.dirty)
		}
		if d.View.Kind == rankd.ViewPublic && cc.teams > 0 {
			mark(cc.teamPublic)
		}
		if d.View.Kind == rankd.ViewJury && cc.teams > 0 {
			cc.ownCheck = true
		}
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// run makes frames when rows changed, at most one per channel per tick, until ctx is done.
func (h *hub) run(ctx context.Context, tick time.Duration) {
	h.mu.Lock()
	h.tick = tick
	h.mu.Unlock()
	wake := time.NewTimer(tick)
	defer wake.Stop()
	clock := time.NewTicker(ClockCheck)
	defer clock.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.kick:
		case <-wake.C:
		case <-clock.C:
			h.checkClock()
			h.fanOut()
			continue
		}
		// What changes within a tick of a channel's last frame waits for the tick's end, so a busy board
		// gives one frame per channel per tick.
		if wait := h.flush(time.Now()); wait > 0 {
			wake.Reset(wait)
		}
		h.fanOut()
	}
}

// flush turns the changes of every channel whose tick is over into a frame and sends it to the channel's
// followers, and returns how long until the next channel with changes may have its frame (0: none).
func (h *hub) flush(now time.Time) (wait time.Duration) {
	h.mu.Lock()
	var due []string
	for id, cc := range h.contests {
		h.letGo(id, cc, now, &wait)
		busy := len(cc.teamPublic) > 0 || cc.ownCheck
		for _, ch := range cc.views {
			busy = busy || len(ch.dirty) > 0
		}
		if busy {
			due = append(due, id)
		}
	}
	h.mu.Unlock()
	for _, id := range due {
		// Under the contest's read lock no commit can slip between taking the changed rows and reading
		// them. The public view's channels do not wait for the sync of a commit that leaves that view as it
		// was (see engine.Engine.ReadPublic), nor for the other channels: their frames' times must say
		// nothing of hidden verdicts.
		err := h.s.Engine.ReadPublic(id, func(b *board.Board, _ int64) error {
			h.flushContest(b, id, now, &wait, true)
			return nil
		})
		if err == nil {
			err = h.flushPrivate(id, now, &wait)
		}
		if err != nil {
			h.s.Logger.Warn("push: contest gone", "contest", id)
		}
	}
	return wait
}

// letGo removes the channels of a contest that have had no followers for DefaultWindow ticks, with h.mu
// held, and brings wait down to when the next one is due to go.
func (h *hub) letGo(id string, cc *contestChannels, now time.Time, wait *time.Duration) {
	linger := DefaultWindow * h.tick
	for v, ch := range cc.views {
		if len(ch.subs) > 0 {
			continue
		}
		if left := ch.idle.Add(linger).Sub(now); left > 0 {
			if *wait == 0 || left < *wait {
				*wait = left
			}
			continue
		}
		delete(cc.views, v)
		if v.Kind == rankd.ViewTeam {
			cc.teams--
		}
	}
	if len(cc.views) == 0 {
		delete(h.contests, id)
	}
}

// flushPrivate makes the due frames of a contest's views other than the public one. While a commit waits
// for the disk, a goroutine of its own waits to make them (let in when the sync ends, however busy the
// committer), and the frames of other contests and of the public view go on.
func (h *hub) flushPrivate(id string, now time.Time, wait *time.Duration) error {
	h.mu.Lock()
	cc := h.contests[id]
	busy := cc == nil || cc.syncing
	h.mu.Unlock()
	if busy {
		return nil
	}
	read, err := h.s.Engine.TryRead(id, func(b *board.Board, _ int64) error {
		h.flushContest(b, id, now, wait, false)
		return nil
	})
	if read {
		return err
	}
	h.mu.Lock()
	cc.syncing = true
	h.mu.Unlock()
	go func() {
		var later time.Duration // the loop works it out again when kicked
		err := h.s.Engine.Read(id, func(b *board.Board, _ int64) error {
			h.flushContest(b, id, time.Now(), &later, false)
			return nil
		})
		if err != nil {
			h.s.Logger.Warn("push: contest gone", "contest", id)
		}
		h.mu.Lock()
		cc.syncing = false
		h.mu.Unlock()
		select {
		case h.kick <- struct{}{}:
		default:
		}
	}()
	return nil
}

// flushContest makes the frames of a contest's channels that are due: the public view's, or the others.
func (h *hub) flushContest(b *board.Board, id string, now time.Time, wait *time.Duration, public bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cc := h.contests[id]
	if cc == nil {
		return
	}
	var shared map[string]struct{}
	var check bool
	var problems *string // worked out for the first frame
	if !public {
		shared, check = cc.teamPublic, cc.ownCheck
		cc.teamPublic, cc.ownCheck = map[string]struct{}{}, false
	}
	for _, ch := range cc.views {
		if (ch.view.Kind == rankd.ViewPublic) != public {
			continue
		}
		if ch.view.Kind == rankd.ViewTeam {
			for t := range shared {
				ch.dirty[t] = struct{}{}
			}
			if check {
				markOwn(b, ch)
			}
		}
		switch {
		case len(ch.dirty) == 0:
		case now.Before(ch.next):
			if d := ch.next.Sub(now); *wait == 0 || d < *wait {
				*wait = d
			}
		default:
			if problems == nil {
				problems = new(problemIDs(b))
			}
			h.frame(b, ch, *problems)
		}
	}
}

// ownSeq is the part of a team view's sequence number that its team's own cells moved (the rest is the
// public view's).
func ownSeq(b *board.Board, v rankd.View) uint64 { return b.Seq(v) - b.Seq(rankd.PublicView) }

// markOwn marks the team's own row of a team-view channel when its own cells moved since the last frame.
func markOwn(b *board.Board, ch *channel) {
	if ownSeq(b, ch.view) != ch.own {
		ch.dirty[ch.view.TeamID] = struct{}{}
	}
}

// frame makes the frame of one channel, with the contest's read lock and h.mu held; problems are b's
// (problemIDs).
func (h *hub) frame(b *board.Board, ch *channel, problems string) {
	v := ch.view
	seq := b.Seq(v)
	f := diffFrame{Seq: seq, BaseSeq: ch.seq, Frozen: h.s.frozen(b, v), Rows: []pushRow{}}
	teams := make([]string, 0, len(ch.dirty))
	for t := range ch.dirty {
		teams = append(teams, t)
	}
	slices.Sort(teams)
	clear(ch.dirty)
	if seq == ch.seq {
		return // rows marked, but nothing this view shows moved
	}
	if problems != ch.problems {
		h.reframe(b, ch, problems)
		return
	}
	placeRows(b, v, teams, &f, func(t string, rj *rowJSON) {
		rj.Cells = ch.sent.listed(ch.slots.slot(t), rj.Cells, seq)
	})
	for _, t := range f.Removed {
		ch.sent.removed(ch.slots.slot(t), seq)
	}
	m := message{seq: seq, base: ch.seq, data: event("diff", seq, f), teams: teams, frozen: f.Frozen, z: new(lazyDeflated)}
	if v.Kind == rankd.ViewTeam {
		ch.bounds = keepLast(append(ch.bounds, seq))
	} else {
		ch.window = keepLast(append(ch.window, m))
	}
	h.deliver(b, ch, m)
}

// deliver brings a channel to the number of m, its frame or snapshot, and sends m to its followers.
func (h *hub) deliver(b *board.Board, ch *channel, m message) {
	ch.seq, ch.frozen, ch.clocked = m.seq, m.frozen, m.seq == m.base
	if ch.view.Kind == rankd.ViewTeam {
		ch.own = ownSeq(b, ch.view)
	}
	ch.next = time.Now().Add(h.tick)
	if len(ch.subs) == 0 {
		return
	}
	d := delivery{ch: ch, m: &m, to: make([]*follower, 0, len(ch.subs))}
	for f := range ch.subs {
		d.to = append(d.to, f)
	}
	h.outbox = append(h.outbox, d)
	select { // the frame maker sends it (fanOut)
	case h.kick <- struct{}{}:
	default:
	}
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// delivery is a frame or snapshot for the followers a channel had when it was made.
type delivery struct {
	ch *channel
	m  *message
	to []*follower
}

// fanOutPart is the fewest sends a goroutine of fanOut takes on: a frame for a few followers is not worth a
// goroutine.
const fanOutPart = 256

// fanOutSends is what a goroutine of fanOut did: its sends by how, and the followers whose queue was full.
type fanOutSends struct {
	count [sentSplit + 1]float64
	full  []delivery
}

// fanOut sends the frames made since it last ran to their followers, in the order they were made, with no
// lock held: written directly to most connections (see direct.go), that takes a while with thousands of
// followers, and neither commits (which wait for the read lock frames are made under) nor new followers wait
// for it. A follower whose queue is full is dropped: a slow client never holds up the board or the others;
// it reconnects and resumes. Only the frame maker calls it, so each follower gets its frames in order.
func (h *hub) fanOut() {
	h.mu.Lock()
	out := h.outbox
	h.outbox = nil
	h.mu.Unlock()
	// Thousands of writes per frame: spread over the cores, each follower's frames on one of them (by its
	// id: a channel's followers are listed in another order each frame), in order.
	n := 0
	for _, d := range out {
		n += len(d.to)
	}
	parts := min(runtime.GOMAXPROCS(0), max(n/fanOutPart, 1))
	sends := make([]fanOutSends, parts)
	var wg sync.WaitGroup
	for p := range sends {
		wg.Go(func() {
			for _, d := range out {
				for _, f := range d.to {
					if f.id%uint64(parts) != uint64(p) {
						continue
					}
					how := f.send(d.m)
					sends[p].count[how]++
					if how == sentNot {
						sends[p].full = append(sends[p].full, delivery{ch: d.ch, to: []*follower{f}})
					}
				}
			}
		})
	}
	wg.Wait()
	var full []delivery
	var count [sentSplit + 1]float64
	for _, p := range sends {
		full = append(full, p.full...)
		for how, k := range p.count {
			count[how] += k
		}
	}
	if h.s != nil && len(out) > 0 {
		h.s.framesSent.direct.Add(count[sentDirect])
		h.s.framesSent.split.Add(count[sentSplit])
		h.s.framesSent.queued.Add(count[sentQueued])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range full {
		if f := d.to[0]; hasKey(d.ch.subs, f) {
			delete(d.ch.subs, f)
			close(f.dropped)
			h.left(d.ch)
		}
	}
}

// problemIDs names the problems of b, in order.
func problemIDs(b *board.Board) string {
	var ids []string
	for _, p := range b.Problems() {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, "\x00")
}

// reframe sends the followers of a channel a snapshot of its view, with the contest's read lock and h.mu
// held: the board's problems changed. Clients from before it resume with a snapshot too.
func (h *hub) reframe(b *board.Board, ch *channel, problems string) {
	m, err := h.render(b, ch.contest, ch.view)
	if err != nil {
		h.s.Logger.Warn("push: rendering a snapshot failed", "contest", ch.contest, "error", err.Error())
		return
	}
	ch.problems, ch.sent = problems, sentRows{}
	ch.window, ch.bounds = nil, []uint64{m.seq}
	h.deliver(b, ch, m)
}

// placeRows adds to f each team of teams (sorted) as view v of b has it: its row with its place, or its id
// in f.Removed when the view does not show it; trim, when not nil, takes cells out of a row before it goes.
func placeRows(b *board.Board, v rankd.View, teams []string, f *diffFrame, trim func(team string, rj *rowJSON)) {
	for _, t := range teams {
		pos, key, ok := b.Place(v, t)
		var row rankd.Row
		var err error
		if ok {
			row, err = b.Row(v, t)
		}
		if !ok || err != nil {
			f.Removed = append(f.Removed, t)
			continue
		}
		rj := renderRow(b, row)
		if trim != nil {
			trim(t, &rj)
		}
		f.Rows = append(f.Rows, pushRow{RowData: rj, Pos: pos, Key: key})
	}
}

// left notes that a follower left a channel, with h.mu held: the last one starts its linger (see
// channel.idle).
func (h *hub) left(ch *channel) {
	if len(ch.subs) > 0 {
		return
	}
	ch.idle = time.Now()
	h.snapMu.Lock()
	delete(h.snaps, snapKey{ch.contest, ch.view})
	h.snapMu.Unlock()
	select { // the frame maker sees to letting it go
	case h.kick <- struct{}{}:
	default:
	}
}

// subscribe adds a follower of a view and queues what brings it up to date: the frames after lastSeq when
// the window still has them all, else a snapshot of the view.
func (h *hub) subscribe(contestID string, v rankd.View, lastSeq *uint64, out *directOut) (*follower, error) {
	f := &follower{id: h.followers.Add(1), events: make(chan *message, DefaultBuffer), dropped: make(chan struct{}), out: out}
	gen := h.s.deletions.of(contestID)
	err := h.s.readBoard(contestID, v, func(b *board.Board, _ int64) error {
		// A new client's snapshot is had before h.mu, which every contest's frames need: rendering one
		// under it held them all up.
		var snap message
		if lastSeq == nil {
			var err error
			if snap, err = h.snapshot(b, contestID, v); err != nil {
				return err
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		// A board of a contest deleted since must not make a channel, which would follow the contest
		// created again with the id: one deleted after this gets its channel dropped (forget).
		if h.s.deletions.of(contestID) != gen {
			return rankd.Errorf(rankd.ENOTFOUND, "contest %q was deleted", contestID)
		}
		cc := h.contests[contestID]
		if cc == nil {
			cc = &contestChannels{views: map[rankd.View]*channel{}, teamPublic: map[string]struct{}{}, slots: teamSlots{}}
			h.contests[contestID] = cc
		}
		ch := cc.views[v]
		if ch == nil {
			ch = &channel{contest: contestID, view: v, problems: problemIDs(b), dirty: map[string]struct{}{},
				slots: cc.slots, seq: b.Seq(v), frozen: h.s.frozen(b, v), subs: map[*follower]struct{}{}}
			cc.views[v] = ch
			if v.Kind == rankd.ViewTeam {
				ch.own = ownSeq(b, v)
				ch.bounds = []uint64{ch.seq}
				cc.teams++
			}
		}
		// Bring the channel up to the board first, so that the snapshot is at the end of a frame: the next
		// frame's cells are the changes since it.
		if ch.view.Kind == rankd.ViewTeam {
			for t := range cc.teamPublic {
				ch.dirty[t] = struct{}{}
			}
			markOwn(b, ch)
		}
		if len(ch.dirty) > 0 {
			h.frame(b, ch, problemIDs(b))
		}
		ch.subs[f] = struct{}{}
		ch.idle = time.Time{}
		if lastSeq != nil {
			if frames, ok := h.resume(b, ch, *lastSeq); ok {
				if len(frames) == 0 && ch.clocked || len(frames) > 0 && frames[len(frames)-1].frozen != ch.frozen {
					// The client may not have heard of a freeze the clock made since its last frame.
					frames = append(frames, frozenFrame(ch))
				}
				for _, m := range frames {
					f.queue(&m)
				}
				return nil
			}
			var err error
			if snap, err = h.snapshot(b, contestID, v); err != nil {
				h.drop(contestID, v, f)
				return err
			}
		}
		h.keepSnapshot(contestID, v, b.Seq(v), h.s.frozen(b, v), snap)
		f.queue(&snap)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// resume returns what brings a client of a channel from seq to the channel's last frame, if it can: the
// frames after seq, or one diff (catchUp) of the rows changed since. A number within a frame is resumed only in
// the distributed mode, where servers cut frames at their own ticks: one server's clients resume at its frames'
// boundaries, and a number within one is of another board (a contest deleted and created again, its frames
// missed), to which the diff would be applied.
func (h *hub) resume(b *board.Board, ch *channel, seq uint64) ([]message, bool) {
	if ch.view.Kind == rankd.ViewTeam {
		if seq == ch.seq {
			return nil, true
		}
		within := h.s.Engine.Shared && ch.bounds[0] < seq && seq < ch.seq
		if !slices.Contains(ch.bounds, seq) && !within || ch.seq != b.Seq(ch.view) {
			return nil, false
		}
		var teams []string
		for t, i := range ch.slots {
			if ch.sent.changedSince(i, seq) {
				teams = append(teams, t)
			}
		}
		slices.Sort(teams)
		return []message{h.catchUp(b, ch, seq, teams)}, true
	}
	if frames, ok := framesAfter(ch.window, seq, ch.seq); ok {
		return frames, true
	}
	if teams, ok := changedSince(ch.window, seq); ok && h.s.Engine.Shared && ch.seq == b.Seq(ch.view) {
		return []message{h.catchUp(b, ch, seq, teams)}, true
	}
	return nil, false
}

// framesAfter returns the frames of window that bring a client from seq to last, if the window has them all:
// from the frame that starts at seq (frames carry the cells changed since their start, so a client resumes
// only from a frame's boundary).
func framesAfter(window []message, seq, last uint64) ([]message, bool) {
	if seq == last {
		return nil, true
	}
	for i, m := range window {
		if m.base == seq {
			if len(window)-i >= DefaultBuffer { // room for a frozenFrame after them
				return nil, false
			}
			return window[i:], true
		}
	}
	return nil, false
}

// changedSince returns the teams whose rows changed since seq, when seq falls within a frame of window
// rather than at a frame's boundary: a client that followed another server of the distributed mode, whose
// frames are cut at other numbers.
func changedSince(window []message, seq uint64) ([]string, bool) {
	i := slices.IndexFunc(window, func(m message) bool { return m.base < seq && seq < m.seq })
	if i < 0 {
		return nil, false
	}
	var teams []string
	for _, m := range window[i:] {
		teams = append(teams, m.teams...)
	}
	slices.Sort(teams)
	return slices.Compact(teams), true
}

// catchUp returns the diff that brings a client from seq to the channel's last frame, given teams that
// changed since seq, or since the start of the frame seq falls within: each row whole. Applied to the view at
// seq it gives the view at the frame's end: every row that changed since seq is in it, with all its cells (the
// client may lack some of those a frame would leave out, having been at another point), and the rows left out
// did not move. The channel is at the board (ch.seq is b's), so the rows are as of the frame's end.
func (h *hub) catchUp(b *board.Board, ch *channel, seq uint64, teams []string) message {
	f := diffFrame{Seq: ch.seq, BaseSeq: seq, Frozen: h.s.frozen(b, ch.view), Rows: []pushRow{}}
	placeRows(b, ch.view, teams, &f, nil)
	return message{seq: ch.seq, base: seq, data: event("diff", ch.seq, f), teams: teams, frozen: f.Frozen, z: new(lazyDeflated)}
}

// frozenFrame is a diff that changes nothing but whether the channel's view hides verdicts: its seq is its
// base_seq.
func frozenFrame(ch *channel) message {
	f := diffFrame{Seq: ch.seq, BaseSeq: ch.seq, Frozen: ch.frozen, Rows: []pushRow{}}
	return message{seq: ch.seq, base: ch.seq, data: event("diff", ch.seq, f), frozen: ch.frozen, z: new(lazyDeflated)}
}

// checkClock tells the followers of each view the clock froze, hid until its end, or let out since their last
// frame (no event moved its number, so no diff would say it) with a frozenFrame. A view with changes waiting
// is left to their frame, which says it too.
func (h *hub) checkClock() {
	h.mu.Lock()
	ids := make([]string, 0, len(h.contests))
	for id := range h.contests {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		// Frames go only where the view's number has not moved: nothing unsynced is shown.
		_ = h.s.Engine.ReadPublic(id, func(b *board.Board, _ int64) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			cc := h.contests[id]
			if cc == nil {
				return nil
			}
			for _, ch := range cc.views {
				if ch.view.Kind == rankd.ViewJury || len(ch.dirty) > 0 || len(cc.teamPublic) > 0 && ch.view.Kind == rankd.ViewTeam ||
					b.Seq(ch.view) != ch.seq || h.s.frozen(b, ch.view) == ch.frozen {
					continue
				}
				ch.frozen = !ch.frozen
				h.deliver(b, ch, frozenFrame(ch))
			}
			return nil
		})
	}
}

// keepLast returns s without its oldest entries beyond DefaultWindow.
func keepLast[T any](s []T) []T {
	if len(s) > DefaultWindow {
		return slices.Delete(s, 0, len(s)-DefaultWindow)
	}
	return s
}

// unsubscribe removes a follower; a channel without followers is let go after a while (see channel.idle).
func (h *hub) unsubscribe(contestID string, v rankd.View, f *follower) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(contestID, v, f)
}

// drop removes a follower, with h.mu held.
func (h *hub) drop(contestID string, v rankd.View, f *follower) {
	cc := h.contests[contestID]
	if cc == nil {
		return
	}
	if ch := cc.views[v]; ch != nil {
		if _, ok := ch.subs[f]; ok {
			delete(ch.subs, f)
			h.left(ch)
		}
	}
}

// snapshot is the whole view as an event: rendered once per version, however many ask for it at once.
func (h *hub) snapshot(b *board.Board, contestID string, v rankd.View) (message, error) {
	k := snapKey{contestID, v}
	seq, frozen := b.Seq(v), h.s.frozen(b, v)
	h.snapMu.Lock()
	e, ok := h.snaps[k]
	h.snapMu.Unlock()
	if ok && e.seq == seq && e.frozen == frozen {
		return e.msg, nil
	}
	m, err, _ := h.snapRender.Do(fmt.Sprintf("%s|%s|%d|%t", contestID, v, seq, frozen), func() (any, error) {
		// At most a few at once: each team's view is its own (a hundred teams connecting at once to a board
		// of 10,000 rendered a hundred snapshots of megabytes together).
		snapshotRenders <- struct{}{}
		defer func() { <-snapshotRenders }()
		h.s.snapshotsRendered.Inc()
		return h.render(b, contestID, v)
	})
	if err != nil {
		return message{}, err
	}
	// Kept by subscribe, once its follower is on the channel: drop forgets it with the channel.
	return m.(message), nil
}

// snapshotRenders bounds the snapshots rendered at once.
var snapshotRenders = make(chan struct{}, 2)

// keepSnapshot keeps the snapshot of version seq of a view that has followers, with h.mu held. A team's view
// is not kept: it is one team's, followed by one page or two, and a snapshot kept for each of thousands of
// teams would be gigabytes.
func (h *hub) keepSnapshot(contestID string, v rankd.View, seq uint64, frozen bool, m message) {
	if v.Kind == rankd.ViewTeam {
		return
	}
	h.snapMu.Lock()
	defer h.snapMu.Unlock()
	if h.snaps == nil {
		h.snaps = map[snapKey]snapEntry{}
	}
	h.snaps[snapKey{contestID, v}] = snapEntry{seq: seq, frozen: frozen, msg: m}
}

// render renders the whole view as a snapshot event.
func (h *hub) render(b *board.Board, contestID string, v rankd.View) (message, error) {
	st, err := b.Standings(v, 0, -1)
	if err != nil {
		return message{}, err
	}
	f := snapshotFrame{ContestID: contestID, View: v.String(), Seq: st.Seq, Frozen: h.s.frozen(b, v),
		Rows: make([]pushRow, len(st.Rows))}
	for i, row := range st.Rows {
		_, key, _ := b.Place(v, row.TeamID)
		f.Rows[i] = pushRow{RowData: renderRow(b, row), Pos: i, Key: key}
	}
	return message{seq: st.Seq, data: event("snapshot", st.Seq, f), frozen: f.Frozen, z: new(lazyDeflated)}, nil
}

// event formats a server-sent event whose id is the sequence number.
func event(name string, seq uint64, v any) []byte {
	data, _ := json.Marshal(v) // frames always encode
	b := make([]byte, 0, len(data)+64)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\nid: "...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}
