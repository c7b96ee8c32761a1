package board_test

import (
	"slices"
	"testing"

	"rankd"
	"rankd/board"
	"rankd/gen"
)

// genEvents returns a generated contest's events, owning their objects (the generator reuses its own).
func genEvents(tb testing.TB, cfg gen.Config) []rankd.Event {
	tb.Helper()
	var evs []rankd.Event
	err := gen.Generate(cfg.WithDefaults(), func(ev rankd.Event) error {
		switch {
		case ev.Submission != nil:
			ev.Submission = ptr(*ev.Submission)
		case ev.Judgement != nil:
			j := *ev.Judgement
			j.SubtaskScores = slices.Clone(j.SubtaskScores)
			ev.Judgement = &j
		case ev.Team != nil:
			ev.Team = ptr(*ev.Team)
		case ev.Problem != nil:
			ev.Problem = ptr(*ev.Problem)
		case ev.Organization != nil:
			ev.Organization = ptr(*ev.Organization)
		case ev.Group != nil:
			ev.Group = ptr(*ev.Group)
		case ev.Contest != nil:
			ev.Contest = ptr(*ev.Contest)
		case ev.JudgementType != nil:
			ev.JudgementType = ptr(*ev.JudgementType)
		}
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return evs
}

type benchContest struct {
	name string
	cfg  gen.Config
}

// icpcContests are the ICPC contests of BenchmarkApply and BenchmarkApplyFloor: the contest of 1,000 teams
// is the one whose board stays mostly in the caches.
var icpcContests = []benchContest{
	{"ICPC", gen.Config{Seed: 1, Rules: rankd.ICPC, Teams: 10000, Problems: 12, Submissions: 200000}},
	{"ICPC-1k", gen.Config{Seed: 1, Rules: rankd.ICPC, Teams: 1000, Problems: 12, Submissions: 100000}},
}

// BenchmarkApply applies a whole generated contest to a fresh board per iteration and reports the cost per
// event and per judgement. CTF-10k is a CTF of 10,000 teams, where a solve that changes a dynamic value
// changes the rows of thousands of solvers.
func BenchmarkApply(b *testing.B) {
	for _, c := range append(icpcContests[:len(icpcContests):len(icpcContests)],
		benchContest{"OI", gen.Config{Seed: 1, Rules: rankd.OI, Teams: 10000, Problems: 12, Submissions: 200000}},
		benchContest{"CTF", gen.Config{Seed: 1, Rules: rankd.CTF, Teams: 1000, Problems: 12, Submissions: 20000}},
		benchContest{"CTF-10k", gen.Config{Seed: 1, Rules: rankd.CTF, Teams: 10000, Problems: 12, Submissions: 100000}},
	) {
		b.Run(c.name, func(b *testing.B) {
			evs := genEvents(b, c.cfg)
			judgements := 0
			for i := range evs {
				if evs[i].Type == rankd.EventJudgement {
					judgements++
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				bd := board.New()
				for i := range evs {
					if _, err := bd.Apply(&evs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*judgements), "ns/judgement")
		})
	}
}

// BenchmarkApplyFloor reads, for each event of the ICPC contests, what applying it
// must read (board.ReadFloor) on the board they built, and changes nothing. Run beside BenchmarkApply, the
// ratio of the two is what the board's own work costs above reading its data.
func BenchmarkApplyFloor(b *testing.B) {
	for _, c := range icpcContests {
		b.Run(c.name, func(b *testing.B) {
			evs := genEvents(b, c.cfg)
			bd := board.New()
			for i := range evs {
				if _, err := bd.Apply(&evs[i]); err != nil {
					b.Fatal(err)
				}
			}
			var sum int64
			b.ResetTimer()
			for range b.N {
				for i := range evs {
					sum += board.ReadFloor(bd, &evs[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
			if sum == 42 {
				b.Log(sum) // keeps the reads
			}
		})
	}
}
