package board_test

import (
	"testing"

	"rankd"
	"rankd/board"
)

// TestDeletedSubmissionKeepsItsJudgements: a submission deleted and created again (DOMjudge marks it invalid,
// then valid, sending no judgement again) counts the judgements it had, unless they were deleted or moved to
// another submission meanwhile; a checkpoint taken at any point keeps them.
func TestDeletedSubmissionKeepsItsJudgements(t *testing.T) {
	back := subEv("s1", "t1", "a", m(10))
	for _, tc := range []struct {
		name string
		evs  []rankd.Event
		want rankd.Cell // t1's cell of a in the jury view
	}{
		{"deleted", []rankd.Event{subDeleteEv("s1")},
			rankd.Cell{ProblemID: "a"}},
		{"created again", []rankd.Event{subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"created again at another time", []rankd.Event{subDeleteEv("s1"), subEv("s1", "t1", "a", m(12))},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(12), Penalty: 12}},
		{"its judgement deleted meanwhile", []rankd.Event{subDeleteEv("s1"), judgeDeleteEv("js1"), back},
			rankd.Cell{ProblemID: "a", Pending: 1}},
		{"its judgement moved to another submission meanwhile", []rankd.Event{subDeleteEv("s1"), subEv("s2", "t1", "a", m(20)),
			judgeEv("js1", "s2", "WA", m(21)), back},
			rankd.Cell{ProblemID: "a", Judged: 1, Pending: 1}},
		{"rejudged before: the latest counts", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Judged: 1}},
		{"rejudged before, the rejudge deleted meanwhile", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"),
			judgeDeleteEv("r1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"rejudged before, the rejudge deleted after", []rankd.Event{judgeEv("r1", "s1", "WA", m(30)), subDeleteEv("s1"),
			back, judgeDeleteEv("r1")},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
		{"deleted twice", []rankd.Event{subDeleteEv("s1"), back, subDeleteEv("s1"), back},
			rankd.Cell{ProblemID: "a", Solved: true, FirstToSolve: true, Judged: 1, Time: m(10), Penalty: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := cat(icpcSetup("t1"), submit("s1", "t1", "a", m(10), "AC"), tc.evs)
			for split := 0; split <= len(all); split++ {
				b := MustBoard(t, all[:split])
				restored, err := board.Restore(MustCheckpoint(t, b))
				if err != nil {
					t.Fatalf("restore after %d events: %v", split, err)
				}
				for i := split; i < len(all); i++ {
					if _, err := restored.Apply(&all[i]); err != nil {
						t.Fatalf("apply %s %s: %v", all[i].Type, all[i].ID, err)
					}
				}
				if got := cellOf(t, restored, rankd.View{Kind: rankd.ViewJury}, "t1", "a"); got != tc.want {
					t.Fatalf("checkpoint after %d events: got %+v, want %+v", split, got, tc.want)
				}
			}
		})
	}
	// A judgement of a deleted submission sent again is still refused: the submission is not there.
	b := MustBoard(t, icpcSetup("t1"), submit("s1", "t1", "a", m(10), "AC"), []rankd.Event{subDeleteEv("s1")})
	ev := judgeEv("js1", "s1", "WA", m(11))
	if _, err := b.Apply(&ev); rankd.ErrorCode(err) != rankd.EUNPROCESSABLE {
		t.Errorf("a judgement of a deleted submission: got %v, want %s", err, rankd.EUNPROCESSABLE)
	}
}
