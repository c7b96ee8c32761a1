package ccs

import (
	"strconv"

	"rankd"
)

// rankd's "reveal" type: one step of the stepwise reveal after a frozen contest, written as
//
//	{"type":"reveal","id":"3","data":{"id":"3","step":3,"team_id":"t7","problem_id":"B","contest_time":"5:03:10.000"}}
//
// The object's id is its step number in decimal, so that a step sent twice is one object; the cell it names is
// the one the step reveals (see docs/ccs.md). Other CCS clients skip the type, as they skip any they do not
// know.

// reveal reads a reveal object. The step is "step", or the id when "step" is absent; both must agree, the id
// written as the step's decimal number.
func (r *Reader) reveal(f fields, id string) (*rankd.Reveal, error) {
	step, ok, err := f.int("step")
	if err != nil {
		return nil, err
	}
	if !ok {
		n, perr := strconv.Atoi(id)
		if perr != nil {
			return nil, f.fail("step", "required (the id %q is not a step number)", clip([]byte(id)))
		}
		step = int64(n)
	}
	switch {
	case step < 1 || step > maxRevealStep:
		return nil, f.fail("step", "want a step number from 1, got %d", step)
	case strconv.FormatInt(step, 10) != id:
		return nil, f.fail("id", "%q is not the step number %d", clip([]byte(id)), step)
	}
	team, err := f.reqString("team_id")
	if err != nil {
		return nil, err
	}
	prob, err := f.reqString("problem_id")
	if err != nil {
		return nil, err
	}
	at, _, err := f.rel("contest_time")
	if err != nil {
		return nil, err
	}
	return &rankd.Reveal{Step: int(step), TeamID: r.intern(team), ProblemID: r.intern(prob), Time: at}, nil
}

// maxRevealStep bounds step numbers: a contest has far fewer cells.
const maxRevealStep = 1 << 31

// appendReveal writes a reveal object.
func appendReveal(b []byte, rv *rankd.Reveal) ([]byte, error) {
	switch {
	case rv.Step < 1 || rv.Step > maxRevealStep:
		return b, rankd.Errorf(rankd.EINVALID, "want a step number from 1, got %d", rv.Step)
	case rv.TeamID == "" || rv.ProblemID == "":
		return b, rankd.Errorf(rankd.EINVALID, "the revealed cell's team_id and problem_id are required")
	}
	b = append(b, `{"id":"`...)
	b = strconv.AppendInt(b, int64(rv.Step), 10)
	b = append(b, `","step":`...)
	b = strconv.AppendInt(b, int64(rv.Step), 10)
	b = append(b, `,"team_id":`...)
	b = appendString(b, rv.TeamID)
	b = append(b, `,"problem_id":`...)
	b = appendString(b, rv.ProblemID)
	if rv.Time > 0 {
		b = append(b, `,"contest_time":`...)
		b = appendRelString(b, rv.Time)
	}
	return append(b, '}'), nil
}

// revealID is the id of a reveal object: its step number.
func revealID(rv *rankd.Reveal) string { return strconv.Itoa(rv.Step) }
