package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// CSV writes the ranked rows of b as a CSV table (RFC 4180) with one header line:
//
//	rank,team_id,team,organization,groups,solved,penalty,A tries,A time,A pending,B tries,...
//
// Score contests (OI, IOI, CTF) have score and time (the minute the score was reached) in place of solved
// and penalty, and "A score" in place of "A time". Every value is a plain number or text, so that a
// spreadsheet sums and sorts them:
//   - organization is the formal name of the team's organization, groups the names of its groups joined
//     by "; ";
//   - "A tries" counts the judged submissions that count (under ICPC up to and including the accepted one;
//     compile errors never), "A pending" those without a verdict in the view, frozen ones included;
//   - "A time" is the minute the problem was solved, empty while it is not; "A score" is the score of a
//     judged problem, empty before any judgement.
//
// Names are written as they are (one holding a comma, a quote or a line break is quoted), except that text
// starting with "=", "+", "-", "@", a tab or a carriage return gets a leading apostrophe: spreadsheets would
// run it as a formula (CSV injection), and show it so as text. Numbers are written as they are.
func CSV(w io.Writer, b *Board) error {
	t := newTable(b)
	cw := csv.NewWriter(w)
	record := make([]string, len(t.header))
	for i, h := range t.header {
		record[i] = Defuse(h)
	}
	if err := cw.Write(record); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for _, line := range t.lines {
		for i, v := range line.values {
			record[i] = formatValue(v)
			if s, ok := v.(string); ok {
				record[i] = Defuse(s)
			}
		}
		if err := cw.Write(record); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// defuse returns text that a spreadsheet would take for a formula with an apostrophe before it, as OWASP
// advises against CSV injection.
func Defuse(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
