package rankd_test

import (
	"bytes"
	"math"
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

// FuzzDecodeFinal decodes arbitrary final standings as Redis or a store may hold them (damaged, or written by
// another version): they are refused with an error or decoded into standings that encode and decode again to
// the same; what EncodeFinal wrote decodes into standings that encode to the same bytes.
func FuzzDecodeFinal(f *testing.F) {
	full := fuzzFinal()
	thawed := fuzzFinal()
	thawed.Public = thawed.Jury
	for _, fs := range []rankd.FinalStandings{full, thawed, {Version: 1}} {
		data, err := rankd.EncodeFinal(&fs)
		if err != nil {
			f.Fatal(err)
		}
		back, err := rankd.DecodeFinal(data)
		if err != nil {
			f.Fatal(err)
		}
		back.ContestID = fs.ContestID
		if again, err := rankd.EncodeFinal(&back); err != nil || !bytes.Equal(again, data) {
			f.Fatalf("%+v encoded, decoded and encoded again: got %q (%v), want %q", fs, again, err, data)
		}
		f.Add(data)
	}
	f.Add([]byte{1, 2, 0, 0, 4, 'n', 'u', 'l', 'l', 0, 0, 1}) // format 1: no jury awards; the public rows are the jury's
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := rankd.DecodeFinal(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an error without a message", data)
			}
			return
		}
		once, err := rankd.EncodeFinal(&fs)
		if err != nil {
			t.Fatalf("encoding decoded standings %+v: %v", fs, err)
		}
		again, err := rankd.DecodeFinal(once)
		if err != nil {
			t.Fatalf("decoding %q, encoded from %q: %v", once, data, err)
		}
		twice, err := rankd.EncodeFinal(&again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("decoded from %q and encoded: %q, decoded and encoded again: %q", data, once, twice)
		}
	})
}
