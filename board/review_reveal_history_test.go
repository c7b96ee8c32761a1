package board_test

import (
	"testing"
	"time"

	"rankd"
	"rankd/board"
)

// revealAt is reveal step n of a cell, taken at contest time at.
func revealAt(step int, team, problem string, at time.Duration) rankd.Event {
	ev := revealEv(step, team, problem)
	ev.Reveal.Time = at
	return ev
}

// A team's history shows the steps of the stepwise reveal as the board of each moment does: a step without a
// time (read from a feed that does not give one), or with one before the end (a clock a little behind), counts
// from the end on, and a thaw logged after the steps does not come before them.
func TestHistoryOfRevealSteps(t *testing.T) {
	base := cat(icpcSetup("t1", "t2", "t3"),
		submit("1", "t1", "a", m(10), "AC"), submit("2", "t2", "b", m(250), "AC"), submit("3", "t3", "c", m(260), "AC"),
		submit("4", "t3", "a", m(270), "AC"))
	endMS := stateEnd.Add(time.Millisecond / 2) // the end within a millisecond
	thawLater := stateEnd.Add(time.Hour)
	for _, tt := range []struct {
		name  string
		state rankd.State
		times [3]time.Duration // of the steps
		after []rankd.Event    // logged after the steps
	}{
		{"timed", endedState, [3]time.Duration{m(320), m(321), m(322)}, nil},
		{"untimed", endedState, [3]time.Duration{}, nil},
		{"untimed, thawed later", endedState, [3]time.Duration{},
			[]rankd.Event{stateEv(rankd.State{Started: &stateStart, Ended: &stateEnd, Thawed: &thawLater})}},
		{"taken in the millisecond of the end", rankd.State{Started: &stateStart, Ended: &endMS}, [3]time.Duration{m(300), m(300), m(300)},
			[]rankd.Event{stateEv(rankd.State{Started: &stateStart, Ended: &endMS, Thawed: &thawLater})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := cat(base, []rankd.Event{stateEv(tt.state)})
			b := MustBoard(t, evs)
			for i, at := range tt.times {
				_, next, _ := b.Reveal()
				ev := revealAt(i+1, next.TeamID, next.ProblemID, at)
				mustApply(t, b, ev)
				evs = append(evs, ev)
			}
			evs = append(evs, tt.after...)
			start := b.Start()
			h := board.NewHistory(start)
			for i := range evs {
				h.Add(int64(i+1), &evs[i])
			}
			teams := []string{"t1", "t2", "t3"}
			series, err := h.Series(rankd.PublicView, teams, func(fn func(int64, *rankd.Event) error) error {
				return logReader(evs)(0, int64(len(evs)), fn)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Duration{m(100), m(300) - time.Millisecond, m(300), m(300) + time.Millisecond, m(310), m(320), m(321), m(330), m(370)} {
				replayed := replayAt(evs, at, start)
				for j, s := range series {
					row, err := replayed.Row(rankd.PublicView, teams[j])
					if err != nil {
						t.Fatal(err)
					}
					want := board.Standing{Rank: row.Rank, Solved: row.Solved, Penalty: row.Penalty, Score: row.Score}
					if got := standingAt(s, at); got != want {
						t.Errorf("team %s at %v: got %+v, want %+v", s.TeamID, at, got, want)
					}
				}
			}
		})
	}
}
