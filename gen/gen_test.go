package gen_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"rankd"
	"rankd/gen"
)

var allRules = []rankd.Rules{rankd.ICPC, rankd.OI, rankd.IOI, rankd.CTF}

// render writes an event as text, following its pointers, so that equal streams render equal.
func render(w io.Writer, ev rankd.Event) {
	fmt.Fprintf(w, "%s %q ", ev.Type, ev.ID)
	switch ev.Type {
	case rankd.EventContest:
		fmt.Fprintf(w, "%+v\n", *ev.Contest)
	case rankd.EventJudgementType:
		fmt.Fprintf(w, "%+v\n", *ev.JudgementType)
	case rankd.EventGroup:
		fmt.Fprintf(w, "%+v\n", *ev.Group)
	case rankd.EventOrganization:
		fmt.Fprintf(w, "%+v\n", *ev.Organization)
	case rankd.EventProblem:
		fmt.Fprintf(w, "%+v\n", *ev.Problem)
	case rankd.EventTeam:
		fmt.Fprintf(w, "%+v\n", *ev.Team)
	case rankd.EventSubmission:
		fmt.Fprintf(w, "%+v\n", *ev.Submission)
	case rankd.EventJudgement:
		fmt.Fprintf(w, "%+v\n", *ev.Judgement)
	case rankd.EventState:
		s := ev.State
		for _, t := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
			if t == nil {
				fmt.Fprint(w, "- ")
			} else {
				fmt.Fprint(w, t.Format(time.RFC3339Nano), " ")
			}
		}
		fmt.Fprintln(w)
	}
}

func digest(t *testing.T, cfg gen.Config) string {
	t.Helper()
	h := sha256.New()
	if err := gen.Generate(cfg, func(ev rankd.Event) error { render(h, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestDeterministic(t *testing.T) {
	for _, r := range allRules {
		cfg := gen.Config{Seed: 42, Rules: r, Teams: 60, Submissions: 2000, HiddenTeams: 2, Thaw: true}
		a, b := digest(t, cfg), digest(t, cfg)
		if a != b {
			t.Errorf("%s: two runs differ: %s, %s", r, a, b)
		}
		cfg.Seed++
		if c := digest(t, cfg); c == a {
			t.Errorf("%s: seeds 42 and 43 give the same stream", r)
		}
	}
}

// contest holds the copied events of one generated contest.
type contest struct {
	cfg      gen.Config
	events   []rankd.Event
	contest  rankd.Contest
	problems map[string]rankd.Problem
	teams    map[string]rankd.Team
	subs     []rankd.Submission
	subByID  map[string]rankd.Submission
	// judgements of each submission with a verdict, in log order; nulls counts verdict-less judgement events.
	verdicts map[string][]rankd.Judgement
	nulls    int
	states   []rankd.State
}

// generate runs Generate and keeps a copy of every event, since Generate reuses the objects.
func generate(t *testing.T, cfg gen.Config) *contest {
	t.Helper()
	c := &contest{
		cfg: cfg.WithDefaults(), problems: map[string]rankd.Problem{}, teams: map[string]rankd.Team{},
		subByID: map[string]rankd.Submission{}, verdicts: map[string][]rankd.Judgement{},
	}
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		switch ev.Type {
		case rankd.EventContest:
			c.contest = *ev.Contest
		case rankd.EventProblem:
			c.problems[ev.ID] = *ev.Problem
		case rankd.EventTeam:
			c.teams[ev.ID] = *ev.Team
		case rankd.EventSubmission:
			c.subs = append(c.subs, *ev.Submission)
			c.subByID[ev.ID] = *ev.Submission
			ev.Submission = &c.subs[len(c.subs)-1]
		case rankd.EventJudgement:
			j := *ev.Judgement
			j.SubtaskScores = slices.Clone(j.SubtaskScores)
			ev.Judgement = &j
			if j.TypeID == "" {
				c.nulls++
			} else {
				c.verdicts[j.SubmissionID] = append(c.verdicts[j.SubmissionID], j)
			}
		case rankd.EventState:
			c.states = append(c.states, *ev.State)
		}
		c.events = append(c.events, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// at returns the contest time an event happens at: a state's latest step, a judgement's start without a
// verdict and its end with one.
func (c *contest) at(ev rankd.Event) time.Duration {
	switch ev.Type {
	case rankd.EventSubmission:
		return ev.Submission.Time
	case rankd.EventJudgement:
		if ev.Judgement.TypeID == "" {
			return ev.Judgement.StartTime
		}
		return ev.Judgement.EndTime
	case rankd.EventState:
		var latest time.Time
		s := ev.State
		for _, t := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
			if t != nil && t.After(latest) {
				latest = *t
			}
		}
		return latest.Sub(c.cfg.Start)
	}
	return 0
}

func TestStream(t *testing.T) {
	for _, r := range allRules {
		t.Run(r.String(), func(t *testing.T) {
			cfg := gen.Config{Seed: 7, Rules: r, Teams: 150, Submissions: 4000, Groups: 3, HiddenTeams: 5, Thaw: true}
			c := generate(t, cfg)
			cfg = cfg.WithDefaults()

			// The objects come first, in a fixed order of types, and end with the started state.
			order := []rankd.EventType{rankd.EventContest, rankd.EventJudgementType, rankd.EventGroup,
				rankd.EventOrganization, rankd.EventProblem, rankd.EventTeam, rankd.EventState}
			k := 0
			for i, ev := range c.events {
				for k < len(order) && order[k] != ev.Type {
					k++
				}
				if k == len(order) {
					t.Fatalf("event %d (%s) out of the prelude order", i, ev.Type)
				}
				if ev.Type == rankd.EventState {
					if c.events[i+1].Type != rankd.EventSubmission {
						t.Fatalf("the started state is followed by %s", c.events[i+1].Type)
					}
					break
				}
			}
			if len(c.problems) != cfg.Problems || len(c.teams) != cfg.Teams {
				t.Fatalf("%d problems, %d teams; want %d, %d", len(c.problems), len(c.teams), cfg.Problems, cfg.Teams)
			}

			if len(c.subs) != cfg.Submissions {
				t.Fatalf("%d submissions, want %d", len(c.subs), cfg.Submissions)
			}
			var prev time.Duration
			seen := map[string]bool{}
			judgementIDs := map[string]rankd.Judgement{}
			for _, ev := range c.events {
				at := c.at(ev)
				if at < prev {
					t.Fatalf("%s %s at %v logged after an event at %v", ev.Type, ev.ID, at, prev)
				}
				prev = at
				switch ev.Type {
				case rankd.EventSubmission:
					s := ev.Submission
					if want := strconv.Itoa(len(seen) + 1); s.ID != want {
						t.Fatalf("submission id %s, want %s", s.ID, want)
					}
					seen[s.ID] = true
					if s.Time%time.Millisecond != 0 {
						t.Fatalf("submission %s at %v, not in whole milliseconds", s.ID, s.Time)
					}
					if s.Time < 0 || s.Time >= cfg.Duration {
						t.Fatalf("submission %s at %v, outside the contest", s.ID, s.Time)
					}
					if _, ok := c.teams[s.TeamID]; !ok {
						t.Fatalf("submission %s by unknown team %s", s.ID, s.TeamID)
					}
					if _, ok := c.problems[s.ProblemID]; !ok {
						t.Fatalf("submission %s for unknown problem %s", s.ID, s.ProblemID)
					}
				case rankd.EventJudgement:
					j := ev.Judgement
					if !seen[j.SubmissionID] {
						t.Fatalf("judgement %s of submission %s before it", j.ID, j.SubmissionID)
					}
					if j.StartTime < c.subByID[j.SubmissionID].Time {
						t.Fatalf("judgement %s starts before its submission", j.ID)
					}
					old, again := judgementIDs[j.ID]
					switch {
					case j.TypeID == "" && (again || j.EndTime != 0):
						t.Fatalf("judgement %s: verdict-less event %+v after %+v", j.ID, *j, old)
					case j.TypeID != "" && again && (old.TypeID != "" || old.StartTime != j.StartTime || old.SubmissionID != j.SubmissionID):
						t.Fatalf("judgement %s: %+v after %+v", j.ID, *j, old)
					case j.TypeID != "" && (j.EndTime <= j.StartTime || j.EndTime > j.StartTime+time.Minute):
						t.Fatalf("judgement %s runs from %v to %v", j.ID, j.StartTime, j.EndTime)
					case j.StartTime%time.Millisecond != 0 || j.EndTime%time.Millisecond != 0:
						t.Fatalf("judgement %s times %v, %v not in whole milliseconds", j.ID, j.StartTime, j.EndTime)
					}
					judgementIDs[j.ID] = *j
				}
			}

			// Judgement ids are 1..n, numbered by start; each submission's first verdict is in within a minute.
			for i := 1; i <= len(judgementIDs); i++ {
				j, ok := judgementIDs[strconv.Itoa(i)]
				if !ok || j.TypeID == "" {
					t.Fatalf("judgement %d missing or without verdict", i)
				}
				if prev, ok := judgementIDs[strconv.Itoa(i-1)]; ok && prev.StartTime > j.StartTime {
					t.Fatalf("judgement %d starts at %v, before judgement %d at %v", i, j.StartTime, i-1, prev.StartTime)
				}
			}
			for _, s := range c.subs {
				v := c.verdicts[s.ID]
				if len(v) == 0 {
					t.Fatalf("submission %s has no verdict", s.ID)
				}
				if v[0].EndTime-s.Time > time.Minute {
					t.Fatalf("submission %s at %v judged at %v", s.ID, s.Time, v[0].EndTime)
				}
			}

			// States: started, frozen, ended, thawed, finalized with end of updates, at absolute times.
			if len(c.states) != 5 {
				t.Fatalf("%d state events, want 5", len(c.states))
			}
			last := c.states[4]
			start := cfg.Start
			if !last.Started.Equal(start) || !last.Frozen.Equal(start.Add(cfg.Duration-cfg.Freeze)) ||
				!last.Ended.Equal(start.Add(cfg.Duration)) || last.Thawed.Before(*last.Ended) ||
				last.Finalized.Before(*last.Thawed) || last.EndOfUpdates == nil {
				t.Fatalf("final state %s", stateString(last))
			}
			if c.states[0].Frozen != nil || c.states[1].Ended != nil || c.states[2].Thawed != nil || c.states[3].Finalized != nil {
				t.Fatalf("states do not accumulate one step at a time")
			}
			hidden := 0
			for _, tm := range c.teams {
				if tm.Hidden {
					hidden++
				}
			}
			if hidden != cfg.HiddenTeams {
				t.Errorf("%d hidden teams, want %d", hidden, cfg.HiddenTeams)
			}
		})
	}
}

func stateString(s rankd.State) string {
	var b []byte
	for _, t := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
		if t == nil {
			b = append(b, "- "...)
		} else {
			b = t.AppendFormat(b, time.RFC3339)
			b = append(b, ' ')
		}
	}
	return string(b)
}

func TestRulesObjects(t *testing.T) {
	for _, r := range allRules {
		t.Run(r.String(), func(t *testing.T) {
			c := generate(t, gen.Config{Seed: 3, Rules: r, Teams: 80, Problems: 9})
			if err := c.contest.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.contest.Rules != r || c.contest.PenaltyTime != 20*time.Minute {
				t.Fatalf("contest %+v", c.contest)
			}
			verdicts := map[string]int{}
			for _, js := range c.verdicts {
				for _, j := range js {
					verdicts[j.TypeID]++
				}
			}
			switch r {
			case rankd.ICPC:
				if c.contest.Medals != (rankd.Medals{Gold: 4, Silver: 4, Bronze: 4}) {
					t.Errorf("medals %+v", c.contest.Medals)
				}
				for _, v := range []string{"AC", "WA", "TLE", "RTE", "MLE", "CE"} {
					if verdicts[v] == 0 {
						t.Errorf("no %s verdict", v)
					}
				}
			case rankd.CTF:
				if !slices.Equal(c.contest.FirstBlood, []int64{50, 30, 10}) {
					t.Errorf("first blood %v", c.contest.FirstBlood)
				}
				funcs := map[rankd.ValueFunc]int{}
				for _, p := range c.problems {
					funcs[p.Function]++
					switch {
					case p.Value <= 0:
						t.Errorf("challenge %s has value %d", p.ID, p.Value)
					case p.Function != rankd.ValueStatic && (p.Minimum <= 0 || p.Minimum >= p.Value):
						t.Errorf("dynamic challenge %s: value %d, minimum %d", p.ID, p.Value, p.Minimum)
					case (p.Function == rankd.ValueLinear || p.Function == rankd.ValueLogarithmic) && p.Decay <= 0:
						t.Errorf("challenge %s: %s with decay %d", p.ID, p.Function, p.Decay)
					}
				}
				if len(funcs) != 4 {
					t.Errorf("value functions %v, want all four", funcs)
				}
			case rankd.OI, rankd.IOI:
				for _, p := range c.problems {
					if p.MaxScore != 100 {
						t.Errorf("problem %s has max score %v", p.ID, p.MaxScore)
					}
					if r == rankd.IOI {
						sum := 0.0
						for _, s := range p.Subtasks {
							sum += s
						}
						if n := len(p.Subtasks); n < 3 || n > 5 || sum != 100 {
							t.Errorf("problem %s has subtasks %v", p.ID, p.Subtasks)
						}
					}
				}
			}
			if r != rankd.ICPC && len(verdicts) != 2 {
				t.Errorf("verdicts %v, want AC and WA only", verdicts)
			}
			for id, js := range c.verdicts {
				p := c.problems[c.subByID[id].ProblemID]
				for _, j := range js {
					checkScore(t, r, p, j)
				}
			}
		})
	}
}

// checkScore checks an OI or IOI judgement's score against its problem: within bounds, AC exactly when full.
func checkScore(t *testing.T, r rankd.Rules, p rankd.Problem, j rankd.Judgement) {
	t.Helper()
	switch r {
	case rankd.OI:
		if j.Score < 0 || j.Score > 100 || (j.Score == 100) != (j.TypeID == "AC") {
			t.Fatalf("OI judgement %s: %s with score %v", j.ID, j.TypeID, j.Score)
		}
	case rankd.IOI:
		if len(j.SubtaskScores) != len(p.Subtasks) {
			t.Fatalf("IOI judgement %s: %d subtask scores for %d subtasks", j.ID, len(j.SubtaskScores), len(p.Subtasks))
		}
		sum, full := 0.0, true
		for i, s := range j.SubtaskScores {
			if s < 0 || s > p.Subtasks[i] {
				t.Fatalf("IOI judgement %s: subtask scores %v over maxima %v", j.ID, j.SubtaskScores, p.Subtasks)
			}
			sum += s
			full = full && s == p.Subtasks[i]
		}
		if sum != j.Score || full != (j.TypeID == "AC") {
			t.Fatalf("IOI judgement %s: %s, score %v, subtask scores %v", j.ID, j.TypeID, j.Score, j.SubtaskScores)
		}
	default:
		if j.Score != 0 || j.SubtaskScores != nil {
			t.Fatalf("%s judgement %s has a score", r, j.ID)
		}
	}
}

// TestShape checks the realistic proportions loosely: verdict mix, rejudges, the busy last hour, difficulty,
// the spread of the teams; at the default ten submissions per team, and at a hundred (the benchmarks' feeds),
// where the teams are through their plans early and go on submitting.
func TestShape(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        gen.Config
		acceptedLo float64 // the least share of accepted submissions
	}{
		{"default", gen.Config{Seed: 11, Teams: 2000}, 0.25},
		{"100-per-team", gen.Config{Seed: 11, Teams: 2000, Submissions: 200000}, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) { testShape(t, tc.cfg, tc.acceptedLo) })
	}
}

func testShape(t *testing.T, cfg gen.Config, acceptedLo float64) {
	c := generate(t, cfg)
	cfg = c.cfg
	n := float64(len(c.subs))
	ce, ac, rejudged, lastHour, frozen, after := 0, 0, 0, 0, 0, 0
	solvedAt := map[[2]string]time.Duration{}
	for _, s := range c.subs {
		v := c.verdicts[s.ID]
		if len(v) > 1 {
			rejudged++
		}
		key := [2]string{s.TeamID, s.ProblemID}
		if _, ok := solvedAt[key]; ok {
			after++
		}
		switch v[0].TypeID {
		case "CE":
			ce++
		case "AC":
			ac++
			if _, ok := solvedAt[key]; !ok {
				solvedAt[key] = s.Time
			}
		}
		if s.Time >= cfg.Duration-time.Hour {
			lastHour++
		}
		if s.Time >= cfg.Duration-cfg.Freeze {
			frozen++
		}
	}
	within := func(what string, got, lo, hi float64) {
		t.Helper()
		if got < lo || got > hi {
			t.Errorf("%s is %.4f, want it within [%v, %v]", what, got, lo, hi)
		}
	}
	within("compile error share", float64(ce)/n, 0.03, 0.07)
	within("accepted share", float64(ac)/n, acceptedLo, 0.5)
	within("rejudged share", float64(rejudged)/n, 0.002, 0.01)
	within("share of submissions after an accept", float64(after)/n, 0.002, 0.03)
	within("verdict-less judgement share", float64(c.nulls)/n, 0.07, 0.13)
	within("last hour rate over the mean", float64(lastHour)/n*cfg.Duration.Hours(), 1.3, 1.7)
	if frozen == 0 {
		t.Error("no submission during the freeze")
	}

	// Problems solved by many are solved early, those solved by few late; strong teams solve most.
	solves := map[string][]time.Duration{}
	perTeam := map[string]int{}
	for key, at := range solvedAt {
		solves[key[1]] = append(solves[key[1]], at)
		perTeam[key[0]]++
	}
	var most, fewest string
	for p, ts := range solves {
		slices.Sort(ts)
		if most == "" || len(ts) > len(solves[most]) {
			most = p
		}
		if len(ts) >= 5 && (fewest == "" || len(ts) < len(solves[fewest])) {
			fewest = p
		}
	}
	median := func(p string) time.Duration { return solves[p][len(solves[p])/2] }
	if len(solves[most]) < 3*len(solves[fewest]) || median(most) >= median(fewest) {
		t.Errorf("most solved problem: %d solves, median %v; fewest: %d, median %v",
			len(solves[most]), median(most), len(solves[fewest]), median(fewest))
	}
	counts := make([]int, 0, cfg.Teams)
	for _, k := range perTeam {
		counts = append(counts, k)
	}
	for len(counts) < cfg.Teams {
		counts = append(counts, 0)
	}
	slices.Sort(counts)
	if best, mid := counts[len(counts)-1], counts[len(counts)/2]; best < cfg.Problems*2/3 || mid > best/2+1 {
		t.Errorf("best team solved %d, median team %d of %d problems", best, mid, cfg.Problems)
	}
	all := len(counts) - sort.SearchInts(counts, cfg.Problems)
	within("share of teams that solved every problem", float64(all)/float64(cfg.Teams), 0, 0.1)
}

func TestConfig(t *testing.T) {
	d := gen.Config{}.WithDefaults()
	want := gen.Config{
		ContestID: "gen", Teams: 100, Problems: 12, Submissions: 1000,
		Start: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Duration: 5 * time.Hour, Freeze: time.Hour, Groups: 2,
	}
	if d != want {
		t.Fatalf("defaults %+v, want %+v", d, want)
	}
	if f := (gen.Config{Duration: 2 * time.Hour}).WithDefaults().Freeze; f != 30*time.Minute {
		t.Errorf("default freeze of a 2h contest is %v", f)
	}

	c := generate(t, gen.Config{Teams: 10, Freeze: gen.NoFreeze})
	if c.contest.FreezeDuration != 0 {
		t.Errorf("freeze duration %v without freeze", c.contest.FreezeDuration)
	}
	if len(c.states) != 2 || c.states[1].Frozen != nil || c.states[1].Ended == nil {
		t.Errorf("states without freeze and thaw: %d, last %s", len(c.states), stateString(c.states[len(c.states)-1]))
	}
	for i := len(c.events) - 1; c.events[i].Type != rankd.EventState; i-- {
		if c.events[i].Type != rankd.EventJudgement {
			t.Errorf("%s after the ended state; want only the last judgements", c.events[i].Type)
		}
	}

	for _, bad := range []gen.Config{
		{Teams: -1}, {Problems: -2}, {Submissions: -1}, {Groups: -1}, {Teams: 5, HiddenTeams: 6},
		{HiddenTeams: -1}, {Duration: 30 * time.Second}, {Duration: time.Hour, Freeze: 2 * time.Hour}, {Rules: 9},
		{Teams: 99999999999999}, {Problems: 99999999999}, {Submissions: 1 << 40}, {Groups: 1 << 20},
		{Duration: 2000001 * time.Hour}, // beyond memory, or beyond what a feed's reader takes
	} {
		err := gen.Generate(bad, func(rankd.Event) error { t.Fatal("emit called for a bad config"); return nil })
		if rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("%+v: error %v, want %s", bad, err, rankd.EINVALID)
		}
	}
}

func TestEmitError(t *testing.T) {
	stop := errors.New("stop")
	for _, at := range []int{0, 5, 500, 1500} {
		calls := 0
		err := gen.Generate(gen.Config{Teams: 100}, func(rankd.Event) error {
			calls++
			if calls > at {
				return stop
			}
			return nil
		})
		if err != stop || calls != at+1 {
			t.Errorf("stopping at event %d: error %v after %d calls", at, err, calls)
		}
	}
}

// TestNames checks that names and ids stay unique for many teams and problems.
func TestNames(t *testing.T) {
	c := generate(t, gen.Config{Teams: 20000, Problems: 40, Submissions: 10, Groups: 7})
	names := map[string]bool{}
	for _, tm := range c.teams {
		if names[tm.Name] {
			t.Fatalf("team name %q twice", tm.Name)
		}
		names[tm.Name] = true
		if len(tm.GroupIDs) != 1 || tm.OrganizationID == "" {
			t.Fatalf("team %+v", tm)
		}
	}
	labels := map[string]bool{}
	for _, p := range c.problems {
		if labels[p.Label] || p.Name == "" {
			t.Fatalf("problem %+v", p)
		}
		labels[p.Label] = true
	}
}

// TestExhausted covers contests with more submissions than the teams would make and single teams.
func TestExhausted(t *testing.T) {
	for _, cfg := range []gen.Config{
		{Teams: 1, Problems: 1, Submissions: 50},
		{Teams: 3, Problems: 2, Submissions: 2000, Rules: rankd.IOI, Duration: time.Minute},
	} {
		c := generate(t, cfg)
		if len(c.subs) != cfg.Submissions {
			t.Errorf("%+v: %d submissions", cfg, len(c.subs))
		}
		for _, s := range c.subs {
			if s.Time >= c.cfg.Duration {
				t.Fatalf("%+v: submission at %v", cfg, s.Time)
			}
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	cfg := gen.Config{Seed: 1, Teams: 10000, Submissions: 100000}
	b.ReportAllocs()
	for b.Loop() {
		events := 0
		if err := gen.Generate(cfg, func(rankd.Event) error { events++; return nil }); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(events), "events/op")
	}
}
