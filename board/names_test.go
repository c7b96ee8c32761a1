package board_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rankd"
	"rankd/board"
)

// Equal rows are listed by the name teams are shown by, then id, however teams were added and renamed: the board keeps a
// precomputed name order, which these tests drive through its relabelling (names squeezed between the same
// two neighbours), long shared prefixes and renames.
func TestNameOrder(t *testing.T) {
	squeeze := func() []string {
		names := []string{"A", "B"}
		for k := range 80 {
			names = append(names, "A"+strings.Repeat("A", k)+"B") // each between "A" and the one before
		}
		return names
	}
	long := func() []string {
		var names []string
		for i := range 60 {
			names = append(names, fmt.Sprintf("University of Somewhere Far Away %03d", 59-i))
		}
		return names
	}
	for _, tt := range []struct {
		name  string
		names []string
	}{
		{"squeezed", squeeze()},
		{"long shared prefixes", long()},
		{"descending", []string{"e", "d", "c", "b", "a", ""}},
		{"duplicates ordered by id", []string{"x", "x", "x", "a", "x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := icpcSetup()
			for i, n := range tt.names {
				evs = append(evs, teamEv(fmt.Sprintf("t%03d", i), n, "g"))
			}
			b := MustBoard(t, evs)
			checkNameOrder(t, b)
		})
	}
}

func TestNameOrderRandomRenames(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		// few letters and lengths around 16 bytes: many shared prefixes, equal names and equal keys
		n := 14 + r.IntN(5)
		var sb strings.Builder
		for range n {
			sb.WriteByte("ab"[r.IntN(2)])
		}
		return sb.String()
	}
	b := MustBoard(t, icpcSetup())
	teams := 0
	for step := range 600 {
		var ev rankd.Event
		if teams == 0 || r.IntN(3) == 0 {
			ev = teamEv(fmt.Sprintf("t%d", teams), word(), "g")
			teams++
		} else {
			ev = teamEv(fmt.Sprintf("t%d", r.IntN(teams)), word(), "g")
		}
		if r.IntN(2) == 0 {
			ev.Team.DisplayName = word() // shown instead of the name, and listed by
		}
		if _, err := b.Apply(&ev); err != nil {
			t.Fatal(err)
		}
		if step%50 == 0 {
			// one team moves ahead and back, so that placing compares labels of renamed teams
			MustApply(t, b, submit(fmt.Sprint("s", step), ev.Team.ID, "a", m(float64(step%300)), "AC")...)
			MustApply(t, b, judgeEv(fmt.Sprint("j", step), fmt.Sprint("s", step), "WA", m(400)))
		}
		checkNameOrder(t, b)
	}
}

// checkNameOrder checks that rows of equal rank are listed by name, then id, in the whole board and a group.
func checkNameOrder(t *testing.T, b interface {
	Standings(rankd.View, int, int) (rankd.Standings, error)
	GroupStandings(rankd.View, string, int, int) (rankd.Standings, error)
	Team(string) (rankd.Team, bool, bool)
}) {
	t.Helper()
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		whole, err := b.Standings(v, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		group, err := b.GroupStandings(v, "g", 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []rankd.Standings{whole, group} {
			type row struct {
				rank     int
				name, id string
			}
			var rows []row
			for _, r := range st.Rows {
				tm, _, _ := b.Team(r.TeamID)
				rows = append(rows, row{r.Rank, tm.ShownName(), tm.ID})
			}
			sorted := slices.IsSortedFunc(rows, func(x, y row) int {
				if x.rank != y.rank {
					return x.rank - y.rank
				}
				if c := strings.Compare(x.name, y.name); c != 0 {
					return c
				}
				return strings.Compare(x.id, y.id)
			})
			if !sorted {
				t.Fatalf("%s: rows not listed by rank, name, id: %v", v, rows)
			}
		}
	}
}

func MustApply(tb testing.TB, b interface {
	Apply(*rankd.Event) (*board.Change, error)
}, evs ...rankd.Event) {
	tb.Helper()
	for i := range evs {
		if _, err := b.Apply(&evs[i]); err != nil {
			tb.Fatalf("apply %s %s: %v", evs[i].Type, evs[i].ID, err)
		}
	}
}

// A team's display name is what its row shows and what equal rows are listed by (then its name, its id):
// listed by the names nobody sees, the tied rows of a board showing universities looked unsorted.
func TestNameOrderByDisplayName(t *testing.T) {
	shown := func(id, name, display string) rankd.Event {
		ev := teamEv(id, name, "g")
		ev.Team.DisplayName = display
		return ev
	}
	b := MustBoard(t, icpcSetup(), []rankd.Event{shown("t1", "Zeta", "Alpha University"), shown("t2", "Alpha", "Zulu University"),
		shown("t3", "Mid", "")})
	order := func() string {
		st := MustStandings(t, b, rankd.PublicView)
		var ids []string
		for _, r := range st.Rows {
			ids = append(ids, r.TeamID)
		}
		return strings.Join(ids, " ")
	}
	if got, want := order(), "t1 t3 t2"; got != want {
		t.Errorf("got %s, want %s (Alpha University, Mid, Zulu University)", got, want)
	}
	MustApply(t, b, shown("t2", "Alpha", "Aardvark College")) // a new display name alone moves the row
	if got, want := order(), "t2 t1 t3"; got != want {
		t.Errorf("after the rename: got %s, want %s", got, want)
	}
	checkNameOrder(t, b)
}
