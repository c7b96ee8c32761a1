package redis

import (
	"math"
	"math/bits"
	"strconv"
	"time"

	"rankd"
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
	layoutICPC  = iota // solved, penalty, last minute in 53 bits
	layoutExact        // the score itself (OI, IOI without ties by time)
	layoutTimed        // score in fixed point, then time (CTF; OI, IOI with ties by time)
)

// layout is how the rows of a contest are encoded as sorted-set scores (see Encode).
type layout struct {
	kind int
	// unit is the number of steps per point of a timed layout's score field: 1 (CTF) or 100 (OI, IOI).
	unit float64
	// timeBits is the width of a timed layout's time field, in milliseconds: the bit length of the duration.
	timeBits uint
}

func layoutOf(c *rankd.Contest) layout {
	switch {
	case c.Rules == rankd.ICPC:
		return layout{kind: layoutICPC}
	case c.Rules == rankd.CTF:
		return layout{kind: layoutTimed, unit: 1, timeBits: timeBits(c.Duration)}
	case c.TieByTime:
		return layout{kind: layoutTimed, unit: 100, timeBits: timeBits(c.Duration)}
	}
	return layout{kind: layoutExact}
}

// timeBits returns the width of the time field of a contest lasting d: times past the end never count.
func timeBits(d time.Duration) uint {
	return uint(bits.Len64(uint64(max(d.Milliseconds(), 0))))
}

// String names the layout as the meta hash holds it: a writer whose contest encodes rows otherwise (the rules,
// the ties or the duration changed) must rebuild rather than mix encodings in one sorted set.
func (l layout) String() string {
	switch l.kind {
	case layoutICPC:
		return "icpc"
	case layoutExact:
		return "exact"
	}
	return "timed:" + strconv.FormatFloat(l.unit, 'g', -1, 64) + ":" + strconv.FormatUint(uint64(l.timeBits), 10)
}

// maxSteps is the largest score, in steps of 1/unit, that a timed layout holds.
func (l layout) maxSteps() uint64 { return 1<<(scoreBits-l.timeBits) - 1 }

// CheckContest refuses, with EINVALID, a contest whose rows the projection cannot encode exactly: an ICPC
// contest of more than MaxSolved problems or longer than MaxMinute minutes, or a CTF, OI or IOI contest ordered
// by score and time whose largest possible score does not fit beside the time (see Encode) or whose problems
// are scored in finer steps than the layout holds.
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
		most, err := maxTotal(&c, problems, l)
		if err != nil {
			return err
		}
		if most > float64(l.maxSteps())/l.unit {
			return rankd.Errorf(rankd.EINVALID, "contest %s: its problems may total %v points, but beside the time of a %v contest the Redis projection holds at most %v",
				c.ID, most, c.Duration, float64(l.maxSteps())/l.unit)
		}
	}
	return nil
}

// maxTotal returns the largest total score the problems of a timed layout can give, and refuses a problem
// scored in finer steps than the layout's unit. OI and IOI problems without a maximum count as 0: their scores
// are checked as they come (Encode).
func maxTotal(c *rankd.Contest, problems []rankd.Problem, l layout) (float64, error) {
	var most float64
	if c.Rules == rankd.CTF {
		var blood int64
		for _, b := range c.FirstBlood {
			blood = max(blood, b)
		}
		for _, p := range problems {
			most += float64(max(p.Value, p.Minimum, 0) + blood)
		}
		return most, nil
	}
	for _, p := range problems {
		parts := p.Subtasks
		if len(parts) == 0 {
			parts = []float64{p.MaxScore}
		}
		for _, s := range parts {
			if _, ok := steps(s, l.unit); !ok {
				return 0, rankd.Errorf(rankd.EINVALID, "contest %s: problem %s is scored in steps finer than the %v points the Redis projection holds", c.ID, p.ID, 1/l.unit)
			}
			most += max(s, 0)
		}
	}
	return most, nil
}

// steps returns score in steps of 1/unit, and whether score is such a step up to the rounding of sums of
// floats (33.33+33.33+33.34 is not exactly 100 in binary).
func steps(score, unit float64) (float64, bool) {
	x := score * unit
	r := math.Round(x)
	return r, math.Abs(x-r) <= 1e-9+1e-12*math.Abs(x)
}

// Encode returns the sorted-set score of row r of contest c: lower is better, and rows share a rank exactly
// when their scores are equal, as they do on the board (package score's keys), within the limits of
// CheckContest. The layouts, from the high bits down, in a float64 that holds an integer below 2⁵³ exactly:
//
//	ICPC:  255 - solved (8 bits) | penalty in minutes (28 bits) | last accepted minute (17 bits)
//	timed: 2^(53-t) - 1 - score in steps (53-t bits) | time the score was reached in ms (t bits; 0 for a score of 0)
//
// Timed is the layout of CTF (score in whole points) and of OI and IOI with ties by time (score in hundredths
// of a point), t being the bit length of the contest's duration in milliseconds (25 bits for 5 hours, leaving
// 28 for the score). OI and IOI without ties by time use the score itself, negated: -score, exact for any score.
// Negative and NaN scores count as 0, like the board's keys do. A penalty, minute, score or time beyond its
// field is clamped to the field's largest value (a contest within CheckContest's limits never gets there but
// for absurd penalties). A timed score that is not a multiple of its step is refused with EINVALID.
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
	case layoutExact:
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
		x, ok := steps(r.Score, l.unit)
		if !ok {
			return 0, rankd.Errorf(rankd.EINVALID, "team %s: score %v is not a multiple of %v, the step of the Redis projection", r.TeamID, r.Score, 1/l.unit)
		}
		q = uint64(min(x, float64(top)))
	}
	var t uint64
	if q > 0 {
		t = uint64(min(max(r.Time.Milliseconds(), 0), 1<<l.timeBits-1))
	}
	return float64((top-q)<<l.timeBits | t), nil
}
