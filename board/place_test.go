package board_test

import (
	"testing"

	"rankd"
	"rankd/board"
	"rankd/gen"
)

// Place agrees with the pages: every row of a view is at the position Place gives, and rows share a rank
// exactly when their keys are equal. Checked in every view, all along a generated contest (with ties,
// hidden teams, the freeze and the thaw), for each rule set.
func TestPlaceAgreesWithStandings(t *testing.T) {
	for _, rules := range []rankd.Rules{rankd.ICPC, rankd.OI, rankd.CTF} {
		t.Run(rules.String(), func(t *testing.T) {
			b := board.New()
			n := 0
			cfg := gen.Config{Seed: 5, Rules: rules, Teams: 40, Problems: 6, Submissions: 800, HiddenTeams: 3, Thaw: true}
			err := gen.Generate(cfg, func(ev rankd.Event) error {
				if _, err := b.Apply(&ev); err != nil {
					return err
				}
				if n++; n%97 == 0 {
					checkPlaces(t, b)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			checkPlaces(t, b)
		})
	}
}

func checkPlaces(tb testing.TB, b *board.Board) {
	tb.Helper()
	views := []rankd.View{rankd.PublicView, rankd.JuryView, rankd.TeamView("1"), rankd.TeamView("7"), rankd.TeamView("40")}
	for _, v := range views {
		st := MustStandings(tb, b, v)
		var prevKey string
		on := map[string]bool{}
		for i, row := range st.Rows {
			on[row.TeamID] = true
			pos, key, ok := b.Place(v, row.TeamID)
			if !ok || pos != i {
				tb.Fatalf("view %s, team %s: got place %d (ok %v), want %d", v, row.TeamID, pos, ok, i)
			}
			wantRank := i + 1
			if i > 0 && key == prevKey {
				wantRank = st.Rows[i-1].Rank
			}
			if row.Rank != wantRank {
				tb.Fatalf("view %s, team %s at %d: got rank %d, the keys say %d", v, row.TeamID, i, row.Rank, wantRank)
			}
			prevKey = key
		}
		for _, team := range b.Teams() {
			if _, _, ok := b.Place(v, team.ID); ok != on[team.ID] {
				tb.Fatalf("view %s, team %s: Place says on the board %v, the page %v", v, team.ID, ok, on[team.ID])
			}
		}
	}
}
