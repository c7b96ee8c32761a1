package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// MustMatchExportGolden compares got with the golden file testdata/export/name, rewriting it first with
// -update.
func MustMatchExportGolden(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", "export", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./cmd/rankd -run Export -update to create it)", err)
	}
	if got != string(want) {
		tb.Fatalf("output differs from %s (rerun with -update after checking the change):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// withMedals returns a copy of a feed whose contest, sent once more at the end, awards medals through rankd's
// extension, as an organiser configures them.
func withMedals(tb testing.TB, path, medals string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var contest string
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, `{"type":"contest"`) {
			contest = line
		}
	}
	ext := `"data":{"rankd":{"medals":` + medals + `},`
	if contest == "" || !strings.Contains(contest, `"data":{`) {
		tb.Fatalf("no contest event in %s", path)
	}
	out := filepath.Join(tb.TempDir(), "medals.ndjson")
	feed := string(data) + strings.Replace(contest, `"data":{`, ext, 1)
	if err := os.WriteFile(out, []byte(feed), 0o600); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestExportEUC2025ResultsTSV exports the 2025 ICPC Europe Championship as results.tsv, without medals (the
// feed configures none) and with the 4 gold, 4 silver and 4 bronze medals DOMjudge defaults to. The top of the
// file is the contest's final scoreboard: Segfault go BRRRR (TU Delft) first with 8 solved, then Team Biem,
// morETHanusual and Zagreb with 7.
func TestExportEUC2025ResultsTSV(t *testing.T) {
	euc := feed(t, "euc2025")
	for _, tt := range []struct {
		name   string
		feed   string
		golden string
		top    []string
	}{
		{"no medals", euc, "euc2025-results.tsv", []string{
			"30\t1\tRanked\t8\t1299\t289\tPrequalified for World Finals Baku",
			// Below medals, teams with the same number solved share a rank, listed by the name they are shown
			// by, as DOMjudge lists them: "Ecole Polytechnique Fédérale de Lausanne" first.
			"2\t2\tRanked\t7\t1183\t287\t",
		}},
		{"medals", withMedals(t, euc, `{"gold":4,"silver":4,"bronze":4}`), "euc2025-medals-results.tsv", []string{
			"30\t1\tGold Medal\t8\t1299\t289\tPrequalified for World Finals Baku",
			"51\t2\tGold Medal\t7\t706\t230\tThe 2025 ICPC Europe Championship",
			"3\t3\tGold Medal\t7\t766\t264\t",
			"21\t4\tGold Medal\t7\t790\t265\t",
			"27\t5\tSilver Medal\t7\t885\t269\t",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := MustRun(t, "export", "--format", "tsv", tt.feed)
			MustMatchExportGolden(t, tt.golden, out)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if got, want := len(lines), 1+53; got != want {
				t.Fatalf("got %d lines, want %d", got, want)
			}
			if got, want := lines[0], "results\t1"; got != want {
				t.Fatalf("got first line %q, want %q", got, want)
			}
			for i, want := range tt.top {
				if got := lines[1+i]; got != want {
					t.Errorf("line %d: got %q, want %q", 2+i, got, want)
				}
			}
		})
	}
}

// TestExportFormats runs every format on the real feed: the CSV has a line per ranked team, the JSON is the
// object "rankd standings --format ccs" prints, the workbook opens, and --out writes what stdout would get.
func TestExportFormats(t *testing.T) {
	euc := feed(t, "euc2025")
	csvOut := MustRun(t, "export", euc)
	lines := strings.Split(strings.TrimSpace(csvOut), "\n")
	if len(lines) != 54 || !strings.HasPrefix(lines[1], "1,30,Segfault go BRRRR,") {
		t.Fatalf("csv: got %d lines, second %q; want 54, TU Delft first", len(lines), lines[1])
	}
	if !strings.HasPrefix(lines[0], "rank,team_id,team,organization,groups,solved,penalty,A tries,A time,A pending,") {
		t.Fatalf("csv: got header %q", lines[0])
	}

	// --feed, as standings, awards and import take it.
	if got := MustRun(t, "export", "--feed", euc); got != csvOut {
		t.Errorf("export --feed FILE: differs from export FILE")
	}
	for _, view := range []string{"public", "jury"} {
		got := MustRun(t, "export", "--format", "json", "--view", view, euc)
		if want := MustRun(t, "standings", "--feed", euc, "--format", "ccs", "--view", view); got != want {
			t.Errorf("json, %s view: differs from rankd standings --format ccs", view)
		}
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "results.csv")
	if out := MustRun(t, "export", "--out", path, euc); out != "" {
		t.Fatalf("--out: got %q on stdout, want nothing", out)
	}
	if written, err := os.ReadFile(path); err != nil || string(written) != csvOut {
		t.Fatalf("--out: the file differs from standard output (%v)", err)
	}

	path = filepath.Join(dir, "standings.xlsx")
	MustRun(t, "export", "--format", "xlsx", "--view", "jury", "--out", path, euc)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Standings")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 54 || rows[1][0] != "1" || rows[1][2] != "Segfault go BRRRR" {
		t.Fatalf("xlsx: got %d rows, second %q; want 54, TU Delft first", len(rows), rows[1])
	}
	awards, err := f.GetRows("Awards")
	if err != nil {
		t.Fatal(err)
	}
	if len(awards) < 2 || awards[1][0] != "winner" || awards[1][2] != "30" {
		t.Fatalf("xlsx: got awards %q, want the winner first", awards)
	}
}

func TestExportUsageErrors(t *testing.T) {
	euc := feed(t, "euc2025")
	oi := filepath.Join(t.TempDir(), "oi.ndjson")
	MustRun(t, "gen", "--rules", "oi", "--teams", "5", "--problems", "2", "--submissions", "20", "--out", oi)
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		say  string
	}{
		{"no feed", []string{"export"}, "give one CCS event feed"},
		{"two feeds", []string{"export", euc, euc}, "give one CCS event feed"},
		{"--feed and a feed", []string{"export", "--feed", euc, euc}, "give one CCS event feed"},
		{"unknown format", []string{"export", "--format", "pdf", euc}, `unknown format "pdf"`},
		{"xlsx to stdout", []string{"export", "--format", "xlsx", euc}, "xlsx needs --out FILE"},
		{"team view", []string{"export", "--view", "team:30", euc}, "public or the jury view"},
		{"missing feed", []string{"export", filepath.Join(dir, "missing.ndjson")}, "missing.ndjson"},
		{"results.tsv of an OI contest", []string{"export", "--format", "tsv", "--out", filepath.Join(dir, "oi.tsv"), oi}, "ICPC contests"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := run(tt.args...)
			if err == nil {
				t.Fatalf("rankd %v: got no error", tt.args)
			}
			if msg := err.Error() + stderr; !strings.Contains(msg, tt.say) {
				t.Fatalf("rankd %v: got %q, want it to say %q", tt.args, msg, tt.say)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "oi.tsv")); !os.IsNotExist(err) {
		t.Fatalf("a failed export left its file behind (%v)", err)
	}
}
