package board

import "slices"

// A submission counts its latest judgement (by start time, then id), which its sub holds. Its other
// judgements (older ones, or ones a rejudge replaced) are kept aside, in older, so that when the counting
// one is deleted, or moves to another submission (CCS: a later version of an object replaces the earlier
// one), the latest of the rest counts again. Few submissions have any: a rejudge, a judgement sent late.
// Which submission each judgement judges is recorded too, since a deletion names only the judgement.

// A deleted submission keeps its judgements, which count again when it comes back: a judgement is an object
// of its own, which the deletion of its submission does not delete (DOMjudge deletes a submission it marks
// invalid and creates it again when it is marked valid, without sending its judgements again).

// goneSub is what a deleted submission keeps: its id and its judgements, the counting one among them.
type goneSub struct {
	id         string
	judgements []judgement
}

// keepGone keeps the judgements of submission s, with the id and key skey, which is being deleted.
func (b *Board) keepGone(s *sub, id string, skey uint64) {
	list := slices.Clone(b.older[skey])
	if s.jtype != 0 {
		list = append(list, b.counting(s, skey))
	}
	if len(list) == 0 {
		return
	}
	if b.gone == nil {
		b.gone = map[uint64]goneSub{}
	}
	b.gone[skey] = goneSub{id: id, judgements: list}
}

// comeBack gives submission s, with the key skey, created again, the judgements it kept when deleted, the
// latest counting; it reports whether it had any.
func (b *Board) comeBack(s *sub, skey uint64) bool {
	g, ok := b.gone[skey]
	if !ok {
		return false
	}
	delete(b.gone, skey)
	if b.older == nil {
		b.older = map[uint64][]judgement{}
	}
	b.older[skey], s.hasOlder = g.judgements, true
	b.promote(s, skey)
	return true
}

// dropGone removes the judgement with key jkey from those the deleted submission with key skey keeps.
func (b *Board) dropGone(skey, jkey uint64) {
	g := b.gone[skey]
	g.judgements = slices.DeleteFunc(g.judgements, func(j judgement) bool { return j.id == jkey })
	if len(g.judgements) == 0 {
		delete(b.gone, skey)
	} else {
		b.gone[skey] = g
	}
}

// judgement is a judgement of a submission that does not count now.
type judgement struct {
	id       uint64 // idKey of the judgement id
	start    int64  // ms
	jtype    uint8
	score    float64
	subtasks []float64
}

// newer reports whether judgement (start, id) is later than (start2, id2): the later one counts.
func newer(start int64, id uint64, start2 int64, id2 uint64) bool {
	return start > start2 || start == start2 && id > id2
}

// judgedSub returns the submission the judgement with key jkey judges, if it is known: its id's key, and
// the id itself unless it is numeric (its key then says it all; see locateKey).
func (b *Board) judgedSub(jkey uint64) (skey uint64, sid string, numeric, ok bool) {
	if jkey < uint64(len(b.judDense)) {
		if n := b.judDense[jkey]; n != 0 {
			return uint64(n - 1), "", true, true
		}
	}
	if sid, ok = b.judStr[jkey]; !ok {
		return 0, "", false, false
	}
	skey, numeric = idKey(sid)
	return skey, sid, numeric, true
}

// setJudgedSub records that the judgement with key jkey judges submission sid (whose key is skey).
// Numeric judgement ids below a bound proportional to the number of submissions, judging submissions with
// numeric ids that fit, take 4 bytes in a slice (ids are usually dense counters); the rest a map entry.
func (b *Board) setJudgedSub(jkey uint64, sid string, skey uint64, snum bool) {
	dense := snum && skey < 1<<32-1 && jkey&stringIDBit == 0 && jkey < 4*uint64(b.stats.Submissions)+1<<16
	if dense && jkey >= uint64(len(b.judDense)) {
		b.judDense = append(b.judDense, make([]uint32, max(jkey+1, 2*uint64(len(b.judDense)))-uint64(len(b.judDense)))...)
	}
	if jkey < uint64(len(b.judDense)) {
		b.judDense[jkey] = 0
	}
	delete(b.judStr, jkey)
	if dense {
		b.judDense[jkey] = uint32(skey + 1)
		return
	}
	if b.judStr == nil {
		b.judStr = map[uint64]string{}
	}
	b.judStr[jkey] = sid
}

// forgetJudged forgets which submission the judgement with key jkey judges.
func (b *Board) forgetJudged(jkey uint64) {
	if jkey < uint64(len(b.judDense)) {
		b.judDense[jkey] = 0
	}
	delete(b.judStr, jkey)
}

// keepOlder puts j aside as a judgement of the submission s (with key skey) that does not count, replacing
// an earlier version of it.
func (b *Board) keepOlder(s *sub, skey uint64, j judgement) {
	list := slices.DeleteFunc(b.older[skey], func(o judgement) bool { return o.id == j.id })
	if b.older == nil {
		b.older = map[uint64][]judgement{}
	}
	b.older[skey] = append(list, j)
	s.hasOlder = true
}

// dropOlder removes the judgement with key jkey from those of submission s kept aside, and reports
// whether it was there.
func (b *Board) dropOlder(s *sub, skey, jkey uint64) bool {
	list := b.older[skey]
	i := slices.IndexFunc(list, func(o judgement) bool { return o.id == jkey })
	if i < 0 {
		return false
	}
	list = slices.Delete(list, i, i+1)
	if len(list) == 0 {
		delete(b.older, skey)
		s.hasOlder = false
	} else {
		b.older[skey] = list
	}
	return true
}

// counting returns submission s's counting judgement as one kept aside.
func (b *Board) counting(s *sub, skey uint64) judgement {
	return judgement{id: s.jID, start: s.jStart, jtype: s.jtype, score: s.score, subtasks: b.subtasks[skey]}
}

// count makes j submission s's counting judgement.
func (b *Board) count(s *sub, skey uint64, j *judgement) {
	s.jID, s.jStart, s.jtype, s.score = j.id, j.start, j.jtype, j.score
	// Kept whatever the rules: a contest redefined as IOI needs them.
	if len(j.subtasks) > 0 {
		b.subtasks[skey] = j.subtasks
	} else if len(b.subtasks) > 0 { // ICPC and CTF have none: the map stays empty, and a delete costs a lookup
		delete(b.subtasks, skey)
	}
}

// promote makes the latest of the judgements of s kept aside count, or leaves s without a verdict when it
// has none.
func (b *Board) promote(s *sub, skey uint64) {
	list := b.older[skey]
	if len(list) == 0 {
		b.count(s, skey, &judgement{})
		return
	}
	best := 0
	for i, o := range list {
		if newer(o.start, o.id, list[best].start, list[best].id) {
			best = i
		}
	}
	j := list[best]
	b.dropOlder(s, skey, j.id)
	b.count(s, skey, &j)
}
