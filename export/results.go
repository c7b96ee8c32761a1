package export

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"rankd"
)

// The awards of results.tsv, as DOMjudge names them.
const (
	awardGold      = "Gold Medal"
	awardSilver    = "Silver Medal"
	awardBronze    = "Bronze Medal"
	awardRanked    = "Ranked"
	awardHonorable = "Honorable"
)

// medalAwards maps the ids of the medal awards of package board (and of CCS feeds) to results.tsv awards.
var medalAwards = map[string]string{"gold-medal": awardGold, "silver-medal": awardSilver, "bronze-medal": awardBronze}

// groupWinnerPrefix starts the id of a group winner award: "group-winner-<group id>".
const groupWinnerPrefix = "group-winner-"

// groupWinnerSep joins the names of the groups a team won: a team may be in several groups.
const groupWinnerSep = ", "

// ResultsTSV writes the ranked rows of an ICPC board as the results.tsv that the ICPC CMS imports, following
// DOMjudge's export (webapp/src/Service/ImportExportService.php, getResultsData, in its variant without
// honors): a first line "results\t1", then one line per team of seven tab-separated fields:
//
//	team id, rank, award, number solved, total time, minute of the last accepted submission, group winner
//
// The team id is the team's id (rankd.Team holds no separate ICPC id). The award follows DOMjudge:
//   - a team that solved nothing is "Honorable", without a rank;
//   - a team in b's gold, silver or bronze medal award gets "Gold Medal", "Silver Medal" or "Bronze Medal"
//     with its rank (package board gives medals by rank to teams that solved something, as DOMjudge does);
//   - any other team that solved at least as many problems as the median team (the first one past half of
//     the ranked teams) is "Ranked", with the rank of the best such team with its number solved;
//   - the others are "Honorable", without a rank.
//
// The group winner is the name of each group whose group-winner award names the team (several joined by
// ", "), empty otherwise. Lines are ordered by rank, unranked ones last, and teams sharing a rank by the name
// they are shown by (the display name, else the name) in English collation order (as DOMjudge orders them, by
// Team::getEffectiveName: "alpha" before "Beta"), then by id. Fields escape backslash, tab, newline and carriage
// return as \\, \t, \n and \r, as DOMjudge's Utils::toTsvField does, so a name never breaks a line or shifts a
// field.
//
// results.tsv describes ICPC contests only, and the median needs every ranked row: ResultsTSV returns an
// EINVALID error for other rules or for a page that is not the whole board.
func ResultsTSV(w io.Writer, b *Board) error {
	if b.Contest.Rules != rankd.ICPC {
		return rankd.Errorf(rankd.EINVALID, "results.tsv is for ICPC contests, not %s", b.Contest.Rules)
	}
	var rows []*rankd.Row
	for i := range b.Standings.Rows {
		if r := &b.Standings.Rows[i]; r.Rank >= 1 {
			rows = append(rows, r)
		}
	}
	if b.Standings.Offset != 0 || len(rows) < b.Standings.Total {
		return rankd.Errorf(rankd.EINVALID, "results.tsv needs the whole board: got %d of %d ranked rows from position %d",
			len(rows), b.Standings.Total, b.Standings.Offset)
	}

	n := newNames(b)
	medals := map[string]string{}
	winners := map[string][]string{}
	for _, a := range b.Awards {
		if medal, ok := medalAwards[a.ID]; ok {
			for _, id := range a.TeamIDs {
				medals[id] = medal
			}
		}
		if g, ok := strings.CutPrefix(a.ID, groupWinnerPrefix); ok {
			for _, id := range a.TeamIDs {
				winners[id] = append(winners[id], n.group(g))
			}
		}
	}

	type result struct {
		rank   int // 0: none
		award  string
		row    *rankd.Row
		winner string
	}
	median := medianSolved(rows)
	rankOfSolved := map[int]int{}
	results := make([]result, 0, len(rows))
	for _, r := range rows {
		res := result{award: awardHonorable, row: r}
		switch {
		case r.Solved == 0:
			results = append(results, res) // no medal, rank or group win for a team without a solve
			continue
		case medals[r.TeamID] != "":
			res.rank, res.award = r.Rank, medals[r.TeamID]
		case r.Solved >= median:
			if _, ok := rankOfSolved[r.Solved]; !ok {
				rankOfSolved[r.Solved] = r.Rank
			}
			res.rank, res.award = rankOfSolved[r.Solved], awardRanked
		}
		res.winner = strings.Join(winners[r.TeamID], groupWinnerSep)
		results = append(results, res)
	}
	names := collate.New(language.English) // DOMjudge sorts names with an English collator, not by bytes
	slices.SortStableFunc(results, func(x, y result) int {
		if x.rank != y.rank {
			switch {
			case x.rank == 0:
				return 1
			case y.rank == 0:
				return -1
			}
			return cmp.Compare(x.rank, y.rank)
		}
		return cmp.Or(names.CompareString(n.shown(x.row.TeamID), n.shown(y.row.TeamID)), strings.Compare(x.row.TeamID, y.row.TeamID))
	})

	// A bufio.Writer keeps its first error, which Flush returns: the writes need no check of their own.
	bw := bufio.NewWriter(w)
	_, _ = bw.WriteString("results\t1\n")
	for _, res := range results {
		rank := ""
		if res.rank > 0 {
			rank = strconv.Itoa(res.rank)
		}
		fields := []string{
			tsvField(res.row.TeamID), rank, res.award, strconv.Itoa(res.row.Solved),
			strconv.FormatInt(res.row.Penalty, 10), strconv.FormatInt(minutes(res.row.Time), 10), tsvField(res.winner),
		}
		_, _ = bw.WriteString(strings.Join(fields, "\t"))
		_ = bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write results.tsv: %w", err)
	}
	return nil
}

// medianSolved returns the number solved by the median team as DOMjudge counts it: the first team past half
// of the ranked teams, in rank order; 0 for no teams.
func medianSolved(rows []*rankd.Row) int {
	median := 0
	for i, r := range rows {
		median = r.Solved
		if 2*(i+1) > len(rows) {
			break
		}
	}
	return median
}

var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// tsvField escapes what would break a TSV line or field, as DOMjudge's Utils::toTsvField does.
func tsvField(s string) string { return tsvEscaper.Replace(s) }
