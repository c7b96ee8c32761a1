package redis

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"rankd"
)

// fuzzFinal is final standings with what the encoding has room for: awards of both views, several problems,
// rows of every kind of cell, and public rows that differ from the jury's.
func fuzzFinal() rankd.FinalStandings {
	jury := []rankd.Row{
		{Rank: 1, TeamID: "t1", Solved: 2, Penalty: 80, Time: 70 * time.Minute, Cells: []rankd.Cell{
			{ProblemID: "A", Solved: true, FirstToSolve: true, Judged: 1, Time: 10 * time.Minute, Penalty: 10},
			{ProblemID: "B,1", Solved: true, Judged: 3, Pending: 1, Time: 30 * time.Minute, Penalty: 70}}},
		{Rank: 2, TeamID: "t2", Score: 33.5, Cells: []rankd.Cell{{ProblemID: "A", Score: math.Copysign(0, -1)}, {ProblemID: "B,1"}}},
		{Rank: 0, TeamID: "hidden", Cells: []rankd.Cell{{ProblemID: "A"}, {ProblemID: "B,1", Pending: 2}}},
	}
	public := []rankd.Row{jury[1], jury[0], jury[2]}
	return rankd.FinalStandings{Version: 3, Pos: 1234, Built: time.Date(2026, 3, 1, 16, 0, 0, 5, time.UTC), Jury: jury, Public: public,
		Awards:     []rankd.Award{{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t1"}}},
		JuryAwards: []rankd.Award{{ID: "first-to-solve-A", Citation: "First to solve A", TeamIDs: []string{"t1", "t2"}}}}
}

// FuzzDecodeFinal decodes arbitrary final standings as Redis may hold them (damaged, or written by another
// version): they are refused with an error or decoded into standings that encode and decode again to the
// same; what encodeFinal wrote decodes into standings that encode to the same bytes.
func FuzzDecodeFinal(f *testing.F) {
	full := fuzzFinal()
	thawed := fuzzFinal()
	thawed.Public = thawed.Jury
	for _, fs := range []rankd.FinalStandings{full, thawed, {Version: 1}} {
		data, err := encodeFinal(&fs)
		if err != nil {
			f.Fatal(err)
		}
		back, err := decodeFinal(string(data))
		if err != nil {
			f.Fatal(err)
		}
		back.ContestID = fs.ContestID
		if again, err := encodeFinal(&back); err != nil || !bytes.Equal(again, data) {
			f.Fatalf("%+v encoded, decoded and encoded again: got %q (%v), want %q", fs, again, err, data)
		}
		f.Add(data)
	}
	f.Add([]byte{1, 2, 0, 0, 4, 'n', 'u', 'l', 'l', 0, 0, publicIsJury})
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := decodeFinal(string(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an error without a message", data)
			}
			return
		}
		once, err := encodeFinal(&fs)
		if err != nil {
			t.Fatalf("encoding decoded standings %+v: %v", fs, err)
		}
		again, err := decodeFinal(string(once))
		if err != nil {
			t.Fatalf("decoding %q, encoded from %q: %v", once, data, err)
		}
		twice, err := encodeFinal(&again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("decoded from %q and encoded: %q, decoded and encoded again: %q", data, once, twice)
		}
	})
}

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
