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
// ((minimum-initial)/decay²)*(n-1)² + initial, rounded up, floored at minimum.
func Logarithmic(initial, minimum, decay int64, n int) int64 {
	if n < 1 || decay <= 0 {
		return initial
	}
	d := float64(decay)
	x := float64(n - 1)
	v := int64(math.Ceil((float64(minimum-initial)/(d*d))*x*x + float64(initial)))
	return max(v, minimum)
}

// DEFCON is the DEF CON Quals formula floor(100 + 400/(1 + 0.08·n·ln n)); n < 1 counts as 1.
func DEFCON(n int) int64 {
	x := float64(max(n, 1))
	return int64(math.Floor(100 + 400/(1+0.08*x*math.Log(x))))
}
