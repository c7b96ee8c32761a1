package score

import "math"

// Key orders rows: smaller is better; rows with equal keys share a rank. It has the shape of rankindex.Key.
type Key struct{ Hi, Lo uint64 }

// Bounds of the values an ICPC key encodes exactly; larger values are clamped to them (a total penalty of a
// trillion minutes is not a contest).
const (
	// MaxPenalty is the largest ICPC total penalty in minutes a key holds (40 bits).
	MaxPenalty = 1<<40 - 1
	// MaxMinute is the largest ICPC contest minute a key holds (24 bits: 31 years).
	MaxMinute = 1<<24 - 1
)

// ICPCKey orders ICPC rows: more solved first, then less penalty, then the earlier last accepted minute.
func ICPCKey(solved int, penalty, lastMinute int64) Key {
	return Key{
		Hi: math.MaxUint32 - uint64(solved),
		Lo: uint64(min(penalty, MaxPenalty))<<24 | uint64(min(lastMinute, MaxMinute)),
	}
}

// ScoreKey orders OI, IOI and CTF rows: higher score first, then (when tieByTime) the earlier time the score
// was reached, in milliseconds. Scores are non-negative; the bits of a non-negative float64 sort as the number.
func ScoreKey(score float64, reached int64, tieByTime bool) Key {
	if score < 0 || math.IsNaN(score) {
		score = 0
	}
	k := Key{Hi: math.MaxUint64 - math.Float64bits(score)}
	if tieByTime && score > 0 {
		k.Lo = uint64(reached)
	}
	return k
}
