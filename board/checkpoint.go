package board

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rankd"
)

// checkpointVersion is bumped whenever the checkpoint layout changes; Restore refuses other versions.
// Version 2 added the reveal steps, version 3 the judgements that do not count, version 4 the checksum
// (see checksumMagic: its snapshot is version 3's).
const checkpointVersion = 4

// uncheckedVersion is the version of the checkpoints written before the checksum, which Restore still takes.
const uncheckedVersion = 3

// snapshot is what a checkpoint holds: every object and submission, with each submission's judgements and
// those of deleted submissions, and the views' sequence numbers. Indexes, cells and problem state are rebuilt from it. It has
// no maps: gob sizes a map from its stored length before reading it, so a damaged length could exhaust
// memory, and map order would make checkpoints of equal boards differ.
type snapshot struct {
	Version  int
	Contest  rankd.Contest
	HasRules bool
	State    rankd.State
	JTypes   []rankd.JudgementType
	Problems []rankd.Problem
	Deleted  []bool // by problem
	Groups   []rankd.Group
	GroupDef []bool
	Orgs     []rankd.Organization
	Teams    []rankd.Team
	TeamDef  []bool
	Banned   []bool

	// Submissions as columns, so that gob packs them.
	SubID     []uint64
	StrAt     []uint32 // positions of the submissions whose id is not numeric
	StrIDs    []string // their ids
	SubTime   []int64
	SubTeam   []int32
	SubProb   []uint16
	SubJType  []uint8
	SubJStart []int64
	SubJID    []uint64
	SubScore  []float64
	SubtaskOf []uint64    // submission id keys with IOI subtask scores
	Subtasks  [][]float64 // their scores

	// The judgements that do not count, kept aside (judgements.go): by position of their submission.
	OlderAt       []uint32
	OlderID       []uint64
	OlderStart    []int64
	OlderJType    []uint8
	OlderScore    []float64
	OlderSubtasks [][]float64

	// The judgements of deleted submissions (judgements.go): the submission's id, by judgement.
	GoneSub      []string
	GoneID       []uint64
	GoneStart    []int64
	GoneJType    []uint8
	GoneScore    []float64
	GoneSubtasks [][]float64

	// The cells the reveal steps revealed, in step order: team and problem indexes.
	RevealTeam []int32
	RevealProb []uint16

	Seq    [2]uint64
	OwnSeq []uint64
	Stats  Stats
}

// A checkpoint is the snapshot's gob encoding, then a trailer: checksumMagic and the CRC-32C of the
// encoding, little-endian. Most damage to a checkpoint still decodes, into a board with another time,
// verdict or name that no other check can tell from a real one: the checksum has it refused instead, and
// the log replayed. A checkpoint of uncheckedVersion, written before the trailer, is restored unchecked.
const checksumMagic = "rkc\x01"

const trailerLen = len(checksumMagic) + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checkpoint returns the board's state as bytes that Restore turns back into an equal board.
func (b *Board) Checkpoint() ([]byte, error) {
	s := snapshot{
		Version: checkpointVersion, Contest: b.contest, HasRules: b.hasRules, State: b.state,
		Seq: [2]uint64{b.views[0].seq, b.views[1].seq}, OwnSeq: b.ownSeq, Stats: b.stats,
	}
	for _, jt := range b.jtypes[1:] {
		s.JTypes = append(s.JTypes, jt.info)
	}
	for _, p := range b.problems {
		s.Problems = append(s.Problems, p.info)
		s.Deleted = append(s.Deleted, p.deleted)
	}
	for _, g := range b.groups {
		s.Groups = append(s.Groups, g.info)
		s.GroupDef = append(s.GroupDef, g.defined)
	}
	for _, o := range b.orgs {
		s.Orgs = append(s.Orgs, o)
	}
	slices.SortFunc(s.Orgs, func(x, y rankd.Organization) int { return strings.Compare(x.ID, y.ID) })
	for k := range b.subtasks {
		s.SubtaskOf = append(s.SubtaskOf, k)
	}
	slices.Sort(s.SubtaskOf)
	for _, k := range s.SubtaskOf {
		s.Subtasks = append(s.Subtasks, b.subtasks[k])
	}
	for _, c := range b.reveals {
		s.RevealTeam, s.RevealProb = append(s.RevealTeam, c.t), append(s.RevealProb, c.p)
	}
	for _, t := range b.teams {
		s.Teams = append(s.Teams, t.info)
		s.TeamDef = append(s.TeamDef, t.defined)
		s.Banned = append(s.Banned, t.banned)
	}
	strIDs := make(map[uint64]string, len(b.subStr))
	for id := range b.subStr {
		k, _ := idKey(id)
		strIDs[k] = id
	}
	np := len(b.problems)
	var refs []subRef
	for ci := range b.cells {
		refs = b.subsOf(&b.cells[ci], refs[:0])
		for _, ref := range refs {
			r := b.sub(ref)
			if str, ok := strIDs[r.id]; ok {
				s.StrAt, s.StrIDs = append(s.StrAt, uint32(len(s.SubID))), append(s.StrIDs, str)
			}
			s.SubID, s.SubTime, s.SubTeam, s.SubProb = append(s.SubID, r.id), append(s.SubTime, r.time), append(s.SubTeam, int32(ci/np)), append(s.SubProb, uint16(ci%np))
			s.SubJType, s.SubJStart, s.SubJID, s.SubScore = append(s.SubJType, r.jtype), append(s.SubJStart, r.jStart), append(s.SubJID, r.jID), append(s.SubScore, r.score)
			if r.hasOlder {
				s.addOlder(uint32(len(s.SubID)-1), b.older[r.id])
			}
		}
	}
	gone := slices.Sorted(maps.Keys(b.gone))
	for _, k := range gone {
		s.addGone(b.gone[k])
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	sum := crc32.Checksum(buf.Bytes(), castagnoli)
	buf.WriteString(checksumMagic)
	return binary.LittleEndian.AppendUint32(buf.Bytes(), sum), nil
}

// Restore returns the board a checkpoint was taken of, sequence numbers included.
func Restore(data []byte) (*Board, error) {
	checked := false
	if n := len(data) - trailerLen; n >= 0 && string(data[n:n+len(checksumMagic)]) == checksumMagic {
		if crc32.Checksum(data[:n], castagnoli) != binary.LittleEndian.Uint32(data[n+len(checksumMagic):]) {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: damaged checkpoint: wrong checksum")
		}
		data, checked = data[:n], true
	}
	var s snapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return nil, rankd.Errorf(rankd.EINVALID, "restore: unreadable checkpoint: %w", err)
	}
	switch {
	case s.Version == checkpointVersion && !checked:
		return nil, rankd.Errorf(rankd.EINVALID, "restore: damaged checkpoint: its checksum is missing")
	case s.Version != checkpointVersion && (s.Version != uncheckedVersion || checked):
		return nil, rankd.Errorf(rankd.EINVALID, "restore: checkpoint version %d, want %d", s.Version, checkpointVersion)
	}
	n := len(s.SubID)
	if len(s.SubTime) != n || len(s.SubTeam) != n || len(s.SubProb) != n || len(s.SubJType) != n || len(s.SubJStart) != n || len(s.SubJID) != n || len(s.SubScore) != n ||
		len(s.Deleted) != len(s.Problems) || len(s.GroupDef) != len(s.Groups) ||
		len(s.TeamDef) != len(s.Teams) || len(s.StrAt) != len(s.StrIDs) || len(s.SubtaskOf) != len(s.Subtasks) || len(s.Banned) != len(s.Teams) || len(s.OwnSeq) != len(s.Teams) ||
		len(s.RevealTeam) != len(s.RevealProb) ||
		len(s.OlderID) != len(s.OlderAt) || len(s.OlderStart) != len(s.OlderAt) || len(s.OlderJType) != len(s.OlderAt) || len(s.OlderScore) != len(s.OlderAt) || len(s.OlderSubtasks) != len(s.OlderAt) ||
		len(s.GoneID) != len(s.GoneSub) || len(s.GoneStart) != len(s.GoneSub) || len(s.GoneJType) != len(s.GoneSub) || len(s.GoneScore) != len(s.GoneSub) || len(s.GoneSubtasks) != len(s.GoneSub) {
		return nil, rankd.Errorf(rankd.EINVALID, "restore: inconsistent checkpoint")
	}
	if err := s.unique(); err != nil {
		return nil, err
	}
	b := New()
	b.begin()
	b.contest, b.hasRules, b.state = s.Contest, s.HasRules, s.State
	b.dur, b.penalty = ms(s.Contest.Duration), int64(s.Contest.PenaltyTime/60e9)
	for _, jt := range s.JTypes {
		if err := b.applyJudgementType(&rankd.Event{Type: rankd.EventJudgementType, JudgementType: &jt}); err != nil {
			return nil, err
		}
	}
	for i := range s.Problems {
		if err := b.applyProblem(&rankd.Event{Type: rankd.EventProblem, Problem: &s.Problems[i]}); err != nil {
			return nil, err
		}
		b.problems[i].deleted = s.Deleted[i]
	}
	b.sortProblems()
	for i, g := range s.Groups {
		b.groups[b.group(g.ID)] = group{info: g, defined: s.GroupDef[i]}
	}
	for _, o := range s.Orgs {
		b.orgs[o.ID] = o
	}
	b.reserveTeams(len(s.Teams))
	for i, info := range s.Teams {
		t := b.addTeam(info)
		b.setTeam(t, info, s.TeamDef[i], s.Banned[i])
	}
	next := 0 // the next judgement kept aside
	strIDs := make(map[uint32]string, len(s.StrAt))
	for i, at := range s.StrAt {
		strIDs[at] = s.StrIDs[i]
	}
	for i := range n {
		if s.SubTeam[i] < 0 || int(s.SubTeam[i]) >= len(b.teams) || int(s.SubProb[i]) >= len(b.problems) || int(s.SubJType[i]) >= len(b.jtypes) {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: submission %d refers to an unknown object", i)
		}
		ci := int(s.SubTeam[i])*len(b.problems) + int(s.SubProb[i])
		id, numeric := strIDs[uint32(i)], false
		if id == "" {
			id, numeric = strconv.FormatUint(s.SubID[i], 10), true
		}
		if _, dup := b.locate(id); dup {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: inconsistent checkpoint: two submissions with id %q", id)
		}
		b.stats.Submissions++ // place sizes its dense table by it
		b.place(id, s.SubID[i], numeric, ci)
		b.insert(ci, sub{id: s.SubID[i], time: s.SubTime[i], jtype: s.SubJType[i], jStart: s.SubJStart[i], jID: s.SubJID[i], score: s.SubScore[i]})
		if s.SubJType[i] != 0 {
			b.setJudgedSub(s.SubJID[i], id, s.SubID[i], numeric)
		}
		for ; next < len(s.OlderAt) && s.OlderAt[next] == uint32(i); next++ {
			if int(s.OlderJType[next]) >= len(b.jtypes) || s.OlderJType[next] == 0 || s.SubJType[i] == 0 {
				return nil, rankd.Errorf(rankd.EINVALID, "restore: submission %d has an inconsistent judgement", i)
			}
			r := b.sub(b.find(ci, s.SubID[i]))
			b.keepOlder(r, s.SubID[i], judgement{id: s.OlderID[next], start: s.OlderStart[next], jtype: s.OlderJType[next], score: s.OlderScore[next], subtasks: s.OlderSubtasks[next]})
			b.setJudgedSub(s.OlderID[next], id, s.SubID[i], numeric)
		}
	}
	if next != len(s.OlderAt) {
		return nil, rankd.Errorf(rankd.EINVALID, "restore: inconsistent checkpoint: judgements of unknown submissions")
	}
	for i, id := range s.GoneSub {
		key, numeric := idKey(id)
		_, present := b.locateKey(id, key, numeric)
		if present || int(s.GoneJType[i]) >= len(b.jtypes) || s.GoneJType[i] == 0 {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: deleted submission %q has an inconsistent judgement", id)
		}
		if b.gone == nil {
			b.gone = map[uint64]goneSub{}
		}
		g := b.gone[key]
		g.id = id
		g.judgements = append(g.judgements, judgement{id: s.GoneID[i], start: s.GoneStart[i], jtype: s.GoneJType[i], score: s.GoneScore[i], subtasks: s.GoneSubtasks[i]})
		b.gone[key] = g
		b.setJudgedSub(s.GoneID[i], id, key, numeric)
	}
	for i, k := range s.SubtaskOf {
		b.subtasks[k] = s.Subtasks[i]
	}
	for i, t := range s.RevealTeam {
		c := revealCell{t, s.RevealProb[i]}
		if t < 0 || int(t) >= len(b.teams) || int(c.p) >= len(b.problems) {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: reveal step %d refers to an unknown cell", i+1)
		}
		if b.revealed == nil {
			b.revealed = map[revealCell]struct{}{}
		}
		if _, dup := b.revealed[c]; dup {
			return nil, rankd.Errorf(rankd.EINVALID, "restore: inconsistent checkpoint: reveal step %d reveals a cell again", i+1)
		}
		b.revealed[c] = struct{}{}
		b.reveals = append(b.reveals, c)
	}
	b.rebuild()
	for v := range b.views {
		for _, t := range b.views[v].dirty {
			b.teams[t].rows[v] = b.computeRow(v, t, false)
			b.reindex(v, t)
		}
		b.views[v].seq = s.Seq[v]
	}
	b.discard()
	b.ownSeq, b.stats = s.OwnSeq, s.Stats
	b.noteRevealDone(rankd.EventReveal)
	return b, nil
}

// sortedJudgements returns a copy of list, oldest first.
func sortedJudgements(list []judgement) []judgement {
	list = slices.Clone(list)
	slices.SortFunc(list, func(x, y judgement) int {
		if newer(x.start, x.id, y.start, y.id) {
			return 1
		}
		return -1
	})
	return list
}

// addOlder records the judgements kept aside of the submission at position at, in a deterministic order.
func (s *snapshot) addOlder(at uint32, list []judgement) {
	for _, j := range sortedJudgements(list) {
		s.OlderAt, s.OlderID, s.OlderStart = append(s.OlderAt, at), append(s.OlderID, j.id), append(s.OlderStart, j.start)
		s.OlderJType, s.OlderScore, s.OlderSubtasks = append(s.OlderJType, j.jtype), append(s.OlderScore, j.score), append(s.OlderSubtasks, j.subtasks)
	}
}

// addGone records the judgements a deleted submission keeps, in a deterministic order.
func (s *snapshot) addGone(g goneSub) {
	for _, j := range sortedJudgements(g.judgements) {
		s.GoneSub, s.GoneID, s.GoneStart = append(s.GoneSub, g.id), append(s.GoneID, j.id), append(s.GoneStart, j.start)
		s.GoneJType, s.GoneScore, s.GoneSubtasks = append(s.GoneJType, j.jtype), append(s.GoneScore, j.score), append(s.GoneSubtasks, j.subtasks)
	}
}

// unique checks that no two objects of a kind share an id: a checkpoint never holds such, a damaged one may.
func (s *snapshot) unique() error {
	seen := map[string]bool{}
	check := func(kind string, n int, id func(int) string) error {
		clear(seen)
		for i := range n {
			if seen[id(i)] {
				return rankd.Errorf(rankd.EINVALID, "restore: inconsistent checkpoint: two %s with id %q", kind, id(i))
			}
			seen[id(i)] = true
		}
		return nil
	}
	if err := check("judgement types", len(s.JTypes), func(i int) string { return s.JTypes[i].ID }); err != nil {
		return err
	}
	if err := check("problems", len(s.Problems), func(i int) string { return s.Problems[i].ID }); err != nil {
		return err
	}
	if err := check("groups", len(s.Groups), func(i int) string { return s.Groups[i].ID }); err != nil {
		return err
	}
	return check("teams", len(s.Teams), func(i int) string { return s.Teams[i].ID })
}
