package gen

import (
	"cmp"
	"math"
	"slices"
	"time"

	"rankd"
)

// The model's knobs. Times that scale with the contest are shares of its duration, so that a 2h and a 5h
// contest look alike. They were tuned so that a default contest resembles a real ICPC feed (EUC 2025): a
// third or so of the submissions accepted, the best teams solving most problems and a long tail one to
// three, the easiest problem first solved within minutes and the hardest late by few or none.
const (
	// skillExp shapes team skill u^skillExp for a uniform u: many weak teams, a few strong ones.
	skillExp = 1.6

	// A team reads the set for readMin plus up to readSpread of the contest, then solves its problems
	// one after the other, easiest first as it judges them (orderNoise blurs that judgement, more for weak
	// teams). A problem of difficulty d takes (workBase + workDifficulty·d²)·lognormal(workNoise) of the
	// contest, divided by the team's speed speedMin + speedSkill·skill.
	readMin        = 0.02
	readSpread     = 0.03
	orderNoise     = 0.12
	workBase       = 0.02
	workDifficulty = 0.5
	workNoise      = 0.4
	speedMin       = 0.2
	speedSkill     = 1.8

	// After a rejection a team fixes its solution for retryMin plus up to retrySpread of the contest, after
	// a compile error for a tenth of that; CTF teams retry flags faster (ctfRetryScale).
	retryMin      = 0.005
	retrySpread   = 0.04
	ctfRetryScale = 0.25

	// A team gives up a problem after a rejection with probability giveUpBase +
	// giveUpHard·difficulty·(1.1-skill) + giveUpPerTry·tries, at most giveUpMax.
	giveUpBase   = 0.02
	giveUpHard   = 0.3
	giveUpPerTry = 0.02
	giveUpMax    = 0.5

	// afterAccept is how often a team that solved something resubmits a solved problem instead (about 1%
	// of the submissions, as in reality); such a resubmission is accepted with afterAcceptAC.
	afterAccept   = 0.012
	afterAcceptAC = 0.7

	// compileErrors is the share of ICPC submissions that do not compile.
	compileErrors = 0.05

	// Judging starts judgeQueue plus up to judgeQueueSpread after the submission and takes judgeRunMin plus
	// an exponential time of mean judgeRunMean, at most judgeRunMax: a few seconds, rarely near a minute.
	judgeQueue       = 200 * time.Millisecond
	judgeQueueSpread = 2800 * time.Millisecond
	judgeRunMin      = time.Second
	judgeRunMean     = 4 * time.Second
	judgeRunMax      = 55 * time.Second

	// nullFirst is the share of judgements that first appear without a verdict. Real feeds do it for all;
	// a share exercises both forms without doubling the stream.
	nullFirst = 0.1

	// rejudges is the share of submissions judged a second time, rejudgeMin plus up to rejudgeSpread after
	// the first verdict; the verdict stays with rejudgeSame.
	rejudges      = 0.005
	rejudgeMin    = 2 * time.Minute
	rejudgeSpread = 28 * time.Minute
	rejudgeSame   = 0.7
)

// attemptModel gives the chance an attempt is accepted: base + skill·s - difficulty·d + perTry·tries, within
// [acceptMin, acceptMax], so strong teams need fewer rejections and hard problems more.
type attemptModel struct{ base, skill, difficulty, perTry float64 }

const (
	acceptMin = 0.04
	acceptMax = 0.95
)

var attemptModels = [...]attemptModel{
	rankd.ICPC: {base: 0.22, skill: 0.45, difficulty: 0.35, perTry: 0.08},
	// A full OI or IOI score is harder than an ICPC accept: partial scores come first.
	rankd.OI:  {base: 0.12, skill: 0.5, difficulty: 0.4, perTry: 0.08},
	rankd.IOI: {base: 0.12, skill: 0.5, difficulty: 0.4, perTry: 0.08},
	// A team that found a flag mostly submits it right; wrong flags are near misses.
	rankd.CTF: {base: 0.45, skill: 0.35, difficulty: 0.3, perTry: 0.1},
}

// rejections are the ICPC rejection verdicts with their weights, as in real feeds.
var rejections = [...]struct {
	id     string
	weight int
}{{"WA", 62}, {"TLE", 18}, {"RTE", 14}, {"MLE", 6}}

// maxSubtasks bounds the IOI subtasks of a problem, so that an outcome needs no allocation.
const maxSubtasks = 5

// outcome is the verdict on one submission.
type outcome struct {
	typeID        string
	solved        bool
	score         float64
	subtasks      uint8 // the number of IOI subtask scores
	subtaskScores [maxSubtasks]float64
}

func skillOf(u float64) float64 { return math.Pow(u, skillExp) }

// share returns the given share of the contest duration, in whole milliseconds.
func (g *generator) share(f float64) time.Duration {
	return time.Duration(f * float64(g.cfg.Duration)).Truncate(time.Millisecond)
}

// plan schedules when each team has its first solution to each problem it reaches within the contest.
func (g *generator) plan() {
	r := g.rng
	np := len(g.probs)
	g.cells = make([]cell, len(g.teams)*np)
	g.active = newFenwick(len(g.teams))
	keys := make([]float64, np)
	order := make([]int, np)
	byKey := func(a, b int) int { return cmp.Or(cmp.Compare(keys[a], keys[b]), a-b) }
	for ti := range g.teams {
		skill := g.teams[ti].skill
		for p := range np {
			keys[p] = g.probs[p].difficulty + orderNoise*(1.2-skill)*r.NormFloat64()
			order[p] = p
		}
		slices.SortFunc(order, byKey)
		speed := speedMin + speedSkill*skill
		at := readMin + readSpread*r.Float64()
		for _, p := range order {
			d := g.probs[p].difficulty
			at += (workBase + workDifficulty*d*d) * math.Exp(workNoise*r.NormFloat64()) / speed
			if at >= 1 {
				break
			}
			g.cells[ti*np+p].planned = true
			g.ready.push(timed{at: g.share(at), tie: uint64(ti*np + p), ref: ti*np + p})
		}
	}
}

// submit makes the submission at time t, updates the team's progress, emits it and schedules its judgement.
func (g *generator) submit(t time.Duration) error {
	for g.ready.len() > 0 && g.ready.top().at <= t {
		g.makeReady(g.ready.pop().ref)
	}
	ti, pi := g.choose()
	np := len(g.probs)
	ci := ti*np + pi
	c, tm, p := &g.cells[ci], &g.teams[ti], &g.probs[pi]
	after := c.status == cellSolved
	if c.status == cellReady {
		g.unready(ti)
	}
	out := g.verdict(tm.skill, p, c, after)
	switch {
	case after:
	case out.solved:
		c.status = cellSolved
		tm.solved++
	case out.typeID == "CE":
		g.wait(ci, t+g.retry()/10)
	default:
		c.tries++
		giveUp := min(giveUpBase+giveUpHard*p.difficulty*(1.1-tm.skill)+giveUpPerTry*float64(c.tries), giveUpMax)
		if g.rng.Float64() < giveUp {
			c.status = cellGaveUp
		} else {
			g.wait(ci, t+g.retry())
		}
	}
	id := g.subIDs.next()
	g.sub = rankd.Submission{ID: id, TeamID: tm.id, ProblemID: p.id, LanguageID: tm.lang.id, EntryPoint: tm.lang.entryPoint, Time: t}
	if err := g.emit(rankd.Event{Type: rankd.EventSubmission, ID: id, Submission: &g.sub}); err != nil {
		return err
	}
	start := t + judgeQueue + g.upTo(judgeQueueSpread)
	end := start + g.runTime()
	g.schedule(id, start, end, out)
	if g.rng.Float64() < rejudges {
		start := end + rejudgeMin + g.upTo(rejudgeSpread)
		g.schedule(id, start, start+g.runTime(), g.rejudge(out, p))
	}
	return nil
}

// choose picks the team that submits and the problem it submits.
func (g *generator) choose() (ti, pi int) {
	if g.active.total == 0 {
		if g.ready.len() == 0 {
			// Every planned solution is in: the contest has more submissions than its teams would make. A
			// random team with something left tries again a problem it has not solved (given up, or beyond
			// its plan, where it fails); coming back to any problem, the teams filled the end of a busy
			// contest with submissions after an accept (a third of them, against 1 in 90 before).
			for range len(g.teams) { // a few draws find such a team, unless nearly all solved everything
				ti = g.rng.IntN(len(g.teams))
				if unsolved := len(g.probs) - g.teams[ti].solved; unsolved > 0 {
					return ti, g.nth(ti, cellSolved, true, g.rng.IntN(unsolved))
				}
			}
			return ti, g.rng.IntN(len(g.probs))
		}
		// Nobody is ready: the team closest to a solution submits it early.
		g.makeReady(g.ready.pop().ref)
	}
	ti = g.active.find(g.rng.Int64N(g.active.total))
	tm := &g.teams[ti]
	if tm.solved > 0 && g.rng.Float64() < afterAccept {
		return ti, g.nth(ti, cellSolved, false, g.rng.IntN(tm.solved))
	}
	return ti, g.nth(ti, cellReady, false, g.rng.IntN(tm.ready))
}

// nth returns the problem of the k-th cell of team ti whose status is, or with not set is not, status.
func (g *generator) nth(ti int, status cellStatus, not bool, k int) int {
	np := len(g.probs)
	for p, c := range g.cells[ti*np : (ti+1)*np] {
		if (c.status == status) != not {
			if k == 0 {
				return p
			}
			k--
		}
	}
	panic("gen: team cell counts out of step")
}

func (g *generator) makeReady(ci int) {
	g.cells[ci].status = cellReady
	ti := ci / len(g.probs)
	if g.teams[ti].ready++; g.teams[ti].ready == 1 {
		g.active.add(ti, g.teams[ti].activity)
	}
}

func (g *generator) unready(ti int) {
	if g.teams[ti].ready--; g.teams[ti].ready == 0 {
		g.active.add(ti, -g.teams[ti].activity)
	}
}

// wait makes a cell ready again at time at, unless that is after the contest.
func (g *generator) wait(ci int, at time.Duration) {
	g.cells[ci].status = cellWaiting
	if at < g.cfg.Duration {
		g.ready.push(timed{at: at, tie: uint64(ci), ref: ci})
	}
}

// retry returns how long a team takes to fix a rejected solution.
func (g *generator) retry() time.Duration {
	f := retryMin + retrySpread*g.rng.Float64()
	if g.cfg.Rules == rankd.CTF {
		f *= ctfRetryScale
	}
	return g.share(f)
}

// upTo returns a random duration below d, in whole milliseconds as feeds have them.
func (g *generator) upTo(d time.Duration) time.Duration {
	return time.Duration(g.rng.Int64N(int64(d/time.Millisecond))) * time.Millisecond
}

func (g *generator) runTime() time.Duration {
	run := judgeRunMin + time.Duration(g.rng.ExpFloat64()*float64(judgeRunMean))
	return min(run, judgeRunMax).Truncate(time.Millisecond)
}

// schedule queues a judgement of submission sub that starts and ends at the given times.
func (g *generator) schedule(sub string, start, end time.Duration, out outcome) {
	var slot int
	if n := len(g.free); n > 0 {
		slot = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		slot = len(g.slots)
		g.slots = append(g.slots, judging{})
	}
	g.slots[slot] = judging{sub: sub, start: start, end: end, out: out, nullFirst: g.rng.Float64() < nullFirst}
	g.seq++
	g.pending.push(timed{at: start, tie: g.seq, ref: slot})
}

// verdict judges an attempt of a team of the skill at problem p, its cell c; after marks a resubmission of a
// solved problem. An attempt at a problem beyond the team's plan fails: tried often enough, any problem was
// solved in the end, and a contest of many submissions per team had every team solving every problem.
func (g *generator) verdict(skill float64, p *problem, c *cell, after bool) outcome {
	r := g.rng
	m := attemptModels[g.cfg.Rules]
	accept := min(max(m.base+m.skill*skill-m.difficulty*p.difficulty+m.perTry*float64(c.tries), acceptMin), acceptMax)
	switch {
	case after:
		accept = afterAcceptAC
	case !c.planned:
		accept = 0
	}
	tries := c.tries
	// How far a rejected OI or IOI attempt gets, from 0 to just below full.
	level := min(max(0.15+0.6*skill-0.3*p.difficulty+0.08*float64(tries), 0.02), 0.99)
	switch g.cfg.Rules {
	case rankd.OI:
		if r.Float64() < accept {
			return outcome{typeID: "AC", solved: true, score: 100}
		}
		return outcome{typeID: "WA", score: float64(r.IntN(int(level*100) + 1))}
	case rankd.IOI:
		out := outcome{typeID: "WA", subtasks: uint8(len(p.subtasks))}
		if r.Float64() < accept {
			out.typeID, out.solved = "AC", true
			copy(out.subtaskScores[:], p.subtasks)
			out.score = 100
			return out
		}
		k := len(p.subtasks)
		full := true
		for i, mx := range p.subtasks {
			// Later subtasks are harder: the chance to pass one falls from level+0.35 to level-0.35.
			pass := level + 0.35 - 0.7*float64(i)/float64(k-1)
			switch u := r.Float64(); {
			case u < pass:
				out.subtaskScores[i] = mx
			case u < pass+0.2: // some subtasks give partial points
				out.subtaskScores[i] = math.Floor(mx * r.Float64())
			}
			full = full && out.subtaskScores[i] == mx
		}
		if full { // a rejected attempt misses something: the hardest subtask
			out.subtaskScores[k-1] = math.Floor(p.subtasks[k-1] * r.Float64())
		}
		for _, s := range out.subtaskScores[:k] {
			out.score += s
		}
		return out
	case rankd.CTF:
		if r.Float64() < accept {
			return outcome{typeID: "AC", solved: true}
		}
		return outcome{typeID: "WA"}
	}
	if r.Float64() < compileErrors {
		return outcome{typeID: "CE"}
	}
	if r.Float64() < accept {
		return outcome{typeID: "AC", solved: true}
	}
	return outcome{typeID: g.rejection()}
}

// rejection draws an ICPC rejection verdict.
func (g *generator) rejection() string {
	total := 0
	for _, r := range rejections {
		total += r.weight
	}
	k := g.rng.IntN(total)
	for _, r := range rejections {
		if k < r.weight {
			return r.id
		}
		k -= r.weight
	}
	panic("gen: rejection weights out of step")
}

// rejudge returns the verdict of a second judgement of a submission first judged out: mostly the same, else
// flipped (accepted to rejected and back; OI a new score; IOI one subtask changed). Compile errors stay.
func (g *generator) rejudge(out outcome, p *problem) outcome {
	r := g.rng
	if out.typeID == "CE" || r.Float64() < rejudgeSame {
		return out
	}
	switch g.cfg.Rules {
	case rankd.OI:
		s := r.IntN(101)
		if s == 100 {
			return outcome{typeID: "AC", solved: true, score: 100}
		}
		return outcome{typeID: "WA", score: float64(s)}
	case rankd.IOI:
		i := r.IntN(len(p.subtasks))
		if out.subtaskScores[i] == p.subtasks[i] {
			out.subtaskScores[i] = 0
		} else {
			out.subtaskScores[i] = p.subtasks[i]
		}
		out.score, out.solved, out.typeID = 0, true, "AC"
		for i, s := range out.subtaskScores[:out.subtasks] {
			out.score += s
			if s != p.subtasks[i] {
				out.solved, out.typeID = false, "WA"
			}
		}
		return out
	case rankd.CTF:
		if out.solved {
			return outcome{typeID: "WA"}
		}
		return outcome{typeID: "AC", solved: true}
	}
	if out.solved {
		return outcome{typeID: g.rejection()}
	}
	return outcome{typeID: "AC", solved: true}
}
