package export

import (
	"rankd"
	"rankd/board"
)

// FromBoard returns what the writers export of a board: the page st of view v, with the board's definitions
// and the view's awards. The organizations are those of the teams.
func FromBoard(b *board.Board, v rankd.View, st rankd.Standings) *Board {
	teams := b.Teams()
	var orgs []rankd.Organization
	seen := map[string]bool{}
	for _, t := range teams {
		if o, ok := b.Organization(t.OrganizationID); ok && !seen[o.ID] {
			seen[o.ID] = true
			orgs = append(orgs, o)
		}
	}
	return &Board{
		Contest:       b.Contest(),
		Problems:      b.Problems(),
		Teams:         teams,
		Groups:        b.Groups(),
		Organizations: orgs,
		Standings:     st,
		Awards:        b.Awards(v),
	}
}
