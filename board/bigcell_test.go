package board_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// bigCellBoard returns a board of one team and one problem under rules, frozen from 4:00 with a state that
// says so, and the events of n submissions to its one cell, a minute apart from 3:00 (the last third
// frozen), with a judgement of each, in the order of perm.
func bigCellBoard(tb testing.TB, rules rankd.Rules, n int, perm []int, verdict func(i int) (string, float64)) (*board.Board, []rankd.Event) {
	tb.Helper()
	b := board.New()
	setup := []rankd.Event{
		{Type: rankd.EventContest, Contest: &rankd.Contest{ID: "c", Name: "c", Duration: 5 * time.Hour, FreezeDuration: time.Hour, Rules: rules}},
		{Type: rankd.EventJudgementType, JudgementType: &rankd.JudgementType{ID: "AC", Solved: true}},
		{Type: rankd.EventJudgementType, JudgementType: &rankd.JudgementType{ID: "WA", Penalty: true}},
		{Type: rankd.EventJudgementType, JudgementType: &rankd.JudgementType{ID: "CE"}},
		{Type: rankd.EventProblem, Problem: &rankd.Problem{ID: "A", Label: "A"}},
		{Type: rankd.EventTeam, Team: &rankd.Team{ID: "t", Name: "t"}},
		{Type: rankd.EventTeam, Team: &rankd.Team{ID: "u", Name: "u"}},
	}
	for i := range setup {
		if _, err := b.Apply(&setup[i]); err != nil {
			tb.Fatal(err)
		}
	}
	var evs []rankd.Event
	for i := range n {
		evs = append(evs, rankd.Event{Type: rankd.EventSubmission, Submission: &rankd.Submission{ID: fmt.Sprint(i + 1),
			TeamID: "t", ProblemID: "A", Time: 3*time.Hour + time.Duration(i*120/n)*time.Minute}})
	}
	for _, i := range perm {
		typ, score := verdict(i)
		evs = append(evs, rankd.Event{Type: rankd.EventJudgement, Judgement: &rankd.Judgement{ID: fmt.Sprint(i + 1),
			SubmissionID: fmt.Sprint(i + 1), TypeID: typ, Score: score, StartTime: 5 * time.Hour}})
	}
	return b, evs
}

// MustApplyAsRestored applies evs to b (bigCellBoard's) and, after each judgement, checks that b reads as a
// board restored from its checkpoint, which works every cell out from its submissions, its one cell too.
func MustApplyAsRestored(tb testing.TB, b *board.Board, evs []rankd.Event) {
	tb.Helper()
	for i := range evs {
		if _, err := b.Apply(&evs[i]); err != nil {
			tb.Fatal(err)
		}
		if evs[i].Type == rankd.EventJudgement {
			what := fmt.Sprintf("after event %d (judgement of %s)", i, evs[i].Judgement.SubmissionID)
			r := restore(tb, b)
			compareBoards(tb, what, b, r, false)
			if got, want := board.CellResults(b, "t", "A"), board.CellResults(r, "t", "A"); got != want {
				tb.Fatalf("%s: the cell's results: got %+v, want %+v", what, got, want)
			}
		}
	}
}

// A cell of many submissions judged in any order, rejudged, with submissions during the freeze: after each
// judgement it reads as a board restored from a checkpoint, which works every cell out from its
// submissions, in every view.
func TestBigCellJudgedInAnyOrder(t *testing.T) {
	const n = 150
	rng := rand.New(rand.NewPCG(1, 2))
	orders := map[string][]int{"oldest first": nil, "newest first": nil, "at random": rng.Perm(n)}
	for i := range n {
		orders["oldest first"] = append(orders["oldest first"], i)
		orders["newest first"] = append(orders["newest first"], n-1-i)
	}
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.CTF, rankd.OI} {
		for name, perm := range orders {
			t.Run(rules.String()+" "+name, func(t *testing.T) {
				rejudged := append(append([]int(nil), perm...), rng.Perm(n)[:n/3]...) // a third judged again
				seen := map[int]int{}
				b, evs := bigCellBoard(t, rules, n, rejudged, func(i int) (string, float64) {
					seen[i]++
					switch k := (i*7 + seen[i]*3) % 11; {
					case k == 0 && i > n/2:
						return "AC", float64(i % 9)
					case k < 3:
						return "CE", 0
					default:
						return "WA", float64(i % 5)
					}
				})
				MustApplyAsRestored(t, b, evs)
			})
		}
	}
}

// outOfOrder returns the events of bigCellBoard with its submissions sent in the order of perm, each judged
// at once, and every fifth sent again a minute later (a submission replaced: it moves in the cell).
func outOfOrder(evs []rankd.Event, n int, perm []int) []rankd.Event {
	judgementOf := map[string]rankd.Event{}
	for _, ev := range evs[n:] {
		judgementOf[ev.Judgement.SubmissionID] = ev
	}
	var out []rankd.Event
	for k, i := range perm {
		out = append(out, evs[i], judgementOf[evs[i].Submission.ID])
		if k%5 == 0 {
			moved := *evs[i].Submission
			moved.Time += time.Minute
			out = append(out, rankd.Event{Type: rankd.EventSubmission, Submission: &moved})
		}
	}
	return out
}

// A cell of many submissions sent out of time order, some replaced (moved), each judged as it comes: its
// index follows every change (it was dropped and made again at each, quadratic in the cell), and after each
// judgement the cell reads as a board restored from a checkpoint.
func TestBigCellSubmittedOutOfOrder(t *testing.T) {
	const n = 150
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.CTF, rankd.OI} {
		t.Run(rules.String(), func(t *testing.T) {
			perm := rng.Perm(n)
			b, evs := bigCellBoard(t, rules, n, perm, func(i int) (string, float64) {
				if i%13 == 12 {
					return "AC", float64(i % 9)
				}
				return "WA", float64(i % 5)
			})
			evs = outOfOrder(evs, n, perm)
			MustApplyAsRestored(t, b, evs)
		})
	}
}

// BenchmarkBigCell judges the submissions of one cell oldest first, as a judge that lags behind a
// contestant who submits thousands of times does, or (out of order) sends them in random order, each judged
// at once; ns/judgement should not grow with the cell.
func BenchmarkBigCell(b *testing.B) {
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.OI} {
		for _, n := range []int{1000, 10000} {
			for _, shuffled := range []bool{false, true} {
				name := fmt.Sprintf("%v-%d", rules, n)
				if shuffled {
					name += "-out-of-order"
				}
				b.Run(name, func(b *testing.B) {
					perm := make([]int, n)
					for i := range perm {
						perm[i] = i
					}
					if shuffled {
						perm = rand.New(rand.NewPCG(5, 6)).Perm(n)
					}
					for range b.N {
						b.StopTimer()
						bd, evs := bigCellBoard(b, rules, n, perm, func(int) (string, float64) { return "WA", 1 })
						if shuffled {
							evs = outOfOrder(evs, n, perm)
						}
						b.StartTimer()
						for i := range evs {
							if _, err := bd.Apply(&evs[i]); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/judgement")
				})
			}
		}
	}
}
