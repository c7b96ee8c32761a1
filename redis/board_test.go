package redis_test

import (
	"context"
	"reflect"
	"testing"

	"rankd"
	"rankd/board"
	"rankd/gen"
	"rankd/redis"
)

// The projection, fed as a server feeds it (a rebuild, then the rows each event changed), reads page for
// page as the board it was fed from, in every view and group, under every rules: ties, first-to-solve marks,
// frozen cells, CTF values that move every solver, a ban, a lift of the ban and a team renamed and regrouped
// included.
func TestMatchesBoard(t *testing.T) {
	p, _ := MustOpen(t)
	tests := []struct {
		rules     rankd.Rules
		tieByTime bool // OI and IOI: ordered as CTF is, by score then time, with their own layout
	}{{rankd.ICPC, false}, {rankd.OI, false}, {rankd.OI, true}, {rankd.IOI, false}, {rankd.IOI, true}, {rankd.CTF, false}}
	for _, tt := range tests {
		rules := tt.rules
		name := rules.String()
		if tt.tieByTime {
			name += "-by-time"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := board.New()
			var pos int64
			apply := func(ev rankd.Event) error {
				if ev.Contest != nil {
					c := *ev.Contest
					c.TieByTime = tt.tieByTime
					ev.Contest = &c
				}
				ch, err := b.Apply(&ev)
				if err != nil {
					return err
				}
				pos++
				if pos == 1 {
					return p.Rebuild(ctx, rankd.ProjectionUpdate{ContestID: b.Contest().ID, Pos: pos, Contest: b.Contest()})
				}
				if u, ok := changed(b, pos, ch); ok {
					if applied, err := p.Project(ctx, u); err != nil || !applied {
						t.Fatalf("project at %d: applied %v, %v", pos, applied, err)
					}
				}
				return nil
			}
			cfg := gen.Config{Seed: 7, ContestID: "board-" + name, Rules: rules, Teams: 150, Submissions: 2500, Groups: 3, HiddenTeams: 3}
			err := gen.Generate(cfg, func(ev rankd.Event) error {
				if err := apply(ev); err != nil {
					return err
				}
				switch pos {
				case 1000:
					teams := b.Teams()
					renamed := teams[7]
					renamed.Name, renamed.GroupIDs = "Aaaa", []string{b.Groups()[0].ID, b.Groups()[2].ID}
					if err := apply(rankd.Event{Type: rankd.EventTeam, ID: renamed.ID, Team: &renamed}); err != nil {
						return err
					}
					return apply(rankd.Event{Type: rankd.EventBan, ID: teams[3].ID, Ban: &rankd.Ban{TeamID: teams[3].ID, Banned: true}})
				case 1800:
					id := b.Teams()[3].ID
					return apply(rankd.Event{Type: rankd.EventBan, ID: id, Ban: &rankd.Ban{TeamID: id, Banned: false}})
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			MustMatchBoard(t, p, b)
		})
	}
}

// changed returns the update of the rows that a change of board b, now at pos, touched.
func changed(b *board.Board, pos int64, ch *board.Change) (rankd.ProjectionUpdate, bool) {
	u := rankd.ProjectionUpdate{ContestID: b.Contest().ID, Pos: pos, Contest: b.Contest(), Problems: b.Problems()}
	if ch == nil {
		return u, false
	}
	for _, d := range ch.Diffs {
		if d.View.Kind == rankd.ViewTeam {
			continue
		}
		vu := rankd.ViewUpdate{View: d.View, Seq: d.Seq}
		for _, rc := range d.Rows {
			if r, ok := b.Projected(d.View, rc.TeamID); ok {
				vu.Rows = append(vu.Rows, r)
			} else {
				vu.Removed = append(vu.Removed, rc.TeamID)
			}
		}
		u.Views = append(u.Views, vu)
	}
	return u, len(u.Views) > 0
}

// MustMatchBoard checks every page of the projection of b's contest against b's, in pages that cut through
// ties.
func MustMatchBoard(tb testing.TB, p *redis.Projection, b *board.Board) {
	tb.Helper()
	const limit = 17
	groups := []string{""}
	for _, g := range b.Groups() {
		groups = append(groups, g.ID)
	}
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		for _, g := range groups {
			for offset := 0; ; offset += limit {
				want, err := b.Standings(v, offset, limit)
				if g != "" {
					want, err = b.GroupStandings(v, g, offset, limit)
				}
				if err != nil {
					tb.Fatal(err)
				}
				got := MustStandings(tb, p, rankd.ProjectionQuery{ContestID: b.Contest().ID, View: v, GroupID: g, Offset: offset, Limit: limit})
				if got.Total != want.Total || got.Seq != want.Seq {
					tb.Fatalf("%v, group %q, offset %d: got total %d, seq %d; want %d, %d", v, g, offset, got.Total, got.Seq, want.Total, want.Seq)
				}
				if !reflect.DeepEqual(got.Rows, want.Rows) {
					MustEqualRows(tb, got.Rows, want.Rows)
				}
				if offset+limit >= want.Total {
					break
				}
			}
		}
	}
}
