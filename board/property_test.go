package board_test

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"rankd"
	"rankd/board"
)

// Property tests: random contest logs, with rejudges, late and stale judgements, duplicates, bans, a thaw and
// refused events, applied incrementally, shuffled, cut by a checkpoint and replayed, must all give the same
// board; ICPC must agree with a naive model; and the public view must learn nothing from frozen verdicts.

// fataler is what the helpers below need of *testing.T and *rapid.T alike.
type fataler interface {
	Fatalf(format string, args ...any)
}

// logEntry is one generated event with what the generator knows about it.
type logEntry struct {
	ev rankd.Event
	// cell names the (team, problem) cell a submission or judgement is about; "" marks a barrier (team, ban,
	// state) that keeps its place relative to every other event when a log is shuffled.
	cell string
	// bad says the board must refuse the event.
	bad bool
	// judgement marks a valid judgement event; subTime is then the time of its submission.
	judgement bool
	subTime   time.Duration
}

// genLog is a generated contest: the definitions, then the entries the properties apply, reorder and cut.
type genLog struct {
	contest rankd.Contest
	setup   []rankd.Event
	entries []logEntry
}

// logOpts says what a generated log may contain besides submissions, judgements and duplicates.
type logOpts struct {
	rules rankd.Rules
	// numericIDs uses only canonical numbers as submission and judgement ids; otherwise ids are a mix of
	// numbers and strings ("s12", "012").
	numericIDs bool
	hidden     bool // some teams are hidden
	bans       bool // bans and unbans
	teams      bool // teams redefined: renamed, moved between groups, hidden or shown
	states     bool // rarely, a state event that thaws or ends the contest
	bad        bool // events the board must refuse
	// rejudges: judgements deleted, and judgements sent again for another submission (a later version
	// replaces the earlier one). Both depend on what came before, so they are barriers for the shuffles.
	rejudges bool
}

var (
	stateStart = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	stateEnd   = stateStart.Add(5 * time.Hour)
	stateThaw  = stateEnd.Add(time.Hour)
	// thawedState and endedState are the state events a log may hold.
	thawedState = rankd.State{Started: &stateStart, Ended: &stateEnd, Thawed: &stateThaw}
	endedState  = rankd.State{Started: &stateStart, Ended: &stateEnd}
)

func groupEv(id string, hidden bool) rankd.Event {
	return rankd.Event{Type: rankd.EventGroup, ID: id, Group: &rankd.Group{ID: id, Name: "Group " + id, Hidden: hidden}}
}

func subDeleteEv(id string) rankd.Event {
	return rankd.Event{Type: rankd.EventSubmission, ID: id, Delete: true}
}

// draw draws an int in [lo, hi], every value equally likely (rapid's integers favour small values, which
// would keep logs short and cells few); it shrinks towards lo.
func draw(t *rapid.T, label string, lo, hi int) int {
	if lo == hi {
		return lo
	}
	return rapid.Custom(func(t *rapid.T) int {
		n := uint64(hi - lo + 1)
		for {
			var v uint64
			for range bits.Len64(n - 1) {
				v <<= 1
				if rapid.Bool().Draw(t, "bit") {
					v |= 1
				}
			}
			if v < n {
				return lo + int(v)
			}
		}
	}).Draw(t, label)
}

// pick draws one of xs, each equally likely; it shrinks towards the first.
func pick[E any](t *rapid.T, label string, xs []E) E {
	return xs[draw(t, label, 0, len(xs)-1)]
}

// drawLog draws a contest log: a contest with a freeze, the usual verdicts, 2–4 problems, 2–8 teams in 1–2
// groups, then 0–60 entries.
func drawLog(t *rapid.T, o logOpts) *genLog {
	c := rankd.Contest{
		ID:             "c",
		Rules:          o.rules,
		Duration:       pick(t, "duration", []time.Duration{2 * time.Hour, 5 * time.Hour}),
		FreezeDuration: time.Hour,
		Medals:         rankd.Medals{Gold: draw(t, "gold", 0, 2), Silver: draw(t, "silver", 0, 2)},
	}
	switch o.rules {
	case rankd.ICPC:
		c.PenaltyTime = pick(t, "penalty", []time.Duration{0, 5 * time.Minute, 20 * time.Minute})
	case rankd.OI, rankd.IOI:
		c.OIMode = pick(t, "oi mode", []rankd.OIMode{rankd.OIBest, rankd.OILast})
		c.TieByTime = rapid.Bool().Draw(t, "tie by time")
		c.HideUntilEnd = draw(t, "hide until end", 0, 3) == 0
	case rankd.CTF:
		for range draw(t, "first bloods", 0, 3) {
			c.FirstBlood = append(c.FirstBlood, int64(draw(t, "first blood", 0, 50)))
		}
	}
	g := &genLog{setup: cat([]rankd.Event{contestEv(c)}, verdicts())}
	g.contest = *g.setup[0].Contest

	var problems []rankd.Problem
	for i := range draw(t, "problems", 2, 4) {
		id := string(rune('a' + i))
		ev := problemEv(id, i)
		switch o.rules {
		case rankd.CTF:
			switch f := pick(t, "value function", []rankd.ValueFunc{rankd.ValueStatic, rankd.ValueLinear, rankd.ValueLogarithmic, rankd.ValueDEFCON}); f {
			case rankd.ValueStatic:
				ev = ctfProblemEv(id, i, pick(t, "value", []int64{100, 250, 0}), 0, 0, f)
			case rankd.ValueLinear:
				ev = ctfProblemEv(id, i, 500, 100, 150, f)
				if pick(t, "decays to 0", []bool{false, true}) {
					ev = ctfProblemEv(id, i, 200, 0, 100, f) // 0 from its third solver on: solves worth nothing
				}
			case rankd.ValueLogarithmic:
				ev = ctfProblemEv(id, i, 500, 100, 3, f)
			default:
				ev = ctfProblemEv(id, i, 0, 0, 0, f)
			}
		case rankd.IOI:
			ev.Problem.Subtasks = pick(t, "subtasks", [][]float64{nil, {40, 60}, {20, 30, 50}})
		}
		problems = append(problems, *ev.Problem)
		g.setup = append(g.setup, ev)
	}

	groups := []string{"g1", "g2"}[:draw(t, "groups", 1, 2)]
	for _, id := range groups {
		g.setup = append(g.setup, groupEv(id, draw(t, "hidden group", 0, 3) == 0))
	}
	drawTeam := func(id string) rankd.Event {
		var in []string
		for _, gid := range groups {
			if rapid.Bool().Draw(t, "in group") {
				in = append(in, gid)
			}
		}
		// Few names, so that equal rows are often ordered by name and then by id.
		ev := teamEv(id, pick(t, "name", []string{"Ant", "Bee", "Cat", "Dog"}), in...)
		ev.Team.Hidden = o.hidden && draw(t, "hidden", 0, 4) == 0
		return ev
	}
	var teams []string
	for i := range draw(t, "teams", 2, 8) {
		id := fmt.Sprintf("t%d", i+1)
		teams = append(teams, id)
		g.setup = append(g.setup, drawTeam(id))
	}

	type sub struct {
		id   string
		cell string
		at   time.Duration
		prob int
	}
	var subs []sub
	// Ids are unique numbers drawn at random, so that the order of ids (which breaks ties between
	// submissions of the same time and between judgements of the same start) is not the log order.
	subIDs, judgeIDs := map[int]bool{}, map[int]bool{}
	newID := func(prefix string, used map[int]bool) string {
		n := 1000 + len(used)
		for range 3 {
			if k := draw(t, "id", 1, 200); !used[k] {
				n = k
				break
			}
		}
		used[n] = true
		if o.numericIDs {
			return strconv.Itoa(n)
		}
		switch draw(t, "id kind", 0, 2) {
		case 1:
			return prefix + strconv.Itoa(n)
		case 2:
			return "0" + strconv.Itoa(n) // a leading zero makes a string id
		}
		return strconv.Itoa(n)
	}
	// Kinds of entries, by weight.
	const (
		kindSubmission = iota
		kindJudgement
		kindDuplicate
		kindBan
		kindState
		kindBad
		kindTeam
		kindJudgeDelete
		kindJudgeMove
	)
	weights := []int{30, 45, 10, 0, 0, 0, 0, 0, 0}
	if o.rejudges {
		weights[kindJudgeDelete], weights[kindJudgeMove] = 4, 4
	}
	var judgementIDs []string
	if o.bans {
		weights[kindBan] = 6
	}
	if o.states {
		weights[kindState] = 1
	}
	if o.bad {
		weights[kindBad] = 5
	}
	if o.teams {
		weights[kindTeam] = 3
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	for range draw(t, "entries", 0, 60) {
		kind, r := 0, draw(t, "kind", 0, total-1)
		for r >= weights[kind] {
			r -= weights[kind]
			kind++
		}
		if (kind == kindJudgement || kind == kindJudgeMove) && len(subs) == 0 || (kind == kindDuplicate && len(g.entries) == 0) {
			kind = kindSubmission
		}
		switch kind {
		case kindSubmission:
			team := pick(t, "team", teams)
			p := draw(t, "problem", 0, len(problems)-1)
			s := sub{id: newID("s", subIDs), cell: team + "/" + problems[p].ID, at: drawSubTime(t, &g.contest), prob: p}
			subs = append(subs, s)
			g.entries = append(g.entries, logEntry{ev: subEv(s.id, team, problems[p].ID, s.at), cell: s.cell})
		case kindJudgement:
			s := subs[draw(t, "judged submission", 0, len(subs)-1)]
			ev := judgeEv(newID("j", judgeIDs), s.id, pick(t, "verdict", []string{"AC", "WA", "CE", "", "TLE"}), drawJudgeStart(t))
			switch o.rules {
			case rankd.OI:
				ev.Judgement.Score = pick(t, "score", []float64{0, 10, 37.5, 60, 100})
			case rankd.IOI:
				ev.Judgement.Score = pick(t, "score", []float64{0, 10, 37.5, 60, 100})
				for _, top := range problems[s.prob].Subtasks[:draw(t, "subtask scores", 0, len(problems[s.prob].Subtasks))] {
					ev.Judgement.SubtaskScores = append(ev.Judgement.SubtaskScores, pick(t, "subtask score", []float64{0, top / 2, top}))
				}
			}
			g.entries = append(g.entries, logEntry{ev: ev, cell: s.cell, judgement: true, subTime: s.at})
			judgementIDs = append(judgementIDs, ev.ID)
		case kindJudgeDelete:
			id := "no-such-judgement"
			if len(judgementIDs) > 0 && rapid.Bool().Draw(t, "known judgement") {
				id = pick(t, "deleted judgement", judgementIDs)
			}
			g.entries = append(g.entries, logEntry{ev: rankd.Event{Type: rankd.EventJudgement, ID: id, Delete: true}})
		case kindJudgeMove:
			s := subs[draw(t, "rejudged submission", 0, len(subs)-1)]
			id := newID("j", judgeIDs)
			if len(judgementIDs) > 0 {
				id = pick(t, "judgement sent again", judgementIDs)
			}
			ev := judgeEv(id, s.id, pick(t, "new verdict", []string{"AC", "WA", "CE", "TLE"}), drawJudgeStart(t))
			switch o.rules {
			case rankd.OI, rankd.IOI:
				ev.Judgement.Score = pick(t, "new score", []float64{0, 10, 60, 100})
			}
			// Not marked as a judgement: it may take a verdict the public saw from another submission.
			g.entries = append(g.entries, logEntry{ev: ev})
			judgementIDs = append(judgementIDs, id)
		case kindDuplicate:
			g.entries = append(g.entries, g.entries[draw(t, "duplicated", 0, len(g.entries)-1)])
		case kindBan:
			g.entries = append(g.entries, logEntry{ev: banEv(pick(t, "banned team", teams), rapid.Bool().Draw(t, "banned"))})
		case kindState:
			g.entries = append(g.entries, logEntry{ev: stateEv(pick(t, "state", []rankd.State{thawedState, endedState}))})
		case kindTeam:
			g.entries = append(g.entries, logEntry{ev: drawTeam(pick(t, "redefined team", teams))})
		case kindBad:
			id := fmt.Sprintf("bad%d", len(g.entries))
			e := logEntry{bad: true, cell: id}
			switch draw(t, "bad kind", 0, 5) {
			case 0:
				e.ev = judgeEv(id, "no-such-submission", "AC", 0)
			case 1:
				e.ev = subEv(id, "no-such-team", problems[0].ID, time.Minute)
			case 2:
				e.ev = subEv(id, teams[0], "no-such-problem", time.Minute)
			case 3:
				e.ev = subEv("", teams[0], problems[0].ID, time.Minute) // no id
			case 4:
				if len(subs) == 0 {
					e.ev = judgeEv(id, "no-such-submission", "WA", 0)
					break
				}
				s := subs[len(subs)-1]
				e.ev, e.cell = judgeEv(id, s.id, "no-such-type", time.Minute), s.cell
			default:
				if len(subs) == 0 {
					e.ev = judgeEv(id, "no-such-submission", "WA", 0)
					break
				}
				s := subs[len(subs)-1]
				e.ev, e.cell = scoreEv(id, s.id, time.Minute, -1, -1), s.cell
			}
			g.entries = append(g.entries, e)
		}
	}
	return g
}

// drawSubTime draws a submission time in [-1 min, duration+1 min]: often on a coarse grid, so that submissions
// share times, or at the edges (start, freeze, end).
func drawSubTime(t *rapid.T, c *rankd.Contest) time.Duration {
	freeze := c.FreezeTime()
	switch draw(t, "time kind", 0, 2) {
	case 0:
		n := int(c.Duration / (10 * time.Minute))
		switch k := draw(t, "time slot", 0, n+2); k {
		case n + 1:
			return -time.Minute
		case n + 2:
			return c.Duration + time.Minute
		default:
			return time.Duration(k) * 10 * time.Minute
		}
	case 1:
		return pick(t, "time edge", []time.Duration{0, -time.Millisecond, freeze - time.Millisecond, freeze, c.Duration - time.Millisecond, c.Duration})
	}
	return time.Duration(draw(t, "time ms", -60_000, int(c.Duration.Milliseconds())+60_000)) * time.Millisecond
}

// drawJudgeStart draws a judgement start time up to 8 hours, often on a grid so that starts tie and the
// judgement ids decide.
func drawJudgeStart(t *rapid.T) time.Duration {
	if rapid.Bool().Draw(t, "start on grid") {
		return time.Duration(draw(t, "start slot", 0, 16)) * 30 * time.Minute
	}
	return time.Duration(draw(t, "start ms", 0, 8*3600_000)) * time.Millisecond
}

// newBoard returns a board with the log's definitions applied.
func newBoard(f fataler, g *genLog) *board.Board {
	b := board.New()
	for i := range g.setup {
		if _, err := b.Apply(&g.setup[i]); err != nil {
			f.Fatalf("setup %s %s: %v", g.setup[i].Type, g.setup[i].ID, err)
		}
	}
	return b
}

// appliedBoard returns a board with the whole of the log applied, which the test's log shows.
func appliedBoard(t *rapid.T, g *genLog) *board.Board {
	t.Logf("log:\n%s", logString(g))
	b := newBoard(t, g)
	for i := range g.entries {
		apply(t, "board", b, &g.entries[i])
	}
	return b
}

// apply applies an entry, failing when the board refuses a valid event or accepts a bad one.
func apply(f fataler, what string, b *board.Board, e *logEntry) (*board.Change, error) {
	ch, err := b.Apply(&e.ev)
	if (err != nil) != e.bad {
		f.Fatalf("%s: apply %s: got error %v, want an error: %v", what, entryString(e), err, e.bad)
	}
	if ierr := board.CheckInvariants(b); ierr != nil {
		f.Fatalf("%s: after %s: %v", what, entryString(e), ierr)
	}
	return ch, err
}

// applyChecked applies an entry and checks that a refused event changed nothing.
func applyChecked(f fataler, what string, b *board.Board, e *logEntry) (*board.Change, error) {
	var before [2]rankd.Standings
	for i, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
		before[i] = mustStandings(f, b, v, "")
	}
	ch, err := apply(f, what, b, e)
	if err != nil {
		if len(ch.Diffs) > 0 {
			f.Fatalf("%s: refused %s returned diffs %+v", what, entryString(e), ch.Diffs)
		}
		for i, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
			if after := mustStandings(f, b, v, ""); !reflect.DeepEqual(after, before[i]) {
				f.Fatalf("%s: refused %s (%v) changed the %s view:\n got %+v\nwant %+v", what, entryString(e), err, v, after, before[i])
			}
		}
	}
	return ch, err
}

func entryString(e *logEntry) string {
	ev := &e.ev
	switch {
	case ev.Delete:
		return fmt.Sprintf("delete %s %s", ev.Type, ev.ID)
	case ev.Submission != nil:
		return fmt.Sprintf("%+v", *ev.Submission)
	case ev.Judgement != nil:
		return fmt.Sprintf("%+v", *ev.Judgement)
	case ev.Ban != nil:
		return fmt.Sprintf("%+v", *ev.Ban)
	case ev.Team != nil:
		return fmt.Sprintf("team %+v", *ev.Team)
	case ev.State != nil:
		return "state " + stateString(*ev.State)
	}
	return ev.Type.String() + " " + ev.ID
}

func stateString(s rankd.State) string {
	var parts []string
	for _, x := range []struct {
		name string
		at   *time.Time
	}{{"started", s.Started}, {"frozen", s.Frozen}, {"ended", s.Ended}, {"thawed", s.Thawed}, {"finalized", s.Finalized}, {"end of updates", s.EndOfUpdates}} {
		if x.at != nil {
			parts = append(parts, x.name+" "+x.at.UTC().Format(time.RFC3339Nano))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func mustStandings(f fataler, b *board.Board, v rankd.View, group string) rankd.Standings {
	var st rankd.Standings
	var err error
	if group == "" {
		st, err = b.Standings(v, 0, -1)
	} else {
		st, err = b.GroupStandings(v, group, 0, -1)
	}
	if err != nil {
		f.Fatalf("standings %s %s: %v", v, group, err)
	}
	if len(st.Rows) == 0 {
		st.Rows = nil // an empty group index and no index read the same
	}
	return st
}

// mustRow returns a team's row in a view; a hidden or banned team's row outside the jury view and its own
// team view does not exist (not found), which reads as a row with rank -1.
func mustRow(f fataler, b *board.Board, v rankd.View, team string) rankd.Row {
	r, err := b.Row(v, team)
	if rankd.ErrorCode(err) == rankd.ENOTFOUND && v.Kind != rankd.ViewJury && v.TeamID != team {
		return rankd.Row{TeamID: team, Rank: -1}
	}
	if err != nil {
		f.Fatalf("row %s %s: %v", v, team, err)
	}
	return r
}

// views returns the public and jury views and the view of every team.
func views(b *board.Board) []rankd.View {
	vs := []rankd.View{rankd.PublicView, rankd.JuryView}
	for _, tm := range b.Teams() {
		vs = append(vs, rankd.TeamView(tm.ID))
	}
	return vs
}

// groupIDs returns the ids of the groups defined or named by a team, sorted.
func groupIDs(b *board.Board) []string {
	var ids []string
	for _, g := range b.Groups() {
		ids = append(ids, g.ID)
	}
	for _, tm := range b.Teams() {
		ids = append(ids, tm.GroupIDs...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// boardContents is everything a reader can see of a board, keyed by how it was read; sequence numbers and
// statistics apart.
func boardContents(f fataler, b *board.Board) map[string]any {
	out := map[string]any{}
	c := b.Contest()
	if len(c.FirstBlood) == 0 {
		c.FirstBlood = nil
	}
	out["contest"] = c
	out["state"] = stateString(b.State())
	out["judgement types"] = b.JudgementTypes()
	ps := b.Problems()
	for i := range ps {
		if len(ps[i].Subtasks) == 0 {
			ps[i].Subtasks = nil
		}
	}
	out["problems"] = ps
	teams := b.Teams()
	for i := range teams {
		if len(teams[i].GroupIDs) == 0 {
			teams[i].GroupIDs = nil
		}
	}
	out["teams"] = teams
	out["groups"] = b.Groups()
	groups := groupIDs(b)
	for _, v := range views(b) {
		st := mustStandings(f, b, v, "")
		st.Seq = 0
		out["standings "+v.String()] = st
		for _, g := range groups {
			st := mustStandings(f, b, v, g)
			st.Seq = 0
			out["standings "+v.String()+" group "+g] = st
		}
	}
	for _, tm := range teams {
		for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView, rankd.TeamView(tm.ID)} {
			out["row "+v.String()+" "+tm.ID] = mustRow(f, b, v, tm.ID)
		}
	}
	for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
		out["first to solve "+v.String()] = b.FirstToSolve(v)
		out["awards "+v.String()] = b.Awards(v)
	}
	return out
}

// seqs returns the sequence number of every view of a board.
func seqs(b *board.Board) map[string]uint64 {
	out := map[string]uint64{}
	for _, v := range views(b) {
		out[v.String()] = b.Seq(v)
	}
	return out
}

// compareBoards fails unless got reads exactly as want; with exact, sequence numbers and statistics too.
func compareBoards(f fataler, what string, got, want *board.Board, exact bool) {
	g, w := boardContents(f, got), boardContents(f, want)
	if exact {
		g["seq"], w["seq"] = seqs(got), seqs(want)
		g["stats"], w["stats"] = got.Stats(), want.Stats()
	}
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var diffs []string
	for _, k := range keys {
		if !reflect.DeepEqual(g[k], w[k]) {
			diffs = append(diffs, fmt.Sprintf("%s:\n  got %+v\n want %+v", k, g[k], w[k]))
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 6 {
			diffs = append(diffs[:6], fmt.Sprintf("... and %d more", len(diffs)-6))
		}
		f.Fatalf("%s differs:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// copyDiffs copies the diffs of a change, which are only valid until the next Apply.
func copyDiffs(ch *board.Change) []board.Diff {
	if ch == nil {
		return nil
	}
	out := make([]board.Diff, len(ch.Diffs))
	for i, d := range ch.Diffs {
		d.Rows = slices.Clone(d.Rows)
		out[i] = d
	}
	return out
}

// shuffleCells returns the entries with those of different cells interleaved at random, keeping the order of
// the entries of each cell, and each barrier (ban, state) between the same entries as before.
func shuffleCells(t *rapid.T, entries []logEntry) []logEntry {
	return betweenBarriers(entries, func(segment []logEntry, out []logEntry) []logEntry {
		var cells []string
		queues := map[string][]logEntry{}
		for _, e := range segment {
			if _, ok := queues[e.cell]; !ok {
				cells = append(cells, e.cell)
			}
			queues[e.cell] = append(queues[e.cell], e)
		}
		for len(cells) > 0 {
			i := draw(t, "next cell", 0, len(cells)-1)
			q := queues[cells[i]]
			out = append(out, q[0])
			if queues[cells[i]] = q[1:]; len(q) == 1 {
				cells = slices.Delete(cells, i, i+1)
			}
		}
		return out
	})
}

// shuffleCausal returns the entries in a random order that keeps only what the events need: a judgement
// after its submission, and each barrier between the same entries as before. Cells are a function of the set
// of their submissions and judgements, so even the events of one cell commute.
func shuffleCausal(t *rapid.T, entries []logEntry) []logEntry {
	submitted := map[string]bool{}
	return betweenBarriers(entries, func(segment []logEntry, out []logEntry) []logEntry {
		segment = slices.Clone(segment)
		for len(segment) > 0 {
			var ready []int
			for i, e := range segment {
				if e.bad || e.ev.Judgement == nil || submitted[e.ev.Judgement.SubmissionID] {
					ready = append(ready, i)
				}
			}
			i := ready[draw(t, "next event", 0, len(ready)-1)]
			e := segment[i]
			if !e.bad && e.ev.Submission != nil {
				submitted[e.ev.ID] = true
			}
			out = append(out, e)
			segment = slices.Delete(segment, i, i+1)
		}
		return out
	})
}

// betweenBarriers reorders the runs of cell entries between barriers (entries of no cell) with reorder, which
// appends a run's entries in their new order to out; the barriers stay where they were.
func betweenBarriers(entries []logEntry, reorder func(segment, out []logEntry) []logEntry) []logEntry {
	out := make([]logEntry, 0, len(entries))
	var segment []logEntry
	for _, e := range entries {
		if e.cell == "" {
			out = append(reorder(segment, out), e)
			segment = segment[:0]
			continue
		}
		segment = append(segment, e)
	}
	return reorder(segment, out)
}

func logString(g *genLog) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "contest %+v\n", g.contest)
	for i := range g.setup[1:] {
		e := logEntry{ev: g.setup[i+1]}
		switch ev := &e.ev; {
		case ev.Problem != nil:
			fmt.Fprintf(&sb, "problem %+v\n", *ev.Problem)
		case ev.Team != nil:
			fmt.Fprintf(&sb, "team %+v\n", *ev.Team)
		case ev.Group != nil:
			fmt.Fprintf(&sb, "group %+v\n", *ev.Group)
		}
	}
	for i := range g.entries {
		fmt.Fprintf(&sb, "%2d %s\n", i, entryString(&g.entries[i]))
	}
	return sb.String()
}

var allRules = []rankd.Rules{rankd.ICPC, rankd.OI, rankd.IOI, rankd.CTF}

// TestIncrementalEqualsReplay checks that a board built event by event (A) equals one fed the same log with
// the events of different cells reordered (B), one restored from A's checkpoint half-way and fed the rest
// (C), one restored from A's final checkpoint, which rebuilds everything from scratch (D), and one fed the
// log with even the events of one cell reordered, each judgement still after its submission (E).
func TestIncrementalEqualsReplay(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, states: true, bad: true, rejudges: true})
				t.Logf("log:\n%s", logString(g))

				a := newBoard(t, g)
				if rapid.Bool().Draw(t, "bulk") {
					// A reindexes in bulk, the others row by row: their diffs and boards must agree.
					board.AlwaysBulk(a)
				}
				if n := rapid.IntRange(0, 3).Draw(t, "indexed from"); n > 0 {
					// A indexes its cells from n submissions on (as big cells are), the others read theirs.
					board.IndexCellsFrom(a, n)
				}
				half := len(g.entries) / 2
				for i := range g.entries[:half] {
					applyChecked(t, "A", a, &g.entries[i])
				}
				c := restore(t, a)
				compareBoards(t, "C restored half-way", c, a, true)
				for i := half; i < len(g.entries); i++ {
					e := &g.entries[i]
					chA, errA := applyChecked(t, "A", a, e)
					diffsA := copyDiffs(chA)
					chC, errC := apply(t, "C", c, e)
					if rankd.ErrorCode(errC) != rankd.ErrorCode(errA) {
						t.Fatalf("entry %d %s: C got error %v, A got %v", i, entryString(e), errC, errA)
					}
					if diffsC := copyDiffs(chC); !reflect.DeepEqual(diffsC, diffsA) {
						t.Fatalf("entry %d %s: C diffs\n%+v\nA diffs\n%+v", i, entryString(e), diffsC, diffsA)
					}
				}

				b := newBoard(t, g)
				shuffled := shuffleCells(t, g.entries)
				for i := range shuffled {
					apply(t, "B", b, &shuffled[i])
				}
				e := newBoard(t, g)
				reordered := shuffleCausal(t, g.entries)
				for i := range reordered {
					apply(t, "E", e, &reordered[i])
				}
				d := restore(t, a)

				compareBoards(t, "B (cells shuffled)", b, a, false)
				compareBoards(t, "E (events of one cell shuffled too)", e, a, false)
				compareBoards(t, "C (restored half-way)", c, a, true)
				compareBoards(t, "D (restored at the end)", d, a, true)
				checkBonuses(t, a, rankd.PublicView)
				checkBonuses(t, a, rankd.JuryView)
			})
		})
	}
}

func restore(f fataler, b *board.Board) *board.Board {
	data, err := b.Checkpoint()
	if err != nil {
		f.Fatalf("checkpoint: %v", err)
	}
	r, err := board.Restore(data)
	if err != nil {
		f.Fatalf("restore: %v", err)
	}
	return r
}

// naiveCell and naiveRow are the ICPC standings as the naive model computes them.
type naiveCell struct {
	solved, fts     bool
	judged, pending int
	at              time.Duration
	penalty         int64
	firstPending    time.Duration // earliest pending submission before the solve, or any when unsolved
}

type naiveRow struct {
	team, name string
	rank       int
	solved     int
	penalty    int64
	last       int64 // minute of the last accepted submission
	cells      []naiveCell
}

// naiveICPC computes ICPC standings from the set of a log's submissions and judgements, in a view hiding
// the verdicts of submissions from hideFrom. Ids must be numbers.
func naiveICPC(f fataler, g *genLog, hideFrom time.Duration) []naiveRow {
	types := map[string]rankd.JudgementType{}
	var problems []string
	var rows []naiveRow
	hiddenGroups := map[string]bool{}
	for _, ev := range g.setup {
		switch ev.Type {
		case rankd.EventJudgementType:
			types[ev.JudgementType.ID] = *ev.JudgementType
		case rankd.EventProblem:
			problems = append(problems, ev.Problem.ID)
		case rankd.EventGroup:
			hiddenGroups[ev.Group.ID] = ev.Group.Hidden
		case rankd.EventTeam:
			// A team in a hidden group is off the boards, like a hidden team.
			if !slices.ContainsFunc(ev.Team.GroupIDs, func(id string) bool { return hiddenGroups[id] }) {
				rows = append(rows, naiveRow{team: ev.Team.ID, name: ev.Team.Name})
			}
		}
	}
	num := func(id string) uint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			f.Fatalf("id %q is not a number", id)
		}
		return n
	}
	type sub struct {
		id      uint64
		at      time.Duration
		judged  bool
		start   time.Duration
		judgeID uint64
		verdict string
	}
	cells := map[string][]*sub{} // by team/problem
	byID := map[string]*sub{}
	judgements := map[string]rankd.Judgement{} // by id, as the log leaves them
	for _, e := range g.entries {
		switch ev := e.ev; {
		case e.bad:
		case ev.Submission != nil:
			if byID[ev.ID] == nil {
				s := &sub{id: num(ev.ID), at: ev.Submission.Time}
				byID[ev.ID] = s
				k := ev.Submission.TeamID + "/" + ev.Submission.ProblemID
				cells[k] = append(cells[k], s)
			}
		case ev.Type == rankd.EventJudgement && ev.Delete:
			delete(judgements, ev.ID)
		case ev.Judgement != nil && ev.Judgement.TypeID != "":
			judgements[ev.Judgement.ID] = *ev.Judgement // a later version replaces the earlier one
		case ev.Judgement != nil:
			delete(judgements, ev.Judgement.ID) // sent again without its verdict: it gives none
		}
	}
	for _, j := range judgements {
		s, id := byID[j.SubmissionID], num(j.ID)
		if !s.judged || j.StartTime > s.start || (j.StartTime == s.start && id > s.judgeID) {
			s.judged, s.start, s.judgeID, s.verdict = true, j.StartTime, id, j.TypeID
		}
	}
	penalty := int64(g.contest.PenaltyTime / time.Minute)
	for i := range rows {
		r := &rows[i]
		for _, p := range problems {
			c := naiveCell{firstPending: math.MaxInt64}
			subs := cells[r.team+"/"+p]
			sort.Slice(subs, func(x, y int) bool {
				if subs[x].at != subs[y].at {
					return subs[x].at < subs[y].at
				}
				return subs[x].id < subs[y].id
			})
			var tries int64
			for _, s := range subs {
				if s.at < 0 || s.at >= g.contest.Duration {
					continue
				}
				if c.solved {
					// Nothing after the solve counts, but a hidden submission still shows as pending: the
					// view cannot know it comes after a solve.
					if s.at >= hideFrom {
						c.pending++
					}
					continue
				}
				if !s.judged || s.at >= hideFrom {
					c.pending++
					c.firstPending = min(c.firstPending, s.at)
					continue
				}
				jt := types[s.verdict]
				if jt.Solved {
					c.judged++
					c.solved, c.at = true, s.at
					c.penalty = int64(s.at/time.Minute) + tries*penalty
					continue
				}
				if jt.Penalty {
					c.judged++
					tries++
				}
			}
			if c.solved {
				r.solved++
				r.penalty += c.penalty
				r.last = max(r.last, int64(c.at/time.Minute))
			}
			r.cells = append(r.cells, c)
		}
	}
	// First to solve: the earliest solve, unless a submission before it is still pending.
	for p := range problems {
		first := time.Duration(math.MaxInt64)
		for _, r := range rows {
			if c := r.cells[p]; c.solved {
				first = min(first, c.at)
			}
		}
		blocked := false
		for _, r := range rows {
			blocked = blocked || r.cells[p].firstPending < first
		}
		for i := range rows {
			c := &rows[i].cells[p]
			c.fts = c.solved && c.at == first && !blocked
		}
	}
	better := func(x, y *naiveRow) bool {
		if x.solved != y.solved {
			return x.solved > y.solved
		}
		if x.penalty != y.penalty {
			return x.penalty < y.penalty
		}
		return x.last < y.last
	}
	for i := range rows {
		rows[i].rank = 1
		for j := range rows {
			if better(&rows[j], &rows[i]) {
				rows[i].rank++
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		x, y := &rows[i], &rows[j]
		if x.rank != y.rank {
			return x.rank < y.rank
		}
		if x.name != y.name {
			return x.name < y.name
		}
		return x.team < y.team
	})
	return rows
}

// TestICPCMatchesNaiveModel checks the ICPC jury and public views against a model that recomputes every
// cell from the set of submissions and judgements.
func TestICPCMatchesNaiveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawLog(t, logOpts{rules: rankd.ICPC, numericIDs: true, bad: true, rejudges: true})
		b := appliedBoard(t, g)
		for _, v := range []struct {
			view     rankd.View
			hideFrom time.Duration
		}{{rankd.JuryView, math.MaxInt64}, {rankd.PublicView, g.contest.FreezeTime()}} {
			want := naiveICPC(t, g, v.hideFrom)
			got := mustStandings(t, b, v.view, "")
			if len(got.Rows) != len(want) {
				t.Fatalf("%s: got %d rows, want %d", v.view, len(got.Rows), len(want))
			}
			wantFTS := map[string][]string{}
			for i, w := range want {
				r := got.Rows[i]
				if r.TeamID != w.team || r.Rank != w.rank || r.Solved != w.solved || r.Penalty != w.penalty {
					t.Fatalf("%s row %d: got %s rank %d solved %d penalty %d, want %s rank %d solved %d penalty %d",
						v.view, i, r.TeamID, r.Rank, r.Solved, r.Penalty, w.team, w.rank, w.solved, w.penalty)
				}
				for p, wc := range w.cells {
					c := r.Cells[p]
					if c.Solved != wc.solved || c.Judged != wc.judged || c.Pending != wc.pending || c.FirstToSolve != wc.fts ||
						(wc.solved && (c.Time != wc.at || c.Penalty != wc.penalty)) {
						t.Fatalf("%s team %s problem %s: got %+v, want solved %v judged %d pending %d first %v time %v penalty %d",
							v.view, w.team, c.ProblemID, c, wc.solved, wc.judged, wc.pending, wc.fts, wc.at, wc.penalty)
					}
					if wc.fts {
						wantFTS[c.ProblemID] = append(wantFTS[c.ProblemID], w.team)
					}
				}
			}
			gotFTS := b.FirstToSolve(v.view)
			for _, ids := range gotFTS {
				slices.Sort(ids)
			}
			for _, ids := range wantFTS {
				slices.Sort(ids)
			}
			if !reflect.DeepEqual(gotFTS, wantFTS) {
				t.Fatalf("%s first to solve: got %v, want %v", v.view, gotFTS, wantFTS)
			}
		}
	})
}

// TestSequenceLeaksNothing checks that while the contest is frozen a verdict on a frozen submission changes
// nothing public (no diff, no sequence number, the same standings as without it), and that every public diff
// says exactly what changed in the public standings.
func TestSequenceLeaksNothing(t *testing.T) {
	for _, rules := range allRules {
		t.Run(rules.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := drawLog(t, logOpts{rules: rules, hidden: true, bans: true, teams: true, bad: true, rejudges: true})
				t.Logf("log:\n%s", logString(g))
				hideFrom := g.contest.FreezeTime()
				if g.contest.HideUntilEnd && (rules == rankd.OI || rules == rankd.IOI) {
					hideFrom = math.MinInt64 // hidden until the end: every verdict is frozen
				}
				a := newBoard(t, g)
				never := newBoard(t, g) // never gets the frozen verdicts
				// A judgement sent again may take a verdict from another submission, or take its own back
				// (sent without one): it is frozen only if the submission it judged (when there was one) is
				// frozen too.
				subTimes, judgedAt := map[string]time.Duration{}, map[string]time.Duration{}
				for i := range g.entries {
					e := &g.entries[i]
					frozen := e.judgement && e.subTime >= hideFrom
					if e.bad {
					} else if j := e.ev.Judgement; j != nil {
						if at, ok := judgedAt[j.ID]; ok && at < hideFrom {
							frozen = false
						}
						if j.TypeID != "" {
							judgedAt[j.ID] = subTimes[j.SubmissionID]
						} else {
							delete(judgedAt, j.ID)
						}
					} else if e.ev.Type == rankd.EventJudgement && e.ev.Delete {
						delete(judgedAt, e.ev.ID)
					} else if sub := e.ev.Submission; sub != nil {
						if _, ok := subTimes[sub.ID]; !ok {
							subTimes[sub.ID] = sub.Time
						}
					}
					before := publicRows(t, a)
					seq := a.Seq(rankd.PublicView)
					ch, _ := apply(t, "board", a, e)
					diffs := copyDiffs(ch)
					if frozen {
						if a.Seq(rankd.PublicView) != seq {
							t.Fatalf("entry %d %s: a frozen verdict moved the public sequence from %d to %d", i, entryString(e), seq, a.Seq(rankd.PublicView))
						}
					} else {
						apply(t, "board without frozen verdicts", never, e)
					}
					checkPublicDiff(t, fmt.Sprintf("entry %d %s", i, entryString(e)), a, diffs, seq, before)
				}
				got, want := publicContents(t, a), publicContents(t, never)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("public view with frozen verdicts\n%+v\nwithout\n%+v", got, want)
				}
			})
		})
	}
}

// publicRows returns the public row of every team and the order of the ranked ones.
func publicRows(f fataler, b *board.Board) map[string]rankd.Row {
	rows := map[string]rankd.Row{}
	for _, tm := range b.Teams() {
		rows[tm.ID] = mustRow(f, b, rankd.PublicView, tm.ID)
	}
	var order []string
	for _, r := range mustStandings(f, b, rankd.PublicView, "").Rows {
		order = append(order, r.TeamID)
	}
	rows[""] = rankd.Row{TeamID: strings.Join(order, ",")}
	return rows
}

// checkPublicDiff checks the public diff of an event (if any) against the public rows before and after it:
// a diff comes with the next sequence number and lists every row whose content changed; a row whose rank
// changed is listed as moved unless the rows that moved explain it, and the rows that did not move kept their
// order among themselves. Without a diff, nothing public changed.
func checkPublicDiff(f fataler, what string, b *board.Board, diffs []board.Diff, seq uint64, before map[string]rankd.Row) {
	after := publicRows(f, b)
	var pub *board.Diff
	for i := range diffs {
		if diffs[i].View.Kind == rankd.ViewPublic {
			if pub != nil {
				f.Fatalf("%s: two public diffs", what)
			}
			pub = &diffs[i]
		}
	}
	if pub == nil {
		if b.Seq(rankd.PublicView) != seq {
			f.Fatalf("%s: the public sequence moved from %d to %d without a diff", what, seq, b.Seq(rankd.PublicView))
		}
		if !reflect.DeepEqual(after, before) {
			f.Fatalf("%s: the public view changed without a diff:\nbefore %+v\n after %+v", what, before, after)
		}
		return
	}
	if pub.BaseSeq != seq || pub.Seq != seq+1 || b.Seq(rankd.PublicView) != pub.Seq {
		f.Fatalf("%s: public diff seq %d base %d, board seq %d; want base %d and seq %d", what, pub.Seq, pub.BaseSeq, b.Seq(rankd.PublicView), seq, seq+1)
	}
	listed, moved := map[string]bool{}, map[string]bool{}
	for _, r := range pub.Rows {
		listed[r.TeamID] = true
		if !r.Moved {
			continue
		}
		moved[r.TeamID] = true
	}
	for id, r := range after {
		if id == "" || listed[id] {
			continue
		}
		old := before[id]
		r.Rank, old.Rank = 0, 0
		if !reflect.DeepEqual(r, old) {
			f.Fatalf("%s: the public row of %s changed but is not in the diff %+v:\nbefore %+v\n after %+v", what, id, pub.Rows, old, r)
		}
	}
	stay := func(order string) []string {
		var ids []string
		for _, id := range strings.Split(order, ",") {
			if id != "" && !moved[id] {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if x, y := stay(before[""].TeamID), stay(after[""].TeamID); !slices.Equal(x, y) {
		f.Fatalf("%s: the rows that did not move (diff %+v) changed order: before %v, after %v", what, pub.Rows, x, y)
	}
}

// publicContents is what the public view shows of a board, its sequence number included.
func publicContents(f fataler, b *board.Board) map[string]any {
	out := map[string]any{"seq": b.Seq(rankd.PublicView), "standings": mustStandings(f, b, rankd.PublicView, "")}
	for _, g := range groupIDs(b) {
		out["group "+g] = mustStandings(f, b, rankd.PublicView, g)
	}
	for id, r := range publicRows(f, b) {
		out["row "+id] = r
	}
	out["first to solve"] = b.FirstToSolve(rankd.PublicView)
	out["awards"] = b.Awards(rankd.PublicView)
	return out
}

// Minimal logs the properties above found, kept as plain tests.

// TestCTFUnrankedRowTotal: a hidden (or banned) solver's row is not marked when other teams' solves move a
// dynamic value, so its total keeps the old value while its cells show the new one, and a replay disagrees.
func TestCTFUnrankedRowTotal(t *testing.T) {
	b := MustBoard(t, ctfSetup(nil, "t1", "t2"), []rankd.Event{hiddenTeamEv("h", "Hidden")},
		submit("1", "h", "lin", m(10), "AC"), submit("2", "t1", "lin", m(20), "AC"), submit("3", "t2", "lin", m(30), "AC"))
	replayed := restore(t, b)
	for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
		if v.Kind == rankd.ViewPublic {
			if _, err := b.Row(v, "h"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
				t.Errorf("public row of a hidden team: got %v, want not found", err)
			}
			continue
		}
		r := mustRow(t, b, v, "h")
		var cells float64
		for _, c := range r.Cells {
			cells += c.Score
		}
		if want := mustRow(t, replayed, v, "h").Score; r.Score != cells || r.Score != want {
			t.Errorf("%s row of the hidden solver: got total %v, want its cells' sum %v and the replayed total %v", v, r.Score, cells, want)
		}
	}
}

// TestCTFDiffAfterBan: a ban that changes a dynamic value moves the other solvers' rows, which the diff
// lists as moved, and the board is in order at once.
func TestCTFDiffAfterBan(t *testing.T) {
	b := MustBoard(t, ctfSetup(nil, "t1", "t2", "t3"), submit("1", "t1", "lin", m(10), "AC"), submit("2", "t2", "lin", m(20), "AC"))
	if got, want := summary(MustStandings(t, b, rankd.PublicView), true), "1 t1 400\n2 t2 400\n3 t3 0\n"; got != want {
		t.Fatalf("before the ban: got\n%s\nwant\n%s", got, want)
	}
	ch := mustApply(t, b, banEv("t1", true))
	for _, d := range ch.Diffs {
		for _, r := range d.Rows {
			if r.TeamID == "t2" && !r.Moved {
				t.Errorf("%s diff: got %+v, want t2 moved", d.View, r)
			}
		}
	}
	if got, want := summary(MustStandings(t, b, rankd.PublicView), true), "1 t2 500\n2 t3 0\n"; got != want {
		t.Fatalf("after the ban: got\n%s\nwant\n%s", got, want)
	}
}
