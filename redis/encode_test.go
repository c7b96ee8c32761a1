package redis_test

import (
	"cmp"
	"math"
	"testing"
	"time"

	"rankd"
	"rankd/redis"
	"rankd/score"
)

// boardKey returns the key the board orders row r of contest c by.
func boardKey(c rankd.Contest, r rankd.Row) score.Key {
	ms := r.Time.Milliseconds()
	switch c.Rules {
	case rankd.ICPC:
		return score.ICPCKey(r.Solved, r.Penalty, ms/60000)
	case rankd.CTF:
		return score.ScoreKey(r.Score, ms, true)
	}
	return score.ScoreKey(r.Score, ms, c.TieByTime)
}

func compareKeys(a, b score.Key) int {
	if c := cmp.Compare(a.Hi, b.Hi); c != 0 {
		return c
	}
	return cmp.Compare(a.Lo, b.Lo)
}

// MustEncode encodes row r of contest c.
func MustEncode(tb testing.TB, c rankd.Contest, r rankd.Row) float64 {
	tb.Helper()
	x, err := redis.Encode(c, r)
	if err != nil {
		tb.Fatalf("encode %+v: %v", r, err)
	}
	return x
}

// MustOrder returns the order of rows a and b of contest c in the projection: by their scores, then by the
// ties that start their members.
func MustOrder(tb testing.TB, c rankd.Contest, a, b rankd.Row) int {
	tb.Helper()
	ea, eb := MustEncode(tb, c, a), MustEncode(tb, c, b)
	if o := cmp.Compare(ea, eb); o != 0 {
		return o
	}
	return cmp.Compare(redis.Tie(c, a), redis.Tie(c, b))
}

// Sums computed at run time, as the board computes totals: 0.1+0.2 is then not 0.3.
var tenth, fifth = 0.1, 0.2

var (
	icpc    = rankd.Contest{ID: "icpc", Rules: rankd.ICPC, Duration: 5 * time.Hour}
	ctf     = rankd.Contest{ID: "ctf", Rules: rankd.CTF, Duration: 48 * time.Hour}
	oi      = rankd.Contest{ID: "oi", Rules: rankd.OI, Duration: 5 * time.Hour}
	oiTimed = rankd.Contest{ID: "oi-timed", Rules: rankd.OI, Duration: 5 * time.Hour, TieByTime: true}
	ioi     = rankd.Contest{ID: "ioi", Rules: rankd.IOI, Duration: 5 * time.Hour, TieByTime: true}
)

func icpcTotals(solved int, penalty int64, last time.Duration) rankd.Row {
	return rankd.Row{Solved: solved, Penalty: penalty, Time: last}
}

func scoreTotals(score float64, at time.Duration) rankd.Row {
	return rankd.Row{Score: score, Time: at}
}

// Rows compare by their encodings as the board compares them.
func TestEncodeOrder(t *testing.T) {
	tests := []struct {
		name    string
		contest rankd.Contest
		a, b    rankd.Row
		want    int // the order of a and b: -1 a first, 0 tied
		// beyond marks rows outside the limits, where the encoding parts from the board on purpose.
		beyond bool
	}{
		{"icpc more solved", icpc, icpcTotals(3, 500, 290*time.Minute), icpcTotals(2, 10, 20*time.Minute), -1, false},
		{"icpc less penalty", icpc, icpcTotals(2, 100, 90*time.Minute), icpcTotals(2, 101, 50*time.Minute), -1, false},
		{"icpc earlier last minute", icpc, icpcTotals(2, 100, 50*time.Minute), icpcTotals(2, 100, 51*time.Minute), -1, false},
		{"icpc same minute ties", icpc, icpcTotals(2, 100, 50*time.Minute), icpcTotals(2, 100, 50*time.Minute+59*time.Second), 0, false},
		{"icpc nothing solved ties", icpc, icpcTotals(0, 0, 0), icpcTotals(0, 0, 0), 0, false},
		{"icpc all solved", icpc, icpcTotals(redis.MaxSolved, 0, 0), icpcTotals(redis.MaxSolved-1, 0, 0), -1, false},
		{"icpc last minute of the layout", icpc, icpcTotals(1, 5, (redis.MaxMinute-1)*time.Minute), icpcTotals(1, 5, redis.MaxMinute*time.Minute), -1, false},
		{"icpc penalty beyond the layout clamps", icpc, icpcTotals(1, redis.MaxPenalty, 0), icpcTotals(1, 1<<40, 0), 0, true},
		{"ctf higher score", ctf, scoreTotals(600, 40*time.Hour), scoreTotals(500, time.Minute), -1, false},
		{"ctf earlier time", ctf, scoreTotals(500, time.Minute), scoreTotals(500, time.Minute+time.Millisecond), -1, false},
		{"ctf same time ties", ctf, scoreTotals(500, time.Minute), scoreTotals(500, time.Minute), 0, false},
		{"ctf zero scores tie whatever the time", ctf, scoreTotals(0, time.Minute), scoreTotals(0, time.Hour), 0, false},
		{"oi higher score", oi, scoreTotals(100.5, time.Hour), scoreTotals(100.25, time.Minute), -1, false},
		{"oi time does not count", oi, scoreTotals(100, time.Hour), scoreTotals(100, time.Minute), 0, false},
		{"oi any fraction", oi, scoreTotals(100.0/3, 0), scoreTotals(100.0/3-1e-12, 0), -1, false},
		{"oi negative is zero", oi, scoreTotals(-5, 0), scoreTotals(0, 0), 0, false},
		{"oi timed higher score", oiTimed, scoreTotals(0.02, 4*time.Hour), scoreTotals(0.01, time.Minute), -1, false},
		{"oi timed earlier time", oiTimed, scoreTotals(77.77, time.Minute), scoreTotals(77.77, time.Minute+time.Millisecond), -1, false},
		{"oi timed any fraction", oiTimed, scoreTotals(100.0/3, time.Hour), scoreTotals(100.0/3-1e-12, time.Minute), -1, false},
		{"oi timed zero scores tie whatever the time", oiTimed, scoreTotals(0, time.Minute), scoreTotals(-1, time.Hour), 0, false},
		{"ioi timed sums as the board", ioi, scoreTotals(tenth+fifth, time.Hour), scoreTotals(0.3, time.Minute), -1, false},
		{"ioi timed latest time", ioi, scoreTotals(1, 1<<62), scoreTotals(1, 1<<62+time.Millisecond), -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareKeys(boardKey(tt.contest, tt.a), boardKey(tt.contest, tt.b)); got != tt.want && !tt.beyond {
				t.Fatalf("the board orders them %d, the test wants %d", got, tt.want)
			}
			if got := MustOrder(t, tt.contest, tt.a, tt.b); got != tt.want {
				t.Errorf("got order %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		contest rankd.Contest
		row     rankd.Row
	}{
		{"half a ctf point", ctf, scoreTotals(0.5, time.Minute)},
		{"infinite", ctf, scoreTotals(math.Inf(1), time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := redis.Encode(tt.contest, tt.row)
			MustCode(t, err, rankd.EINVALID)
		})
	}
}

// The integer layouts stay below 2⁵³, where a float64 is exact.
func TestEncodeBounds(t *testing.T) {
	tests := []struct {
		name    string
		contest rankd.Contest
		row     rankd.Row
	}{
		{"icpc worst", icpc, icpcTotals(0, 1<<62, 1<<62)},
		{"icpc negative", icpc, icpcTotals(-1, -1, -time.Hour)},
		{"ctf zero", ctf, scoreTotals(0, 0)},
		{"ctf beyond the time field", ctf, scoreTotals(1, 1<<62)},
		{"ctf beyond the score field", ctf, scoreTotals(1e300, time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := MustEncode(t, tt.contest, tt.row)
			if x < 0 || x >= 1<<53 || x != math.Trunc(x) {
				t.Errorf("got %v, want an integer in [0, 2^53)", x)
			}
		})
	}
}

func TestCheckContest(t *testing.T) {
	many := make([]rankd.Problem, 256)
	for i := range many {
		many[i] = rankd.Problem{ID: string(rune('a' + i)), Value: 100}
	}
	valued := func(value int64) []rankd.Problem { return []rankd.Problem{{ID: "a", Value: value}} }
	ctfMillennia := rankd.Contest{Rules: rankd.CTF, Duration: 1 << 62} // 43 bits of time, 10 of score
	maxed := func(max float64, subtasks ...float64) []rankd.Problem {
		return []rankd.Problem{{ID: "a", MaxScore: max, Subtasks: subtasks}}
	}
	tests := []struct {
		name     string
		contest  rankd.Contest
		problems []rankd.Problem
		ok       bool
	}{
		{"icpc", icpc, problems, true},
		{"icpc of 255 problems", icpc, many[:255], true},
		{"icpc of 256 problems", icpc, many, false},
		{"icpc of MaxMinute minutes", rankd.Contest{Rules: rankd.ICPC, Duration: redis.MaxMinute * time.Minute}, problems, true},
		{"icpc longer than MaxMinute minutes", rankd.Contest{Rules: rankd.ICPC, Duration: (redis.MaxMinute + 1) * time.Minute}, problems, false},
		{"ctf of 256 problems", ctf, many, true},
		{"ctf of 48 hours and 33M points", ctf, valued(1<<25 - 1), true},
		{"ctf of 48 hours and 34M points", ctf, valued(1 << 25), false},
		{"ctf first blood counts", rankd.Contest{Rules: rankd.CTF, Duration: 48 * time.Hour, FirstBlood: []int64{1, 5}}, valued(1<<25 - 5), false},
		{"ctf of a year", rankd.Contest{Rules: rankd.CTF, Duration: 365 * 24 * time.Hour}, valued(1000), true},
		{"ctf of millennia", ctfMillennia, valued(1000), true},
		{"ctf of millennia and more points", ctfMillennia, valued(1024), false},
		{"ctf dynamic values count the highest", ctfMillennia, []rankd.Problem{{ID: "a", Value: 1000, Minimum: 1024, Function: rankd.ValueLinear}}, false},
		{"ctf defcon values are the formula's", ctfMillennia, []rankd.Problem{{ID: "a", Function: rankd.ValueDEFCON}, {ID: "b", Function: rankd.ValueDEFCON}, {ID: "c", Function: rankd.ValueDEFCON}}, false},
		{"oi timed holds any score", oiTimed, maxed(1e300), true},
		{"ioi timed holds any subtask", ioi, maxed(0, 100.0/3, 200.0/3), true},
		{"oi timed of millennia", rankd.Contest{Rules: rankd.OI, TieByTime: true, Duration: 1<<63 - 1}, maxed(100), true},
		{"oi without ties holds any score", oi, maxed(1e300), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := redis.CheckContest(tt.contest, tt.problems)
			if tt.ok && err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if !tt.ok {
				MustCode(t, err, rankd.EINVALID)
			}
		})
	}
}

// FuzzEncode checks that, within the limits CheckContest sets, encodings order rows as the board's keys do:
// equal keys have equal encodings, and a smaller key a smaller encoding.
func FuzzEncode(f *testing.F) {
	f.Add(uint8(0), false, uint64(300*60000), uint64(3), uint64(100), uint64(200*60000), uint64(3), uint64(100), uint64(201*60000))
	f.Add(uint8(3), true, uint64(48*3600000), uint64(1500), uint64(0), uint64(3600000), uint64(1500), uint64(0), uint64(3600001))
	f.Add(uint8(1), true, uint64(300*60000), uint64(9999), uint64(0), uint64(5), uint64(10000), uint64(0), uint64(5))
	f.Add(uint8(2), false, uint64(300*60000), uint64(math.Float64bits(100.0/3)), uint64(0), uint64(5), uint64(math.Float64bits(33.4)), uint64(0), uint64(5))
	f.Fuzz(func(t *testing.T, rules uint8, tie bool, duration, a1, a2, a3, b1, b2, b3 uint64) {
		c := rankd.Contest{ID: "fuzz", Rules: rankd.Rules(rules % 4), TieByTime: tie}
		var a, b rankd.Row
		switch c.Rules {
		case rankd.ICPC:
			c.Duration = time.Duration(1+duration%redis.MaxMinute) * time.Minute
			a = icpcTotals(int(a1%(redis.MaxSolved+1)), int64(a2%(redis.MaxPenalty+1)), time.Duration(a3%uint64(c.Duration)))
			b = icpcTotals(int(b1%(redis.MaxSolved+1)), int64(b2%(redis.MaxPenalty+1)), time.Duration(b3%uint64(c.Duration)))
		case rankd.CTF:
			c.Duration = time.Duration(1+duration%(1<<40)) * time.Millisecond
			// Scores that fit beside the time.
			most := uint64(1)<<(53-bitLen(uint64(c.Duration.Milliseconds()))) - 1
			a = scoreTotals(float64(a1%(most+1)), time.Duration(a3%uint64(c.Duration.Milliseconds()+1))*time.Millisecond)
			b = scoreTotals(float64(b1%(most+1)), time.Duration(b3%uint64(c.Duration.Milliseconds()+1))*time.Millisecond)
		default:
			// Any score, any time within a duration of up to 2⁴⁰ ms.
			ms := 1 + duration%(1<<40)
			c.Duration = time.Duration(ms) * time.Millisecond
			a = scoreTotals(math.Float64frombits(a1), time.Duration(a3%ms)*time.Millisecond)
			b = scoreTotals(math.Float64frombits(b1), time.Duration(b3%ms)*time.Millisecond)
			if a.Score == 0 || b.Score == 0 {
				return // -0 orders before every score on the board: not a score anybody has
			}
		}
		if err := redis.CheckContest(c, nil); err != nil {
			t.Fatalf("contest %+v: %v", c, err)
		}
		if got, want := MustOrder(t, c, a, b), compareKeys(boardKey(c, a), boardKey(c, b)); got != want {
			t.Fatalf("%v contest of %v: rows %+v and %+v: got order %d, want %d", c.Rules, c.Duration, a, b, got, want)
		}
	})
}

func bitLen(x uint64) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}
