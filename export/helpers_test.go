package export_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"rankd"
	"rankd/export"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// MustMatchGolden compares got with the golden file testdata/golden/name, rewriting it first with -update.
func MustMatchGolden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./export -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		tb.Fatalf("output differs from %s (rerun with -update after checking the change):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// MustWrite runs a writer on a board and returns what it wrote.
func MustWrite(tb testing.TB, write func(*bytes.Buffer, *export.Board) error, b *export.Board) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := write(&buf, b); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// MustXLSX writes a board as a workbook and opens it again.
func MustXLSX(tb testing.TB, b *export.Board) *excelize.File {
	tb.Helper()
	var buf bytes.Buffer
	if err := export.XLSX(&buf, b); err != nil {
		tb.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

func mins(m int) time.Duration { return time.Duration(m) * time.Minute }

func solved(id string, minute, judged int, penalty int64) rankd.Cell {
	return rankd.Cell{ProblemID: id, Solved: true, Judged: judged, Time: mins(minute) + 17*time.Second, Penalty: penalty}
}

func first(c rankd.Cell) rankd.Cell { c.FirstToSolve = true; return c }

func failed(id string, judged int) rankd.Cell { return rankd.Cell{ProblemID: id, Judged: judged} }

func pending(id string, n int) rankd.Cell { return rankd.Cell{ProblemID: id, Pending: n} }

func empty(id string) rankd.Cell { return rankd.Cell{ProblemID: id} }

// icpcBoard is the public board of a frozen ICPC contest with every case the formats must handle: medals, a
// tie, teams ranked below medals with equal solves, teams below the median, a team that solved nothing, a
// pending (frozen) cell, first to solve, group winners, names with commas, quotes, tabs and line breaks, a
// team without organization or group, and an unranked (hidden) row.
func icpcBoard() *export.Board {
	row := func(rank int, team string, solvedN int, penalty int64, last int, cells ...rankd.Cell) rankd.Row {
		return rankd.Row{Rank: rank, TeamID: team, Solved: solvedN, Penalty: penalty, Time: mins(last) + 17*time.Second, Cells: cells}
	}
	return &export.Board{
		Contest: rankd.Contest{
			ID: "demo", Name: "Demo", Rules: rankd.ICPC, Duration: 5 * time.Hour, FreezeDuration: time.Hour,
			PenaltyTime: 20 * time.Minute, Medals: rankd.Medals{Gold: 1, Silver: 2, Bronze: 1},
		},
		Problems: []rankd.Problem{{ID: "a", Label: "A"}, {ID: "b", Label: "B"}, {ID: "c", Label: "C"}},
		Groups:   []rankd.Group{{ID: "g1", Name: "Europe, West"}, {ID: "g2", Name: "North\tAmerica"}},
		Organizations: []rankd.Organization{
			{ID: "o1", Name: "UA", FormalName: "University of A"},
			{ID: "o2", Name: "B \"Tech\""},
		},
		Teams: []rankd.Team{
			{ID: "t1", Name: "Alpha", OrganizationID: "o1", GroupIDs: []string{"g1"}},
			{ID: "t2", Name: `Beta, "the" team`, OrganizationID: "o2", GroupIDs: []string{"g1"}},
			{ID: "t3", Name: "Gamma\tTab", OrganizationID: "o1", GroupIDs: []string{"g1"}},
			{ID: "t4", Name: "Delta\nNewline", OrganizationID: "o2", GroupIDs: []string{"g1"}},
			{ID: "t5", Name: "Zeta", OrganizationID: "o1", GroupIDs: []string{"g1"}},
			{ID: "t6", Name: "Eta", OrganizationID: "o1", GroupIDs: []string{"g1", "g2"}},
			{ID: "t7", Name: "Theta", OrganizationID: "o2", GroupIDs: []string{"g2"}},
			{ID: "t8", Name: "Iota", OrganizationID: "o1", GroupIDs: []string{"g1"}},
			{ID: "t9", Name: "Kappa"},
			{ID: "t10", Name: "Hidden", Hidden: true},
		},
		Standings: rankd.Standings{ContestID: "demo", View: rankd.PublicView, Total: 9, Rows: []rankd.Row{
			row(1, "t1", 3, 200, 110, first(solved("a", 10, 1, 10)), solved("b", 60, 2, 80), solved("c", 110, 1, 110)),
			row(2, "t2", 2, 150, 100, solved("a", 50, 1, 50), solved("b", 100, 1, 100), failed("c", 3)),
			row(2, "t3", 2, 150, 100, solved("a", 100, 1, 100), first(solved("b", 30, 2, 50)), empty("c")),
			row(4, "t4", 2, 200, 100, solved("a", 80, 1, 80), pending("b", 1), solved("c", 100, 2, 120)),
			row(5, "t5", 2, 260, 200, solved("a", 60, 1, 60), solved("b", 200, 1, 200), empty("c")),
			row(6, "t6", 2, 300, 230, solved("a", 70, 1, 70), empty("b"), solved("c", 230, 1, 230)),
			row(7, "t7", 1, 45, 45, solved("a", 45, 1, 45), empty("b"), pending("c", 2)),
			row(8, "t8", 1, 95, 75, solved("a", 75, 2, 95), empty("b"), empty("c")),
			row(9, "t9", 0, 0, 0, failed("a", 4), empty("b"), empty("c")),
			row(0, "t10", 3, 30, 10, solved("a", 10, 1, 10), solved("b", 10, 1, 10), solved("c", 10, 1, 10)),
		}},
		Awards: []rankd.Award{
			{ID: "winner", Citation: "Contest winner", TeamIDs: []string{"t1"}},
			{ID: "gold-medal", Citation: "Gold medal winner", TeamIDs: []string{"t1"}},
			{ID: "silver-medal", Citation: "Silver medal winner", TeamIDs: []string{"t2", "t3"}},
			{ID: "bronze-medal", Citation: "Bronze medal winner", TeamIDs: []string{"t4"}},
			{ID: "first-to-solve-a", Citation: "First to solve problem A", TeamIDs: []string{"t1"}},
			{ID: "first-to-solve-b", Citation: "First to solve problem B", TeamIDs: []string{"t3"}},
			{ID: "group-winner-g1", Citation: "Winner(s) of group Europe, West", TeamIDs: []string{"t1"}},
			{ID: "group-winner-g2", Citation: "Winner(s) of group North\tAmerica", TeamIDs: []string{"t7"}},
		},
	}
}

// oiBoard is an OI board with fractional scores, a shared rank, a judged problem that scored nothing, an
// unjudged one and a pending submission.
func oiBoard() *export.Board {
	score := func(id string, s float64, judged int, minute int) rankd.Cell {
		return rankd.Cell{ProblemID: id, Solved: s > 0, Judged: judged, Score: s, Time: mins(minute)}
	}
	return &export.Board{
		Contest:  rankd.Contest{ID: "oi", Name: "OI", Rules: rankd.OI, Duration: 5 * time.Hour},
		Problems: []rankd.Problem{{ID: "p1", Label: "P1"}, {ID: "p2", Label: "P2"}},
		Teams:    []rankd.Team{{ID: "x", Name: "Xavier"}, {ID: "y", Name: "Yolanda"}, {ID: "z", Name: "Zoe"}, {ID: "w", Name: "Walter"}},
		Standings: rankd.Standings{ContestID: "oi", Total: 4, Rows: []rankd.Row{
			{Rank: 1, TeamID: "x", Score: 137.5, Time: mins(150), Cells: []rankd.Cell{score("p1", 100, 2, 90), score("p2", 37.5, 1, 150)}},
			{Rank: 2, TeamID: "y", Score: 100, Time: mins(120), Cells: []rankd.Cell{score("p1", 100, 1, 120), {ProblemID: "p2", Judged: 1, Pending: 1}}},
			{Rank: 2, TeamID: "z", Score: 100, Time: mins(60), Cells: []rankd.Cell{score("p1", 60, 3, 60), score("p2", 40, 1, 30)}},
			{Rank: 4, TeamID: "w", Cells: []rankd.Cell{score("p1", 0, 1, 0), empty("p2")}},
		}},
	}
}

// emptyBoard is a contest before anyone is on its board.
func emptyBoard() *export.Board {
	return &export.Board{
		Contest:  rankd.Contest{ID: "empty", Rules: rankd.ICPC, Duration: time.Hour},
		Problems: []rankd.Problem{{ID: "a", Label: "A"}, {ID: "b"}},
	}
}

// noProblemsBoard is a contest with teams but no problems: everyone shares rank 1 with nothing solved, and
// the gold medal goes to nobody.
func noProblemsBoard() *export.Board {
	return &export.Board{
		Contest: rankd.Contest{ID: "bare", Rules: rankd.ICPC, Duration: time.Hour, Medals: rankd.Medals{Gold: 1}},
		Awards:  []rankd.Award{{ID: "gold-medal", Citation: "Gold medal winner"}},
		Teams:   []rankd.Team{{ID: "1", Name: "One"}, {ID: "2", Name: "Two"}},
		Standings: rankd.Standings{ContestID: "bare", Total: 2, Rows: []rankd.Row{
			{Rank: 1, TeamID: "1"}, {Rank: 1, TeamID: "2"},
		}},
	}
}
