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

// A renamed organization changes the rows of its teams: the views' sequences move, as for a renamed team.
func TestOrganizationRenameMovesTheViews(t *testing.T) {
	org := func(name string) rankd.Event {
		return rankd.Event{Type: rankd.EventOrganization, ID: "o1", Organization: &rankd.Organization{ID: "o1", Name: name}}
	}
	team := teamEv("t1", "One")
	team.Team.OrganizationID = "o1"
	b := MustBoard(t, []rankd.Event{icpc()}, verdicts(), []rankd.Event{problemEv("A", 1), org("Old U"), team})
	for _, tc := range []struct {
		name string
		ev   rankd.Event
		move bool
	}{
		{"renamed", org("New U"), true},
		{"the same again", org("New U"), false},
		{"deleted", rankd.Event{Type: rankd.EventOrganization, ID: "o1", Delete: true}, true},
	} {
		before := [2]uint64{b.Seq(rankd.PublicView), b.Seq(rankd.JuryView)}
		if _, err := b.Apply(&tc.ev); err != nil {
			t.Fatal(err)
		}
		after := [2]uint64{b.Seq(rankd.PublicView), b.Seq(rankd.JuryView)}
		if moved := after[0] > before[0] && after[1] > before[1]; moved != tc.move || (!tc.move && after != before) {
			t.Errorf("%s: got sequences %v then %v, want moved %v", tc.name, before, after, tc.move)
		}
	}
}
