package board

import (
	"math"
	"reflect"
	"slices"

	"rankd"
	"rankd/score"
)

// Apply applies one event and returns what it changed in each view. An event the board cannot use (an unknown
// team, problem, judgement type or submission) returns an error with code EUNPROCESSABLE and changes nothing;
// a malformed one EINVALID. Applying the same event twice changes nothing the second time.
func (b *Board) Apply(ev *rankd.Event) (*Change, error) {
	b.begin()
	if !ev.Delete && !carries(ev) {
		return &b.change, rankd.Errorf(rankd.EINVALID, "%s event %q without its object", ev.Type, ev.ID)
	}
	var err error
	switch ev.Type {
	case rankd.EventContest:
		err = b.applyContest(ev)
	case rankd.EventJudgementType:
		err = b.applyJudgementType(ev)
	case rankd.EventProblem:
		err = b.applyProblem(ev)
	case rankd.EventGroup:
		err = b.applyGroup(ev)
	case rankd.EventOrganization:
		err = b.applyOrganization(ev)
	case rankd.EventTeam:
		err = b.applyTeam(ev)
	case rankd.EventSubmission:
		err = b.applySubmission(ev)
	case rankd.EventJudgement:
		err = b.applyJudgement(ev)
	case rankd.EventState:
		err = b.applyState(ev)
	case rankd.EventBan:
		err = b.applyBan(ev)
	case rankd.EventAward:
		// Awards are computed from the board, never taken from the log.
	case rankd.EventReveal:
		err = b.applyReveal(ev)
	default:
		err = rankd.Errorf(rankd.EINVALID, "unknown event type %d", ev.Type)
	}
	if err != nil {
		b.discard()
		return &b.change, err
	}
	b.stats.Events++
	b.commit()
	b.noteRevealDone(ev.Type)
	return &b.change, nil
}

// carries reports whether an event that is not a deletion holds the object of its type.
func carries(ev *rankd.Event) bool {
	switch ev.Type {
	case rankd.EventContest:
		return ev.Contest != nil
	case rankd.EventJudgementType:
		return ev.JudgementType != nil
	case rankd.EventProblem:
		return ev.Problem != nil
	case rankd.EventGroup:
		return ev.Group != nil
	case rankd.EventOrganization:
		return ev.Organization != nil
	case rankd.EventTeam:
		return ev.Team != nil
	case rankd.EventSubmission:
		return ev.Submission != nil
	case rankd.EventJudgement:
		return ev.Judgement != nil
	case rankd.EventReveal:
		return ev.Reveal != nil
	}
	return true // a state or ban without an object, or an award, means something on its own
}

func (b *Board) needContest(what string) error {
	if !b.hasRules {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "%s before the contest is defined", what)
	}
	return nil
}

func (b *Board) applyContest(ev *rankd.Event) error {
	if ev.Delete {
		return rankd.Errorf(rankd.EINVALID, "contest: cannot delete the contest")
	}
	c := b.Redefined(*ev.Contest)
	c.FirstBlood = slices.Clone(c.FirstBlood)
	if err := c.Validate(); err != nil {
		return err
	}
	if b.hasRules && c.ID != b.contest.ID {
		return rankd.Errorf(rankd.ECONFLICT, "contest %s: this board holds contest %s", c.ID, b.contest.ID)
	}
	old := b.contest
	b.contest, b.hasRules = c, true
	b.dur = ms(c.Duration)
	b.penalty = int64(c.PenaltyTime / 60e9)
	if old.Rules != c.Rules || old.Duration != c.Duration || old.FreezeDuration != c.FreezeDuration ||
		old.PenaltyTime != c.PenaltyTime || old.OIMode != c.OIMode || old.HideUntilEnd != c.HideUntilEnd ||
		old.TieByTime != c.TieByTime || !slices.Equal(old.FirstBlood, c.FirstBlood) ||
		old.Medals != c.Medals { // the awards: every view moves, so that what was read of them is read again
		b.rebuild()
	}
	return nil
}

// Redefined returns contest definition c as the board takes it: one sent again without rankd's extension (a
// CCS source's) keeps what the extension said (see keepExtension).
func (b *Board) Redefined(c rankd.Contest) rankd.Contest {
	if c.NoExtension && b.hasRules && c.ID == b.contest.ID {
		keepExtension(&c, &b.contest)
	}
	c.NoExtension = false
	return c
}

// keepExtension gives c, a contest defined again without rankd's extension, what only the extension says of
// old: a CCS source sending its contest again (with a thaw time, say) wiped the medals and the rules. The
// rules follow scoreboard_type when it changed: pass-fail is ICPC, score one of OI, IOI and CTF.
func keepExtension(c, old *rankd.Contest) {
	if (c.Rules == rankd.ICPC) == (old.Rules == rankd.ICPC) {
		c.Rules = old.Rules
	}
	c.OIMode, c.HideUntilEnd, c.TieByTime = old.OIMode, old.HideUntilEnd, old.TieByTime
	c.FirstBlood, c.Medals = old.FirstBlood, old.Medals
}

func (b *Board) applyJudgementType(ev *rankd.Event) error {
	if ev.Delete {
		// Judgements keep the type they were given, and it keeps scoring as it did.
		return nil
	}
	jt := *ev.JudgementType
	if jt.ID == "" {
		return rankd.Errorf(rankd.EINVALID, "judgement type: id is required")
	}
	class := score.Classify(jt.Solved, jt.Penalty)
	if i, ok := b.jtypeIdx[jt.ID]; ok {
		changed := b.jtypes[i].class != class
		b.jtypes[i] = jtype{info: jt, class: class}
		if changed {
			b.rebuild()
		}
		return nil
	}
	if len(b.jtypes) > maxJudgementTypes {
		return rankd.Errorf(rankd.ETOOLARGE, "judgement type %s: more than %d judgement types", jt.ID, maxJudgementTypes)
	}
	b.jtypeIdx[jt.ID] = uint8(len(b.jtypes))
	b.jtypes = append(b.jtypes, jtype{info: jt, class: class})
	return nil
}

func (b *Board) applyProblem(ev *rankd.Event) error {
	if ev.Delete {
		p, ok := b.probIdx[ev.ID]
		if !ok || b.problems[p].deleted {
			return nil
		}
		b.problems[p].deleted = true
		b.sortProblems()
		b.rebuild()
		return nil
	}
	pr := *ev.Problem
	pr.Subtasks = slices.Clone(pr.Subtasks)
	if pr.ID == "" {
		return rankd.Errorf(rankd.EINVALID, "problem: id is required")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"value", pr.Value}, {"minimum", pr.Minimum}, {"decay", pr.Decay}} {
		if f.v < 0 {
			return rankd.Errorf(rankd.EINVALID, "problem %s: %s %d: must not be negative", pr.ID, f.name, f.v)
		}
	}
	if pr.Function == rankd.ValueLinear || pr.Function == rankd.ValueLogarithmic {
		if pr.Minimum > pr.Value {
			return rankd.Errorf(rankd.EINVALID, "problem %s: minimum %d above the initial value %d", pr.ID, pr.Minimum, pr.Value)
		}
	}
	if p, ok := b.probIdx[pr.ID]; ok {
		old := b.problems[p]
		same := pr
		same.TestDataCount = old.info.TestDataCount
		if !old.deleted && equalProblem(&old.info, &same) {
			// The same, or only its test data count changed, which no row shows: nothing moves.
			b.problems[p].info.TestDataCount = pr.TestDataCount
			return nil
		}
		b.problems[p] = problem{info: pr}
		b.sortProblems()
		if old.deleted || old.info.Value != pr.Value || old.info.Minimum != pr.Minimum ||
			old.info.Decay != pr.Decay || old.info.Function != pr.Function || !slices.Equal(old.info.Subtasks, pr.Subtasks) {
			b.rebuild()
		} else {
			b.touchAll()
		}
		return nil
	}
	if len(b.problems) >= math.MaxUint16 {
		return rankd.Errorf(rankd.ETOOLARGE, "problem %s: too many problems", pr.ID)
	}
	b.probIdx[pr.ID] = len(b.problems)
	b.problems = append(b.problems, problem{info: pr})
	b.sortProblems()
	b.relayout(len(b.problems) - 1)
	return nil
}

// equalProblem and equalTeam tell a re-sent object (feeds repeat them) from a change.
func equalProblem(x, y *rankd.Problem) bool {
	a, c := *x, *y
	a.Subtasks, c.Subtasks = nil, nil
	return reflect.DeepEqual(a, c) && slices.Equal(x.Subtasks, y.Subtasks)
}

func equalTeam(x, y *rankd.Team) bool {
	a, c := *x, *y
	a.GroupIDs, c.GroupIDs = nil, nil
	return reflect.DeepEqual(a, c) && slices.Equal(x.GroupIDs, y.GroupIDs)
}

func (b *Board) sortProblems() {
	b.order = b.order[:0]
	for i := range b.problems {
		if !b.problems[i].deleted {
			b.order = append(b.order, i)
		}
	}
	slices.SortStableFunc(b.order, func(x, y int) int {
		px, py := &b.problems[x].info, &b.problems[y].info
		if px.Ordinal != py.Ordinal {
			return px.Ordinal - py.Ordinal
		}
		if px.Label != py.Label {
			if px.Label < py.Label {
				return -1
			}
			return 1
		}
		return x - y
	})
}

// relayout makes room for a new problem column (at index added) in the team-major cell array.
func (b *Board) relayout(added int) {
	np := len(b.problems)
	cells := make([]cell, len(b.teams)*np)
	for t := range b.teams {
		copy(cells[t*np:t*np+np-1], b.cells[t*(np-1):t*(np-1)+np-1])
		for v := range b.views {
			cells[t*np+added].res[v] = score.Result{FirstPending: score.Never}
		}
	}
	b.cells = cells
	b.big = nil // indexed by cell
	// Cell indexes moved: so do the submissions' locations.
	move := func(loc uint32) uint32 {
		ci := int(loc) - 1
		return uint32(ci/(np-1)*np + ci%(np-1) + 1)
	}
	if np > 1 {
		for k, loc := range b.subDense {
			if loc != 0 {
				b.subDense[k] = move(loc)
			}
		}
		for k, loc := range b.subNum {
			b.subNum[k] = move(loc)
		}
		for k, loc := range b.subStr {
			b.subStr[k] = move(loc)
		}
	}
	for v := range b.views {
		b.views[v].fts = append(b.views[v].fts, ftsState{min: score.Never})
		b.views[v].solvers = append(b.views[v].solvers, nil)
		b.views[v].waiting = append(b.views[v].waiting, nil)
	}
	b.touchAll()
}

func (b *Board) applyGroup(ev *rankd.Event) error {
	id := ev.ID
	if !ev.Delete {
		id = ev.Group.ID
		if id == "" {
			return rankd.Errorf(rankd.EINVALID, "group: id is required")
		}
	}
	g := b.group(id)
	wasHidden := b.groups[g].defined && b.groups[g].info.Hidden
	if ev.Delete {
		b.groups[g] = group{info: rankd.Group{ID: id}}
	} else {
		b.groups[g] = group{info: *ev.Group, defined: true}
	}
	if wasHidden != (b.groups[g].defined && b.groups[g].info.Hidden) {
		// Its teams come off or onto the boards.
		for t := range b.teams {
			if tm := &b.teams[t]; slices.Contains(tm.groups, g) {
				b.setTeam(int32(t), tm.info, tm.defined, tm.banned)
			}
		}
	}
	return nil
}

// inHiddenGroup reports whether one of the groups with the ids is defined and hidden.
func (b *Board) inHiddenGroup(ids []string) bool {
	for _, id := range ids {
		if g, ok := b.groupIdx[id]; ok && b.groups[g].defined && b.groups[g].info.Hidden {
			return true
		}
	}
	return false
}

// group returns the index of the group with the id, adding it when unknown: teams may name a group before
// it is defined.
func (b *Board) group(id string) int {
	if g, ok := b.groupIdx[id]; ok {
		return g
	}
	g := len(b.groups)
	b.groupIdx[id] = g
	b.groups = append(b.groups, group{info: rankd.Group{ID: id}})
	for v := range b.views {
		b.views[v].byGroup = append(b.views[v].byGroup, nil)
	}
	return g
}

func (b *Board) applyOrganization(ev *rankd.Event) error {
	id := ev.ID
	if !ev.Delete {
		if id = ev.Organization.ID; id == "" {
			return rankd.Errorf(rankd.EINVALID, "organization: id is required")
		}
	}
	old, had := b.orgs[id]
	switch {
	case ev.Delete && !had, !ev.Delete && had && old == *ev.Organization:
		return nil
	case ev.Delete:
		delete(b.orgs, id)
	default:
		b.orgs[id] = *ev.Organization
	}
	// Rows show their team's organization: its teams' rows changed, and with them the views' sequences (a
	// page or an ETag of the previous sequence would show the old name).
	for t := range b.teams {
		if tm := &b.teams[t]; tm.defined && tm.info.OrganizationID == id {
			for v := range b.views {
				b.mark(v, int32(t))
			}
		}
	}
	return nil
}

func (b *Board) applyTeam(ev *rankd.Event) error {
	if ev.Delete {
		t, ok := b.teamIdx[ev.ID]
		if !ok || !b.teams[t].defined {
			return nil
		}
		b.setTeam(t, b.teams[t].info, false, b.teams[t].banned)
		return nil
	}
	info := *ev.Team
	info.GroupIDs = slices.Clone(info.GroupIDs)
	if info.ID == "" {
		return rankd.Errorf(rankd.EINVALID, "team: id is required")
	}
	t, ok := b.teamIdx[info.ID]
	if !ok {
		t = b.addTeam(info)
	}
	b.setTeam(t, info, true, b.teams[t].banned)
	return nil
}

// addTeam adds a team, not defined yet, placed in name order as info names it (setTeam defines it).
func (b *Board) addTeam(info rankd.Team) int32 {
	t, id := int32(len(b.teams)), info.ID
	b.indexTeam(id, t)
	b.teams = append(double(b.teams, 1), team{id: id, info: rankd.Team{ID: id, Name: info.Name, DisplayName: info.DisplayName}})
	b.labels = append(b.labels, 0)
	b.flags = append(b.flags, 0)
	b.placeName(t)
	b.ownSeq = append(b.ownSeq, 0)
	np := len(b.problems)
	b.cells = double(b.cells, np)
	for range np {
		b.cells = append(b.cells, cell{res: [2]score.Result{{FirstPending: score.Never}, {FirstPending: score.Never}}})
	}
	for v := range b.views {
		b.teams[t].rows[v] = b.emptyRow()
	}
	return t
}

// reserveTeams makes room for n more teams, with their cells, at once: a restore knows how many come.
func (b *Board) reserveTeams(n int) {
	b.teams = slices.Grow(b.teams, n)
	b.labels, b.flags = slices.Grow(b.labels, n), slices.Grow(b.flags, n)
	b.ownSeq = slices.Grow(b.ownSeq, n)
	b.cells = slices.Grow(b.cells, n*len(b.problems))
}

// double makes room for n more elements, doubling the capacity when it grows: registering 10,000 teams one
// by one then copies the (large) team array a few times, not dozens as append's growth would.
func double[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}

func (b *Board) emptyRow() rowAgg {
	r := rowAgg{}
	r.key = b.key(&r)
	return r
}

func (b *Board) applyBan(ev *rankd.Event) error {
	id := ev.ID
	banned := !ev.Delete
	if ev.Ban != nil {
		if ev.Ban.TeamID != "" {
			id = ev.Ban.TeamID
		}
		banned = ev.Ban.Banned && !ev.Delete
	}
	t, ok := b.teamIdx[id]
	if !ok || !b.teams[t].defined {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "ban: unknown team %q", id)
	}
	tm := &b.teams[t]
	b.setTeam(t, tm.info, true, banned)
	return nil
}

// setTeam changes a team's definition, visibility or ban, moving it on or off every board at once.
func (b *Board) setTeam(t int32, info rankd.Team, defined, banned bool) {
	tm := &b.teams[t]
	hiddenGroup := b.inHiddenGroup(info.GroupIDs)
	if tm.defined == defined && tm.banned == banned && tm.hiddenGroup == hiddenGroup && equalTeam(&tm.info, &info) {
		return
	}
	wasRanked := b.ranked(t)
	oldGroups := tm.groups
	reorder := tm.info.ShownName() != info.ShownName()
	if wasRanked {
		// Off every index at commit: a new name changes the tie order the indexes were built with, and the
		// groups may change.
		b.markAll(t)
		tm.leave, tm.leaveGroups = b.epoch, oldGroups
	}
	tm.info, tm.defined, tm.banned, tm.hiddenGroup = info, defined, banned, hiddenGroup
	// A team that was on no list of solvers (deleted) missed the changes of CTF values: its totals are
	// recomputed from its cells.
	tm.accOK = [2]bool{}
	b.flags[t] = 0
	if defined {
		b.flags[t] |= flagDefined
		if !info.Hidden && !banned && !hiddenGroup {
			b.flags[t] |= flagRanked
		}
	}
	tm.groups = tm.groups[:0:0]
	for _, gid := range info.GroupIDs {
		tm.groups = append(tm.groups, b.group(gid))
	}
	if reorder {
		b.placeName(t)
	}
	nowRanked := b.ranked(t)
	b.markAll(t) // commit puts the row back where it now belongs
	// Kept sorted, so rows are marked in the same order however the board got here.
	at, found := slices.BinarySearch(b.unranked, t)
	switch {
	case found && (nowRanked || !defined):
		b.unranked = slices.Delete(b.unranked, at, at+1)
	case !found && defined && !nowRanked:
		b.unranked = slices.Insert(b.unranked, at, t)
	}
	if wasRanked != nowRanked || (nowRanked && reorder) {
		// Who counts for first to solve and for CTF solver counts changed.
		b.recountTeamProblems(t)
	}
}

func (b *Board) applyState(ev *rankd.Event) error {
	if ev.Delete || ev.State == nil {
		b.state = rankd.State{}
	} else {
		b.state = *ev.State
	}
	b.updateWindows()
	return nil
}

// publicHideFrom returns the time from which the public view hides verdicts.
func (b *Board) publicHideFrom() int64 {
	switch {
	case b.state.Thawed != nil:
		// Not a finalized state alone: the CCS lets results be finalized before the thaw, and the public
		// board stays frozen until then (the World Finals reveal the finalized results at the ceremony).
		return score.Never
	case b.contest.HidesUntilEnd():
		if b.state.Ended != nil {
			return score.Never
		}
		return math.MinInt64
	}
	return ms(rankd.FreezeOf(&b.contest, b.state))
}

// updateWindows recomputes the public view when what it hides changed (a thaw, the end of a hidden contest).
func (b *Board) updateWindows() {
	h := b.publicHideFrom()
	if b.views[public].hideFrom == h {
		return
	}
	b.views[public].hideFrom = h
	b.recomputeView(public)
}
