package export

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// The sheets of the workbook.
const (
	standingsSheet = "Standings"
	awardsSheet    = "Awards"
)

// Column widths, in characters: wide enough for a header, never so wide that one long name hides the rest.
const (
	minColumnWidth = 6
	maxColumnWidth = 50
)

// standingsFrozenColumns keeps rank, team id and team in view while the problems scroll past.
const standingsFrozenColumns = 3

// stateFills colours problem cells by state, as Excel's own Good, Bad and Neutral styles do; first to solve
// is dark green, with white text.
var stateFills = [...]string{
	stateSolved:       "#C6EFCE",
	stateFirstToSolve: "#1E7B34",
	stateFailed:       "#FFC7CE",
	statePending:      "#FFEB9C",
}

// XLSX writes b as an Excel workbook of two sheets. "Standings" holds the columns of CSV, numbers stored as
// numbers and text as text (never as a formula), under a bold header row frozen in place with the rank and
// team columns; the three columns of each problem are filled by the cell's state: solved green, first to
// solve dark green, rejected red, pending (frozen) yellow. "Awards" lists each award with each of its teams
// (award, citation, team_id, team), an award without teams on a line of its own.
func XLSX(w io.Writer, b *Board) error {
	f := excelize.NewFile()
	defer func() { _ = f.Close() }() // an in-memory workbook: nothing to lose
	if err := fillWorkbook(f, b); err != nil {
		return fmt.Errorf("write xlsx: %w", err)
	}
	if err := f.Write(w); err != nil {
		return fmt.Errorf("write xlsx: %w", err)
	}
	return nil
}

func fillWorkbook(f *excelize.File, b *Board) error {
	if err := f.SetSheetName(f.GetSheetName(0), standingsSheet); err != nil {
		return err
	}
	if _, err := f.NewSheet(awardsSheet); err != nil {
		return err
	}
	headerStyle, err := f.NewStyle(&excelize.Style{
		Font: &excelize.Font{Bold: true},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"#D9D9D9"}},
	})
	if err != nil {
		return err
	}

	t := newTable(b)
	values := make([][]any, len(t.lines))
	for i, line := range t.lines {
		values[i] = line.values
	}
	if err := fillSheet(f, standingsSheet, headerStyle, t.header, values, standingsFrozenColumns); err != nil {
		return err
	}
	var stateStyles [len(stateFills)]int
	for state, color := range stateFills {
		if color == "" {
			continue
		}
		style := &excelize.Style{Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}}
		if cellState(state) == stateFirstToSolve {
			style.Font = &excelize.Font{Bold: true, Color: "#FFFFFF"}
		}
		if stateStyles[state], err = f.NewStyle(style); err != nil {
			return err
		}
	}
	for i, line := range t.lines {
		for j, state := range line.states {
			if state == stateNone {
				continue
			}
			col := rowColumns + j*problemColumns + 1
			first, err := excelize.CoordinatesToCellName(col, i+2)
			if err != nil {
				return err
			}
			last, err := excelize.CoordinatesToCellName(col+problemColumns-1, i+2)
			if err != nil {
				return err
			}
			if err := f.SetCellStyle(standingsSheet, first, last, stateStyles[state]); err != nil {
				return err
			}
		}
	}

	n := newNames(b)
	var awards [][]any
	for _, a := range b.Awards {
		if len(a.TeamIDs) == 0 {
			awards = append(awards, []any{a.ID, a.Citation})
		}
		for _, id := range a.TeamIDs {
			awards = append(awards, []any{a.ID, a.Citation, id, n.team(id)})
		}
	}
	return fillSheet(f, awardsSheet, headerStyle, []string{"award", "citation", "team_id", "team"}, awards, 0)
}

// fillSheet writes a header and lines of values to a sheet: the header styled and frozen above the lines with
// the first frozenColumns columns, nil values left empty, each column as wide as its longest value within
// bounds.
func fillSheet(f *excelize.File, sheet string, headerStyle int, header []string, lines [][]any, frozenColumns int) error {
	widths := make([]int, len(header))
	set := func(col, row int, v any) error {
		cell, err := excelize.CoordinatesToCellName(col+1, row+1)
		if err != nil {
			return err
		}
		widths[col] = max(widths[col], textWidth(formatValue(v)))
		return f.SetCellValue(sheet, cell, v)
	}
	for col, h := range header {
		if err := set(col, 0, h); err != nil {
			return err
		}
	}
	for row, line := range lines {
		for col, v := range line {
			if v == nil {
				continue
			}
			if err := set(col, row+1, v); err != nil {
				return err
			}
		}
	}
	lastHeader, err := excelize.CoordinatesToCellName(len(header), 1)
	if err != nil {
		return err
	}
	if err := f.SetCellStyle(sheet, "A1", lastHeader, headerStyle); err != nil {
		return err
	}
	topLeft, err := excelize.CoordinatesToCellName(frozenColumns+1, 2)
	if err != nil {
		return err
	}
	pane := "bottomLeft"
	if frozenColumns > 0 {
		pane = "bottomRight"
	}
	if err := f.SetPanes(sheet, &excelize.Panes{
		Freeze: true, XSplit: frozenColumns, YSplit: 1, TopLeftCell: topLeft, ActivePane: pane,
		Selection: []excelize.Selection{{SQRef: topLeft, ActiveCell: topLeft, Pane: pane}},
	}); err != nil {
		return err
	}
	for i, w := range widths {
		col, err := excelize.ColumnNumberToName(i + 1)
		if err != nil {
			return err
		}
		if err := f.SetColWidth(sheet, col, col, float64(min(max(w+2, minColumnWidth), maxColumnWidth))); err != nil {
			return err
		}
	}
	return nil
}

// textWidth is the width of a text in characters: that of its longest line.
func textWidth(s string) int {
	w := 0
	for line := range strings.Lines(s) {
		w = max(w, utf8.RuneCountInString(strings.TrimRight(line, "\r\n")))
	}
	return w
}
