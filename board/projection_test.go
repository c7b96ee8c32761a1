package board_test

import (
	"reflect"
	"testing"

	"rankd"
)

// A projected row is the row of the view's standings, with its team's name and the groups it is ranked in.
func TestProjected(t *testing.T) {
	b := MustBoard(t,
		[]rankd.Event{icpc(), problemEv("A", 1), problemEv("B", 2), groupEv("uni", false), groupEv("school", true)},
		verdicts(),
		[]rankd.Event{teamEv("t1", "Alpha", "uni"), teamEv("t2", "Beta"), teamEv("t3", "Gamma", "uni"), teamEv("t4", "Delta", "school"), banEv("t3", true)},
		submit("s1", "t1", "A", m(10), "AC"),
		submit("s2", "t2", "A", m(20), "WA"),
		submit("s3", "t2", "B", m(30), "AC"),
	)
	for _, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		st := MustStandings(t, b, v)
		rows := b.ProjectedRows(v)
		if len(rows) != len(st.Rows) {
			t.Fatalf("%v: got %d rows, want %d", v, len(rows), len(st.Rows))
		}
		for i, r := range rows {
			if !reflect.DeepEqual(r.Row, st.Rows[i]) {
				t.Errorf("%v row %d: got %+v, want %+v", v, i, r.Row, st.Rows[i])
			}
			one, ok := b.Projected(v, r.TeamID)
			if !ok || !reflect.DeepEqual(one, r) {
				t.Errorf("%v: Projected(%s) = %+v, %v, want %+v", v, r.TeamID, one, ok, r)
			}
		}
		want := map[string]struct {
			name   string
			groups []string
		}{"t1": {"Alpha", []string{"uni"}}, "t2": {"Beta", nil}}
		for _, r := range rows {
			w, ok := want[r.TeamID]
			if !ok {
				t.Errorf("%v: got a row of %s, which is not ranked", v, r.TeamID)
				continue
			}
			if r.Name != w.name || !reflect.DeepEqual(r.Groups, w.groups) {
				t.Errorf("%v %s: got name %q groups %v, want %q %v", v, r.TeamID, r.Name, r.Groups, w.name, w.groups)
			}
		}
		if _, ok := b.Projected(v, "t3"); ok {
			t.Errorf("%v: a banned team is projected", v)
		}
	}
}
