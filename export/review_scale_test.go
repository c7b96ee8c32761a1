package export_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"rankd"
	"rankd/export"
)

// bigBoard is the public board of an ICPC contest of the largest size: teams ranked teams (and a hidden one
// after them) over problems problems, every cell in one of the states the workbook fills, names beyond
// ASCII.
func bigBoard(teams, problems int) *export.Board {
	b := &export.Board{
		Contest: rankd.Contest{ID: "big", Name: "Big", Rules: rankd.ICPC, Duration: 5 * time.Hour,
			FreezeDuration: time.Hour, PenaltyTime: 20 * time.Minute, Medals: rankd.Medals{Gold: 4, Silver: 4, Bronze: 4}},
		Groups:        []rankd.Group{{ID: "u", Name: "Universities"}, {ID: "s", Name: "Schools"}},
		Organizations: []rankd.Organization{{ID: "o", Name: "Org", FormalName: "Université de Genève"}},
		Standings:     rankd.Standings{ContestID: "big", View: rankd.PublicView, Total: teams},
	}
	for p := range problems {
		b.Problems = append(b.Problems, rankd.Problem{ID: "p" + strconv.Itoa(p), Label: string(rune('A' + p%26))})
	}
	for i := range teams + 1 {
		id := strconv.Itoa(i + 1)
		b.Teams = append(b.Teams, rankd.Team{ID: id, Name: fmt.Sprintf("Équipe 東京 %d", i+1), OrganizationID: "o",
			GroupIDs: []string{"u", "s"}[i%2 : i%2+1], Hidden: i == teams})
		row := rankd.Row{Rank: i + 1, TeamID: id, Solved: problems - i*problems/(teams+1), Penalty: int64(i), Time: mins(i % 300)}
		if i == teams {
			row.Rank = 0
		}
		for p, prob := range b.Problems {
			c := rankd.Cell{ProblemID: prob.ID}
			switch (i + p) % 4 {
			case 0:
				c = solved(prob.ID, (i+p)%300, 1+p%3, int64((i+p)%300))
				c.FirstToSolve = i == 0
			case 1:
				c = failed(prob.ID, 1+i%5)
			case 2:
				c = pending(prob.ID, 1+p%2)
			}
			row.Cells = append(row.Cells, c)
		}
		b.Standings.Rows = append(b.Standings.Rows, row)
	}
	return b
}

// peakHeap runs f and returns how far the heap grew while it ran, sampled every millisecond, and its result.
func peakHeap(tb testing.TB, f func() error) uint64 {
	tb.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan error, 1)
	go func() { done <- f() }()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				tb.Fatal(err)
			}
			return peak - base
		case <-tick.C:
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
}

func BenchmarkExport(b *testing.B) {
	board := bigBoard(10000, 12)
	for _, bb := range []struct {
		name  string
		write func(io.Writer, *export.Board) error
	}{
		{"csv", export.CSV},
		{"xlsx", export.XLSX},
		{"tsv", export.ResultsTSV},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				var buf bytes.Buffer
				if err := bb.write(&buf, board); err != nil {
					b.Fatal(err)
				}
				n = buf.Len()
			}
			b.ReportMetric(float64(n), "bytes/file")
			b.ReportMetric(float64(peakHeap(b, func() error { return bb.write(io.Discard, board) }))/(1<<20), "peak-MB")
		})
	}
}

// TestXLSXScale writes the workbook of a big contest, checks it whole, and bounds what writing it allocates:
// the server writes it on request, and as a tree of cells that of 10,000 teams took half a gigabyte each
// time (a fifth of that written row by row).
func TestXLSXScale(t *testing.T) {
	const teams, problems = 2000, 12
	b := bigBoard(teams, problems)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var buf bytes.Buffer
	if err := export.XLSX(&buf, b); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	if got, limit := ms.TotalAlloc-before, uint64(40<<20); got > limit && !raceEnabled {
		t.Errorf("writing the workbook allocated %d MB, want at most %d MB", got>>20, limit>>20)
	}

	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Standings")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows), 1+teams; got != want {
		t.Fatalf("got %d lines, want %d: the header and the ranked teams, not the hidden one", got, want)
	}
	for i, row := range rows[1:] {
		if got, want := row[0], strconv.Itoa(i+1); got != want {
			t.Fatalf("line %d: got rank %s, want %s", i+2, got, want)
		}
	}
	for _, tt := range []struct {
		cell, value string
		bold        bool
		fill        string
	}{
		{"A1", "rank", true, "D9D9D9"},
		{"AQ1", "L pending", true, "D9D9D9"},
		{"C2", "Équipe 東京 1", false, ""},
		{"H2", "1", true, "1E7B34"},      // first to solve A
		{"K2", "1", false, "FFC7CE"},     // rejected B
		{"L2", "", false, "FFC7CE"},      // its empty time, filled all the same
		{"N2", "0", false, "FFEB9C"},     // pending C
		{"Q2", "0", false, ""},           // D untried
		{"H3", "2", false, "FFC7CE"},     // rejected A of the second team, twice
		{"AQ2001", "2", false, "FFEB9C"}, // the last team's pending L, twice
	} {
		got, err := f.GetCellValue("Standings", tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		bold, fill := MustStyle(t, f, "Standings", tt.cell)
		if got != tt.value || bold != tt.bold || fill != tt.fill {
			t.Errorf("%s: got %q, bold %v, fill %q; want %q, bold %v, fill %q", tt.cell, got, bold, fill, tt.value, tt.bold, tt.fill)
		}
	}
	panes, err := f.GetPanes("Standings")
	if err != nil {
		t.Fatal(err)
	}
	if !panes.Freeze || panes.YSplit != 1 || panes.XSplit != 3 || panes.TopLeftCell != "D2" {
		t.Errorf("got panes %+v, want the header row and the rank and team columns frozen", panes)
	}
}
