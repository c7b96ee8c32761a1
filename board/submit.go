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
		// Ids are usually dense counters: a slice costs 4 bytes where a map entry costs 20 to 40.
		n := max(key+1, uint64(len(b.subDense))*5/4)
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

// find returns the position of the submission with the id key in cell c, or -1.
func (c *cell) find(key uint64) int {
	for i := range c.subs {
		if c.subs[i].id == key {
			return i
		}
	}
	return -1
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
		b.take(old, key)
		delete(b.subtasks, key)
		b.place(id, key, numeric, -1)
		b.stats.Submissions--
		b.recompute(old)
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
		c := &b.cells[old]
		if i := c.find(key); old == ci && c.subs[i].time == at {
			return nil // a duplicate
		}
		// A replaced submission moves to its new place, keeping its judgement.
		s = b.take(old, key)
		s.time = at
		b.recompute(old)
	} else {
		b.stats.Submissions++
	}
	b.place(id, key, numeric, ci)
	if !exists && b.appendPending(ci, s) {
		return nil
	}
	b.insert(ci, s)
	b.recompute(ci)
	return nil
}

// appendPending adds a new, unjudged submission s to cell ci when it comes after every submission of the
// cell, the usual case, and reports whether it did. Its cell then changes in a way known without reading
// the cell's submissions again: one more pending submission, unless it follows a solve it cannot change.
func (b *Board) appendPending(ci int, s sub) bool {
	c := &b.cells[ci]
	n := len(c.subs)
	if n > 0 && s.time <= c.subs[n-1].time {
		return false
	}
	if n == cap(c.subs) {
		c.subs = slices.Grow(c.subs, max(4, n))
	}
	c.subs = append(c.subs, s)
	if s.time < 0 || s.time >= b.dur {
		return true // outside the contest: counts nowhere
	}
	np := len(b.problems)
	t, p := int32(ci/np), ci%np
	solves := b.contest.Rules == rankd.ICPC || b.contest.Rules == rankd.CTF
	for v := range b.views {
		r := c.res[v]
		switch {
		case solves && r.Solved:
			// After a solve only a submission the view cannot see the verdict of shows as pending.
			if s.time < b.views[v].hideFrom {
				continue
			}
			r.Pending++
		default:
			r.Pending++
			if r.FirstPending == score.Never {
				r.FirstPending = s.time
			}
		}
		old := c.res[v]
		c.res[v] = r
		b.cellChanged(v, t, p, &old, &r)
	}
	return true
}

// subCmp orders submissions within a cell: by time, then by id key.
func subCmp(x, y sub) int {
	switch {
	case x.time < y.time:
		return -1
	case x.time > y.time:
		return 1
	case x.id < y.id:
		return -1
	case x.id > y.id:
		return 1
	}
	return 0
}

// insert puts s into cell ci in order; submissions mostly arrive in time order, so this is usually an append.
func (b *Board) insert(ci int, s sub) {
	c := &b.cells[ci]
	n := len(c.subs)
	if n == 0 && cap(c.subs) == 0 {
		c.subs = make([]sub, 0, 4) // a tried cell gets a few tries: skip the copies of growing from one
	}
	if n == 0 || subCmp(c.subs[n-1], s) < 0 {
		c.subs = append(c.subs, s)
		return
	}
	at, _ := slices.BinarySearchFunc(c.subs, s, subCmp)
	c.subs = slices.Insert(c.subs, at, s)
}

// take removes the submission with the id key from cell ci and returns it.
func (b *Board) take(ci int, key uint64) sub {
	c := &b.cells[ci]
	i := c.find(key)
	s := c.subs[i]
	c.subs = slices.Delete(c.subs, i, i+1)
	return s
}

func (b *Board) applyJudgement(ev *rankd.Event) error {
	if err := b.needContest("judgement"); err != nil {
		return err
	}
	if ev.Delete {
		// A deleted judgement would need every judgement of its submission to fall back to; the log keeps
		// them but the board only the counting one. CCS feeds do not delete judgements; refuse loudly.
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: deleting a judgement is not supported; post a new judgement (rejudge)", ev.ID)
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
		b.stats.NoVerdict++
		return nil
	}
	jt, ok := b.jtypeIdx[j.TypeID]
	if !ok {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "judgement %s: unknown judgement type %q", j.ID, j.TypeID)
	}
	if j.Score < 0 {
		return rankd.Errorf(rankd.EINVALID, "judgement %s: negative score", j.ID)
	}
	for _, st := range j.SubtaskScores {
		if st < 0 {
			return rankd.Errorf(rankd.EINVALID, "judgement %s: negative subtask score", j.ID)
		}
	}
	c := &b.cells[ci]
	s := &c.subs[c.find(skey)]
	jid, _ := idKey(j.ID)
	start := ms(j.StartTime)
	if s.jtype != 0 {
		if start < s.jStart || (start == s.jStart && jid < s.jID) {
			b.stats.Stale++
			return nil
		}
		if start == s.jStart && jid == s.jID && s.jtype == jt && s.score == j.Score &&
			slices.Equal(b.subtasks[skey], j.SubtaskScores) {
			b.stats.Stale++
			return nil
		}
	}
	s.jID, s.jStart, s.jtype, s.score = jid, start, jt, j.Score
	// Kept whatever the rules: a contest redefined as IOI needs them.
	if len(j.SubtaskScores) > 0 {
		b.subtasks[skey] = slices.Clone(j.SubtaskScores)
	} else {
		delete(b.subtasks, skey)
	}
	b.stats.Judgements++
	// A verdict counts only within the contest, and the public view does not see it from hideFrom on: the
	// views that cannot see it keep their cells as they are.
	switch {
	case s.time < 0 || s.time >= b.dur:
	case s.time >= b.views[public].hideFrom:
		b.recomputeCell(ci, jury)
	default:
		b.recompute(ci)
	}
	return nil
}

// gather copies a cell's submissions into the scratch buffer, as the rules see them.
func (b *Board) gather(c *cell) []score.Sub {
	buf := b.subBuf[:0]
	ioi := b.contest.Rules == rankd.IOI
	for i := range c.subs {
		s := &c.subs[i]
		sub := score.Sub{Time: s.time, Verdict: b.jtypes[s.jtype].class, Score: s.score}
		if ioi {
			sub.Subtasks = b.subtasks[s.id]
		}
		buf = append(buf, sub)
	}
	b.subBuf = buf
	return buf
}

// cellResult applies the contest's rules to a cell's submissions in one view.
func (b *Board) cellResult(subs []score.Sub, v, p int) score.Result {
	w := score.Window{Duration: b.dur, HideFrom: b.views[v].hideFrom}
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

// recomputeCell recomputes cell ci in view v alone.
func (b *Board) recomputeCell(ci, v int) {
	b.setCell(ci, v, b.gather(&b.cells[ci]))
}

// setCell computes cell ci of view v from its gathered submissions and records what changed.
func (b *Board) setCell(ci, v int, subs []score.Sub) {
	np := len(b.problems)
	t, p := int32(ci/np), ci%np
	c := &b.cells[ci]
	r := b.cellResult(subs, v, p)
	if r != c.res[v] {
		old := c.res[v]
		c.res[v] = r
		b.cellChanged(v, t, p, &old, &r)
	}
}
