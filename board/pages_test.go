package board_test

import (
	"reflect"
	"testing"

	"rankd"
	"rankd/gen"
)

// TestPagesAreSlicesOfTheWhole: every page of every view (a team's own included, whose row sits among the
// public ones at its own place), in the whole board and in each group, is the matching slice of the whole.
func TestPagesAreSlicesOfTheWhole(t *testing.T) {
	// Mid-contest, frozen: team views differ from the public one.
	cfg := gen.Config{Seed: 5, Teams: 25, Problems: 4, Submissions: 300, Groups: 2, HiddenTeams: 2}
	b := MustBoard(t, genEvents(t, cfg))
	views := []rankd.View{rankd.PublicView, rankd.JuryView}
	differ := 0
	for _, tm := range b.Teams() {
		views = append(views, rankd.TeamView(tm.ID))
		own, _ := b.Row(rankd.TeamView(tm.ID), tm.ID)
		if pub, err := b.Row(rankd.PublicView, tm.ID); err == nil && !reflect.DeepEqual(own, pub) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatalf("no team sees more than the public: the test would not exercise team views")
	}
	groups := []string{""}
	for _, g := range b.Groups() {
		groups = append(groups, g.ID)
	}
	for _, v := range views {
		for _, g := range groups {
			page := func(offset, limit int) rankd.Standings {
				var st rankd.Standings
				var err error
				if g == "" {
					st, err = b.Standings(v, offset, limit)
				} else {
					st, err = b.GroupStandings(v, g, offset, limit)
				}
				if err != nil {
					t.Fatalf("%s group %q page %d+%d: %v", v, g, offset, limit, err)
				}
				return st
			}
			whole := page(0, -1).Rows
			for _, limit := range []int{1, 2, 3, 7} {
				for offset := 0; offset <= len(whole); offset++ {
					got := page(offset, limit).Rows
					want := whole[offset:min(offset+limit, len(whole))]
					if len(got) == 0 && len(want) == 0 {
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s group %q page %d+%d: got %d rows, want %d (the whole's slice)", v, g, offset, limit, len(got), len(want))
					}
				}
			}
			// Ranks never decrease down the page and start at 1.
			for i, r := range whole {
				if i == 0 && r.Rank != 1 || i > 0 && r.Rank < whole[i-1].Rank {
					t.Fatalf("%s group %q: rank %d at position %d after %d", v, g, r.Rank, i, whole[max(i-1, 0)].Rank)
				}
			}
			// A team's own row in its view is the one Row gives.
			if v.Kind == rankd.ViewTeam && g == "" {
				own, err := b.Row(v, v.TeamID)
				if err != nil {
					t.Fatal(err)
				}
				found := own.Rank == 0 // an unranked team is not on the page
				for _, r := range whole {
					if r.TeamID == v.TeamID {
						found = reflect.DeepEqual(r, own)
					}
				}
				if !found {
					t.Fatalf("%s: own row on the page differs from Row: %+v", v, own)
				}
			}
		}
	}
}
