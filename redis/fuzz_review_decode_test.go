package redis

import (
	"math"
	"strings"
	"testing"
	"time"

	"rankd"
)

// FuzzDecodeRow decodes arbitrary rows of the rows hash: refused or decoded, never a panic, and a decoded
// row has a cell for each problem in order.
func FuzzDecodeRow(f *testing.F) {
	f.Add("2,80,0,4200000\x001,1,0,600000,10,0,A\x000,3,1,1800000,70,0,B,1", "A\x00B,1")
	f.Add("0,0,33.5,0\x000,0,0,0,0,-0,A", "B\x00A")
	f.Add("0,0,NaN,0\x00", "")
	f.Add("1,2,3", "A")
	f.Fuzz(func(t *testing.T, row, problemList string) {
		var problems []string
		if problemList != "" {
			problems = strings.Split(problemList, "\x00")
		}
		r, err := decodeRow("t", row, problems)
		if err != nil {
			return
		}
		if len(r.Cells) != len(problems) {
			t.Fatalf("%q: %d cells for %d problems", row, len(r.Cells), len(problems))
		}
		for i, c := range r.Cells {
			if c.ProblemID != problems[i] {
				t.Fatalf("%q: cell %d of problem %q, want %q", row, i, c.ProblemID, problems[i])
			}
		}
	})
}

// FuzzRowRoundTrip encodes a row as the projection writes it into the rows hash and decodes it back: the
// same row, times to the millisecond.
func FuzzRowRoundTrip(f *testing.F) {
	f.Add(2, int64(80), 0.0, int64(70*time.Minute), "A", "B,1", uint8(3), 3, 1, int64(30*time.Minute), int64(70), 12.25)
	f.Add(0, int64(0), 33.5, int64(-1), "x", "y", uint8(0), 0, 0, int64(1), int64(0), math.Inf(-1))
	f.Fuzz(func(t *testing.T, solved int, penalty int64, score float64, rowTime int64, p1, p2 string, flags uint8,
		judged, pending int, cellTime, cellPenalty int64, cellScore float64) {
		if p1 == p2 || p1 == "" || p2 == "" || strings.Contains(p1+p2, "\x00") {
			return
		}
		e, err := newEncoder(&rankd.ProjectionUpdate{ContestID: "c", Contest: rankd.Contest{Rules: rankd.OI},
			Problems: []rankd.Problem{{ID: p1}, {ID: p2}}})
		if err != nil {
			t.Fatal(err)
		}
		want := rankd.Row{TeamID: "t", Solved: solved, Penalty: penalty, Score: score, Time: time.Duration(rowTime),
			Cells: []rankd.Cell{{ProblemID: p1}, {ProblemID: p2, Solved: flags&1 != 0, FirstToSolve: flags&2 != 0,
				Judged: judged, Pending: pending, Time: time.Duration(cellTime), Penalty: cellPenalty, Score: cellScore}}}
		var out encodedRow
		if err := e.encode(&out, &rankd.ProjectedRow{Row: want, Name: "Team"}); err != nil {
			t.Fatal(err)
		}
		got, err := decodeRow("t", out.row, []string{p1, p2})
		if err != nil {
			t.Fatalf("row %q: %v", out.row, err)
		}
		want.Time = want.Time.Truncate(time.Millisecond)
		want.Cells[1].Time = want.Cells[1].Time.Truncate(time.Millisecond)
		if !sameRow(got, want) {
			t.Fatalf("row %q: got %+v, want %+v", out.row, got, want)
		}
	})
}

// sameRow compares rows, their scores bit for bit (NaN included).
func sameRow(a, b rankd.Row) bool {
	if a.TeamID != b.TeamID || a.Solved != b.Solved || a.Penalty != b.Penalty || a.Time != b.Time ||
		math.Float64bits(a.Score) != math.Float64bits(b.Score) || len(a.Cells) != len(b.Cells) {
		return false
	}
	for i := range a.Cells {
		x, y := a.Cells[i], b.Cells[i]
		if math.Float64bits(x.Score) != math.Float64bits(y.Score) {
			return false
		}
		x.Score, y.Score = 0, 0
		if x != y {
			return false
		}
	}
	return true
}
