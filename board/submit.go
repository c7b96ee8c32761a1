package board

import (
	"slices"

	"rankd"
	"rankd/score"
)

// locate returns the cell holding the submission with the id.
func (b *Board) locate(id string) (int, bool) {
	key, numeric := idKey(id)
	return b.locateKey(id, key, numeric)
}

// locateKey is locate given the id's key.
func (b *Board) locateKey(id string, key uint64, numeric bool) (int, bool) {
	var loc uint32
	switch {
	case !numeric:
		loc = b.subStr[id]
	case key < uint64(len(b.subDense)):
		loc = b.subDense[key]
	default:
		loc = b.subNum[key]
	}
	return int(loc) - 1, loc != 0
}

// place records the cell of a submission (cell -1: forget it).
func (b *Board) place(id string, key uint64, numeric bool, cell int) {
	loc := uint32(cell + 1)
	switch {
	case !numeric:
		if cell < 0 {
			delete(b.subStr, id)
		} else {
			b.subStr[id] = loc
		}
	case key < uint64(len(b.subDense)):
		b.subDense[key] = loc
	case cell >= 0 && key < 2*uint64(b.stats.Submissions)+1<<16:
		// Ids are usually dense counters: a slice costs 4 bytes where a map entry costs 20 to 40. It doubles
		// when it grows, so a million submissions copy it a few times only.
		n := max(key+1, uint64(len(b.subDense))*2)
		dense := make([]uint32, n)
		copy(dense, b.subDense)
		for k, v := range b.subNum {
			if k < n {
				dense[k] = v
				delete(b.subNum, k)
			}
		}
		b.subDense = dense
		b.subDense[key] = loc
	case cell < 0:
		delete(b.subNum, key)
	default:
		b.subNum[key] = loc
	}
}

func (b *Board) applySubmission(ev *rankd.Event) error {
	if err := b.needContest("submission"); err != nil {
		return err
	}
	id := ev.ID
	if !ev.Delete {
		id = ev.Submission.ID
	}
	if id == "" {
		return rankd.Errorf(rankd.EINVALID, "submission: id is required")
	}
	key, numeric := idKey(id)
	old, exists := b.locateKey(id, key, numeric)
	if ev.Delete {
		if !exists {
			return nil
		}
		s := b.take(old, key)
		b.keepGone(&s, id, key)
		delete(b.subtasks, key)
		delete(b.older, key)
		b.place(id, key, numeric, -1)
		b.stats.Submissions--
		b.recompute(old)
		b.listChanged(old, s.time, false)
		return nil
	}
	in := ev.Submission
	t, ok := b.teamOf(in.TeamID)
	if !ok || b.flags[t]&flagDefined == 0 {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "submission %s: unknown team %q", in.ID, in.TeamID)
	}
	p, ok := b.probIdx[in.ProblemID]
	if !ok || b.problems[p].deleted {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "submission %s: unknown problem %q", in.ID, in.ProblemID)
	}
	at := ms(in.Time)
	ci := int(t)*len(b.problems) + p
	s := sub{id: key, time: at}
	if exists {
		if old == ci && b.sub(b.find(old, key)).time == at {
			return nil // a duplicate
		}
		// A replaced submission moves to its new place, keeping its judgement. Within its cell the cell is
		// recomputed once, after the move: a frozen submission moved to another frozen time must not show the
		// public a change (one less pending, then one more) that ends where it began.
		s = b.take(old, key)
		s.time = at
		if old != ci {
			b.recompute(old)
			b.listChanged(old, at, false)
		}
	} else {
		b.stats.Submissions++
	}
	judged := !exists && b.comeBack(&s, key)
	b.place(id, key, numeric, ci)
	b.listChanged(ci, at, false)
	if !exists && !judged && b.appendPending(ci, s) {
		return nil
	}
	b.insert(ci, s)
	b.recompute(ci)
	return nil
}

// listChanged records that the submissions list shows a submission of cell ci, made at time at, otherwise:
// its coming, going or moving, or with verdict its verdict. The views whose list shows that (the jury's,
// the team's own, and the public's unless the verdict is one it does not see) take their next sequence
// number even when no cell shows it (a submission after the cell's solve): a list kept by sequence number
// would otherwise stay as it was. The public view of a team not on it does not move (mark).
func (b *Board) listChanged(ci int, at int64, verdict bool) {
	t := int32(ci / len(b.problems))
	b.mark(jury, t)
	b.teams[t].ownDirty = b.epoch
	if !verdict || at < b.hideFrom(public, ci) {
		b.mark(public, t)
	}
}

// appendPending adds a new, unjudged submission s to cell ci when it comes after every submission of the
// cell, the usual case, and reports whether it did. Its cell then changes in a way known without reading
// the cell's submissions again: one more pending submission, unless it follows a solve it cannot change.
func (b *Board) appendPending(ci int, s sub) bool {
	c := &b.cells[ci]
	if c.n > 0 && (s.time < c.last || s.time == c.last && subCmp(b.sub(c.tail), &s) > 0) {
		return false // not after the last: inserted in its place
	}
	s.prev = c.tail
	c.tail, c.last = b.newSub(s), s.time
	b.appended(ci, c.tail)
	c.n++
	if s.time < 0 || s.time >= b.dur {
		return true // outside the contest: counts nowhere
	}
	np := len(b.problems)
	t, p := int32(ci/np), ci%np
	solves := b.contest.Rules == rankd.ICPC || b.contest.Rules == rankd.CTF
	for v := range b.views {
		r := &c.res[v]
		if solves && r.Solved && s.time < b.hideFrom(v, ci) {
			continue // after a solve only a submission the view cannot see the verdict of shows as pending
		}
		old := *r
		r.Pending++
		// Before a solve, or without one, it may be the earliest pending submission (first to solve waits).
		if (!solves || !r.Solved) && r.FirstPending == score.Never {
			r.FirstPending = s.time
		}
		b.cellChanged(v, t, p, &old, r)
	}
	return true
}

func (b *Board) applyJudgement(ev *rankd.Event) error {
	if err := b.needContest("judgement"); err != nil {
		return err
	}
	if ev.Delete {
		id := ev.ID
		if ev.Judgement != nil && ev.Judgement.ID != "" {
			id = ev.Judgement.ID
		}
		b.unjudge(id)
		return nil
	}
	j := ev.Judgement
	if j.ID == "" {
		return rankd.Errorf(rankd.EINVALID, "judgement: id is required")
	}
	skey, snum := idKey(j.SubmissionID)
	ci, ok := b.locateKey(j.SubmissionID, skey, snum)
	if !ok {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: unknown submission %q", j.ID, j.SubmissionID)
	}
	if j.TypeID == "" {
		// A later version replaces the earlier one: a judgement that gave a verdict gives none now, as a
		// reader of the same log sees it. A new judgement without one (a rejudge running) changes nothing.
		b.unjudge(j.ID)
		b.stats.NoVerdict++
		return nil
	}
	jt, ok := b.jtypeIdx[j.TypeID]
	if !ok {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: unknown judgement type %q", j.ID, j.TypeID)
	}
	if !(j.Score >= 0) { // NaN too, which Go callers can give
		return rankd.Errorf(rankd.EINVALID, "judgement %s: negative score", j.ID)
	}
	rounded := score.Round(j.Score) == j.Score
	for _, st := range j.SubtaskScores {
		if !(st >= 0) {
			return rankd.Errorf(rankd.EINVALID, "judgement %s: negative subtask score", j.ID)
		}
		rounded = rounded && score.Round(st) == st
	}
	if !rounded {
		// Counted to the millionth, as totals are: float noise (0.30000000000000004) is not shown, and a
		// millionth of a point less is none.
		jr := *j
		jr.Score, jr.SubtaskScores = score.Round(j.Score), make([]float64, len(j.SubtaskScores))
		for k, st := range j.SubtaskScores {
			jr.SubtaskScores[k] = score.Round(st)
		}
		j = &jr
	}
	jid, _ := idKey(j.ID)
	if prev, _, _, ok := b.judgedSub(jid); ok && prev != skey {
		// The judgement judged another submission before: its new version replaces that one.
		b.unjudge(j.ID)
	}
	b.setJudgedSub(jid, j.SubmissionID, skey, snum)
	c := &b.cells[ci]
	at := b.find(ci, skey)
	s := b.sub(at)
	nj := judgement{id: jid, start: ms(j.StartTime), jtype: jt, score: j.Score}
	was := b.jtypes[s.jtype].class
	switch {
	case s.jtype != 0 && s.jID == jid:
		if nj.start == s.jStart && s.jtype == jt && s.score == j.Score && slices.Equal(b.subtasks[skey], j.SubtaskScores) {
			b.stats.Stale++ // a repeat
			return nil
		}
		nj.subtasks = slices.Clone(j.SubtaskScores)
		if s.hasOlder {
			// A new version of the counting judgement, which may now start before one kept aside.
			b.keepOlder(s, skey, nj)
			b.promote(s, skey)
		} else {
			b.count(s, skey, &nj)
		}
	case s.jtype != 0 && !newer(nj.start, jid, s.jStart, s.jID):
		// Older than the judgement that counts: kept aside, in case that one goes.
		nj.subtasks = slices.Clone(j.SubtaskScores)
		b.keepOlder(s, skey, nj)
		b.stats.Stale++
		return nil
	default:
		// It counts now; the judgement it replaces (a rejudge) is kept aside.
		nj.subtasks = slices.Clone(j.SubtaskScores)
		if s.jtype != 0 {
			b.keepOlder(s, skey, b.counting(s, skey))
		}
		if s.hasOlder {
			b.dropOlder(s, skey, jid)
		}
		b.count(s, skey, &nj)
	}
	b.stats.Judgements++
	b.listChanged(ci, s.time, true)
	// A verdict counts only within the contest, and the public view does not see it from hideFrom on: the
	// views that cannot see it keep their cells as they are.
	if s.time < 0 || s.time >= b.dur {
		return nil
	}
	subs := []score.Sub(nil) // gathered once, if a view needs them
	for v := range b.views {
		if s.time >= b.views[v].hideFrom && !b.unveiled(v, ci) {
			continue
		}
		var r score.Result
		if b.judged(ci, v, at, was, &r) {
			b.setResult(ci, v, &r)
			continue
		}
		if subs == nil {
			subs = b.gather(c)
		}
		b.setCell(ci, v, subs)
	}
	return nil
}

// Admit refuses an event that Apply takes but rankd refuses from now on: a rule that came after logs holding
// such events were stored. A server asks it of each event it is sent, before applying it; a replay of a log
// does not, so that every log stored before still loads as it did.
func (b *Board) Admit(ev *rankd.Event) error {
	switch {
	case ev.Delete:
	case ev.Type == rankd.EventJudgement && ev.Judgement != nil:
		if ci, ok := b.locate(ev.Judgement.SubmissionID); ok {
			return b.checkLimits(ev.Judgement, ci%len(b.problems))
		}
	case ev.Type == rankd.EventProblem && ev.Problem != nil:
		_, known := b.probIdx[ev.Problem.ID]
		if err := admitID("problem", ev.Problem.ID, known); err != nil {
			return err
		}
		if err := checkScores(ev.Problem); err != nil {
			return err
		}
		if pr := ev.Problem; pr.Value > MaxPoints || pr.Minimum > MaxPoints {
			return rankd.Errorf(rankd.EINVALID, "problem %s: value %d, minimum %d: at most %d points", pr.ID, pr.Value, pr.Minimum, int64(MaxPoints))
		}
		return checkDEFCON(ev.Problem)
	case ev.Type == rankd.EventContest && ev.Contest != nil:
		for i, bonus := range ev.Contest.FirstBlood {
			if bonus > MaxPoints {
				return rankd.Errorf(rankd.EINVALID, "contest %s: first blood bonus %d is %d: at most %d points", ev.Contest.ID, i+1, bonus, int64(MaxPoints))
			}
		}
	case ev.Type == rankd.EventTeam && ev.Team != nil:
		_, known := b.teamIdx[ev.Team.ID]
		return admitID("team", ev.Team.ID, known)
	case ev.Type == rankd.EventGroup && ev.Group != nil:
		_, known := b.groupIdx[ev.Group.ID]
		return admitID("group", ev.Group.ID, known)
	case ev.Type == rankd.EventOrganization && ev.Organization != nil:
		_, known := b.orgs[ev.Organization.ID]
		return admitID("organization", ev.Organization.ID, known)
	case ev.Type == rankd.EventJudgementType && ev.JudgementType != nil:
		_, known := b.jtypeIdx[ev.JudgementType.ID]
		return admitID("judgement type", ev.JudgementType.ID, known)
	case ev.Type == rankd.EventReveal && ev.Reveal != nil && b.hasRules:
		return b.admitReveal(ev.Reveal)
	}
	return nil
}

// admitID refuses a new object (not known to the board) whose id is not a CCS identifier (rankd.ValidID). A
// known one keeps its id: a log stored before the rule may have given it another.
func admitID(kind, id string, known bool) error {
	if known || rankd.ValidID(id) {
		return nil
	}
	return rankd.Errorf(rankd.EINVALID, "%s id %q: a new %s's id is %s: another could not be used in the API's addresses",
		kind, id, kind, rankd.IDRule)
}

// checkLimits refuses a judgement scoring more than problem p allows, when the problem says how much: its
// max_score, or its subtasks (their number, each one's maximum and their sum). Counted, such a score would
// rank a team above every team that got full marks. Scores are compared as they are counted, to the
// millionth of a point, so that subtask maximums summing to 99.99999999999999 in binary still allow 100.
func (b *Board) checkLimits(j *rankd.Judgement, p int) error {
	pr := &b.problems[p].info
	scored := j.Score > 0 || slices.ContainsFunc(j.SubtaskScores, func(s float64) bool { return s > 0 })
	if jt, ok := b.jtypeIdx[j.TypeID]; ok && scored && b.jtypes[jt].class == score.Free &&
		(b.contest.Rules == rankd.OI || b.contest.Rules == rankd.IOI) {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: its type %s neither solves nor counts as a try "+
			"(solved and penalty both false: a compile error, which scores nothing), so its score would not count; "+
			"define %s with penalty true (a try, which costs nothing in OI) or solved true", j.ID, j.TypeID, j.TypeID)
	}
	if len(j.SubtaskScores) > 0 && j.Score != 0 {
		var sum float64
		for _, s := range j.SubtaskScores {
			sum += s
		}
		if score.Round(sum) != score.Round(j.Score) {
			return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: score %g is not the sum %g of its subtask scores, "+
				"which is what counts: send the sum, or no score", j.ID, j.Score, score.Round(sum))
		}
	}
	if pr.MaxScore > 0 && score.Round(j.Score) > score.Round(pr.MaxScore) {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: score %g above the maximum score %g of problem %s", j.ID, j.Score, pr.MaxScore, pr.ID)
	}
	if len(pr.Subtasks) == 0 {
		return nil
	}
	if len(j.SubtaskScores) > len(pr.Subtasks) {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: %d subtask scores, but problem %s has %d subtasks", j.ID, len(j.SubtaskScores), pr.ID, len(pr.Subtasks))
	}
	var total float64
	for k, top := range pr.Subtasks {
		total += top
		if k < len(j.SubtaskScores) && score.Round(j.SubtaskScores[k]) > score.Round(top) {
			return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: score %g of subtask %d above its maximum %g in problem %s", j.ID, j.SubtaskScores[k], k+1, top, pr.ID)
		}
	}
	if score.Round(j.Score) > score.Round(total) {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: score %g above the maximum score %g of problem %s (the sum of its subtasks)", j.ID, j.Score, score.Round(total), pr.ID)
	}
	return nil
}

// judged sets r to the result of cell ci in view v after the submission at at, which the view sees, got a
// new verdict (it had was), and reports whether that follows from the cell's result without reading its
// other submissions: the usual judgement of a cell's latest submission, any judgement after a solve, and
// most judgements of a big cell (see judgedWithin). r is the caller's: a result returned by value is
// copied whole after being written field by field (see sameShown).
func (b *Board) judged(ci, v int, at subRef, was score.Verdict, r *score.Result) bool {
	c := &b.cells[ci]
	switch b.contest.Rules {
	case rankd.ICPC, rankd.CTF:
	case rankd.OI:
		if b.contest.OIMode == rankd.OILast || was != score.Pending {
			return false
		}
		return b.judgedWithin(ci, v, at, was, r)
	default:
		return false
	}
	s := b.sub(at)
	*r = c.res[v]
	switch {
	case r.Solved && s.time > r.Time:
		return true // after the solve, whatever its verdict, it does not count
	case r.Solved:
		return false
	case was != score.Pending || at != c.tail:
		return b.judgedWithin(ci, v, at, was, r)
	}
	// The latest submission of an unsolved cell was pending: every other submission is before it, so the
	// earliest pending one stays earliest, and every rejected one is a try before it.
	r.Pending--
	if r.Pending == 0 {
		r.FirstPending = score.Never
	}
	switch b.jtypes[s.jtype].class {
	case score.Rejected:
		r.Judged++
	case score.Accepted:
		r.Solved, r.Time = true, s.time
		if b.contest.Rules == rankd.ICPC {
			r.Penalty = s.time/60000 + int64(r.Judged)*b.penalty
		}
		r.Judged++
	}
	return true
}

// judgedWithin is judged for a submission that is not the usual case: in an unsolved ICPC or CTF cell, any
// verdict but a solve (which needs the tries before it); in an OI cell counting its best submission, a first
// verdict. The counts follow from the verdicts, the earliest pending submission, when it was the one judged,
// from the submissions from its time on. A judge often gives the verdict of a submission after the same
// team sent another of the problem: reading the whole cell again then cost a fifth of the judgements a
// cache miss per submission.
func (b *Board) judgedWithin(ci, v int, at subRef, was score.Verdict, r *score.Result) bool {
	x := b.indexOf(ci)
	s := b.sub(at)
	*r = b.cells[ci].res[v]
	now := b.jtypes[s.jtype].class
	if was == score.Accepted {
		return false
	}
	if b.contest.Rules == rankd.OI {
		if now != score.Free {
			r.Judged++
			if s.score > r.Score || s.score == r.Score && r.Score > 0 && s.time < r.Time {
				r.Score, r.Time = s.score, s.time
			}
			r.Solved = r.Score > 0
		}
	} else {
		if now == score.Accepted {
			return false
		}
		if was == score.Rejected {
			r.Judged--
		}
		if now == score.Rejected {
			r.Judged++
		}
	}
	if was != score.Pending {
		return true
	}
	r.Pending--
	switch {
	case r.Pending == 0:
		r.FirstPending = score.Never
	case s.time == r.FirstPending:
		r.FirstPending = b.firstPending(x, v, ci, s)
	}
	return true
}

// firstPending returns the time of the earliest submission of cell ci that view v sees as pending, s
// excepted, given that none before s's time is: submissions within the contest without a verdict, or that
// v does not see the verdict of. x is the cell's index, nil for a small cell.
func (b *Board) firstPending(x *cellIndex, v, ci int, s *sub) int64 {
	hide := b.hideFrom(v, ci)
	pending := func(o *sub) bool {
		return o != s && o.time >= 0 && o.time < b.dur && (o.time >= hide || b.jtypes[o.jtype].class == score.Pending)
	}
	if x == nil {
		// From the cell's last submission back to s's time: the last one found is the earliest.
		first := int64(score.Never)
		for r := b.cells[ci].tail; r != 0; {
			o := b.sub(r)
			if o.time < s.time {
				break
			}
			if pending(o) {
				first = o.time
			}
			r = o.prev
		}
		return first
	}
	i := x.place(b, s)
	for i > 0 && b.sub(x.refs[i-1]).time == s.time {
		i--
	}
	for _, r := range x.refs[i:] {
		if o := b.sub(r); pending(o) {
			return o.time
		}
	}
	return score.Never
}

// setResult sets cell ci of view v to r and records what changed.
func (b *Board) setResult(ci, v int, r *score.Result) {
	c := &b.cells[ci]
	if !sameResult(r, &c.res[v]) {
		np := len(b.problems)
		old := c.res[v]
		setRes(&c.res[v], r)
		b.cellChanged(v, int32(ci/np), ci%np, &old, &c.res[v])
	}
}

// cellResult applies the contest's rules to the submissions of cell ci in one view.
func (b *Board) cellResult(subs []score.Sub, v, ci int) score.Result {
	p := ci % len(b.problems)
	w := score.Window{Duration: b.dur, HideFrom: b.hideFrom(v, ci)}
	switch b.contest.Rules {
	case rankd.OI:
		return score.OI(subs, w, b.contest.OIMode == rankd.OILast)
	case rankd.IOI:
		n := len(b.problems[p].info.Subtasks)
		if cap(b.best) < n {
			b.best = make([]float64, n)
		}
		return score.IOI(subs, w, n, b.best)
	case rankd.CTF:
		return score.CTF(subs, w)
	}
	return score.ICPC(subs, w, b.penalty)
}

// recompute recomputes cell ci in both views and records what changed.
func (b *Board) recompute(ci int) {
	subs := b.gather(&b.cells[ci])
	for v := range b.views {
		b.setCell(ci, v, subs)
	}
}

// setCell computes cell ci of view v from its gathered submissions and records what changed.
func (b *Board) setCell(ci, v int, subs []score.Sub) {
	r := b.cellResult(subs, v, ci)
	b.setResult(ci, v, &r)
}

// unjudge takes the judgement with the id from the submission it judges (a deletion, or a new version of it
// that judges another submission): the latest of the submission's other judgements counts instead, or none.
func (b *Board) unjudge(id string) {
	jkey, _ := idKey(id)
	skey, sid, snum, ok := b.judgedSub(jkey)
	if !ok {
		return // never judged anything with a verdict: nothing changes
	}
	b.forgetJudged(jkey)
	ci, ok := b.locateKey(sid, skey, snum)
	if !ok {
		b.dropGone(skey, jkey) // its submission is deleted: it does not come back with it
		return
	}
	s := b.sub(b.find(ci, skey))
	switch {
	case s.jtype != 0 && s.jID == jkey:
		b.promote(s, skey)
		b.stats.Judgements++
		b.recompute(ci)
		b.listChanged(ci, s.time, true)
	case s.hasOlder:
		b.dropOlder(s, skey, jkey)
	}
}

// MaxPoints bounds a CTF challenge's value and a first-blood bonus: a row's total of a thousand challenges
// stays exact in JSON's numbers (2^53), far from int64's overflow (a value of 2^63-1 showed totals below 0).
const MaxPoints = 1e12

// checkScores refuses a problem's negative maximums, and a max_score other than the sum of its subtasks'
// maximums: a judgement within the subtasks then scored above max_score, and one within max_score could not
// be sent at all.
func checkScores(pr *rankd.Problem) error {
	var sum float64
	for k, top := range pr.Subtasks {
		if !(top >= 0) {
			return rankd.Errorf(rankd.EINVALID, "problem %s: subtask %d has the maximum %g: want 0 or more", pr.ID, k+1, top)
		}
		sum += top
	}
	switch {
	case !(pr.MaxScore >= 0):
		return rankd.Errorf(rankd.EINVALID, "problem %s: max_score %g: want 0 or more", pr.ID, pr.MaxScore)
	case pr.MaxScore > 0 && len(pr.Subtasks) > 0 && score.Round(sum) != score.Round(pr.MaxScore):
		return rankd.Errorf(rankd.EINVALID, "problem %s: max_score %g is not the sum %g of its subtasks' maximums: "+
			"leave it out, or make them agree", pr.ID, pr.MaxScore, score.Round(sum))
	}
	return nil
}

// checkDEFCON refuses bounds of a DEF CON challenge other than its formula's: taken, they would read as the
// challenge's bounds and change nothing. The formula's own are taken, as generated feeds and the admin page
// write them.
func checkDEFCON(pr *rankd.Problem) error {
	if pr.Function == rankd.ValueDEFCON && (pr.Value != 0 && pr.Value != score.DEFCONInitial || pr.Minimum != 0 && pr.Minimum != score.DEFCONFloor) {
		return rankd.Errorf(rankd.EINVALID, "problem %s: the DEF CON formula's bounds are fixed (%d to %d): leave value and minimum out (or give %d and %d), not %d and %d",
			pr.ID, score.DEFCONFloor, score.DEFCONInitial, score.DEFCONInitial, score.DEFCONFloor, pr.Value, pr.Minimum)
	}
	return nil
}
