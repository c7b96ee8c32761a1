package redis

import (
	"math"
	"math/bits"
	"strconv"
	"time"

	"rankd"
	"rankd/score"
)

// Limits of the sorted-set score layouts. A sorted-set score is a float64, exact for integers below 2⁵³: each
// layout packs a row's sort key into 53 bits.
const (
	// MaxSolved is the largest ICPC solved count (8 bits); an ICPC contest may have at most this many problems.
	MaxSolved = 1<<icpcSolvedBits - 1
	// MaxPenalty is the largest ICPC total penalty in minutes (28 bits, 510 years); larger ones are clamped.
	MaxPenalty = 1<<icpcPenaltyBits - 1
	// MaxMinute is the largest ICPC last-accepted minute (17 bits, 91 days); an ICPC contest may last at most
	// this many minutes.
	MaxMinute = 1<<icpcMinuteBits - 1
)

const (
	scoreBits       = 53
	icpcSolvedBits  = 8
	icpcPenaltyBits = 28
	icpcMinuteBits  = 17
)

// The kinds of layout.
const (
	layoutICPC       = iota // solved, penalty, last minute in 53 bits
	layoutExact             // the score itself (OI, IOI without ties by time)
	layoutTimed             // score in whole points, then time (CTF)
	layoutExactTimed        // the score itself, the time in the member (OI, IOI with ties by time)
)

// tieLen is the length of the time that starts the members of layoutExactTimed: 16 hex digits, whose bytes
// sort as the numbers do.
const tieLen = 16

// layout is how the rows of a contest are encoded as sorted-set scores (see Encode).
type layout struct {
	kind int
	// timeBits is the width of a timed layout's time field, in milliseconds: the bit length of the duration.
	timeBits uint
}

func layoutOf(c *rankd.Contest) layout {
	switch {
	case c.Rules == rankd.ICPC:
		return layout{kind: layoutICPC}
	case c.Rules == rankd.CTF:
		return layout{kind: layoutTimed, timeBits: timeBits(c.Duration)}
	case c.TieByTime:
		return layout{kind: layoutExactTimed}
	}
	return layout{kind: layoutExact}
}

// timeBits returns the width of the time field of a contest lasting d: times past the end never count.
func timeBits(d time.Duration) uint {
	return uint(bits.Len64(uint64(max(d.Milliseconds(), 0))))
}

// String names the layout as the meta hash holds it: a writer whose contest encodes rows otherwise (the rules,
// the ties or the duration changed) must rebuild rather than mix encodings in one sorted set. Each ends with
// layoutVersion.
func (l layout) String() string {
	switch l.kind {
	case layoutICPC:
		return "icpc" + layoutVersion
	case layoutExact:
		return "exact" + layoutVersion
	case layoutExactTimed:
		// The same name in standings.lua, which reads the time in the members.
		return "exact:time" + layoutVersion
	}
	return "timed:" + strconv.FormatUint(uint64(l.timeBits), 10) + layoutVersion
}

// layoutVersion ends the name of every layout of this rankd: "/2", the members naming teams by their shown
// name, where version 1 (no suffix) had their name. A projection of another version has no position for this
// rankd (see position.lua), and is rebuilt, also where no update would come to find it out.
const layoutVersion = "/2"

// maxSteps is the largest score, in points, that a timed layout holds.
func (l layout) maxSteps() uint64 { return 1<<(scoreBits-l.timeBits) - 1 }

// CheckContest refuses, with EINVALID, a contest whose rows the projection cannot encode exactly: an ICPC
// contest of more than MaxSolved problems or longer than MaxMinute minutes, or a CTF contest whose largest
// possible score does not fit beside the time (see Encode).
func CheckContest(c rankd.Contest, problems []rankd.Problem) error {
	l := layoutOf(&c)
	switch l.kind {
	case layoutICPC:
		if len(problems) > MaxSolved {
			return rankd.Errorf(rankd.EINVALID, "ICPC contest %s has %d problems: the Redis projection holds at most %d", c.ID, len(problems), MaxSolved)
		}
		if c.Duration > MaxMinute*time.Minute {
			return rankd.Errorf(rankd.EINVALID, "ICPC contest %s lasts %v: the Redis projection holds at most %d minutes (%v)", c.ID, c.Duration, MaxMinute, MaxMinute*time.Minute)
		}
	case layoutTimed:
		if l.timeBits >= scoreBits {
			return rankd.Errorf(rankd.EINVALID, "contest %s lasts %v: too long for the Redis projection, which orders ties by the time in milliseconds", c.ID, c.Duration)
		}
		if most := maxTotal(&c, problems); most > float64(l.maxSteps()) {
			return rankd.Errorf(rankd.EINVALID, "contest %s: its problems may total %v points, but beside the time of a %v contest the Redis projection holds at most %v",
				c.ID, most, c.Duration, l.maxSteps())
		}
	}
	return nil
}

// maxTotal returns the largest total score the problems of a CTF contest can give.
func maxTotal(c *rankd.Contest, problems []rankd.Problem) float64 {
	var blood int64
	for _, b := range c.FirstBlood {
		blood = max(blood, b)
	}
	var most float64
	for _, p := range problems {
		value := max(p.Value, p.Minimum, 0)
		if p.Function == rankd.ValueDEFCON {
			value = score.DEFCON(1) // the formula's own, whatever the value says
		}
		most += float64(value + blood)
	}
	return most
}

// Encode returns the sorted-set score of row r of contest c: lower is better, and rows share a rank exactly
// when their scores are equal, as they do on the board (package score's keys), within the limits of
// CheckContest; but for OI and IOI with ties by time, where rows share a rank when their scores and the times
// that start their members are equal (see the package doc). The layouts, from the high bits down, in a float64
// that holds an integer below 2⁵³ exactly:
//
//	ICPC:  255 - solved (8 bits) | penalty in minutes (28 bits) | last accepted minute (17 bits)
//	timed: 2^(53-t) - 1 - score in points (53-t bits) | time the score was reached in ms (t bits; 0 for a score of 0)
//
// Timed is the layout of CTF, whose scores are whole points, t being the bit length of the contest's duration
// in milliseconds (28 bits for 48 hours, leaving 25 for the score). OI and IOI use the score itself, negated:
// -score, exact for any score, as the board's keys are. Negative and NaN scores count as 0, like the board's
// keys do. A penalty, minute, score or time beyond its field is clamped to the field's largest value (a
// contest within CheckContest's limits never gets there but for absurd penalties). A CTF score that is not a
// whole number of points is refused with EINVALID.
func Encode(c rankd.Contest, r rankd.Row) (float64, error) {
	return layoutOf(&c).encode(&r)
}

func (l layout) encode(r *rankd.Row) (float64, error) {
	switch l.kind {
	case layoutICPC:
		solved := uint64(min(max(r.Solved, 0), MaxSolved))
		penalty := uint64(min(max(r.Penalty, 0), MaxPenalty))
		minute := uint64(min(max(r.Time.Milliseconds()/60000, 0), MaxMinute))
		return float64((MaxSolved-solved)<<(icpcPenaltyBits+icpcMinuteBits) | penalty<<icpcMinuteBits | minute), nil
	case layoutExact, layoutExactTimed:
		if !(r.Score > 0) {
			return 0, nil
		}
		return -r.Score, nil
	}
	if l.timeBits >= scoreBits {
		return 0, rankd.Errorf(rankd.EINVALID, "the contest lasts too long for the Redis projection, which orders ties by the time in milliseconds")
	}
	top := l.maxSteps()
	var q uint64
	if r.Score > 0 {
		if r.Score != math.Trunc(r.Score) || math.IsInf(r.Score, 0) {
			return 0, rankd.Errorf(rankd.EINVALID, "team %s: score %v is not a whole number of points, which the Redis projection holds", r.TeamID, r.Score)
		}
		q = uint64(min(r.Score, float64(top)))
	}
	var t uint64
	if q > 0 {
		t = uint64(min(max(r.Time.Milliseconds(), 0), 1<<l.timeBits-1))
	}
	return float64((top-q)<<l.timeBits | t), nil
}

// tie returns what starts the member of row r: for layoutExactTimed, the time its score was reached in
// tieLen hex digits (zeros for a score of 0, as on the board), so that rows of equal scores are listed by
// time, then name; "" for the other layouts.
func (l layout) tie(r *rankd.Row) string {
	if l.kind != layoutExactTimed {
		return ""
	}
	var t uint64
	if r.Score > 0 {
		t = uint64(max(r.Time.Milliseconds(), 0))
	}
	var b [tieLen]byte
	for i := range b {
		b[tieLen-1-i] = "0123456789abcdef"[t>>(4*i)&15]
	}
	return string(b[:])
}
