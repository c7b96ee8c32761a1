package board_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/gen"
)

// replayAt is the board of moment at of a log: every event applied through ApplyAsOf, as `rankd standings
// --at` and a server without checkpoints build it.
func replayAt(evs []rankd.Event, at time.Duration, start time.Time) *board.Board {
	b := board.New()
	for i := range evs {
		_, _, _ = b.ApplyAsOf(&evs[i], at, start)
	}
	return b
}

// logReader reads evs as a log whose first position is 1.
func logReader(evs []rankd.Event) board.LogReader {
	return func(after, upto int64, fn func(pos int64, ev *rankd.Event) error) error {
		for pos := after + 1; pos <= upto; pos++ {
			ev := evs[pos-1].Clone() // fn keeps nothing, and changes nothing of the log
			if err := fn(pos, &ev); err != nil {
				return err
			}
		}
		return nil
	}
}

// MustSameBoard fails unless two boards are the same, sequence numbers, statistics and all: their
// checkpoints are the same bytes.
func MustSameBoard(tb testing.TB, got, want *board.Board) {
	tb.Helper()
	g, err := got.Checkpoint()
	if err != nil {
		tb.Fatal(err)
	}
	w, err := want.Checkpoint()
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		gs, ws := MustStandings(tb, got, rankd.JuryView), MustStandings(tb, want, rankd.JuryView)
		tb.Fatalf("the boards differ (seq %d, %d)\ngot\n%s\nwant\n%s", got.Seq(rankd.JuryView), want.Seq(rankd.JuryView),
			summary(gs, true), summary(ws, true))
	}
}

// stepTimes returns the contest times of the steps of a log's latest state event.
func stepTimes(evs []rankd.Event, start time.Time) []time.Duration {
	var out []time.Duration
	for i := range evs {
		if s := evs[i].State; s != nil {
			out = out[:0]
			for _, f := range []*time.Time{s.Started, s.Frozen, s.Ended, s.Thawed, s.Finalized, s.EndOfUpdates} {
				if f != nil {
					out = append(out, f.Sub(start))
				}
			}
		}
	}
	return out
}

// lateSolve is a submission and its accepted judgement stored long after they happened (a late import).
func lateSolve(id, team, problem string, at time.Duration) []rankd.Event {
	return []rankd.Event{subEv("late"+id, team, problem, at), judgeEv("jlate"+id, "late"+id, "AC", at+time.Minute)}
}

// The board of a past moment built from checkpoints and the log's index is the board a replay of the whole
// log builds, sequence numbers included: ICPC, and CTF with dynamic values (as they were then); at moments
// before, at and after each step of the contest, in any order; after events were appended, some of them
// known long before (which changes the past); and brought up to date by Advance.
func TestPastEqualsReplay(t *testing.T) {
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.CTF} {
		t.Run(rules.String(), func(t *testing.T) {
			t.Parallel()
			evs := genEvents(t, gen.Config{Seed: 5, Rules: rules, Teams: 60, Problems: 8, Submissions: 12000, Thaw: true})
			start := replayAt(evs, time.Hour, time.Time{}).Start()
			evs = append(evs, lateSolve("1", "1", "A", 20*time.Minute)...)
			evs = append(evs, lateSolve("2", "2", "B", 4*time.Hour+10*time.Minute)...)
			half := int64(len(evs)) * 6 / 10
			if half < 3*4096 {
				t.Fatalf("got %d events: too few for the index to skip a block", len(evs))
			}
			rng := rand.New(rand.NewPCG(5, uint64(rules)))
			moments := []time.Duration{-time.Hour, 0, 5*time.Hour + 30*time.Minute, 20 * time.Minute, 21 * time.Minute}
			for _, st := range stepTimes(evs, start) {
				moments = append(moments, st-time.Millisecond, st, st+time.Millisecond)
			}
			for range 8 {
				moments = append(moments, time.Duration(rng.Int64N(int64(5*time.Hour))).Truncate(time.Millisecond))
			}
			past := &board.Past{Gap: 1000, Budget: 1 << 20} // room for a few checkpoints: some are let go
			restored, skipped := 0, 0
			replays := map[[2]int64]*board.Board{}
			replay := func(at time.Duration, upto int64) *board.Board {
				k := [2]int64{int64(at), upto}
				if replays[k] == nil {
					replays[k] = replayAt(evs[:upto], at, start)
				}
				return replays[k]
			}
			check := func(at time.Duration, upto int64) *board.Board {
				t.Helper()
				got, st, err := past.At(at, start, upto, logReader(evs))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v up to %d: %+v", at, upto, st)
				if st.Restored > 0 {
					restored++
				}
				if st.Skipped > 0 {
					skipped++
				}
				if st.Read+st.Skipped != upto-st.Restored {
					t.Errorf("at %v up to %d: read %d and skipped %d after %d", at, upto, st.Read, st.Skipped, st.Restored)
				}
				MustSameBoard(t, got, replay(at, upto))
				return got
			}
			for _, upto := range []int64{half, int64(len(evs))} {
				kept := map[time.Duration]*board.Board{}
				for _, i := range rng.Perm(len(moments)) {
					kept[moments[i]] = check(moments[i], upto)
				}
				if upto == half {
					// The boards of before, brought up to date with the events appended since.
					for at, b := range kept {
						if _, err := past.Advance(b, at, start, half, int64(len(evs)), logReader(evs)); err != nil {
							t.Fatal(err)
						}
						MustSameBoard(t, b, replay(at, int64(len(evs))))
					}
				}
			}
			if restored < len(moments)/2 || skipped < len(moments)/4 {
				t.Errorf("got %d boards of %d from a checkpoint and %d that skipped part of the log, want more", restored, 2*len(moments), skipped)
			}
			// Another start makes other boards: the checkpoints of the first are not used.
			later := start.Add(time.Hour)
			got, st, err := past.At(3*time.Hour, later, int64(len(evs)), logReader(evs))
			if err != nil {
				t.Fatal(err)
			}
			if st.Restored != 0 {
				t.Errorf("another start: got a board restored from %d, want none", st.Restored)
			}
			MustSameBoard(t, got, replayAt(evs, 3*time.Hour, later))
		})
	}
}

// A checkpoint serves a later moment only while every event of its part of the log is as it was then: a
// judgement of that part known later, or the freeze, sends a board back to an earlier checkpoint.
func TestPastCheckpointSpans(t *testing.T) {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	frozen := start.Add(150 * time.Minute)
	evs := cat(
		[]rankd.Event{icpc()}, verdicts(), []rankd.Event{problemEv("A", 1), teamEv("t1", "One"), teamEv("t2", "Two")},
		[]rankd.Event{stateEv(rankd.State{Started: &start, Frozen: &frozen})},
	)
	pre := int64(len(evs))
	// Rejections at 0:10 to 0:20, then a submission of 1:00 judged at 3:00, then rejections at 1:10 to 1:20.
	for i := range 100 {
		evs = append(evs, submit(fmt.Sprint(i), "t1", "A", m(10+float64(i)/10), "WA")...)
	}
	slow := judgeEv("jx", "x", "AC", time.Hour)
	slow.Judgement.EndTime = 3 * time.Hour
	evs = append(evs, subEv("x", "t2", "A", time.Hour), slow)
	for i := range 100 {
		evs = append(evs, submit(fmt.Sprint(100+i), "t1", "A", m(70+float64(i)/10), "WA")...)
	}
	n := int64(len(evs))
	past := &board.Past{Gap: 10}
	tests := []struct {
		at                      time.Duration
		wantRestored, wantSaved int64
	}{
		{m(30), 0, pre + 200},                 // known in full up to the submission of 1:00
		{m(65), pre + 200, 0},                 // the checkpoint serves it; the slow judgement is not known yet
		{2 * time.Hour, pre + 200, 0},         // the same
		{4 * time.Hour, 0, n},                 // after the freeze: the checkpoint of before does not serve; every event known
		{5 * time.Hour, n, 0},                 //
		{m(40), pre + 200, 0},                 //
		{m(9), 0, 0},                          // before the first submission: too little to keep
		{3 * time.Hour, n, 0},                 // the slow judgement known at 3:00 exactly
		{3*time.Hour - 1, 0, pre + 201},       // not yet, after the freeze
		{m(165), pre + 201, 0},                //
		{m(150) - 1, pre + 200, 0},            // just before the freeze
		{m(150), pre + 201, 0},                // at the freeze
		{m(19.9), 0, pre + 198},               // the last rejection made at that moment: not known
		{m(19.9) + time.Second, pre + 198, 0}, // its verdict known a second later: the checkpoint of pre+200 served fewer moments, and went
	}
	for _, tt := range tests {
		got, st, err := past.At(tt.at, start, n, logReader(evs))
		if err != nil {
			t.Fatal(err)
		}
		if st.Restored != tt.wantRestored || st.Saved != tt.wantSaved {
			t.Errorf("at %v: got restored from %d, saved %d; want %d, %d", tt.at, st.Restored, st.Saved, tt.wantRestored, tt.wantSaved)
		}
		MustSameBoard(t, got, replayAt(evs, tt.at, start))
	}
}

// A history follows a log that came out of order (events stored long after they happened, and some
// before others that happened earlier), with judgements deleted: at each of a team's points, and just
// before, its standing is its row on the board of that moment.
func TestHistoryOfLogOutOfOrder(t *testing.T) {
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.CTF} {
		t.Run(rules.String(), func(t *testing.T) {
			evs := genEvents(t, gen.Config{Seed: 9, Rules: rules, Teams: 20, Problems: 6, Submissions: 600, Thaw: true})
			// Every tenth submission, with its judgements, stored at the end, the latest first.
			var late [][]rankd.Event
			var log []rankd.Event
			moved := map[string]int{} // submission id → its place in late, from 1
			subs := 0
			for _, ev := range evs {
				switch {
				case ev.Type == rankd.EventSubmission && subs%10 == 0:
					late = append(late, []rankd.Event{ev})
					moved[ev.Submission.ID] = len(late)
				case ev.Type == rankd.EventJudgement && moved[ev.Judgement.SubmissionID] > 0:
					i := moved[ev.Judgement.SubmissionID] - 1
					late[i] = append(late[i], ev)
				default:
					log = append(log, ev)
				}
				if ev.Type == rankd.EventSubmission {
					subs++
				}
			}
			slices.Reverse(late)
			for _, l := range late {
				log = append(log, l...)
			}
			// And every 25th judgement with a verdict deleted.
			verdicts := 0
			for _, ev := range evs {
				if ev.Type == rankd.EventJudgement && ev.Judgement.TypeID != "" {
					if verdicts++; verdicts%25 == 0 {
						log = append(log, rankd.Event{Type: rankd.EventJudgement, ID: ev.Judgement.ID, Delete: true})
					}
				}
			}
			start := replayAt(log, time.Hour, time.Time{}).Start()
			h := board.NewHistory(start)
			for i := range log {
				h.Add(int64(i+1), &log[i])
			}
			teams := []string{"1", "2", "3", "7", "19"}
			for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView} {
				series, err := h.Series(v, teams, func(fn func(int64, *rankd.Event) error) error {
					return logReader(log)(0, int64(len(log)), fn)
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range series {
					if len(s.Points) < 3 {
						t.Errorf("%s team %s: got %d points, want a few", v, s.TeamID, len(s.Points))
					}
					for _, p := range s.Points {
						for _, at := range []time.Duration{p.Time, p.Time - time.Millisecond} {
							if at < 0 {
								continue
							}
							row, err := replayAt(log, at, start).Row(v, s.TeamID)
							if err != nil {
								t.Fatal(err)
							}
							got := standingAt(s, at)
							want := board.Standing{Rank: row.Rank, Solved: row.Solved, Penalty: row.Penalty, Score: row.Score}
							if got != want {
								t.Errorf("%s team %s at %v: got %+v, want %+v", v, s.TeamID, at, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// standingAt returns a team's standing at a moment from its series.
func standingAt(s board.Series, at time.Duration) board.Standing {
	var st board.Standing
	for _, p := range s.Points {
		if p.Time <= at {
			st = p.Standing
		}
	}
	return st
}
