package board_test

import (
	"testing"
	"time"

	"rankd"
)

func TestVerdict(t *testing.T) {
	b := MustBoard(t, icpcSetup("t1", "t2", "t4"), []rankd.Event{hiddenTeamEv("t3", "Team t3")},
		submit("1", "t1", "a", m(10), "WA"),
		submit("2", "t1", "a", m(250), "AC"),
		submit("3", "t2", "b", m(260), "AC"),
		[]rankd.Event{subEv("4", "t2", "c", m(20))},
		[]rankd.Event{subEv("5", "t2", "c", m(30)), judgeEv("j5", "5", "", m(31))},
		submit("6", "t3", "a", m(10), "AC"),
		submit("7", "t1", "b", m(300), "CE"),
		[]rankd.Event{judgeEv("j1b", "1", "TLE", m(100))}, // a rejudge before the freeze
		submit("8", "t4", "a", m(10), "AC"),
	)
	if _, err := b.Apply(ptr(banEv("t4", true))); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		view rankd.View
		sub  string
		typ  string
		ok   bool
	}{
		{"jury sees a verdict before the freeze", rankd.JuryView, "1", "TLE", true},
		{"public sees a verdict before the freeze", rankd.PublicView, "1", "TLE", true},
		{"jury sees the live verdict", rankd.JuryView, "2", "AC", true},
		{"public sees nothing of a frozen submission", rankd.PublicView, "2", "", true},
		{"a team sees its own frozen verdict", rankd.TeamView("t1"), "2", "AC", true},
		{"a team does not see another team's frozen verdict", rankd.TeamView("t1"), "3", "", true},
		{"a team sees another team's verdict before the freeze", rankd.TeamView("t2"), "1", "TLE", true},
		{"no judgement", rankd.JuryView, "4", "", true},
		{"a judgement without verdict", rankd.JuryView, "5", "", true},
		{"jury lists a hidden team's submission", rankd.JuryView, "6", "AC", true},
		{"public does not list a hidden team's submission", rankd.PublicView, "6", "", false},
		{"another team does not list a hidden team's submission", rankd.TeamView("t1"), "6", "", false},
		{"a hidden team sees its own", rankd.TeamView("t3"), "6", "AC", true},
		{"jury sees a verdict after the end", rankd.JuryView, "7", "CE", true},
		{"public sees nothing after the end while frozen", rankd.PublicView, "7", "", true},
		{"public does not list a banned team's submission", rankd.PublicView, "8", "", false},
		{"jury lists a banned team's submission", rankd.JuryView, "8", "AC", true},
		{"unknown submission", rankd.JuryView, "99", "", false},
		{"unknown submission in public", rankd.PublicView, "99", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			typ, _, ok := b.Verdict(tt.view, tt.sub)
			if typ != tt.typ || ok != tt.ok {
				t.Fatalf("got %q, %v, want %q, %v", typ, ok, tt.typ, tt.ok)
			}
		})
	}
}

func TestVerdictScoreAndThaw(t *testing.T) {
	oi := contestEv(rankd.Contest{Rules: rankd.OI, FreezeDuration: time.Hour})
	b := MustBoard(t, cat([]rankd.Event{oi}, verdicts(), []rankd.Event{problemEv("a", 0), teamEv("t1", "One")}),
		[]rankd.Event{subEv("1", "t1", "a", m(10)), scoreEv("j1", "1", m(11), 40)},
		[]rankd.Event{subEv("2", "t1", "a", m(250)), scoreEv("j2", "2", m(251), 100)},
	)
	check := func(name string, v rankd.View, sub, wantType string, wantScore float64) {
		t.Helper()
		typ, score, ok := b.Verdict(v, sub)
		if typ != wantType || score != wantScore || !ok {
			t.Errorf("%s: got %q %g %v, want %q %g true", name, typ, score, ok, wantType, wantScore)
		}
	}
	check("public before the freeze", rankd.PublicView, "1", "WA", 40)
	check("public frozen", rankd.PublicView, "2", "", 0)
	check("jury frozen", rankd.JuryView, "2", "AC", 100)
	if _, err := b.Apply(ptr(stateEv(thawedState))); err != nil {
		t.Fatal(err)
	}
	check("public after the thaw", rankd.PublicView, "2", "AC", 100)
}
