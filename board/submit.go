package board

import (
	"slices"

	"rankd"
	"rankd/score"
)

func (b *Board) lookupSub(id string) (uint32, bool) {
	if n, ok := parseNumeric(id); ok {
		i, ok := b.subNum[n]
		return i, ok
	}
	i, ok := b.subStr[id]
	return i, ok
}

func (b *Board) applySubmission(ev *rankd.Event) error {
	if err := b.needContest("submission"); err != nil {
		return err
	}
	if ev.Delete {
		i, ok := b.lookupSub(ev.ID)
		if !ok || b.subs[i].flags&subDeleted != 0 {
			return nil
		}
		s := &b.subs[i]
		b.unlink(i)
		s.flags |= subDeleted
		b.stats.Submissions--
		b.recompute(s.team, int(s.problem))
		return nil
	}
	sub := ev.Submission
	if sub.ID == "" {
		return rankd.Errorf(rankd.EINVALID, "submission: id is required")
	}
	t, ok := b.teamIdx[sub.TeamID]
	if !ok || !b.teams[t].defined {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "submission %s: unknown team %q", sub.ID, sub.TeamID)
	}
	p, ok := b.probIdx[sub.ProblemID]
	if !ok || b.problems[p].deleted {
		return rankd.Errorf(rankd.EUNPROCESSABLE, "submission %s: unknown problem %q", sub.ID, sub.ProblemID)
	}
	at := ms(sub.Time)
	if i, ok := b.lookupSub(sub.ID); ok {
		s := &b.subs[i]
		if s.team == t && int(s.problem) == p && s.time == at && s.flags&subDeleted == 0 {
			return nil // a duplicate
		}
		// A replaced submission: move it to its new cell, keeping its judgement.
		if s.flags&subDeleted == 0 {
			b.unlink(i)
			b.recompute(s.team, int(s.problem))
			b.countOutside(s.time, -1)
		} else {
			b.stats.Submissions++
		}
		s.team, s.problem, s.time, s.flags = t, uint16(p), at, s.flags&^subDeleted
		b.link(i)
		b.countOutside(at, 1)
		b.recompute(t, p)
		return nil
	}
	key, numeric := idKey(sub.ID)
	i := uint32(len(b.subs))
	b.subs = append(b.subs, subRec{id: key, time: at, team: t, problem: uint16(p)})
	if numeric {
		b.subNum[key] = i
	} else {
		b.subStr[sub.ID] = i
	}
	b.stats.Submissions++
	b.countOutside(at, 1)
	b.link(i)
	b.recompute(t, p)
	return nil
}

func (b *Board) countOutside(at int64, n int) {
	if at < 0 || at >= b.dur {
		b.stats.Outside += n
	}
}

// subLess orders submissions within a cell: by time, then by id key.
func (b *Board) subCmp(x, y uint32) int {
	sx, sy := &b.subs[x], &b.subs[y]
	switch {
	case sx.time < sy.time:
		return -1
	case sx.time > sy.time:
		return 1
	case sx.id < sy.id:
		return -1
	case sx.id > sy.id:
		return 1
	}
	return 0
}

// link inserts submission i into its cell's list, in order; submissions mostly arrive in time order, so
// this is usually an append.
func (b *Board) link(i uint32) {
	s := &b.subs[i]
	c := &b.cells[int(s.team)*len(b.problems)+int(s.problem)]
	n := len(c.subs)
	if n == 0 || b.subCmp(c.subs[n-1], i) < 0 {
		c.subs = append(c.subs, i)
		return
	}
	at, _ := slices.BinarySearchFunc(c.subs, i, b.subCmp)
	c.subs = slices.Insert(c.subs, at, i)
}

func (b *Board) unlink(i uint32) {
	s := &b.subs[i]
	c := &b.cells[int(s.team)*len(b.problems)+int(s.problem)]
	if at := slices.Index(c.subs, i); at >= 0 {
		c.subs = slices.Delete(c.subs, at, at+1)
	}
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
	i, ok := b.lookupSub(j.SubmissionID)
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
	s := &b.subs[i]
	jid, _ := idKey(j.ID)
	start := ms(j.StartTime)
	if s.flags&subJudged != 0 {
		if start < s.jStart || (start == s.jStart && jid < s.jID) {
			b.stats.Stale++
			return nil
		}
		if start == s.jStart && jid == s.jID && s.jtype == jt && s.score == j.Score &&
			slices.Equal(b.subtasks[i], j.SubtaskScores) {
			b.stats.Stale++
			return nil
		}
	}
	s.jID, s.jStart, s.jtype, s.score = jid, start, jt, j.Score
	s.flags |= subJudged
	if b.contest.Rules == rankd.IOI {
		if len(j.SubtaskScores) > 0 {
			b.subtasks[i] = slices.Clone(j.SubtaskScores)
		} else {
			delete(b.subtasks, i)
		}
	}
	b.stats.Judgements++
	if s.flags&subDeleted == 0 {
		b.recompute(s.team, int(s.problem))
	}
	return nil
}

// gather copies a cell's submissions into the scratch buffer, as the rules see them.
func (b *Board) gather(c *cell) []score.Sub {
	buf := b.subBuf[:0]
	ioi := b.contest.Rules == rankd.IOI
	for _, i := range c.subs {
		s := &b.subs[i]
		sub := score.Sub{Time: s.time, Verdict: b.jtypes[s.jtype].class, Score: s.score}
		if ioi {
			sub.Subtasks = b.subtasks[i]
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

// recompute recomputes one cell in both views and records what changed.
func (b *Board) recompute(t int32, p int) {
	c := &b.cells[int(t)*len(b.problems)+p]
	subs := b.gather(c)
	for v := range b.views {
		r := b.cellResult(subs, v, p)
		if r != c.res[v] {
			old := c.res[v]
			c.res[v] = r
			b.cellChanged(v, t, p, &old, &r)
		}
	}
}
