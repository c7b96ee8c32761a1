package export_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"rankd"
	"rankd/export"
)

func csvOf(w *bytes.Buffer, b *export.Board) error        { return export.CSV(w, b) }
func resultsTSVOf(w *bytes.Buffer, b *export.Board) error { return export.ResultsTSV(w, b) }

// TestGolden pins every text format on the hand-built boards: any change of a format shows up as a diff.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		board *export.Board
		write func(*bytes.Buffer, *export.Board) error
	}{
		{"icpc.csv", icpcBoard(), csvOf},
		{"icpc-results.tsv", icpcBoard(), resultsTSVOf},
		{"oi.csv", oiBoard(), csvOf},
		{"empty.csv", emptyBoard(), csvOf},
		{"empty-results.tsv", emptyBoard(), resultsTSVOf},
		{"no-problems.csv", noProblemsBoard(), csvOf},
		{"no-problems-results.tsv", noProblemsBoard(), resultsTSVOf},
	} {
		t.Run(tt.name, func(t *testing.T) {
			MustMatchGolden(t, tt.name, MustWrite(t, tt.write, tt.board))
		})
	}
}

// TestCSVKeepsNamesWhole reads the CSV back: names with commas, quotes, tabs and line breaks come back as they
// were, and every record has a field per column.
func TestCSVKeepsNamesWhole(t *testing.T) {
	b := icpcBoard()
	records, err := csv.NewReader(bytes.NewReader(MustWrite(t, csvOf, b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(records), 1+b.Standings.Total; got != want {
		t.Fatalf("got %d records, want %d (a header and the ranked rows)", got, want)
	}
	names := map[string]string{}
	for _, tm := range b.Teams {
		names[tm.ID] = tm.Name
	}
	for _, r := range records[1:] {
		if len(r) != len(records[0]) {
			t.Fatalf("got %d fields in %q, want %d", len(r), r, len(records[0]))
		}
		if got, want := r[2], names[r[1]]; got != want {
			t.Errorf("team %s: got name %q, want %q", r[1], got, want)
		}
	}
	if got, want := records[2][3], `B "Tech"`; got != want {
		t.Errorf("organization without a formal name: got %q, want %q", got, want)
	}
}

// TestResultsTSVLines checks the shape of results.tsv whatever the names: a line per ranked team, seven fields
// each.
func TestResultsTSVLines(t *testing.T) {
	out := string(MustWrite(t, resultsTSVOf, icpcBoard()))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got, want := len(lines), 1+9; got != want {
		t.Fatalf("got %d lines, want %d:\n%s", got, want, out)
	}
	if lines[0] != "results\t1" {
		t.Fatalf("got first line %q, want %q", lines[0], "results\t1")
	}
	for _, l := range lines[1:] {
		if n := len(strings.Split(l, "\t")); n != 7 {
			t.Errorf("got %d fields in %q, want 7", n, l)
		}
	}
}

// TestResultsTSVEscapes names the group that Theta, listed last, wins: what would break the line or the
// fields is escaped, and an escape sequence already in a name stays told apart from the character.
func TestResultsTSVEscapes(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"North\tAmerica", `North\tAmerica`},
		{"two\nlines", `two\nlines`},
		{"carriage\rreturn", `carriage\rreturn`},
		{`back\slash`, `back\\slash`},
		{`\t`, `\\t`},
		{"plain, with comma", "plain, with comma"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			b := icpcBoard()
			b.Groups[1].Name = tt.name
			out := strings.TrimSuffix(string(MustWrite(t, resultsTSVOf, b)), "\n")
			last := out[strings.LastIndexByte(out, '\n')+1:]
			if got, want := last, "t7\t\tHonorable\t1\t45\t45\t"+tt.want; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
}

func TestResultsTSVRefuses(t *testing.T) {
	page := icpcBoard()
	page.Standings.Rows = page.Standings.Rows[:3]
	offset := icpcBoard()
	offset.Standings.Offset = 1
	for _, tt := range []struct {
		name  string
		board *export.Board
	}{
		{"oi", oiBoard()},
		{"a page", page},
		{"an offset", offset},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := export.ResultsTSV(io.Discard, tt.board)
			if got, want := rankd.ErrorCode(err), rankd.EINVALID; got != want {
				t.Fatalf("got %v (code %q), want code %q", err, got, want)
			}
		})
	}
}

// TestXLSX reads the workbook back and checks it cell by cell: values, number cells, the bold frozen header,
// the fills of problem cells and the awards.
func TestXLSX(t *testing.T) {
	f := MustXLSX(t, icpcBoard())
	if got, want := strings.Join(f.GetSheetList(), ","), "Standings,Awards"; got != want {
		t.Fatalf("got sheets %s, want %s", got, want)
	}
	const s = "Standings"
	for _, tt := range []struct {
		cell, want string
		number     bool
	}{
		{"A1", "rank", false},
		{"H1", "A tries", false},
		{"I1", "A time", false},
		{"P1", "C pending", false},
		{"A2", "1", true},
		{"B2", "t1", false},
		{"C2", "Alpha", false},
		{"D2", "University of A", false},
		{"E2", "Europe, West", false},
		{"F2", "3", true},
		{"G2", "200", true},
		{"I2", "10", true},
		{"C3", `Beta, "the" team`, false},
		{"N3", "3", true}, // C tries: rejected three times
		{"O3", "", false}, // C time: unsolved
		{"A4", "2", true}, // the tie shares rank 2
		{"C5", "Delta\nNewline", false},
		{"M5", "1", true}, // B pending
		{"E7", "Europe, West; North\tAmerica", false},
		{"A10", "9", true}, // the hidden team's row is not there
		{"A11", "", false},
	} {
		got, err := f.GetCellValue(s, tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.cell, got, tt.want)
		}
		typ, err := f.GetCellType(s, tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		// Numbers are stored untyped or typed "n"; text as a shared or inline string.
		if isNumber := typ == excelize.CellTypeUnset || typ == excelize.CellTypeNumber; tt.want != "" && isNumber != tt.number {
			t.Errorf("%s: got cell type %d, want a number: %v", tt.cell, typ, tt.number)
		}
	}

	for _, tt := range []struct {
		cell string
		bold bool
		fill string
	}{
		{"A1", true, "D9D9D9"},
		{"P1", true, "D9D9D9"},
		{"A2", false, ""},
		{"H2", true, "1E7B34"}, // first to solve A: its three columns
		{"J2", true, "1E7B34"},
		{"K2", false, "C6EFCE"}, // solved B
		{"N3", false, "FFC7CE"}, // rejected C
		{"K5", false, "FFEB9C"}, // pending B
		{"N4", false, ""},       // nothing tried
	} {
		bold, fill := MustStyle(t, f, s, tt.cell)
		if bold != tt.bold || fill != tt.fill {
			t.Errorf("%s: got bold %v and fill %q, want bold %v and fill %q", tt.cell, bold, fill, tt.bold, tt.fill)
		}
	}

	panes, err := f.GetPanes(s)
	if err != nil {
		t.Fatal(err)
	}
	if !panes.Freeze || panes.YSplit != 1 || panes.XSplit != 3 || panes.TopLeftCell != "D2" {
		t.Errorf("got panes %+v, want the header row and the rank and team columns frozen", panes)
	}
	if w, err := f.GetColWidth(s, "C"); err != nil || w < 10 || w > 50 {
		t.Errorf("team column: got width %v (%v), want one that fits the names", w, err)
	}

	awards, err := f.GetRows("Awards")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(awards), 1+9; got != want {
		t.Fatalf("got %d award lines, want %d: %q", got, want, awards)
	}
	if got, want := strings.Join(awards[3], "|"), "silver-medal|Silver medal winner|t2|Beta, \"the\" team"; got != want {
		t.Errorf("got award line %q, want %q", got, want)
	}
}

// TestXLSXEdgeBoards writes the boards without rows or problems: a header alone, or rows without problem
// columns; and an award without teams.
func TestXLSXEdgeBoards(t *testing.T) {
	awardsHeader := []string{"award", "citation", "team_id", "team"}
	for _, tt := range []struct {
		name   string
		board  *export.Board
		rows   [][]string
		awards [][]string
	}{
		{"empty", emptyBoard(), [][]string{{"rank", "team_id", "team", "organization", "groups", "solved", "penalty",
			"A tries", "A time", "A pending", "b tries", "b time", "b pending"}}, [][]string{awardsHeader}},
		{"no problems", noProblemsBoard(), [][]string{
			{"rank", "team_id", "team", "organization", "groups", "solved", "penalty"},
			{"1", "1", "One", "", "", "0", "0"},
			{"1", "2", "Two", "", "", "0", "0"},
		}, [][]string{awardsHeader, {"gold-medal", "Gold medal winner"}}},
		{"oi", oiBoard(), nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := MustXLSX(t, tt.board)
			rows, err := f.GetRows("Standings")
			if err != nil {
				t.Fatal(err)
			}
			if tt.rows == nil {
				if got, want := rows[1][5], "137.5"; got != want {
					t.Fatalf("score: got %q, want %q", got, want)
				}
				return
			}
			if got, want := rows, tt.rows; !equalRows(got, want) {
				t.Fatalf("got rows %q, want %q", got, want)
			}
			awards, err := f.GetRows("Awards")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := awards, tt.awards; !equalRows(got, want) {
				t.Fatalf("got awards %q, want %q", got, want)
			}
		})
	}
}

// equalRows compares rows as a reader sees them: GetRows drops the empty cells that end a row.
func equalRows(got, want [][]string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		w := want[i]
		for len(w) > 0 && w[len(w)-1] == "" {
			w = w[:len(w)-1]
		}
		if strings.Join(got[i], "\x00") != strings.Join(w, "\x00") {
			return false
		}
	}
	return true
}

// MustStyle returns whether a cell's font is bold and its fill colour ("" for none).
func MustStyle(tb testing.TB, f *excelize.File, sheet, cell string) (bold bool, fill string) {
	tb.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		tb.Fatal(err)
	}
	if st.Font != nil {
		bold = st.Font.Bold
	}
	if len(st.Fill.Color) > 0 {
		fill = st.Fill.Color[0]
	}
	return bold, fill
}

// TestCSVDefusesFormulas: a spreadsheet opening the CSV must not run a team's, organization's or group's name
// as a formula (CSV injection); such text gets a leading apostrophe, which spreadsheets show as text, and
// numbers, negative ones included, stay numbers.
func TestCSVDefusesFormulas(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{`=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"+1+cmd", "'+1+cmd"},
		{"-=Nerds=-", "'-=Nerds=-"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"a=b", "a=b"},
		{"'quoted", "'quoted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := icpcBoard()
			b.Teams[0].Name = tt.name               // t1, on the first line
			b.Organizations[0].FormalName = tt.name // t1's organization
			b.Groups[0].Name = tt.name              // t1's group
			records, err := csv.NewReader(bytes.NewReader(MustWrite(t, csvOf, b))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			for _, col := range []int{2, 3, 4} {
				if got := records[1][col]; got != tt.want {
					t.Errorf("%s: got %q, want %q", records[0][col], got, tt.want)
				}
			}
		})
	}
	b := oiBoard()
	b.Standings.Rows[3].Score = -12.5
	records, err := csv.NewReader(bytes.NewReader(MustWrite(t, csvOf, b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := records[4][5], "-12.5"; got != want {
		t.Errorf("a negative score: got %q, want %q", got, want)
	}
}
