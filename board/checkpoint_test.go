package board_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/gen"
)

// checkpointCase is a board built with the rule tables' builders, and events applied after its checkpoint.
type checkpointCase struct {
	name    string
	evs     []rankd.Event
	further []rankd.Event
}

func checkpointCases() []checkpointCase {
	icpcEvs := cat(icpcSetup(),
		[]rankd.Event{groupEv("uni", false), groupEv("school", true),
			teamEv("t1", "Team t1", "uni"), teamEv("t2", "Team t2", "uni"), teamEv("t3", "Team t3", "school"), teamEv("t4", "Team t4"), hiddenTeamEv("h", "Hidden")},
		// String and numeric ids, a pending submission, frozen verdicts.
		submit("run-1", "t1", "a", m(10), "WA"), submit("run-2", "t1", "a", m(20), "AC"),
		submit("7", "t2", "a", m(15), "AC"), submit("8", "t2", "b", m(30), "CE"), []rankd.Event{subEv("9", "t2", "b", m(100))},
		submit("x/3", "t3", "b", m(250), "AC"), submit("x/4", "t3", "c", m(255), "WA"),
		// A hidden team's solve, a deleted submission, a banned team's solve, submissions outside the contest.
		submit("h1", "h", "a", m(1), "AC"),
		submit("gone", "t3", "a", m(5), "AC"), []rankd.Event{subDeleteEv("gone")},
		submit("10", "t4", "c", m(40), "AC"), []rankd.Event{banEv("t4", true)},
		[]rankd.Event{subEv("11", "t1", "b", -time.Minute), subEv("12", "t1", "b", 5*time.Hour)},
	)
	icpcFurther := cat(
		// A verdict for the pending submission, a rejudge of a string id and a stale judgement.
		[]rankd.Event{judgeEv("j9", "9", "AC", m(101)), judgeEv("r1", "run-1", "AC", m(200)), judgeEv("r0", "run-2", "WA", m(11))},
		// A frozen solve; the deleted id back with a new verdict; a deletion, an unban and a duplicate.
		submit("run-5", "t3", "c", m(260), "AC"),
		[]rankd.Event{subEv("gone", "t3", "a", m(5)), judgeEv("jgone", "gone", "WA", m(6))},
		[]rankd.Event{subDeleteEv("7"), banEv("t4", false), subEv("run-2", "t1", "a", m(20))},
		// Refused events, a rename into another group, a team hidden.
		[]rankd.Event{judgeEv("j404", "404", "AC", m(1)), subEv("13", "nobody", "a", m(1))},
		[]rankd.Event{teamEv("t2", "Renamed", "school"), hiddenTeamEv("t3", "Team t3")},
	)

	oi := rankd.Contest{Rules: rankd.OI, OIMode: rankd.OILast, HideUntilEnd: true, FreezeDuration: time.Hour}
	oiEvs := cat(scoreSetup(oi, "t1", "t2", "t3"),
		[]rankd.Event{subEv("s1", "t1", "a", m(10)), scoreEv("j1", "s1", m(10), 60), subEv("s2", "t1", "a", m(20)), scoreEv("j2", "s2", m(20), 30)},
		[]rankd.Event{subEv("3", "t2", "b", m(30)), scoreEv("j3", "3", m(30), 100), subEv("4", "t3", "a", m(280)), scoreEv("j4", "4", m(281), 40)},
		[]rankd.Event{subEv("5", "t3", "b", m(50)), scoreEv("j5", "5", m(50), 70), subDeleteEv("5")},
	)
	oiFurther := []rankd.Event{
		scoreEv("j2b", "s2", m(100), 90), subEv("s6", "t2", "a", m(200)), judgeEv("j6", "s6", "CE", m(201)),
		banEv("t1", true), stateEv(endedState), banEv("t1", false),
	}

	ioi := rankd.Contest{Rules: rankd.IOI, TieByTime: true, FreezeDuration: time.Hour}
	ioiEvs := cat(scoreSetup(ioi, "t1", "t2", "t3"), []rankd.Event{hiddenTeamEv("h", "Hidden")},
		[]rankd.Event{subEv("a-1", "t1", "a", m(10)), scoreEv("j1", "a-1", m(10), 40, 40, 0), subEv("a-2", "t1", "a", m(20)), scoreEv("j2", "a-2", m(20), 30, 0, 30)},
		[]rankd.Event{subEv("3", "t2", "a", m(30)), scoreEv("j3", "3", m(30), 60, 0, 60), subEv("4", "t2", "b", m(40)), scoreEv("j4", "4", m(40), 25)},
		[]rankd.Event{subEv("5", "h", "a", m(5)), scoreEv("j5", "5", m(5), 100, 40, 60), subEv("6", "t3", "a", m(250)), scoreEv("j6", "6", m(251), 100, 40, 60)},
		[]rankd.Event{subEv("7", "t3", "b", m(60)), scoreEv("j7", "7", m(60), 50), subDeleteEv("7"), banEv("t2", true)},
	)
	ioiFurther := []rankd.Event{
		// A rejudge lowering a subtask.
		scoreEv("j9", "a-1", m(90), 20, 20, 0),
		subEv("8", "t3", "a", m(270)), scoreEv("j8", "8", m(271), 60, 0, 60),
		banEv("t2", false), stateEv(thawedState),
	}

	ctfEvs := ctfSetup([]int64{50, 20}, "t1", "t2", "t3", "t4")
	ctfEvs[0].Contest.FreezeDuration = 10 * time.Hour
	ctfEvs = cat(ctfEvs, []rankd.Event{hiddenTeamEv("h", "Hidden")},
		submit("f1", "t1", "lin", m(10), "AC"), submit("f2", "t2", "lin", m(20), "AC"), submit("3", "t3", "lin", m(30), "WA"),
		submit("4", "t1", "log", m(40), "AC"), submit("5", "t2", "dc", m(50), "AC"), submit("6", "t3", "static", m(60), "AC"),
		// A hidden solver takes no first-blood bonus (of a static challenge: see TestCTFUnrankedRowTotal).
		submit("7", "h", "static", m(5), "AC"),
		submit("8", "t4", "static", m(70), "AC"), []rankd.Event{banEv("t4", true)},
		// A frozen solve and a deleted one.
		submit("9", "t3", "log", 40*time.Hour, "AC"),
		submit("10", "t1", "static", m(80), "AC"), []rankd.Event{subDeleteEv("10")},
	)
	ctfFurther := cat(
		// An earlier solve arriving late, a frozen one.
		submit("11", "t3", "lin", m(35), "AC"),
		submit("12", "t4", "lin", 41*time.Hour, "AC"),
		[]rankd.Event{banEv("t4", false), judgeEv("r3", "3", "AC", m(90)), stateEv(thawedState)},
	)

	return []checkpointCase{
		{"empty board", nil, cat(icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "AC"))},
		{"icpc frozen", icpcEvs, icpcFurther},
		{"icpc thawed", cat(icpcEvs, []rankd.Event{stateEv(thawedState)}), icpcFurther},
		{"oi hidden until the end", oiEvs, oiFurther},
		{"ioi", ioiEvs, ioiFurther},
		{"ctf", ctfEvs, ctfFurther},
	}
}

// TestCheckpointRestore checks that a restored board equals the board its checkpoint was taken of, sequence
// numbers and statistics included, and that both then take the same events with the same diffs.
func TestCheckpointRestore(t *testing.T) {
	for _, tc := range checkpointCases() {
		t.Run(tc.name, func(t *testing.T) {
			orig := MustBoard(t, tc.evs)
			restored := restore(t, orig)
			compareBoards(t, "restored board", restored, orig, true)
			compareBoards(t, "board restored twice", restore(t, restored), orig, true)

			seq := orig.Seq(rankd.JuryView)
			for i := range tc.further {
				ev := &tc.further[i]
				chOrig, errOrig := orig.Apply(ev)
				diffsOrig := copyDiffs(chOrig)
				chRestored, errRestored := restored.Apply(ev)
				if rankd.ErrorCode(errRestored) != rankd.ErrorCode(errOrig) {
					t.Fatalf("%s %s: restored board got error %v, original %v", ev.Type, ev.ID, errRestored, errOrig)
				}
				if diffs := copyDiffs(chRestored); !reflect.DeepEqual(diffs, diffsOrig) {
					t.Fatalf("%s %s: restored board diffs\n%+v\noriginal\n%+v", ev.Type, ev.ID, diffs, diffsOrig)
				}
			}
			if orig.Seq(rankd.JuryView) == seq {
				t.Fatalf("the further events changed nothing")
			}
			compareBoards(t, "restored board after further events", restored, orig, true)
		})
	}
}

// checkpointLayout mirrors the fields of the board's checkpoint (gob matches fields by name), so that the
// tests can write checkpoints that are well formed but inconsistent. TestRestoreRefusesCorruptCheckpoints
// first checks that a checkpoint copied through it restores to an equal board: when the layout changes,
// that check says this mirror needs the same change.
type checkpointLayout struct {
	Version  int
	Contest  rankd.Contest
	HasRules bool
	State    rankd.State
	JTypes   []rankd.JudgementType
	Problems []rankd.Problem
	Deleted  []bool
	Groups   []rankd.Group
	GroupDef []bool
	Orgs     []rankd.Organization
	Teams    []rankd.Team
	TeamDef  []bool
	Banned   []bool

	SubID     []uint64
	StrAt     []uint32
	StrIDs    []string
	SubTime   []int64
	SubTeam   []int32
	SubProb   []uint16
	SubJType  []uint8
	SubJStart []int64
	SubJID    []uint64
	SubScore  []float64
	SubtaskOf []uint64
	Subtasks  [][]float64

	GoneSub      []string
	GoneID       []uint64
	GoneStart    []int64
	GoneJType    []uint8
	GoneScore    []float64
	GoneSubtasks [][]float64

	Seq    [2]uint64
	OwnSeq []uint64
	Stats  board.Stats
}

func (l *checkpointLayout) encode(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(l); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// restoreSafely restores a checkpoint and reads the board back, turning a panic into an error.
func restoreSafely(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	b, err := board.Restore(data)
	if err != nil {
		return err
	}
	for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
		if _, err := b.Standings(v, 0, -1); err != nil {
			return fmt.Errorf("standings of the restored board: %w", err)
		}
		b.Awards(v)
	}
	for _, tm := range b.Teams() {
		if _, err := b.Standings(rankd.TeamView(tm.ID), 0, -1); err != nil {
			return fmt.Errorf("standings of the restored board: %w", err)
		}
	}
	return nil
}

func TestRestoreRefusesCorruptCheckpoints(t *testing.T) {
	orig := MustBoard(t, checkpointCases()[1].evs)
	data, err := orig.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	refused := func(t *testing.T, what string, data []byte) {
		t.Helper()
		if err := restoreSafely(data); rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("%s: got %v, want an error with code %s", what, err, rankd.EINVALID)
		}
	}

	t.Run("garbage", func(t *testing.T) {
		random := make([]byte, 512)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range random {
			random[i] = byte(r.Uint32())
		}
		for _, tt := range []struct {
			name string
			data []byte
		}{
			{"nil", nil},
			{"empty", []byte{}},
			{"text", []byte("not a checkpoint")},
			{"random bytes", random},
			{"a byte in front", append([]byte{0}, data...)},
		} {
			refused(t, tt.name, tt.data)
		}
	})

	t.Run("truncated", func(t *testing.T) {
		for n := range len(data) {
			refused(t, fmt.Sprintf("first %d of %d bytes", n, len(data)), data[:n])
		}
	})

	t.Run("inconsistent", func(t *testing.T) {
		var layout checkpointLayout
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&layout); err != nil {
			t.Fatal(err)
		}
		// Copies carry no checksum, as checkpoints written before it: what is tested is Restore's own checks
		// of what it reads, which the checksum comes before.
		layout.Version = 3
		restored, err := board.Restore(layout.encode(t))
		if err != nil {
			t.Fatalf("a checkpoint copied through checkpointLayout: %v", err)
		}
		compareBoards(t, "a checkpoint copied through checkpointLayout (does it mirror the board's?)", restored, orig, true)
		if len(layout.SubID) == 0 || len(layout.Problems) < 2 || len(layout.Teams) < 2 {
			t.Fatalf("the checkpoint holds too little to corrupt")
		}

		for _, tt := range []struct {
			name    string
			corrupt func(l *checkpointLayout)
		}{
			{"unknown version", func(l *checkpointLayout) { l.Version = 99 }},
			{"submission columns of different lengths", func(l *checkpointLayout) { l.SubTime = l.SubTime[1:] }},
			{"flags of teams missing", func(l *checkpointLayout) { l.Banned = nil }},
			{"own sequences missing", func(l *checkpointLayout) { l.OwnSeq = nil }},
			{"negative team index", func(l *checkpointLayout) { l.SubTeam[0] = -1 }},
			{"team index out of range", func(l *checkpointLayout) { l.SubTeam[0] = int32(len(l.Teams)) }},
			{"problem index out of range", func(l *checkpointLayout) { l.SubProb[0] = uint16(len(l.Problems)) }},
			{"judgement type out of range", func(l *checkpointLayout) { l.SubJType[0] = uint8(len(l.JTypes) + 1) }},
			{"problem without id", func(l *checkpointLayout) { l.Problems[0].ID = "" }},
			{"judgement type without id", func(l *checkpointLayout) { l.JTypes[0].ID = "" }},
			{"two problems with one id", func(l *checkpointLayout) { l.Problems[1].ID = l.Problems[0].ID }},
			{"two teams with one id", func(l *checkpointLayout) { l.Teams[1].ID = l.Teams[0].ID }},
		} {
			var l checkpointLayout
			if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&l); err != nil {
				t.Fatal(err)
			}
			tt.corrupt(&l)
			refused(t, tt.name, l.encode(t))
		}
	})

	t.Run("flipped bits", func(t *testing.T) {
		// Most flips make the checkpoint unreadable; some only change a name or a time, which no check can
		// tell from a real board. None may panic, and every refusal is EINVALID. A count turned huge must not
		// exhaust memory either (the checkpoint holds no maps, which gob would size before reading).
		for i := range data {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				d := bytes.Clone(data)
				d[i] ^= mask
				if err := restoreSafely(d); err != nil && rankd.ErrorCode(err) != rankd.EINVALID {
					t.Errorf("byte %d ^ %#x: got %v, want success or an error with code %s", i, mask, err, rankd.EINVALID)
				}
			}
		}
	})
}

// benchmarkBoard is a board of 10k teams, 12 problems and 100k submissions from the gen package, built once.
var benchmarkBoard = sync.OnceValues(func() (*board.Board, error) {
	b := board.New()
	err := gen.Generate(gen.Config{Teams: 10000, Problems: 12, Submissions: 100000, Seed: 1}.WithDefaults(), func(ev rankd.Event) error {
		// The board copies what it keeps of an event, so the generator's reused objects can go to it as
		// they are.
		_, err := b.Apply(&ev)
		return err
	})
	return b, err
})

func BenchmarkCheckpoint(b *testing.B) {
	bd, err := benchmarkBoard()
	if err != nil {
		b.Fatal(err)
	}
	data, err := bd.Checkpoint()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("checkpoint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := bd.Checkpoint(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data)), "checkpoint-bytes")
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := board.Restore(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCheckpointDeterministic: equal boards give equal bytes, so checkpoints can be compared and
// deduplicated, and a restored board checkpoints to the bytes it came from.
func TestCheckpointDeterministic(t *testing.T) {
	b := MustBoard(t, ctfSetup([]int64{10}, "t1", "t2"),
		[]rankd.Event{{Type: rankd.EventOrganization, ID: "o2", Organization: &rankd.Organization{ID: "o2"}}, {Type: rankd.EventOrganization, ID: "o1", Organization: &rankd.Organization{ID: "o1"}}},
		submit("x1", "t1", "lin", m(10), "AC"), submit("x2", "t2", "lin", m(20), "AC"), submit("3", "t2", "static", m(30), "WA"))
	first, err := b.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, err := b.Checkpoint()
		if err != nil || !bytes.Equal(again, first) {
			t.Fatalf("a second checkpoint of the same board differs (err %v)", err)
		}
	}
	r, err := board.Restore(first)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := r.Checkpoint(); err != nil || !bytes.Equal(again, first) {
		t.Fatalf("the restored board checkpoints to other bytes (err %v)", err)
	}
}
