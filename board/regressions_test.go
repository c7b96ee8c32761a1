package board_test

import (
	"hash/fnv"
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// Regressions found in review, each the smallest log that showed it.

func TestZeroPenaltyIsHonoured(t *testing.T) {
	evs := cat([]rankd.Event{contestEv(rankd.Contest{Rules: rankd.ICPC})}, verdicts(), []rankd.Event{problemEv("a", 0), teamEv("t1", "A")},
		submit("1", "t1", "a", m(5), "WA"), submit("2", "t1", "a", m(10), "AC"))
	if r, _ := MustBoard(t, evs).Row(rankd.JuryView, "t1"); r.Penalty != 10 {
		t.Fatalf("got penalty %d, want 10 (no penalty per rejection)", r.Penalty)
	}
	bad := contestEv(rankd.Contest{Rules: rankd.ICPC, PenaltyTime: 90 * time.Second})
	if _, err := board.New().Apply(&bad); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Fatalf("a penalty of 1.5 minutes: got %v, want invalid", err)
	}
}

func TestDeletedProblemLeavesRows(t *testing.T) {
	b := MustBoard(t, icpcSetup("1", "2"), submit("1", "1", "b", m(10), "AC"),
		[]rankd.Event{{Type: rankd.EventProblem, ID: "b", Delete: true}, {Type: rankd.EventSubmission, ID: "1", Delete: true}})
	if got, want := summary(MustStandings(t, b, rankd.JuryView), false), "1 1 0/0\n1 2 0/0\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestHiddenTeamMovesNoPublicSequence(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1"), []rankd.Event{hiddenTeamEv("h", "Hidden")})
	seq := b.Seq(rankd.PublicView)
	for _, ev := range cat(submit("1", "h", "a", m(10), "AC"), []rankd.Event{hiddenTeamEv("h", "Renamed")}) {
		ch := mustApply(t, b, ev)
		for _, d := range ch.Diffs {
			if d.View.Kind == rankd.ViewPublic {
				t.Fatalf("%s %s of a hidden team produced a public diff %+v", ev.Type, ev.ID, d)
			}
		}
	}
	if b.Seq(rankd.PublicView) != seq {
		t.Fatalf("a hidden team moved the public sequence")
	}
	if _, err := b.Row(rankd.PublicView, "h"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Fatalf("public row of a hidden team: got %v, want not found", err)
	}
	if r, err := b.Row(rankd.JuryView, "h"); err != nil || r.Solved != 1 || r.Rank != 0 {
		t.Fatalf("jury row of a hidden team: got %+v, %v; want 1 solved, unranked", r, err)
	}
	// Unhidden, it comes onto the public board with one diff.
	ch := mustApply(t, b, teamEv("h", "Renamed"))
	if len(ch.Diffs) == 0 || b.Seq(rankd.PublicView) != seq+1 {
		t.Fatalf("unhiding did not move the public view")
	}
}

func TestEventWithoutObjectIsInvalid(t *testing.T) {
	for _, typ := range []rankd.EventType{rankd.EventContest, rankd.EventJudgementType, rankd.EventProblem, rankd.EventGroup,
		rankd.EventOrganization, rankd.EventTeam, rankd.EventSubmission, rankd.EventJudgement} {
		b := MustBoard(t, icpcSetup("t1"))
		if _, err := b.Apply(&rankd.Event{Type: typ, ID: "x"}); rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("%s without object: got %v, want invalid", typ, err)
		}
	}
}

func TestOutsideCount(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1"), []rankd.Event{
		subEv("1", "t1", "a", -time.Minute), subEv("1", "t1", "a", m(10)), // moved inside
		subEv("2", "t1", "a", m(400)), {Type: rankd.EventSubmission, ID: "2", Delete: true},
		subEv("3", "t1", "a", -time.Millisecond/2), // before the start, however little
	})
	if got := b.Stats().Outside; got != 1 {
		t.Fatalf("got %d submissions outside, want 1", got)
	}
	if c := cellOf(t, b, rankd.JuryView, "t1", "a"); c.Pending != 1 {
		t.Fatalf("got %d pending, want only the one inside", c.Pending)
	}
}

func TestDynamicMinimumAboveValueRefused(t *testing.T) {
	b := MustBoard(t, []rankd.Event{contestEv(rankd.Contest{Rules: rankd.CTF})})
	ev := ctfProblemEv("x", 0, 100, 500, 10, rankd.ValueLinear)
	if _, err := b.Apply(&ev); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Fatalf("got %v, want invalid", err)
	}
}

func TestHiddenGroupTakesItsTeamsOff(t *testing.T) {
	groupEv := func(hidden bool) rankd.Event {
		return rankd.Event{Type: rankd.EventGroup, ID: "obs", Group: &rankd.Group{ID: "obs", Name: "Observers", Hidden: hidden}}
	}
	b := MustBoard(t, icpcSetup("t1"), []rankd.Event{groupEv(true), teamEv("o", "Observer", "obs")},
		submit("1", "o", "a", m(5), "AC"), submit("2", "t1", "a", m(9), "AC"))
	if got, want := summary(MustStandings(t, b, rankd.PublicView), false), "1 t1 1/9\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !cellOf(t, b, rankd.JuryView, "t1", "a").FirstToSolve {
		t.Fatalf("a team in a hidden group took first to solve")
	}
	mustApply(t, b, groupEv(false))
	if got, want := summary(MustStandings(t, b, rankd.PublicView), false), "1 o 1/5\n2 t1 1/9\n"; got != want {
		t.Fatalf("group shown: got\n%s\nwant\n%s", got, want)
	}
}

// TestIDKeyHash pins the hash of string ids to FNV-1a: checkpoints hold id keys.
func TestIDKeyHash(t *testing.T) {
	for _, id := range []string{"", "s12", "012", "a-lucky-towers", "é"} {
		h := fnv.New64a()
		h.Write([]byte(id))
		if got, want := board.IDKey(id), h.Sum64()|1<<63; got != want {
			t.Errorf("IDKey(%q) = %x, want %x", id, got, want)
		}
	}
}
