package board_test

import (
	"math"
	"reflect"
	"testing"

	"rankd"
)

// TestFrozenSubmissionResentMovesNoPublicSeq: a frozen submission sent again with another frozen time, in
// its cell, changes nothing public, so the public sequence must not move (principle 5): the board took it
// out of its cell and put it back, and the public view saw one pending submission less, then one more.
func TestFrozenSubmissionResentMovesNoPublicSeq(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(250), "AC"))
	seq := b.Seq(rankd.PublicView)
	before := MustStandings(t, b, rankd.PublicView)
	ch := mustApply(t, b, subEv("1", "t1", "a", m(260)))
	after := MustStandings(t, b, rankd.PublicView)
	if got := b.Seq(rankd.PublicView); got != seq {
		t.Errorf("public sequence: got %d, want %d", got, seq)
	}
	for _, d := range ch.Diffs {
		if d.View.Kind == rankd.ViewPublic {
			t.Errorf("got a public diff %+v, want none", d)
		}
	}
	after.Seq = before.Seq
	if !reflect.DeepEqual(after, before) {
		t.Errorf("public standings: got %+v, want %+v", after, before)
	}
	if c := cellOf(t, b, rankd.JuryView, "t1", "a"); !c.Solved || c.Penalty != 260 {
		t.Errorf("jury cell: got %+v, want solved at minute 260", c)
	}
}

// A score that is not a number is refused as a negative one is: it would make every comparison false.
func TestNaNScoreRefused(t *testing.T) {
	b := MustBoard(t, []rankd.Event{icpc()}, verdicts(), []rankd.Event{problemEv("A", 1), teamEv("t1", "One"), subEv("s1", "t1", "A", m(10))})
	for _, ev := range []rankd.Event{scoreEv("j1", "s1", m(11), math.NaN()), scoreEv("j2", "s1", m(11), 10, math.NaN())} {
		if _, err := b.Apply(&ev); rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("judgement %s: got %v, want %s", ev.ID, err, rankd.EINVALID)
		}
	}
}
