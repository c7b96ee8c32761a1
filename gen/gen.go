// Package gen generates a deterministic synthetic contest as a stream of rankd events, for tests, demos and
// benchmarks. The contest looks like a real one: team skill and problem difficulty spread, easy problems
// solved early by many and hard ones late by few, rejections before accepts, compile errors, a busier last
// hour, rejudges, and judgements that first appear without a verdict, as in CCS event feeds.
package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"rankd"
)

// ContestName is the name of every generated contest: tools that write test load into a server (rankd
// loadtest) tell a synthetic contest from a real one by it.
const ContestName = "Synthetic Contest"

// NoFreeze as Config.Freeze asks for a contest without a scoreboard freeze; a zero Freeze means the default.
const NoFreeze time.Duration = -1

// Config describes the contest to generate. Zero fields take the defaults of WithDefaults.
type Config struct {
	// Seed selects the contest: the same Config always yields the same events.
	Seed uint64
	// ContestID is the id of the contest; default "gen".
	ContestID string
	// Rules are the scoring rules; the zero value is ICPC.
	Rules rankd.Rules
	// Teams is the number of teams; default 100.
	Teams int
	// Problems is the number of problems (CTF: challenges); default 12. Up to 26 are labelled A to Z, more
	// are labelled 1, 2, ...
	Problems int
	// Submissions is the exact number of submissions; default 10 per team.
	Submissions int
	// Start is the absolute start of the contest; default 2026-01-01T10:00:00Z.
	Start time.Time
	// Duration is the length of the contest, at least a minute; default 5h.
	Duration time.Duration
	// Freeze is the length of the scoreboard freeze at the end; default 1h, or a quarter of a contest shorter
	// than 4h. NoFreeze (any negative value) means no freeze.
	Freeze time.Duration
	// Groups is the number of team groups ("Universities", "Schools", ...); default 2. Each team is in one.
	Groups int
	// HiddenTeams is how many teams are hidden (the ones with the highest ids); default 0.
	HiddenTeams int
	// Thaw ends the stream with the contest thawed and finalized; otherwise it ends once the contest ended
	// and every judgement is in.
	Thaw bool
}

// The defaults of WithDefaults.
var defaultStart = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

const (
	defaultContestID          = "gen"
	defaultTeams              = 100
	defaultProblems           = 12
	defaultSubmissionsPerTeam = 10
	defaultDuration           = 5 * time.Hour
	defaultGroups             = 2
)

// The largest contest gen makes.
const (
	maxTeams       = 1_000_000
	maxProblems    = 1_000
	maxSubmissions = 100_000_000
	maxGroups      = 1_000
	maxContest     = 1000 * time.Hour
)

// WithDefaults returns the config with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.ContestID == "" {
		c.ContestID = defaultContestID
	}
	if c.Teams == 0 {
		c.Teams = defaultTeams
	}
	if c.Problems == 0 {
		c.Problems = defaultProblems
	}
	if c.Submissions == 0 {
		c.Submissions = defaultSubmissionsPerTeam * c.Teams
	}
	if c.Start.IsZero() {
		c.Start = defaultStart
	}
	if c.Duration == 0 {
		c.Duration = defaultDuration
	}
	if c.Freeze == 0 {
		c.Freeze = lastHour(c.Duration)
	}
	if c.Groups == 0 {
		c.Groups = defaultGroups
	}
	return c
}

// validate reports the first unusable field of a config with defaults applied, as an EINVALID error.
func (c Config) validate() error {
	switch {
	case c.Rules > rankd.CTF:
		return rankd.Errorf(rankd.EINVALID, "gen: unknown rules %d", c.Rules)
	case c.Teams < 0 || c.Problems < 0 || c.Submissions < 0 || c.Groups < 0:
		return rankd.Errorf(rankd.EINVALID, "gen: teams, problems, submissions and groups must not be negative")
	case c.Teams > maxTeams || c.Problems > maxProblems || c.Submissions > maxSubmissions || c.Groups > maxGroups:
		// Beyond any contest, and beyond memory: a slice per team or problem made of a mistyped number.
		return rankd.Errorf(rankd.EINVALID, "gen: at most %d teams, %d problems, %d submissions and %d groups",
			maxTeams, maxProblems, maxSubmissions, maxGroups)
	case c.Duration > maxContest:
		return rankd.Errorf(rankd.EINVALID, "gen: duration must be at most %v", maxContest)
	case c.HiddenTeams < 0 || c.HiddenTeams > c.Teams:
		return rankd.Errorf(rankd.EINVALID, "gen: hidden teams must be between 0 and the %d teams", c.Teams)
	case c.Duration < time.Minute:
		return rankd.Errorf(rankd.EINVALID, "gen: duration must be at least a minute")
	case c.Freeze > c.Duration:
		return rankd.Errorf(rankd.EINVALID, "gen: freeze must not be longer than the duration")
	}
	return nil
}

// pcgStream is the second PCG seed word; fixed so that Seed alone selects the contest.
const pcgStream = 0x72616e6b64 // "rankd"

// Generate emits the contest cfg describes (after WithDefaults) as events in log order: the contest,
// judgement types, groups, organizations, problems, teams and the started state; then submissions and
// judgements interleaved in time order with the frozen and ended states; then, with cfg.Thaw, the thawed
// and finalized states. It stops at the first error emit returns and returns it; an unusable config is an
// EINVALID error.
//
// Events are emitted in the order of the contest times they happen at (a judgement without verdict at its
// start, one with a verdict at its end). Submission ids run from "1" to the number of submissions in log
// order. Judgement ids count on their own, in the order the judgements start, which is not always the order
// their verdicts arrive; judgements of submissions near the end, and rejudges, can come after the ended
// state.
//
// The objects an event points to, and the slices they hold, may be reused for later events once emit
// returns, so that a million submissions cost few allocations: a consumer that keeps one must copy it.
// Strings may be kept.
func Generate(cfg Config, emit func(ev rankd.Event) error) error {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	g := &generator{
		cfg:   cfg,
		emit:  emit,
		rng:   rand.New(rand.NewPCG(cfg.Seed, pcgStream)),
		clock: newSlotClock(cfg.Submissions, cfg.Duration),
	}
	if err := g.prelude(); err != nil {
		return err
	}
	for range cfg.Submissions {
		t := g.clock.next(g.rng.Float64())
		if err := g.flush(t); err != nil {
			return err
		}
		if err := g.submit(t); err != nil {
			return err
		}
	}
	if err := g.flush(maxDuration); err != nil {
		return err
	}
	if !cfg.Thaw {
		return nil
	}
	// The jury resolves the freeze about an hour after the end, once every judgement is in.
	thaw := max(cfg.Duration+time.Hour, g.last+time.Minute)
	if err := g.emitState(stepThawed, thaw); err != nil {
		return err
	}
	return g.emitState(stepFinalized, thaw+5*time.Minute)
}

const maxDuration = time.Duration(1<<63 - 1)

// generator is the state of one Generate call.
type generator struct {
	cfg  Config
	emit func(rankd.Event) error
	rng  *rand.Rand

	probs []problem
	teams []team
	// cells[t*len(probs)+p] is the progress of team t on problem p.
	cells []cell
	// ready holds the cells waiting to become ready: first solutions and fixes after a rejection.
	ready timeHeap
	// active weighs the teams that have a ready cell, by activity.
	active fenwick

	clock slotClock
	// pending orders the judgements still to emit by their next event; they are kept in slots (free lists
	// the unused ones) so that the heap moves small values.
	pending timeHeap
	slots   []judging
	free    []int
	seq     uint64        // orders pending judgements of equal time by scheduling, for determinism
	last    time.Duration // the time of the latest judgement event
	subIDs  idSeq
	judIDs  idSeq

	// states lists the frozen and ended steps, next the first not emitted.
	states     []stateChange
	next       int
	state      rankd.State
	stateTimes [stepCount]time.Time

	// Reused event payloads.
	sub    rankd.Submission
	jud    rankd.Judgement
	scores []float64
}

// problem is the model of one problem.
type problem struct {
	id string
	// difficulty runs from 0 (easiest) to 1 (hardest).
	difficulty float64
	// subtasks holds the IOI subtask maxima.
	subtasks []float64
}

// team is the model of one team.
type team struct {
	id string
	// skill runs from 0 (weakest) to 1 (strongest).
	skill float64
	// activity weighs the team when a submission goes to one of the teams with something to submit.
	activity int64
	ready    int // cells ready to submit
	solved   int // cells solved
	// lang is what the team submits in: a CCS submission names its language (and, for Java, its entry
	// point). Taken from the team's index rather than drawn, so the feed of a seed stays as it was.
	lang *language
}

type language struct{ id, entryPoint string }

// languages is a mix as contests see it: mostly C++, then Python and Java.
var languages = []language{{"cpp", ""}, {"python3", ""}, {"cpp", ""}, {"java", "Main"}, {"cpp", ""}, {"python3", ""}, {"c", ""}, {"cpp", ""}}

type cellStatus uint8

const (
	// cellWaiting: the team has no solution yet, or is fixing a rejected one.
	cellWaiting cellStatus = iota
	cellReady
	cellSolved
	cellGaveUp
)

// cell is a team's progress on a problem.
type cell struct {
	status cellStatus
	// planned: the team has a solution to it within the contest (plan). Its attempts at a problem it has
	// none to (once its plan is through, in a contest of many submissions per team) all fail.
	planned bool
	// tries counts the judged attempts; compile errors do not count.
	tries int32
}

// judging is a judgement still to emit: first at its start (id unset), then at its end with the verdict.
type judging struct {
	id         string
	sub        string
	start, end time.Duration
	nullFirst  bool
	out        outcome
}

type stateStep uint8

const (
	stepStarted stateStep = iota
	stepFrozen
	stepEnded
	stepThawed
	stepFinalized
	stepCount
)

type stateChange struct {
	at   time.Duration
	step stateStep
}

// prelude emits everything before the first submission and builds the model.
func (g *generator) prelude() error {
	cfg := g.cfg
	contest := rankd.Contest{
		ID:             cfg.ContestID,
		Name:           ContestName,
		FormalName:     fmt.Sprintf("Synthetic %s Contest (seed %d)", strings.ToUpper(cfg.Rules.String()), cfg.Seed),
		Rules:          cfg.Rules,
		Start:          cfg.Start,
		Duration:       cfg.Duration,
		FreezeDuration: max(cfg.Freeze, 0),
		PenaltyTime:    rankd.DefaultPenaltyTime,
	}
	switch cfg.Rules {
	case rankd.ICPC:
		contest.Medals = rankd.Medals{Gold: 4, Silver: 4, Bronze: 4}
	case rankd.CTF:
		contest.FirstBlood = []int64{50, 30, 10}
	}
	if err := g.emit(rankd.Event{Type: rankd.EventContest, ID: contest.ID, Contest: &contest}); err != nil {
		return err
	}
	for _, jt := range rankd.DefaultJudgementTypes() {
		if err := g.emit(rankd.Event{Type: rankd.EventJudgementType, ID: jt.ID, JudgementType: &jt}); err != nil {
			return err
		}
	}
	// Each group's id list is shared by its teams, so that 10,000 teams do not cost 10,000 slices.
	groupIDs := make([][]string, cfg.Groups)
	for i := range cfg.Groups {
		gr := rankd.Group{ID: strconv.Itoa(i + 1), Name: groupName(i)}
		groupIDs[i] = []string{gr.ID}
		if err := g.emit(rankd.Event{Type: rankd.EventGroup, ID: gr.ID, Group: &gr}); err != nil {
			return err
		}
	}
	orgs := make([]rankd.Organization, max(1, (cfg.Teams*orgsPerTenTeams+9)/10))
	var org rankd.Organization // the emitted copy, so that a consumer cannot change the team names
	for k := range orgs {
		formal, short, country := orgName(k)
		orgs[k] = rankd.Organization{ID: strconv.Itoa(k + 1), Name: short, FormalName: formal, Country: country}
		org = orgs[k]
		if err := g.emit(rankd.Event{Type: rankd.EventOrganization, ID: org.ID, Organization: &org}); err != nil {
			return err
		}
	}
	if err := g.problems(); err != nil {
		return err
	}
	if err := g.teamsOf(orgs, groupIDs); err != nil {
		return err
	}
	g.plan()
	if cfg.Freeze > 0 {
		g.states = append(g.states, stateChange{cfg.Duration - cfg.Freeze, stepFrozen})
	}
	g.states = append(g.states, stateChange{cfg.Duration, stepEnded})
	return g.emitState(stepStarted, 0)
}

// orgsPerTenTeams is how many organizations send ten teams: most send one to three.
const orgsPerTenTeams = 4

// problems builds the problem model and emits the problems.
func (g *generator) problems() error {
	n := g.cfg.Problems
	r := g.rng
	g.probs = make([]problem, n)
	// Difficulties spread evenly from easy to hard, in an order unrelated to the labels, as in real sets.
	diffs := make([]float64, n)
	for i := range diffs {
		diffs[i] = (float64(i) + 0.2 + 0.6*r.Float64()) / float64(n)
	}
	r.Shuffle(n, func(i, j int) { diffs[i], diffs[j] = diffs[j], diffs[i] })
	names := r.Perm(len(adjectives) * len(nouns))
	var p rankd.Problem
	for i := range n {
		k := names[i%len(names)]
		name := adjectives[k/len(nouns)] + " " + nouns[k%len(nouns)]
		if i >= len(names) {
			name += " " + strconv.Itoa(i/len(names)+1)
		}
		if g.cfg.Rules == rankd.CTF {
			name = ctfCategories[r.IntN(len(ctfCategories))] + "/" + slug(name)
		}
		label := problemLabel(i, n)
		c := colors[i%len(colors)]
		p = rankd.Problem{
			ID: slug(label + " " + name), Label: label, Name: name, Ordinal: i, Color: c.name, RGB: c.rgb,
		}
		g.probs[i] = problem{id: p.ID, difficulty: diffs[i]}
		switch g.cfg.Rules {
		case rankd.OI:
			p.MaxScore = 100
		case rankd.IOI:
			p.MaxScore = 100
			p.Subtasks = g.subtasks()
			g.probs[i].subtasks = p.Subtasks
		case rankd.CTF:
			g.challenge(&p, i, diffs[i])
		}
		if err := g.emit(rankd.Event{Type: rankd.EventProblem, ID: p.ID, Problem: &p}); err != nil {
			return err
		}
	}
	return nil
}

// subtasks returns 3 to 5 subtask maxima, multiples of 5 summing to 100, smallest (easiest) first.
func (g *generator) subtasks() []float64 {
	k := 3 + g.rng.IntN(3)
	cuts := g.rng.Perm(19)[:k-1] // distinct cuts among 5, 10, ..., 95
	cuts = append(cuts, -1, 19)
	slices.Sort(cuts)
	st := make([]float64, k)
	for i := range st {
		st[i] = float64(5 * (cuts[i+1] - cuts[i]))
	}
	slices.Sort(st)
	return st
}

// challenge sets a CTF challenge's value: the value functions take turns so that every kind is present.
func (g *generator) challenge(p *rankd.Problem, i int, difficulty float64) {
	teams := int64(g.cfg.Teams)
	p.Function = [...]rankd.ValueFunc{rankd.ValueStatic, rankd.ValueLinear, rankd.ValueLogarithmic, rankd.ValueDEFCON}[i%4]
	switch p.Function {
	case rankd.ValueStatic:
		p.Value = 100 + 50*int64(8*difficulty+0.5) // 100 to 500 by difficulty
	case rankd.ValueLinear:
		// The value falls by Decay per solve, reaching the minimum after about a quarter of the teams.
		p.Value, p.Minimum, p.Decay = 500, 100, max(1, 400/max(1, teams/4))
	case rankd.ValueLogarithmic:
		p.Value, p.Minimum, p.Decay = 500, 100, max(2, teams/4)
	case rankd.ValueDEFCON:
		p.Value, p.Minimum = 500, 100 // the range of the DEF CON formula
	}
}

// teamsOf builds the team model and emits the teams, spread over the organizations and their groups and
// named after their organization.
func (g *generator) teamsOf(orgs []rankd.Organization, groupIDs [][]string) error {
	n := g.cfg.Teams
	r := g.rng
	orgOf := make([]int32, n)
	for i := range orgOf {
		if i < len(orgs) {
			orgOf[i] = int32(i) // every organization sends a team
		} else {
			orgOf[i] = int32(r.IntN(len(orgs)))
		}
	}
	r.Shuffle(n, func(i, j int) { orgOf[i], orgOf[j] = orgOf[j], orgOf[i] })
	sent := make([]int32, len(orgs))
	g.teams = make([]team, n)
	var t rankd.Team
	for i := range n {
		o := orgOf[i]
		sent[o]++
		id := strconv.Itoa(i + 1)
		t = rankd.Team{
			ID: id, Label: id, Name: orgs[o].Name + " " + strconv.Itoa(int(sent[o])),
			OrganizationID: orgs[o].ID, GroupIDs: groupIDs[int(o)%len(groupIDs)],
			Hidden: i >= n-g.cfg.HiddenTeams,
		}
		skill := skillOf(r.Float64())
		g.teams[i] = team{id: id, skill: skill, activity: 2 + int64(8*skill), lang: &languages[i%len(languages)]}
		if err := g.emit(rankd.Event{Type: rankd.EventTeam, ID: id, Team: &t}); err != nil {
			return err
		}
	}
	return nil
}

// emitState emits the state after step, which happens at contest time at. Each state event gets its own
// State, since the steps accumulate.
func (g *generator) emitState(step stateStep, at time.Duration) error {
	t := &g.stateTimes[step]
	*t = g.cfg.Start.Add(at)
	s := g.state
	switch step {
	case stepStarted:
		s.Started = t
	case stepFrozen:
		s.Frozen = t
	case stepEnded:
		s.Ended = t
	case stepThawed:
		s.Thawed = t
	case stepFinalized:
		s.Finalized, s.EndOfUpdates = t, t
	}
	g.state = s
	return g.emit(rankd.Event{Type: rankd.EventState, State: &s})
}

// flush emits the state changes and judgement events due at or before t, in time order; a state change goes
// before a judgement of the same time, as it goes before a submission.
func (g *generator) flush(t time.Duration) error {
	for {
		judgement := g.pending.len() > 0 && g.pending.top().at <= t
		state := g.next < len(g.states) && g.states[g.next].at <= t
		switch {
		case state && (!judgement || g.states[g.next].at <= g.pending.top().at):
			sc := g.states[g.next]
			g.next++
			if err := g.emitState(sc.step, sc.at); err != nil {
				return err
			}
		case judgement:
			if err := g.judgement(g.pending.pop().ref); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// judgement emits the due event of the judgement in a slot: at its start it gets its id, and its
// verdict-less event for some; at its end its verdict, which frees the slot.
func (g *generator) judgement(slot int) error {
	j := &g.slots[slot]
	if j.id == "" {
		g.last = j.start
		j.id = g.judIDs.next()
		g.seq++
		g.pending.push(timed{at: j.end, tie: g.seq, ref: slot})
		if !j.nullFirst {
			return nil
		}
		g.jud = rankd.Judgement{ID: j.id, SubmissionID: j.sub, StartTime: j.start}
		return g.emit(rankd.Event{Type: rankd.EventJudgement, ID: j.id, Judgement: &g.jud})
	}
	g.last = j.end
	g.jud = rankd.Judgement{
		ID: j.id, SubmissionID: j.sub, TypeID: j.out.typeID, StartTime: j.start, EndTime: j.end,
		Score: j.out.score,
	}
	if n := int(j.out.subtasks); n > 0 {
		g.scores = append(g.scores[:0], j.out.subtaskScores[:n]...)
		g.jud.SubtaskScores = g.scores
	}
	*j = judging{}
	g.free = append(g.free, slot)
	return g.emit(rankd.Event{Type: rankd.EventJudgement, ID: g.jud.ID, Judgement: &g.jud})
}
