// Package board holds the live state of one contest: it applies the contest's events one by one,
// incrementally (one judgement recomputes one cell and one row; the rows that moved are put in their
// places in order-statistic indexes once per batch, see Settle),
// keeps the public and the jury view at once, numbers every change of each view with that view's own
// sequence, and reports what changed as a diff per view. It also checkpoints to bytes and restores.
//
// A Board is not safe for concurrent use; its owner serializes calls. Once settled (Settle), its read
// methods may run concurrently with each other.
package board

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rankd"
	"rankd/rankindex"
	"rankd/score"
)

// The two views a board maintains; a team view is derived from them.
const (
	public = int(rankd.ViewPublic)
	jury   = int(rankd.ViewJury)
)

// maxJudgementTypes bounds the judgement types of a contest, stored in one byte per submission.
const maxJudgementTypes = 255

// Board is the live state of one contest.
type Board struct {
	contest  rankd.Contest
	hasRules bool // a contest event has been applied
	state    rankd.State
	dur      int64 // contest length, ms
	penalty  int64 // minutes per rejected submission

	jtypes   []jtype // index 0 is "no verdict"
	jtypeIdx map[string]uint8

	problems []problem
	probIdx  map[string]int
	order    []int // problem indexes in display order

	teams     []team
	teamIdx   map[string]int32
	teamDense []int32          // team index + 1 by numeric id, 0 if none (see teamOf)
	names     *rankindex.Index // every team, by name then id
	labels    []uint64         // per team: its place in name order (see names.go)
	// flags holds per team whether it is defined and ranked, in a small array the hot path reads.
	flags    []uint8
	unranked []int32 // defined teams that are hidden or banned

	groups   []group
	groupIdx map[string]int

	orgs map[string]rankd.Organization

	// Where each submission is: the cell index, plus one so that 0 means absent. Numeric ids below a bound
	// proportional to the number of submissions are looked up in a slice, the rest in maps.
	subDense []uint32
	subNum   map[uint64]uint32
	subStr   map[string]uint32
	subtasks map[uint64][]float64 // IOI subtask scores by submission id key

	// Judgements (see judgements.go): which submission each judges, by judgement id key (numeric ids in
	// judDense, as the submission's number plus one; the rest in judStr), the judgements that do not
	// count, and those of deleted submissions, by submission id key.
	judDense []uint32
	judStr   map[uint64]string
	older    map[uint64][]judgement
	gone     map[uint64]goneSub // the judgements of deleted submissions, by submission id key

	cells     []cell  // team-major: cells[team*len(problems)+problem]
	subChunks [][]sub // the submission arena (subs.go)

	views  [2]view
	ownSeq []uint64 // per team: changes of its own row that the public view did not see

	// reveals are the cells the steps of the stepwise reveal showed the public, in step order; revealed holds
	// the same cells, to look them up (see reveal.go).
	reveals []revealCell
	// revealDone says that the contest ended and the public view hides no verdict any more (see RevealDone),
	// kept up to date by Apply.
	revealDone bool
	revealed   map[revealCell]struct{}

	stats Stats

	// scratch, reused so that applying an event does not allocate
	subBuf   []score.Sub
	best     []float64
	change   Change
	teamRows []RowChange
	epoch    uint64
	// settled says that no view has unsettled rows; settleMu makes concurrent readers settle once.
	settled  atomic.Bool
	settleMu sync.Mutex
	// alwaysBulk reindexes every move in bulk (tests: the two ways must agree).
	alwaysBulk bool
	// big holds the indexes of the cells of many submissions, by cell (see cellIndex); bigMin, when not 0,
	// is the size from which a cell is indexed instead of bigCell (tests: every cell indexed).
	big    map[int32]*cellIndex
	bigMin int
}

type jtype struct {
	info  rankd.JudgementType
	class score.Verdict
}

type problem struct {
	info    rankd.Problem
	deleted bool
}

type group struct {
	info    rankd.Group
	defined bool
}

type team struct {
	// Fields the hot path reads and writes come first, in as few cache lines as they fit in.
	dirty [2]uint64 // epoch in which the row was marked changed, per view
	moved [2]uint64 // epoch in which the row's place changed
	// replace is the epoch in which the row must be put back in place at once (see commit).
	replace [2]uint64
	// ownDirty is the epoch in which the team's own cells changed in the jury view (its team view moved).
	ownDirty uint64
	// unsettled: the row is not where it belongs in the view's indexes yet (see Settle).
	unsettled [2]bool
	accOK     [2]bool // see rows
	// indexed: the row is in the view's index of all rows (where a lookup would be a cache miss).
	indexed [2]bool
	// rows are the row's totals and sort key in each view. Under ICPC and CTF rules the totals follow each
	// change of a cell of a row that the view shows (accOK; commit then need not read every cell of the
	// row, and integer sums keep them exact); otherwise commit recomputes them from the cells (OI and IOI
	// score totals always: one order of float sums). The key is commit's: it tells a moved row.
	rows   [2]rowAgg
	id     string // info.ID
	groups []int
	// leave is the epoch in which the team must come off the indexes (of leaveGroups) before commit puts it
	// back where it now belongs: unranked, regrouped or renamed.
	leave       uint64
	leaveGroups []int

	info    rankd.Team
	defined bool
	banned  bool
	// hiddenGroup: the team is in a hidden group, which takes it off the boards as CCS and DOMjudge do.
	hiddenGroup bool
}

// rowAgg is a row's totals in one view.
type rowAgg struct {
	solved  int32
	penalty int64
	score   float64
	time    int64 // ms
	key     score.Key
}

// cell is a team's cell of one problem: its submissions (see subs.go) and its result in each view.
type cell struct {
	tail subRef // its last submission in (time, id) order
	n    uint32 // its number of submissions
	// last is the time of the last submission, when there is one: a new one is usually appended after it,
	// which is then known without reading the submission (a cache miss, on the hot path).
	last int64
	res  [2]score.Result
}

type view struct {
	hideFrom int64
	seq      uint64
	all      *rankindex.Index
	byGroup  []*rankindex.Index // by group index; nil until a ranked team is in the group
	fts      []ftsState         // by problem
	solvers  [][]int32          // CTF: by problem, ranked solvers in solve order
	// waiting holds, by problem, the FirstPending times of the ranked cells that have one, ascending: a
	// first-blood bonus waits for the earliest (CTF with bonuses only; see bonus).
	waiting [][]int64
	dirty   []int32 // teams whose row changed in the event being applied
	// unsettled lists the teams whose row is not in place in the indexes yet (see Settle).
	unsettled []int32
	rowBuf    []RowChange
	// scratch of reindexBulk
	moveBuf, idBuf []int32
	keyBuf         []rankindex.Key
	mergeIDs       []int32
	mergeKeys      []rankindex.Key
	groupIDs       [][]int32
	groupKeys      [][]rankindex.Key
}

// ftsState tracks first to solve of one problem in one view, over ranked teams.
type ftsState struct {
	min      int64 // earliest solve time, score.Never if none
	atMin    int32 // cells solved at min
	blockers int32 // cells with a pending submission before min
}

func (f *ftsState) awarded() bool { return f.min != score.Never && f.blockers == 0 }

// Stats counts what a board has applied and what it skipped.
type Stats struct {
	Events      int // events applied without error
	Submissions int // submissions held
	Judgements  int // judgements that changed a submission's verdict
	// Outside counts submissions held but outside the contest time, which never count.
	Outside int
	// Stale counts judgements older than the one already counting for their submission, and duplicates.
	Stale int
	// NoVerdict counts judgements without a verdict, which change nothing.
	NoVerdict int
}

// Change is what one event changed: a diff per view it changed. It is only valid until the next call to Apply.
type Change struct {
	Diffs []Diff
}

// Diff lists the rows of one view that changed, with the view's new sequence number. Rows not listed keep
// their content; their ranks follow from the listed moves.
type Diff struct {
	View    rankd.View
	Seq     uint64
	BaseSeq uint64
	Rows    []RowChange
}

// RowChange is one row whose content changed. When Moved, its place may have changed too (its sort key, or
// whether it is ranked); a row that did not move keeps its place relative to the rows that did not move
// either. Ranks are not part of a diff: working them out for every event would move each row in the indexes
// once per event rather than once per batch (see Settle); whoever needs a place reads it from the settled
// board (Row, Place), as the push does once per frame.
type RowChange struct {
	TeamID string
	Moved  bool
}

// New returns an empty board. Apply a contest event before anything else.
func New() *Board {
	b := &Board{
		jtypes:   []jtype{{}},
		jtypeIdx: map[string]uint8{},
		probIdx:  map[string]int{},
		teamIdx:  map[string]int32{},
		groupIdx: map[string]int{},
		orgs:     map[string]rankd.Organization{},
		subNum:   map[uint64]uint32{},
		subStr:   map[string]uint32{},
		subtasks: map[uint64][]float64{},
	}
	b.names = rankindex.New(b.nameTie)
	for v := range b.views {
		b.views[v].all = rankindex.New(b.tie)
		b.views[v].hideFrom = score.Never
	}
	return b
}

// Contest returns the contest's configuration.
func (b *Board) Contest() rankd.Contest { return b.contest }

// State returns the contest's lifecycle state.
func (b *Board) State() rankd.State { return b.state }

// Stats returns the counts of what the board applied and skipped.
func (b *Board) Stats() Stats {
	st := b.stats
	st.Outside = 0
	for ci := range b.cells {
		for r := b.cells[ci].tail; r != 0; r = b.sub(r).prev {
			if s := b.sub(r); s.time < 0 || s.time >= b.dur {
				st.Outside++
			}
		}
	}
	return st
}

// Seq returns the sequence number of a view.
func (b *Board) Seq(v rankd.View) uint64 {
	if v.Kind == rankd.ViewTeam {
		if t, ok := b.teamIdx[v.TeamID]; ok {
			return b.views[public].seq + b.ownSeq[t]
		}
		return b.views[public].seq
	}
	return b.views[viewIndex(v.Kind)].seq
}

func viewIndex(k rankd.ViewKind) int {
	if k == rankd.ViewJury {
		return jury
	}
	return public
}

// Problems returns the problems in display order.
func (b *Board) Problems() []rankd.Problem {
	ps := make([]rankd.Problem, 0, len(b.order))
	for _, p := range b.order {
		ps = append(ps, b.problems[p].info)
	}
	return ps
}

// Teams returns the defined teams, hidden ones included, in the order they were first defined.
func (b *Board) Teams() []rankd.Team {
	ts := make([]rankd.Team, 0, len(b.teams))
	for i := range b.teams {
		if b.teams[i].defined {
			ts = append(ts, b.teams[i].info)
		}
	}
	return ts
}

// Team returns a team by id, and whether it is banned.
func (b *Board) Team(id string) (t rankd.Team, banned, ok bool) {
	i, ok := b.teamIdx[id]
	if !ok || !b.teams[i].defined {
		return rankd.Team{}, false, false
	}
	return b.teams[i].info, b.teams[i].banned, true
}

// Groups returns the defined groups in id order.
func (b *Board) Groups() []rankd.Group {
	var gs []rankd.Group
	for _, g := range b.groups {
		if g.defined {
			gs = append(gs, g.info)
		}
	}
	slices.SortFunc(gs, func(x, y rankd.Group) int { return strings.Compare(x.ID, y.ID) })
	return gs
}

// Organization returns an organization by id.
func (b *Board) Organization(id string) (rankd.Organization, bool) {
	o, ok := b.orgs[id]
	return o, ok
}

// Organizations returns the organizations, by id.
func (b *Board) Organizations() []rankd.Organization {
	os := make([]rankd.Organization, 0, len(b.orgs))
	for _, o := range b.orgs {
		os = append(os, o)
	}
	slices.SortFunc(os, func(x, y rankd.Organization) int { return strings.Compare(x.ID, y.ID) })
	return os
}

// JudgementTypes returns the judgement types in the order they were defined.
func (b *Board) JudgementTypes() []rankd.JudgementType {
	ts := make([]rankd.JudgementType, 0, len(b.jtypes)-1)
	for _, t := range b.jtypes[1:] {
		ts = append(ts, t.info)
	}
	return ts
}

// ranked reports whether team t is on the boards: defined, and neither hidden nor banned nor in a hidden group.
func (b *Board) ranked(t int32) bool { return b.flags[t]&flagRanked != 0 }

// The bits of Board.flags.
const (
	flagDefined = 1 << iota
	flagRanked
)

// ms converts a contest time to milliseconds, rounding down: -0.5 ms is before the start, not at it.
func ms(d time.Duration) int64 {
	m := int64(d / time.Millisecond)
	if d%time.Millisecond < 0 {
		m--
	}
	return m
}
