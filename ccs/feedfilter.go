package ccs

import (
	"bytes"
	"cmp"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"rankd"
)

// FeedFilterVersion numbers the ways FeedFilter has made the public feed's lines of a log: a change of the
// lines some log gives takes the next number. The public feed's tokens count its lines and carry it, so that
// a token of lines made otherwise (an earlier rankd's) is refused rather than taken to mean another place.
// Version 1 is that of the tokens without a version.
const FeedFilterVersion = 2

// FeedFilter turns a contest's log, entry by entry, into the event feed the public may see: what a public CCS
// serves. Everything the public feed holds at any point is what the public view of the board shows of the log
// read so far, so that a client that imports it gets the public board, and nothing more:
//
//   - A team is left out while it is hidden, banned or in a hidden group (or deleted), and its submissions and
//     judgements with it; a hidden group is left out too. Bans (rankd's own type) are never sent.
//   - A judgement is left out while its submission is hidden from the public: made at or after the freeze
//     while the contest is not thawed (a finalization alone does not thaw it; for an OI or IOI contest hidden
//     until its end: any submission until the contest ended), unless a step of the stepwise reveal (rankd's
//     "reveal" type) revealed its team's problem: the rule of the public board.
//   - Awards from the log are left out until the contest is thawed, and then name only the teams
//     the public feed has: an award naming a team it leaves out is sent with that team taken out of its
//     team_ids, and again whenever one of its teams comes or goes.
//   - An organization is sent once a team the public feed has belongs to it (before that team), and deleted
//     when none does any more: one that only hidden teams belong to is not the public's to know of, as
//     /organizations says.
//   - Everything else (the contest, its state, judgement types, problems) is sent as it is, rankd's extensions
//     included: they describe the contest, not its results.
//
// When something left out becomes visible, its latest version is sent then: at the thaw (the state event
// that sets thawed, or a contest event that lifts the freeze), after that event's own line, the
// withheld judgements follow in the order the log holds them (before it, when the same state event also sets
// end_of_updates, which must come last); at a reveal step, before its line, those of the cell it reveals, in
// the same order; a team shown again comes back with its submissions and their visible judgements. When
// something sent becomes hidden (a team hidden or banned, a freeze moved earlier), the public feed deletes it:
// a team's submissions first ("data": null; each after its judgements sent), then the team; a submission
// whose sent judgement became hidden is deleted, with its judgements, and sent again, pending.
//
// The lines sent are the log's own lines, byte for byte, except the deletions the filter makes. The output
// depends on the log alone, so a reader that replays the same log gets the same lines: a place in the public
// feed is a log position plus the index of the line among those that entry gave.
//
// A FeedFilter keeps the latest line of what it withholds, and of what it sent only the log position: to send
// again something it withdrew (a team hidden, then shown again) it asks Fetch for that line. It is not safe for
// concurrent use.
type FeedFilter struct {
	// Fetch returns the log's line at a position; only needed when something sent, then withdrawn, is shown
	// again.
	Fetch func(pos int64) ([]byte, error)

	rd  *Reader
	src lineSource

	contest rankd.Contest
	state   rankd.State
	hide    int64 // submissions at or after this contest time (ms) have their judgements withheld

	groups map[string]*fgroup
	orgs   map[string]*forg
	teams  map[string]*fteam
	subs   map[string]*fsub
	juds   map[string]*fjud
	awards map[string]*faward
	// revealed holds the cells the reveal steps so far revealed.
	revealed map[fcell]bool

	scratch []byte
}

// fobj is what the filter knows of one object: where its latest version is, and what the public feed has.
type fobj struct {
	id   string
	pos  int64  // log position of the latest version
	sent int64  // log position of the version the public feed has last been sent; 0 for none (or deleted)
	line []byte // the latest version's line, kept while it has not been sent
	live bool   // the latest version is not a deletion
}

type fgroup struct {
	fobj
	hidden bool
}

// forg is an organization: teams counts the teams the public feed has whose version it has belongs to it.
type forg struct {
	fobj
	teams int
}

type fteam struct {
	fobj
	hidden, banned bool
	groups         []string
	// org is the organization of the latest version, sentOrg that of the version the public feed has.
	org, sentOrg string
	subs         []*fsub // the submissions of the team, in no particular order
}

type fsub struct {
	fobj
	team    string
	problem string
	at      int64   // contest time, ms
	juds    []*fjud // the judgements of the submission, in no particular order
}

type fjud struct {
	fobj
	sub string
}

type faward struct {
	fobj
	award     rankd.Award // the latest version
	sentTeams []string    // the team ids of the version the public feed has
}

// NewFeedFilter returns a filter at the start of a log.
func NewFeedFilter() *FeedFilter {
	f := &FeedFilter{
		groups: map[string]*fgroup{},
		orgs:   map[string]*forg{},
		teams:  map[string]*fteam{},
		subs:   map[string]*fsub{},
		juds:   map[string]*fjud{},
		awards: map[string]*faward{},
	}
	f.rd = NewReader(&f.src)
	f.hide = f.hideFrom()
	return f
}

// lineSource hands the Reader one log line at a time.
type lineSource struct{ b []byte }

func (s *lineSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// Add takes the log's entry at pos, which follows the one given before (the first is at 1): line is its
// stored feed line, without a token. It calls emit with each line the public feed gets for it, in order: none,
// the entry's own line, or lines for objects whose visibility the entry changed. A line passed to emit is valid
// only during the call. Add returns emit's first error, or an EINVALID error for a line that is not one event.
func (f *FeedFilter) Add(pos int64, line []byte, emit func(line []byte) error) error {
	f.src.b = line
	ev, err := f.rd.Next()
	if err == io.EOF {
		return nil // a type the Reader skips: nothing a board reads, nothing the public needs
	}
	if err != nil {
		return rankd.Errorf(rankd.EINVALID, "log entry %d: %s", pos, rankd.ErrorMessage(err))
	}
	if err := f.apply(pos, line, &ev, emit); err != nil {
		return err
	}
	if _, err := f.rd.Next(); err != io.EOF {
		return rankd.Errorf(rankd.EINVALID, "log entry %d holds more than one event", pos)
	}
	return nil
}

func (f *FeedFilter) apply(pos int64, line []byte, ev *rankd.Event, emit func([]byte) error) error {
	switch ev.Type {
	case rankd.EventContest:
		f.contest = rankd.Contest{}
		if !ev.Delete {
			f.contest = *ev.Contest
		}
		if err := emit(line); err != nil {
			return err
		}
		return f.rehide(emit)
	case rankd.EventState:
		f.state = rankd.State{}
		if !ev.Delete && ev.State != nil {
			f.state = *ev.State
		}
		if f.state.EndOfUpdates != nil {
			// The end of updates must be the feed's last event: what it reveals goes before it.
			if err := f.rehide(emit); err != nil {
				return err
			}
			return emit(line)
		}
		if err := emit(line); err != nil {
			return err
		}
		return f.rehide(emit)
	case rankd.EventGroup:
		g := f.groups[ev.ID]
		if !ev.Delete {
			g = f.group(ev.Group.ID)
			g.hidden = ev.Group.Hidden
		} else if g == nil {
			return nil
		}
		g.set(pos, line, !ev.Delete)
		defer g.keep()
		return f.syncGroup(g, emit)
	case rankd.EventTeam:
		id := ev.ID
		if !ev.Delete {
			id = ev.Team.ID
		}
		t := f.team(id)
		if !ev.Delete {
			t.hidden = ev.Team.Hidden
			t.groups = slices.Clone(ev.Team.GroupIDs)
			t.org = ev.Team.OrganizationID
		}
		t.set(pos, line, !ev.Delete)
		defer t.keep()
		return f.syncTeam(t, emit)
	case rankd.EventBan:
		id, banned := ev.ID, !ev.Delete
		if ev.Ban != nil {
			if ev.Ban.TeamID != "" {
				id = ev.Ban.TeamID
			}
			banned = ev.Ban.Banned && !ev.Delete
		}
		t := f.team(id)
		t.banned = banned
		return f.syncTeam(t, emit)
	case rankd.EventSubmission:
		id := ev.ID
		if !ev.Delete {
			id = ev.Submission.ID
		}
		s := f.sub(id)
		if !ev.Delete {
			if s.team != ev.Submission.TeamID {
				if old := f.teams[s.team]; old != nil {
					old.subs = deleteItem(old.subs, s)
				}
				s.team = ev.Submission.TeamID
				t := f.team(s.team)
				t.subs = append(t.subs, s)
			}
			s.at = msFloor(ev.Submission.Time)
			s.problem = ev.Submission.ProblemID
		}
		s.set(pos, line, !ev.Delete)
		defer s.keep()
		return f.syncSub(s, emit)
	case rankd.EventJudgement:
		id := ev.ID
		if !ev.Delete {
			id = ev.Judgement.ID
		}
		j := f.juds[id]
		if j == nil {
			j = &fjud{fobj: fobj{id: id}}
			f.juds[id] = j
		}
		if !ev.Delete && j.sub != ev.Judgement.SubmissionID {
			if old := f.subs[j.sub]; old != nil {
				old.juds = deleteItem(old.juds, j)
				// What the public has of the old submission may hold this judgement's verdict.
				if err := f.retract(old, j, emit); err != nil {
					return err
				}
			}
			j.sub = ev.Judgement.SubmissionID
			s := f.sub(j.sub)
			s.juds = append(s.juds, j)
		}
		j.set(pos, line, !ev.Delete)
		defer j.keep()
		if s := f.subs[j.sub]; s != nil {
			return f.syncSub(s, emit)
		}
		return nil
	case rankd.EventAward:
		a := f.awards[ev.ID]
		if !ev.Delete {
			a = f.awards[ev.Award.ID]
			if a == nil {
				a = &faward{fobj: fobj{id: ev.Award.ID}}
				f.awards[a.id] = a
			}
			a.award = *ev.Award
			a.award.TeamIDs = slices.Clone(ev.Award.TeamIDs)
		} else if a == nil {
			return nil
		}
		a.set(pos, line, !ev.Delete)
		defer a.keep()
		return f.syncAward(a, emit)
	case rankd.EventReveal:
		return f.reveal(ev, line, emit)
	case rankd.EventOrganization:
		id := ev.ID
		if !ev.Delete {
			id = ev.Organization.ID
		}
		o := f.org(id)
		o.set(pos, line, !ev.Delete)
		defer o.keep()
		return f.syncOrg(o, emit)
	}
	// Judgement types, problems: for everyone.
	return emit(line)
}

// set records a new latest version of an object; its line is the caller's until keep.
func (o *fobj) set(pos int64, line []byte, live bool) {
	o.pos, o.live, o.line = pos, live, nil
	if live {
		o.line = line
	}
}

// keep copies the line of the latest version when it was not sent at once: the caller's is about to go.
func (o *fobj) keep() {
	if o.line != nil {
		o.line = bytes.Clone(o.line)
	}
}

func (f *FeedFilter) group(id string) *fgroup {
	g := f.groups[id]
	if g == nil {
		g = &fgroup{fobj: fobj{id: id}}
		f.groups[id] = g
	}
	return g
}

func (f *FeedFilter) org(id string) *forg {
	o := f.orgs[id]
	if o == nil {
		o = &forg{fobj: fobj{id: id}}
		f.orgs[id] = o
	}
	return o
}

func (f *FeedFilter) team(id string) *fteam {
	t := f.teams[id]
	if t == nil {
		t = &fteam{fobj: fobj{id: id}}
		f.teams[id] = t
	}
	return t
}

func (f *FeedFilter) sub(id string) *fsub {
	s := f.subs[id]
	if s == nil {
		s = &fsub{fobj: fobj{id: id}}
		f.subs[id] = s
	}
	return s
}

func deleteItem[T comparable](s []T, x T) []T {
	if i := slices.Index(s, x); i >= 0 {
		s = slices.Delete(s, i, i+1)
	}
	return s
}

// byPos orders objects by the log position of their latest version: the log's order.
func byPos[T interface{ latest() int64 }](x, y T) int { return cmp.Compare(x.latest(), y.latest()) }

func (o *fobj) latest() int64 { return o.pos }

// The visibility rules; see FeedFilter.

func (f *FeedFilter) groupVisible(g *fgroup) bool { return g.live && !g.hidden }

func (f *FeedFilter) teamVisible(t *fteam) bool {
	if !t.live || t.hidden || t.banned {
		return false
	}
	for _, id := range t.groups {
		if g := f.groups[id]; g != nil && g.live && g.hidden {
			return false
		}
	}
	return true
}

func (f *FeedFilter) subVisible(s *fsub) bool {
	t := f.teams[s.team]
	return s.live && t != nil && f.teamVisible(t)
}

func (f *FeedFilter) judVisible(j *fjud) bool {
	s := f.subs[j.sub]
	return j.live && s != nil && (s.at < f.hide || f.revealed[fcell{s.team, s.problem}]) && f.subVisible(s)
}

// hideFrom returns the contest time (ms) from which the public board hides verdicts, as package board
// decides it.
func (f *FeedFilter) hideFrom() int64 {
	c := &f.contest
	switch {
	case f.state.Thawed != nil:
		// Not a finalization alone: the public board stays frozen until the thaw (see package board).
		return math.MaxInt64
	case c.HidesUntilEnd():
		if f.state.Ended != nil {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return msFloor(rankd.FreezeOf(c, f.state))
}

// msFloor converts a contest time to milliseconds, rounding down, as the board does.
func msFloor(d time.Duration) int64 {
	m := int64(d / time.Millisecond)
	if d%time.Millisecond < 0 {
		m--
	}
	return m
}

// sync brings what the public feed has of one object in line with whether it may see it: its latest version
// when visible and not sent yet, its deletion when no longer visible.
func (f *FeedFilter) sync(t rankd.EventType, o *fobj, visible bool, emit func([]byte) error) error {
	switch {
	case visible && o.sent != o.pos:
		line := o.line
		if line == nil {
			if f.Fetch == nil {
				return rankd.Errorf(rankd.EINTERNAL, "feed filter: no Fetch to read the log's entry %d again", o.pos)
			}
			var err error
			if line, err = f.Fetch(o.pos); err != nil {
				return err
			}
		}
		if err := emit(line); err != nil {
			return err
		}
		o.sent, o.line = o.pos, nil
	case !visible && o.sent != 0:
		if err := f.emitDelete(t, o.id, emit); err != nil {
			return err
		}
		o.sent = 0
	}
	return nil
}

// emitDelete sends the deletion of an object.
func (f *FeedFilter) emitDelete(t rankd.EventType, id string, emit func([]byte) error) error {
	b, err := AppendEvent(f.scratch[:0], rankd.Event{Type: t, ID: id, Delete: true})
	if err != nil {
		return err
	}
	f.scratch = b
	return emit(bytes.TrimSuffix(b, []byte{'\n'}))
}

// syncGroup: a group shown comes before its teams, a group withdrawn after them.
func (f *FeedFilter) syncGroup(g *fgroup, emit func([]byte) error) error {
	visible := f.groupVisible(g)
	if visible {
		if err := f.sync(rankd.EventGroup, &g.fobj, true, emit); err != nil {
			return err
		}
	}
	var teams []*fteam
	for _, t := range f.teams {
		if slices.Contains(t.groups, g.id) {
			teams = append(teams, t)
		}
	}
	slices.SortFunc(teams, byPos)
	for _, t := range teams {
		if err := f.syncTeam(t, emit); err != nil {
			return err
		}
	}
	if !visible {
		return f.sync(rankd.EventGroup, &g.fobj, false, emit)
	}
	return nil
}

// syncOrg: an organization is shown while a team the public feed has belongs to it.
func (f *FeedFilter) syncOrg(o *forg, emit func([]byte) error) error {
	return f.sync(rankd.EventOrganization, &o.fobj, o.live && o.teams > 0, emit)
}

// countOrg adds n to the teams of organization id the public feed has, and syncs it.
func (f *FeedFilter) countOrg(id string, n int, emit func([]byte) error) error {
	if id == "" {
		return nil
	}
	o := f.org(id)
	o.teams += n
	return f.syncOrg(o, emit)
}

// syncTeam: a team shown comes before its submissions, a team withdrawn after them; its organization comes
// before it, and goes after the last team of it the public feed has.
func (f *FeedFilter) syncTeam(t *fteam, emit func([]byte) error) error {
	visible := f.teamVisible(t)
	if visible && t.sent != t.pos {
		if err := f.countOrg(t.org, 1, emit); err != nil {
			return err
		}
		if err := f.sync(rankd.EventTeam, &t.fobj, true, emit); err != nil {
			return err
		}
		old := t.sentOrg
		t.sentOrg = t.org
		if err := f.countOrg(old, -1, emit); err != nil {
			return err
		}
	}
	slices.SortFunc(t.subs, byPos)
	for _, s := range t.subs {
		if err := f.syncSub(s, emit); err != nil {
			return err
		}
	}
	// The awards naming the team: after it when it comes, before its deletion when it goes.
	var awards []*faward
	for _, a := range f.awards {
		if slices.Contains(a.award.TeamIDs, t.id) {
			awards = append(awards, a)
		}
	}
	slices.SortFunc(awards, byPos)
	for _, a := range awards {
		if err := f.syncAward(a, emit); err != nil {
			return err
		}
	}
	if !visible {
		if err := f.sync(rankd.EventTeam, &t.fobj, false, emit); err != nil {
			return err
		}
		old := t.sentOrg
		t.sentOrg = ""
		return f.countOrg(old, -1, emit)
	}
	return nil
}

// syncSub: a submission shown comes before its judgements; one withdrawn takes them with it. A submission
// sent with a judgement the public may no longer see is withdrawn and sent again without it.
func (f *FeedFilter) syncSub(s *fsub, emit func([]byte) error) error {
	visible := f.subVisible(s)
	if s.sent != 0 {
		withdraw := !visible
		for _, j := range s.juds {
			withdraw = withdraw || j.sent != 0 && !f.judVisible(j)
		}
		if withdraw {
			if err := f.withdraw(s, emit); err != nil {
				return err
			}
		}
	}
	if !visible {
		return nil
	}
	if err := f.sync(rankd.EventSubmission, &s.fobj, true, emit); err != nil {
		return err
	}
	slices.SortFunc(s.juds, byPos)
	for _, j := range s.juds {
		if f.judVisible(j) {
			if err := f.sync(rankd.EventJudgement, &j.fobj, true, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

// withdraw deletes a sent submission from the public feed, its sent judgements first: a reader that keeps
// each object's versions (another rankd) then takes them as new when they are sent again, instead of as
// repeats of the versions it has.
func (f *FeedFilter) withdraw(s *fsub, emit func([]byte) error) error {
	slices.SortFunc(s.juds, byPos)
	for _, j := range s.juds {
		if j.sent == 0 {
			continue
		}
		if err := f.emitDelete(rankd.EventJudgement, j.id, emit); err != nil {
			return err
		}
		j.sent = 0
	}
	if err := f.emitDelete(rankd.EventSubmission, s.id, emit); err != nil {
		return err
	}
	s.sent = 0
	return nil
}

// retract withdraws (and sends again) a submission whose public version holds judgement j, which has just
// left it for another submission.
func (f *FeedFilter) retract(s *fsub, j *fjud, emit func([]byte) error) error {
	if j.sent == 0 || s.sent == 0 {
		j.sent = 0
		return nil
	}
	if err := f.withdraw(s, emit); err != nil {
		return err
	}
	j.sent = 0
	return f.syncSub(s, emit)
}

// rehide applies a change of the contest or its state: judgements hidden from the public until now follow in
// log order when they became visible, submissions whose judgement became hidden are sent again pending, and
// awards come or go with the thaw.
func (f *FeedFilter) rehide(emit func([]byte) error) error {
	hide := f.hideFrom()
	if hide != f.hide {
		f.hide = hide
		var withdrawn []*fsub
		for _, s := range f.subs {
			if s.sent == 0 {
				continue
			}
			for _, j := range s.juds {
				if j.sent != 0 && !f.judVisible(j) {
					withdrawn = append(withdrawn, s)
					break
				}
			}
		}
		slices.SortFunc(withdrawn, byPos)
		for _, s := range withdrawn {
			if err := f.withdraw(s, emit); err != nil {
				return err
			}
			if err := f.sync(rankd.EventSubmission, &s.fobj, true, emit); err != nil {
				return err
			}
		}
		var shown []*fjud
		for _, j := range f.juds {
			if j.sent != j.pos && f.judVisible(j) {
				shown = append(shown, j)
			}
		}
		slices.SortFunc(shown, byPos)
		for _, j := range shown {
			if err := f.sync(rankd.EventJudgement, &j.fobj, true, emit); err != nil {
				return err
			}
		}
	}
	awards := slices.Collect(maps.Values(f.awards))
	slices.SortFunc(awards, byPos)
	for _, a := range awards {
		if err := f.syncAward(a, emit); err != nil {
			return err
		}
	}
	return nil
}

// syncAward brings what the public feed has of an award in line with the thaw and with the teams it may
// see: the log's line when it sees every team the award names, else the award without the others.
func (f *FeedFilter) syncAward(a *faward, emit func([]byte) error) error {
	if !a.live || f.state.Thawed == nil {
		return f.sync(rankd.EventAward, &a.fobj, false, emit)
	}
	teams := make([]string, 0, len(a.award.TeamIDs))
	for _, id := range a.award.TeamIDs {
		if t := f.teams[id]; t != nil && f.teamVisible(t) {
			teams = append(teams, id)
		}
	}
	if a.sent == a.pos && slices.Equal(a.sentTeams, teams) {
		return nil
	}
	if len(teams) == len(a.award.TeamIDs) {
		a.sent = 0 // the log's line, even when a filtered version was sent of it
		if err := f.sync(rankd.EventAward, &a.fobj, true, emit); err != nil {
			return err
		}
	} else {
		aw := a.award
		aw.TeamIDs = teams
		b, err := AppendEvent(f.scratch[:0], rankd.Event{Type: rankd.EventAward, ID: a.id, Award: &aw})
		if err != nil {
			return err
		}
		f.scratch = b
		if err := emit(bytes.TrimSuffix(b, []byte{'\n'})); err != nil {
			return err
		}
		a.sent = a.pos
	}
	a.sentTeams = teams
	return nil
}

// FeedTimes writes back into a log's lines the absolute times the log leaves out. A log stores each event as
// AppendEvent writes it, with its relative times only (contest_time, start_contest_time, end_contest_time), so
// that a line depends on its event alone; the 2023-06 schemas also require the absolute ones (time,
// start_time, end_time), which follow from the contest's start as the lines before give it. FeedTimes follows
// the contest and state lines it is given and writes submissions and judgements again with both kinds of
// times, as a Writer that wrote the whole feed would. It is not safe for concurrent use.
type FeedTimes struct {
	w   Writer
	rd  *Reader
	src lineSource
	buf []byte
}

// NewFeedTimes returns a FeedTimes at the start of a feed.
func NewFeedTimes() *FeedTimes {
	ft := &FeedTimes{}
	ft.rd = NewReader(&ft.src)
	return ft
}

var (
	prefixContest    = []byte(`{"type":"contest"`)
	prefixState      = []byte(`{"type":"state"`)
	prefixSubmission = []byte(`{"type":"submissions"`)
	prefixJudgement  = []byte(`{"type":"judgements"`)
)

// Line returns the line to send for a feed line, valid until the next call: the line itself, or for a
// submission or judgement, once the contest's start is known, the event written again with its absolute
// times. With skip, the line is only followed (a client that resumes has it) and nil is returned.
func (ft *FeedTimes) Line(line []byte, skip bool) ([]byte, error) {
	follow := bytes.HasPrefix(line, prefixContest) || bytes.HasPrefix(line, prefixState)
	rewrite := !skip && !ft.w.start().IsZero() &&
		(bytes.HasPrefix(line, prefixSubmission) || bytes.HasPrefix(line, prefixJudgement))
	if !follow && !rewrite {
		if skip {
			return nil, nil
		}
		return line, nil
	}
	ft.src.b = line
	ev, err := ft.rd.Next()
	if err == io.EOF {
		return line, nil
	}
	if err != nil {
		return nil, err
	}
	// A log line is one event; should it hold more, the rest is dropped rather than handed out with the next.
	for {
		if _, err := ft.rd.Next(); err == io.EOF {
			break
		}
	}
	b, err := ft.w.appendEvent(ft.buf[:0], ev)
	ft.buf = b
	switch {
	case err != nil:
		return nil, err
	case skip:
		return nil, nil
	case follow:
		return line, nil // contest and state lines hold absolute times already
	}
	return bytes.TrimSuffix(b, []byte{'\n'}), nil
}
