package redis_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"rankd"
	"rankd/redis"
	"rankd/redis/redistest"
)

// MustOpen opens a projection on the test server under a key prefix of the test's own.
func MustOpen(tb testing.TB) (*redis.Projection, string) {
	tb.Helper()
	prefix := redistest.MustPrefix(tb)
	p, err := redis.Open(context.Background(), redistest.MustServer(tb), redis.WithPrefix(prefix))
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p, prefix
}

// MustRebuild rebuilds contest c's projection with rows in both views, at position pos.
func MustRebuild(tb testing.TB, p *redis.Projection, c rankd.Contest, pos int64, rows []rankd.ProjectedRow) {
	tb.Helper()
	if err := p.Rebuild(context.Background(), update(c, pos, rows, nil, rankd.JuryView, rankd.PublicView)); err != nil {
		tb.Fatalf("rebuild at %d: %v", pos, err)
	}
}

// MustProject projects u and checks whether it was applied.
func MustProject(tb testing.TB, p *redis.Projection, u rankd.ProjectionUpdate, applied bool) {
	tb.Helper()
	got, err := p.Project(context.Background(), u)
	if err != nil {
		tb.Fatalf("project at %d: %v", u.Pos, err)
	}
	if got != applied {
		tb.Fatalf("project at %d: applied %v, want %v", u.Pos, got, applied)
	}
}

// MustStandings reads a page of a view.
func MustStandings(tb testing.TB, p *redis.Projection, q rankd.ProjectionQuery) rankd.Standings {
	tb.Helper()
	st, err := p.Standings(context.Background(), q)
	if err != nil {
		tb.Fatalf("standings %+v: %v", q, err)
	}
	return st
}

// MustCode checks that err has the code.
func MustCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := rankd.ErrorCode(err); got != code {
		tb.Fatalf("got error %v (code %q), want code %q", err, got, code)
	}
}

// MustEqualRows checks a page's rows against the rows wanted.
func MustEqualRows(tb testing.TB, got, want []rankd.Row) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("got %d rows %s, want %d rows %s", len(got), ranks(got), len(want), ranks(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			tb.Fatalf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// ranks lists the rank and team of rows, for failure messages.
func ranks(rows []rankd.Row) string {
	s := ""
	for _, r := range rows {
		s += fmt.Sprintf(" %d:%s", r.Rank, r.TeamID)
	}
	return "[" + s + " ]"
}

// update returns an update of contest c at pos with the same rows and removed teams in each view, the views'
// seqs being pos.
func update(c rankd.Contest, pos int64, rows []rankd.ProjectedRow, removed []string, views ...rankd.View) rankd.ProjectionUpdate {
	u := rankd.ProjectionUpdate{ContestID: c.ID, Pos: pos, Contest: c, Problems: problems}
	for _, v := range views {
		u.Views = append(u.Views, rankd.ViewUpdate{View: v, Seq: uint64(pos), Rows: rows, Removed: removed})
	}
	return u
}

var problems = []rankd.Problem{{ID: "A", Value: 500}, {ID: "B", Value: 500}, {ID: "C", Value: 500}}

func icpcContest(id string) rankd.Contest {
	return rankd.Contest{ID: id, Rules: rankd.ICPC, Duration: 5 * time.Hour, PenaltyTime: 20 * time.Minute}
}

func ctfContest(id string) rankd.Contest {
	return rankd.Contest{ID: id, Rules: rankd.CTF, Duration: 48 * time.Hour}
}

func oiTimedContest(id string) rankd.Contest {
	return rankd.Contest{ID: id, Rules: rankd.OI, Duration: 5 * time.Hour, TieByTime: true}
}

// oiRow returns the OI row of a team that reached score at the minute, on the first problem.
func oiRow(id, name string, score float64, minute int) rankd.ProjectedRow {
	r := rankd.ProjectedRow{Row: rankd.Row{TeamID: id, Score: score, Time: time.Duration(minute) * time.Minute}, Name: name}
	for i, p := range problems {
		c := rankd.Cell{ProblemID: p.ID}
		if i == 0 && score > 0 {
			c.Solved, c.Judged, c.Score, c.Time = true, 1, score, r.Time
			r.Solved = 1
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// icpcRow returns the ICPC row of a team from its cells, one per problem: the minute of its solve (with no
// rejection before), -1 for unsolved, -2 for a pending submission.
func icpcRow(id, name string, groups []string, minutes ...int) rankd.ProjectedRow {
	r := rankd.ProjectedRow{Row: rankd.Row{TeamID: id}, Name: name, Groups: groups}
	for i, p := range problems {
		c := rankd.Cell{ProblemID: p.ID}
		switch m := minutes[i]; {
		case m >= 0:
			c.Solved, c.Judged = true, 1
			c.Time = time.Duration(m)*time.Minute + 1234*time.Millisecond
			c.Penalty = int64(m)
			r.Solved++
			r.Penalty += c.Penalty
			r.Time = max(r.Time, c.Time)
		case m == -2:
			c.Pending = 1
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// ctfRow returns the CTF row of a team that solved the problems at the given minutes (-1: unsolved), each for
// its value.
func ctfRow(id, name string, minutes ...int) rankd.ProjectedRow {
	r := rankd.ProjectedRow{Row: rankd.Row{TeamID: id}, Name: name}
	for i, p := range problems {
		c := rankd.Cell{ProblemID: p.ID}
		if m := minutes[i]; m >= 0 {
			c.Solved, c.Judged, c.Score = true, 1, float64(p.Value)
			c.Time = time.Duration(m)*time.Minute + 5*time.Millisecond
			r.Solved++
			r.Score += c.Score
			r.Time = max(r.Time, c.Time)
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// ranked returns a copy of row r with a rank.
func ranked(r rankd.ProjectedRow, rank int) rankd.Row {
	row := r.Row
	row.Rank = rank
	return row
}
