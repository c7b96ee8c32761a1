package rankd

import "time"

// Reveal is one step of the stepwise reveal of a frozen contest's final board (the ICPC Resolver's
// "resolve"): after the end, each step shows the public the verdicts of one frozen cell, the first hidden
// cell in problem order of the lowest-ranked team of the public board that still has one. The log holds each
// step as an event whose id is the step's number, so that replaying it reveals the same cells in the same
// order; see docs/rules.md.
type Reveal struct {
	// Step numbers the steps of a contest from 1, without gaps.
	Step int
	// TeamID and ProblemID name the cell the step reveals: the one the order gives, which a board checks.
	TeamID    string
	ProblemID string
	// Time is the contest time the step was taken, for the standings of a past moment: a step is known from
	// then on. A step without one (from a feed that does not say) counts as known at every moment.
	Time time.Duration
}
