// Package rankd holds the domain of the rankd scoreboard server: contests, problems, teams, submissions,
// judgements, the events that carry them, the standings computed from them, and the error type every layer
// returns. It imports only the standard library; the rules live in package score, the live state in package
// board, and each storage or transport dependency in a package of its own.
package rankd

import (
	"cmp"
	"time"
)

// Rules names the scoring rules of a contest.
type Rules uint8

// The scoring rules rankd implements. Values are only ever appended to, so stored numbers stay valid.
const (
	// ICPC: solved problems, then penalty time, then the time of the last accepted submission.
	ICPC Rules = iota
	// OI: each problem scores its best submission (or its last, see OIMode).
	OI
	// IOI: each problem scores the sum over subtasks of the best score of that subtask across submissions.
	IOI
	// CTF: each solved challenge earns its value, static or dynamic; ties by the time the score was reached.
	CTF
)

var rulesNames = [...]string{ICPC: "icpc", OI: "oi", IOI: "ioi", CTF: "ctf"}

// String returns the lower-case name of the rules ("icpc", "oi", "ioi", "ctf").
func (r Rules) String() string {
	if int(r) < len(rulesNames) {
		return rulesNames[r]
	}
	return "unknown"
}

// ParseRules parses a rules name as written by String.
func ParseRules(s string) (Rules, error) {
	for i, n := range rulesNames {
		if n == s {
			return Rules(i), nil
		}
	}
	return 0, Errorf(EINVALID, "unknown rules %q (want icpc, oi, ioi or ctf)", s)
}

// OIMode says which submission counts for a problem under OI rules.
type OIMode uint8

const (
	// OIBest scores a problem by its best submission.
	OIBest OIMode = iota
	// OILast scores a problem by its last judged submission.
	OILast
)

// ValueFunc is how a CTF challenge's value follows its number of solvers.
type ValueFunc uint8

const (
	// ValueStatic keeps the challenge's value fixed.
	ValueStatic ValueFunc = iota
	// ValueLinear is CTFd's linear decay: initial - decay*(n-1), rounded up, floored at the minimum.
	ValueLinear
	// ValueLogarithmic is CTFd's "logarithmic" decay, a parabola:
	// ((minimum-initial)/decay²)*(n-1)² + initial, rounded up, floored at the minimum.
	ValueLogarithmic
	// ValueDEFCON is the DEF CON Quals formula floor(100 + 400/(1 + 0.08·n·ln n)).
	ValueDEFCON
)

var valueFuncNames = [...]string{ValueStatic: "static", ValueLinear: "linear", ValueLogarithmic: "logarithmic", ValueDEFCON: "defcon"}

// String returns the name of the value function as used in feeds ("static", "linear", "logarithmic", "defcon").
func (f ValueFunc) String() string {
	if int(f) < len(valueFuncNames) {
		return valueFuncNames[f]
	}
	return "unknown"
}

// ParseValueFunc parses a value function name as written by String; "" means static.
func ParseValueFunc(s string) (ValueFunc, error) {
	if s == "" {
		return ValueStatic, nil
	}
	for i, n := range valueFuncNames {
		if n == s {
			return ValueFunc(i), nil
		}
	}
	return 0, Errorf(EINVALID, "unknown value function %q (want static, linear, logarithmic or defcon)", s)
}

// Contest is the configuration of one contest. Times inside a contest are contest times: durations since Start.
type Contest struct {
	ID         string
	Name       string
	FormalName string
	Rules      Rules

	// Start is the (scheduled or actual) start; zero when unknown. Only used to convert absolute times.
	Start    time.Time
	Duration time.Duration
	// FreezeDuration is the length of the frozen last part of the contest; 0 means no freeze.
	FreezeDuration time.Duration
	// PenaltyTime is the ICPC penalty per rejected submission before the accepted one, in whole minutes. Zero
	// means none: readers of feeds that give no penalty use DefaultPenaltyTime.
	PenaltyTime time.Duration

	// OIMode chooses best or last submission under OI rules.
	OIMode OIMode
	// HideUntilEnd hides an OI or IOI board from the public (every submission pending) until the contest ends.
	HideUntilEnd bool
	// TieByTime breaks OI, IOI ties by the time the total was reached (earlier first); otherwise ties share a rank.
	TieByTime bool

	// FirstBlood holds CTF bonuses: FirstBlood[i] is added for the (i+1)-th solver of a challenge.
	FirstBlood []int64

	// Medals are the numbers of gold, silver and bronze medals awarded by rank; all zero means no medals.
	Medals Medals

	// NoExtension says that the definition came without rankd's extension (a CCS contest object of another
	// system, or one sent again with a new thaw time): a board that has the contest keeps what only the
	// extension says (the rules beyond scoreboard_type, OIMode, HideUntilEnd, TieByTime, FirstBlood, Medals).
	NoExtension bool
}

// Medals holds the number of medals of each kind.
type Medals struct {
	Gold, Silver, Bronze int
}

// DefaultPenaltyTime is the ICPC penalty per rejected submission when a contest gives none.
const DefaultPenaltyTime = 20 * time.Minute

// HidesUntilEnd reports whether the contest's public board hides every result until the contest ends: an OI
// or IOI contest with HideUntilEnd.
func (c *Contest) HidesUntilEnd() bool { return c.HideUntilEnd && (c.Rules == OI || c.Rules == IOI) }

// HidingAt reports whether contest c, hidden until its end (HidesUntilEnd), hides every result at now: from
// its start (StartOf, with state st) until its end is recorded, unless thawed.
func (c *Contest) HidingAt(st State, now time.Time) bool {
	start := StartOf(c, st)
	return c.HidesUntilEnd() && st.Thawed == nil && st.Ended == nil && !start.IsZero() && !now.Before(start)
}

// FreezeTime returns the contest time from which the public board is frozen: Duration-FreezeDuration, or
// Duration when there is no freeze (submissions at or after the end never count anyway).
func (c *Contest) FreezeTime() time.Duration {
	if c.FreezeDuration <= 0 || c.FreezeDuration > c.Duration {
		return c.Duration
	}
	return c.Duration - c.FreezeDuration
}

// Validate reports the first problem with the contest's configuration as an EINVALID error.
func (c *Contest) Validate() error {
	switch {
	case c.ID == "":
		return Errorf(EINVALID, "contest: id is required")
	case c.Rules > CTF:
		return Errorf(EINVALID, "contest %s: unknown rules %d", c.ID, c.Rules)
	case c.Duration <= 0:
		return Errorf(EINVALID, "contest %s: duration must be positive", c.ID)
	case c.FreezeDuration < 0 || c.FreezeDuration > c.Duration:
		return Errorf(EINVALID, "contest %s: freeze duration must be between 0 and the duration", c.ID)
	case c.PenaltyTime < 0 || c.PenaltyTime%time.Minute != 0:
		return Errorf(EINVALID, "contest %s: penalty time must be a whole number of minutes, not negative", c.ID)
	case c.Medals.Gold < 0 || c.Medals.Silver < 0 || c.Medals.Bronze < 0:
		return Errorf(EINVALID, "contest %s: medal counts must not be negative", c.ID)
	}
	for i, v := range c.FirstBlood {
		if v < 0 {
			return Errorf(EINVALID, "contest %s: first blood bonus %d is negative", c.ID, i+1)
		}
	}
	return nil
}

// Problem is one problem (ICPC, OI, IOI) or challenge (CTF) of a contest.
type Problem struct {
	ID      string
	Label   string
	Name    string
	Ordinal int
	Color   string
	RGB     string

	// Value is a CTF challenge's static value or, with a dynamic Function, its initial value.
	Value int64
	// Minimum is the floor of a dynamic CTF value.
	Minimum int64
	// Decay is, for a logarithmic CTF value, the solve count after which it reaches its minimum (CTFd's
	// formula counts from the second solve); for a linear one, the points lost per solve after the first.
	Decay int64
	// Function is how a CTF value follows its solver count.
	Function ValueFunc

	// MaxScore is the maximum score of an OI problem; 0 when unknown. A server refuses judgements above it (see
	// board.Board.Admit).
	MaxScore float64
	// Subtasks holds the maximum score of each IOI subtask; empty means one task scored as a whole.
	Subtasks []float64
	// TestDataCount is the number of test data sets, as a contest system's feed says it; 0 when unknown.
	TestDataCount int
}

// Group is a category of teams that can be ranked on its own (each group from rank 1).
type Group struct {
	ID     string
	Name   string
	Hidden bool
}

// Organization is the institution a team belongs to.
type Organization struct {
	ID         string
	Name       string
	FormalName string
	Country    string
}

// Team is one participant of a contest. A hidden team is not on any board.
type Team struct {
	ID             string
	Label          string
	Name           string
	DisplayName    string
	OrganizationID string
	GroupIDs       []string
	Hidden         bool
}

// ShownName is the name a team's row shows, and the one rows of equal results are listed by: its display
// name (the CCS's name "as it should be displayed on the scoreboard"), else its name, else its id.
func (t *Team) ShownName() string { return cmp.Or(t.DisplayName, t.Name, t.ID) }

// JudgementType is a verdict: whether it solves the problem and whether it costs penalty time (ICPC).
type JudgementType struct {
	ID      string
	Name    string
	Penalty bool
	Solved  bool
}

// Submission is one attempt of a team at a problem. Time is its contest time. The rest is what the CCS
// says of the code, which no rule reads: it is carried through the log to the event feed (and a board does
// not keep it).
type Submission struct {
	ID        string
	TeamID    string
	ProblemID string
	Time      time.Duration

	// LanguageID is the CCS language id (e.g. "cpp"); "" when the sender gave none.
	LanguageID string
	// EntryPoint is the code's entry point for languages that need one (Java's main class, a Python file);
	// "" for none (CCS null).
	EntryPoint string
	// Files holds the file references of the code (CCS FILE[]) as JSON: an array of objects, compact, as
	// the sender gave it (package ccs reads and writes it as it is); "" for none or an empty array.
	Files string
}

// Judgement is a verdict on a submission. Of a submission's judgements with a verdict, the one started last
// counts (ordered by StartTime, then by ID: numeric ids by value and before others, which are ordered by a
// hash — deterministic, not alphabetical): a rejudge is a new judgement. A judgement without a verdict (TypeID "") leaves the submission pending, or with its earlier
// verdict.
type Judgement struct {
	ID           string
	SubmissionID string
	// TypeID is the judgement type id; "" while the judgement has no verdict yet.
	TypeID string
	// StartTime is the contest time the judgement started; it orders rejudges.
	StartTime time.Duration
	// EndTime is the contest time the verdict became known (for standings at a past time); 0 means StartTime.
	EndTime time.Duration
	// Score is the OI score of the submission.
	Score float64
	// SubtaskScores holds the IOI score of each subtask.
	SubtaskScores []float64
}

// KnownAt returns the contest time from which the judgement's verdict is known.
func (j *Judgement) KnownAt() time.Duration {
	if j.EndTime > j.StartTime {
		return j.EndTime
	}
	return j.StartTime
}

// State holds the times of a contest's lifecycle steps, as in the CCS state object; nil means not yet.
type State struct {
	Started      *time.Time
	Frozen       *time.Time
	Ended        *time.Time
	Thawed       *time.Time
	Finalized    *time.Time
	EndOfUpdates *time.Time
}

// StartOf returns when contest c started as its state st says (the CCS's started: a late start, say), else
// its scheduled start; zero when neither is known. Contest times, the freeze and the end all run from it.
func StartOf(c *Contest, st State) time.Time {
	if st.Started != nil {
		return *st.Started
	}
	return c.Start
}

// FreezeOf returns the contest time from which contest c's public board is frozen, as its state st says too
// (the CCS's frozen: a feed may record a freeze its contest does not give): the earlier of the contest's
// FreezeTime and the state's frozen, relative to StartOf. It is c.Duration for none.
func FreezeOf(c *Contest, st State) time.Duration {
	ft := c.FreezeTime()
	if st.Frozen == nil {
		return ft
	}
	start := StartOf(c, st)
	if start.IsZero() {
		return ft
	}
	return max(min(ft, st.Frozen.Sub(start)), 0)
}

// WithFreeze returns st with its frozen time filled in from c's freeze when it has none and the contest froze
// (an OI or IOI contest hidden until its end has no freeze of its own): a state rankd writes (the end it
// records, a thaw) says when the public board froze, as a CCS's does.
func (st State) WithFreeze(c *Contest) State {
	ft, start := FreezeOf(c, st), StartOf(c, st)
	if st.Frozen == nil && !c.HidesUntilEnd() && ft < c.Duration && !start.IsZero() {
		frozen := start.Add(ft)
		st.Frozen = &frozen
	}
	return st
}

// KeepingThaw returns st, the state that replaces old, with old's thaw (and end) when st leaves it out: once
// the public has seen every result, a state that says nothing of the thaw (a CCS that finalizes a contest an
// organiser thawed by hand on rankd) does not freeze the public board again.
func (st State) KeepingThaw(old State) State {
	if old.Thawed == nil || st.Thawed != nil {
		return st
	}
	st.Thawed = old.Thawed
	if st.Ended == nil {
		st.Ended = old.Ended
	}
	return st
}

// Revealed reports whether the public board shows the final standings (thawed or finalized).
func (s State) Revealed() bool { return s.Thawed != nil || s.Finalized != nil }

// Ban bars a team from the board (or lets it back) without hiding its definition.
type Ban struct {
	TeamID string
	Banned bool
}

// Award is a CCS award: an id (e.g. "winner", "first-to-solve-<problem>", "gold-medal"), a citation and teams.
type Award struct {
	ID       string
	Citation string
	TeamIDs  []string
}

// DefaultJudgementTypes returns the verdicts a contest gets when it defines none, named as DOMjudge names
// them: a compile error costs no penalty, every other rejection does.
func DefaultJudgementTypes() []JudgementType {
	return []JudgementType{
		{ID: "AC", Name: "correct", Solved: true},
		{ID: "WA", Name: "wrong answer", Penalty: true},
		{ID: "TLE", Name: "timelimit", Penalty: true},
		{ID: "RTE", Name: "run error", Penalty: true},
		{ID: "MLE", Name: "memory limit", Penalty: true},
		{ID: "CE", Name: "compiler error"},
	}
}
