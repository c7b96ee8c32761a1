// Package export writes final standings in the formats organisers use: a CSV table for scripts and
// spreadsheets, an XLSX workbook for people, and the results.tsv that the ICPC CMS imports. The Contest API
// scoreboard JSON is not here: package ccs renders it (ccs.Scoreboard), for the HTTP API and the command line
// alike.
package export

import (
	"cmp"
	"strconv"
	"strings"
	"time"

	"rankd"
)

// Board is what the writers export: a page of standings and the definitions that name and group its rows.
type Board struct {
	Contest rankd.Contest
	// Problems are in board order, the order of each row's cells.
	Problems      []rankd.Problem
	Teams         []rankd.Team
	Groups        []rankd.Group
	Organizations []rankd.Organization
	// Standings holds the rows to write. Rows without a rank (hidden or banned teams) are left out.
	Standings rankd.Standings
	// Awards decide the medals and group winners of results.tsv and fill the Awards sheet of the workbook.
	Awards []rankd.Award
}

// names resolves the ids of a board to the names a reader wants to see.
type names struct {
	teams  map[string]*rankd.Team
	groups map[string]string
	orgs   map[string]*rankd.Organization
}

func newNames(b *Board) names {
	n := names{
		teams:  make(map[string]*rankd.Team, len(b.Teams)),
		groups: make(map[string]string, len(b.Groups)),
		orgs:   make(map[string]*rankd.Organization, len(b.Organizations)),
	}
	for i := range b.Teams {
		n.teams[b.Teams[i].ID] = &b.Teams[i]
	}
	for _, g := range b.Groups {
		n.groups[g.ID] = g.Name
	}
	for i := range b.Organizations {
		n.orgs[b.Organizations[i].ID] = &b.Organizations[i]
	}
	return n
}

// team returns the name of a team, else its id.
func (n names) team(id string) string {
	if t, ok := n.teams[id]; ok {
		return cmp.Or(t.Name, id)
	}
	return id
}

// shown returns the name a team is shown by (rankd.Team.ShownName), else its id.
func (n names) shown(id string) string {
	if t, ok := n.teams[id]; ok {
		return t.ShownName()
	}
	return id
}

// organization returns the formal name of a team's organization (what goes on a certificate), else its name.
func (n names) organization(teamID string) string {
	t, ok := n.teams[teamID]
	if !ok {
		return ""
	}
	o, ok := n.orgs[t.OrganizationID]
	switch {
	case !ok:
		return ""
	case o.FormalName != "":
		return o.FormalName
	}
	return o.Name
}

// group returns the name of a group, or its id when the board does not define it.
func (n names) group(id string) string {
	if name, ok := n.groups[id]; ok {
		return name
	}
	return id
}

// teamGroups returns the names of a team's groups joined by "; ", a separator group names rarely hold.
func (n names) teamGroups(teamID string) string {
	t, ok := n.teams[teamID]
	if !ok {
		return ""
	}
	gs := make([]string, len(t.GroupIDs))
	for i, id := range t.GroupIDs {
		gs[i] = n.group(id)
	}
	return strings.Join(gs, "; ")
}

// label is how a problem heads its columns: its label, or its id when it has none.
func label(p rankd.Problem) string {
	if p.Label != "" {
		return p.Label
	}
	return p.ID
}

// cellOf returns a row's cell of problem id, looking first at index i, where cells in board order have it; a
// row without one gets an empty cell.
func cellOf(r *rankd.Row, i int, id string) rankd.Cell {
	if i < len(r.Cells) && r.Cells[i].ProblemID == id {
		return r.Cells[i]
	}
	for _, c := range r.Cells {
		if c.ProblemID == id {
			return c
		}
	}
	return rankd.Cell{ProblemID: id}
}

// minutes returns a contest time in whole minutes, truncated as scoreboards show it.
func minutes(d time.Duration) int64 { return int64(d / time.Minute) }

// cellState is how a problem cell looks: it chooses the fill of its columns in the workbook.
type cellState uint8

const (
	stateNone cellState = iota
	stateSolved
	stateFirstToSolve
	stateFailed
	statePending
)

func stateOf(c rankd.Cell) cellState {
	switch {
	case c.FirstToSolve:
		return stateFirstToSolve
	case c.Solved:
		return stateSolved
	case c.Pending > 0:
		return statePending
	case c.Judged > 0:
		return stateFailed
	}
	return stateNone
}

// The layout of a standings table: the row columns, then problemColumns columns per problem.
const (
	rowColumns     = 7
	problemColumns = 3
)

// table is the standings as CSV and XLSX lay them out: a header and one line per ranked row.
type table struct {
	header []string
	lines  []tableLine
}

// tableLine holds the values of one row, each an int, int64, float64, string or nil (an empty cell), and the
// state of each problem cell.
type tableLine struct {
	values []any
	states []cellState
}

func newTable(b *Board) table {
	icpc := b.Contest.Rules == rankd.ICPC
	t := table{header: make([]string, 0, rowColumns+problemColumns*len(b.Problems))}
	t.header = append(t.header, "rank", "team_id", "team", "organization", "groups", "solved", "penalty")
	result := " time"
	if !icpc {
		t.header[5], t.header[6] = "score", "time"
		result = " score"
	}
	for _, p := range b.Problems {
		l := label(p)
		t.header = append(t.header, l+" tries", l+result, l+" pending")
	}
	n := newNames(b)
	for i := range b.Standings.Rows {
		r := &b.Standings.Rows[i]
		if r.Rank < 1 {
			continue
		}
		line := tableLine{values: make([]any, 0, len(t.header)), states: make([]cellState, 0, len(b.Problems))}
		line.values = append(line.values, r.Rank, r.TeamID, n.team(r.TeamID), n.organization(r.TeamID), n.teamGroups(r.TeamID))
		if icpc {
			line.values = append(line.values, r.Solved, r.Penalty)
		} else {
			line.values = append(line.values, r.Score, minutes(r.Time))
		}
		for j, p := range b.Problems {
			c := cellOf(r, j, p.ID)
			var v any // empty until solved (ICPC) or judged (score contests)
			switch {
			case icpc && c.Solved:
				v = minutes(c.Time)
			case !icpc && (c.Solved || c.Judged > 0):
				v = c.Score
			}
			line.values = append(line.values, c.Judged, v, c.Pending)
			line.states = append(line.states, stateOf(c))
		}
		t.lines = append(t.lines, line)
	}
	return t
}

// formatValue formats a table value as text: numbers in their shortest exact form, nil as "".
func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}
