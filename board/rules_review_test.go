package board_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"rankd"
)

// TestFrozenSubmissionResentMovesNoPublicSeq: a frozen submission sent again with another frozen time, in
// its cell, changes no public standing: the board took it out of its cell and put it back, and the public
// view saw one pending submission less, then one more, which must not show. The submissions list shows its
// new time, so the public view takes one sequence number, with the row as it was.
func TestFrozenSubmissionResentMovesNoPublicSeq(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(250), "AC"))
	seq := b.Seq(rankd.PublicView)
	before := MustStandings(t, b, rankd.PublicView)
	ch := mustApply(t, b, subEv("1", "t1", "a", m(260)))
	after := MustStandings(t, b, rankd.PublicView)
	if got := b.Seq(rankd.PublicView); got != seq+1 {
		t.Errorf("public sequence: got %d, want %d (the list shows the new time)", got, seq+1)
	}
	for _, d := range ch.Diffs {
		if d.View.Kind == rankd.ViewPublic && (len(d.Rows) != 1 || d.Rows[0].Moved) {
			t.Errorf("got a public diff %+v, want t1's row, not moved", d)
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

// TestListedSubmissionsMoveTheirViews: what the submissions list shows of a submission (its coming, its
// verdict) moves the views that list it, though no cell shows it (after the cell's solve): a list kept by
// sequence number stayed as it was. A frozen one's verdict moves the jury's and the team's own view, never
// the public's.
func TestListedSubmissionsMoveTheirViews(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "AC"))
	for _, tt := range []struct {
		name              string
		ev                rankd.Event
		jury, public, own uint64 // how far each view's sequence moves
	}{
		{"a submission after the solve", subEv("2", "t1", "a", m(20)), 1, 1, 0},
		{"its verdict", judgeEv("j2", "2", "WA", m(21)), 1, 1, 0},
		{"a frozen submission after the solve", subEv("3", "t1", "a", m(250)), 1, 1, 0},
		{"its verdict", judgeEv("j3", "3", "WA", m(251)), 1, 0, 1},
	} {
		jury, public, own := b.Seq(rankd.JuryView), b.Seq(rankd.PublicView), b.Seq(rankd.TeamView("t1"))-b.Seq(rankd.PublicView)
		mustApply(t, b, tt.ev)
		if got := b.Seq(rankd.JuryView) - jury; got != tt.jury {
			t.Errorf("%s: the jury's sequence moved %d, want %d", tt.name, got, tt.jury)
		}
		if got := b.Seq(rankd.PublicView) - public; got != tt.public {
			t.Errorf("%s: the public sequence moved %d, want %d", tt.name, got, tt.public)
		}
		if got := b.Seq(rankd.TeamView("t1")) - b.Seq(rankd.PublicView) - own; got != tt.own {
			t.Errorf("%s: t1's own part of its sequence moved %d, want %d", tt.name, got, tt.own)
		}
	}
}

// TestContestAgainWithoutExtension: a contest sent again without rankd's extension (a CCS source sending its
// contest with a thaw time, say) keeps what only the extension says: the rules beyond scoreboard_type, the
// first-blood bonuses, the medals. A change of scoreboard_type still changes the rules.
func TestContestAgainWithoutExtension(t *testing.T) {
	medals := rankd.Medals{Gold: 1, Silver: 1, Bronze: 1}
	ctf := contestEv(rankd.Contest{Rules: rankd.CTF, Duration: 48 * time.Hour, FirstBlood: []int64{50}, Medals: medals})
	b := MustBoard(t, []rankd.Event{ctf})
	again := *ctf.Contest
	again.Rules, again.FirstBlood, again.Medals, again.NoExtension = rankd.OI, nil, rankd.Medals{}, true // score, as read
	again.Name = "Renamed"
	mustApply(t, b, rankd.Event{Type: rankd.EventContest, ID: again.ID, Contest: &again})
	got := b.Contest()
	if got.Rules != rankd.CTF || !slices.Equal(got.FirstBlood, []int64{50}) || got.Medals != medals || got.Name != "Renamed" || got.NoExtension {
		t.Errorf("sent again without the extension: got %+v, want CTF, first blood [50], its medals and the new name", got)
	}
	passFail := again
	passFail.Rules = rankd.ICPC
	mustApply(t, b, rankd.Event{Type: rankd.EventContest, ID: again.ID, Contest: &passFail})
	if got := b.Contest(); got.Rules != rankd.ICPC || got.Medals != medals {
		t.Errorf("sent again as pass-fail: got rules %s, medals %+v; want icpc with its medals", got.Rules, got.Medals)
	}
}

// TestMedalsChangeMovesViews: new medals change the awards of every view, which are read (and cached) by
// the view's sequence number: each view moves.
func TestMedalsChangeMovesViews(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2"), submit("1", "t1", "a", m(10), "AC"))
	jury, public := b.Seq(rankd.JuryView), b.Seq(rankd.PublicView)
	c := b.Contest()
	c.Medals = rankd.Medals{Gold: 1}
	mustApply(t, b, rankd.Event{Type: rankd.EventContest, ID: c.ID, Contest: &c})
	if b.Seq(rankd.JuryView) == jury || b.Seq(rankd.PublicView) == public {
		t.Errorf("after new medals: got sequences %d, %d; want both past %d, %d", b.Seq(rankd.JuryView), b.Seq(rankd.PublicView), jury, public)
	}
	if aw := b.Awards(rankd.PublicView); !slices.ContainsFunc(aw, func(a rankd.Award) bool { return a.ID == "gold-medal" }) {
		t.Errorf("public awards after new medals: got %+v, want a gold medal", aw)
	}
}

// TestRankAwardsWithheldWhileHidden: while the public board hides a verdict, its awards name no winner, no
// medallist and no group winner (the hidden results may still pass them: certificates printed from the frozen
// board were wrong); first to solve stays, given once certain. The jury's name them; after the thaw, the
// public's too.
func TestRankAwardsWithheldWhileHidden(t *testing.T) {
	c := rankd.Contest{Rules: rankd.ICPC, FreezeDuration: time.Hour, PenaltyTime: rankd.DefaultPenaltyTime, Medals: rankd.Medals{Gold: 1}}
	b := MustBoard(t, []rankd.Event{contestEv(c)}, verdicts(), []rankd.Event{problemEv("a", 0), problemEv("b", 1),
		teamEv("t1", "One"), teamEv("t2", "Two")},
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "a", m(20), "AC"), submit("3", "t2", "b", m(250), "AC"))
	ids := func(v rankd.View) []string {
		var out []string
		for _, a := range b.Awards(v) {
			out = append(out, a.ID)
		}
		return out
	}
	if got, want := ids(rankd.PublicView), []string{"first-to-solve-a"}; !slices.Equal(got, want) {
		t.Errorf("public awards while t2's frozen solve is hidden: got %v, want %v", got, want)
	}
	if got := ids(rankd.JuryView); !slices.Contains(got, "winner") || !slices.Contains(got, "gold-medal") {
		t.Errorf("jury awards: got %v, want the winner and the gold medal", got)
	}
	now := time.Now()
	mustApply(t, b, stateEv(rankd.State{Started: &now, Ended: &now, Thawed: &now}))
	if got := ids(rankd.PublicView); !slices.Contains(got, "winner") || !slices.Contains(got, "gold-medal") {
		t.Errorf("public awards after the thaw: got %v, want the winner and the gold medal", got)
	}
}
