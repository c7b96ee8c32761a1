package score

import "math"

// Linear is CTFd's linear decay: initial - decay*(n-1) for the n-th solve count, rounded up, floored at
// minimum. n < 1 gives the initial value.
func Linear(initial, minimum, decay int64, n int) int64 {
	if n < 1 {
		return initial
	}
	if decay > 0 && int64(n-1) > (initial-minimum)/decay {
		return minimum // also where decay*(n-1) would overflow
	}
	return max(initial-decay*int64(n-1), minimum)
}

// Logarithmic is CTFd's "logarithmic" decay, a parabola reaching minimum at decay solves:
// ((minimum-initial)/decay²)*(n-1)² + initial, rounded up, floored at minimum. It rounds as CTFd does, in its
// order of operations, since rounding up turns the last bit into a point (CTFd gives 51 for 100, 0, 30, 22;
// (a·x)·x would give 52); a decay of 0 counts as 1, as in CTFd. The conversions keep the compiler from fusing
// a multiply and an add, which would give other points on other machines.
func Logarithmic(initial, minimum, decay int64, n int) int64 {
	if n < 1 {
		return initial
	}
	d := float64(max(decay, 1))
	x := float64(n - 1)
	v := int64(math.Ceil(float64(float64(minimum-initial)/(d*d)*float64(x*x)) + float64(initial)))
	return max(v, minimum)
}

// The bounds of the DEF CON Quals formula, which it fixes: its value for one solver, and the floor it tends to
// without reaching it.
const (
	DEFCONInitial = 500
	DEFCONFloor   = 100
)

// DEFCON is the DEF CON Quals formula floor(100 + 400/(1 + 0.08·n·ln n)); n < 1 counts as 1. The conversion
// keeps the compiler from fusing a multiply and an add, as in Logarithmic.
func DEFCON(n int) int64 {
	x := float64(max(n, 1))
	return int64(math.Floor(100 + 400/(1+float64(0.08*x*math.Log(x)))))
}
