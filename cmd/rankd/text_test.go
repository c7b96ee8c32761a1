package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The text table stays aligned whatever the team names hold: wide CJK and emoji take two columns of a
// terminal, a combining accent none, and a tab or a line break must not split a row.
func TestStandingsTextColumns(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"A","name":"A","ordinal":0,"test_data_count":1}}`,
	}
	for i, name := range []string{"北京大学", "🥶", "Ame\u0301lie", "Tab\there", "New\nline"} {
		team, err := json.Marshal(map[string]any{"type": "teams", "id": string(rune('p' + i)),
			"data": map[string]any{"id": string(rune('p' + i)), "name": name}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(team))
	}
	path := filepath.Join(t.TempDir(), "names.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every name is 8 columns wide but the accented one (6); the team column is as wide as the widest.
	want := []string{
		"  Rank      Team  Solved  Time  A",
		"     1  北京大学       0     0  .",
		"     1        🥶       0     0  .",
		"     1    Ame\u0301lie       0     0  .",
		"     1  Tab here       0     0  .",
		"     1  New line       0     0  .",
	}
	got := strings.Split(strings.TrimSuffix(MustRun(t, "standings", "--feed", path), "\n"), "\n")[1:]
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Team ids, names and problem labels that a spreadsheet would run as formulas are written as text.
func TestStandingsCSVDefusesFormulas(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"=A1","name":"A","ordinal":0,"test_data_count":1}}`,
		`{"type":"teams","id":"@t","data":{"id":"@t","name":"=HYPERLINK(\"http://x\")"}}`,
		`{"type":"teams","id":"u","data":{"id":"u","name":"Plain"}}`,
	}
	path := filepath.Join(t.TempDir(), "formulas.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := MustRun(t, "standings", "--feed", path, "--format", "csv")
	for _, want := range []string{`rank,team_id,team,solved,penalty,'=A1`, `1,'@t,"'=HYPERLINK(""http://x"")",0,0`, `1,u,Plain,0,0`} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant a line with %s", got, want)
		}
	}
}

// A team's row in the text table shows its display name when it has one, as the web board does; the CSV's
// team column is the team's name, as the exports'.
func TestStandingsDisplayName(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"A","name":"A","ordinal":0,"test_data_count":1}}`,
		`{"type":"teams","id":"t","data":{"id":"t","name":"ICPC-0042","display_name":"Team Rocket"}}`,
		`{"type":"teams","id":"u","data":{"id":"u","name":"Plain"}}`,
	}
	path := filepath.Join(t.TempDir(), "display.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ format, shown, hidden string }{{"text", "Team Rocket", "ICPC-0042"}, {"csv", "ICPC-0042", "Team Rocket"}} {
		got := MustRun(t, "standings", "--feed", path, "--format", tt.format)
		if !strings.Contains(got, tt.shown) || strings.Contains(got, tt.hidden) || !strings.Contains(got, "Plain") {
			t.Errorf("--format %s: got\n%s\nwant %s and Plain, not %s", tt.format, got, tt.shown, tt.hidden)
		}
	}
}

// A problem without a label is headed by its id, in the text table and the CSV: two of them were two blank
// columns.
func TestStandingsUnlabelledProblems(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"problems","id":"p1","data":{"id":"p1","label":"","name":"One","ordinal":0,"test_data_count":1}}`,
		`{"type":"problems","id":"p2","data":{"id":"p2","label":"","name":"Two","ordinal":1,"test_data_count":1}}`,
		`{"type":"teams","id":"t","data":{"id":"t","name":"T"}}`,
	}
	path := filepath.Join(t.TempDir(), "labels.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ format, want string }{{"text", "p1  p2"}, {"csv", "penalty,p1,p2"}} {
		if got := MustRun(t, "standings", "--feed", path, "--format", tt.format); !strings.Contains(got, tt.want) {
			t.Errorf("--format %s: got\n%s\nwant a header with %s", tt.format, got, tt.want)
		}
	}
}

// The text table of an OI contest hidden until its end says so, not that it is frozen from the freeze: every
// submission is pending until it ended, and nothing is hidden after — once its time is up at the moment asked
// (now, or --at), though its feed says nothing of its end, as a server records the end by the clock.
func TestStandingsTextHiddenUntilEnd(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","scoreboard_type":"score","start_time":"2026-01-01T10:00:00Z","rankd":{"hide_until_end":true}}}`,
		`{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"ok","penalty":false,"solved":true}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"A","name":"A","ordinal":0}}`,
		`{"type":"teams","id":"t","data":{"id":"t","name":"Tee"}}`,
		`{"type":"submissions","id":"s","data":{"id":"s","team_id":"t","problem_id":"a","contest_time":"0:10:00"}}`,
		`{"type":"judgements","id":"j","data":{"id":"j","submission_id":"s","judgement_type_id":"AC","score":50,"start_contest_time":"0:10:01"}}`,
	}
	ended := `{"type":"state","id":null,"data":{"started":"2026-01-01T10:00:00Z","ended":"2026-01-01T15:00:00Z"}}`
	for _, tt := range []struct {
		name   string
		lines  []string
		at     string
		header string
	}{
		{"running", lines, "3:00:00", "Hidden until the end: every submission shows as pending (?)"},
		{"its time up", lines, "5:00:00", "  Rank"},
		{"its time up now", lines, "", "  Rank"},
		{"ended", append(slices.Clone(lines), ended), "", "  Rank"},
	} {
		path := filepath.Join(t.TempDir(), "hidden.ndjson")
		if err := os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"standings", "--feed", path, "--view", "public"}
		if tt.at != "" {
			args = append(args, "--at", tt.at)
		}
		out := strings.Split(MustRun(t, args...), "\n")
		if !strings.HasPrefix(out[1], tt.header) {
			t.Errorf("%s: got\n%s\nwant its second line to start %q", tt.name, strings.Join(out, "\n"), tt.header)
		}
	}
}

// rankd standings names the lines of submissions outside the contest time, which it keeps but counts nowhere,
// and says how many there are.
func TestStandingsNamesSubmissionsOutsideTheContest(t *testing.T) {
	lines := []string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","start_time":"2025-01-01T10:00:00Z","duration":"5:00:00","penalty_time":20}}`,
		`{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"A","ordinal":0}}`,
		`{"type":"teams","id":"t1","data":{"id":"t1","name":"One"}}`,
		`{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"-0:01:00"}}`,
		`{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t1","problem_id":"A","contest_time":"1:00:00"}}`,
		`{"type":"submissions","id":"s3","data":{"id":"s3","team_id":"t1","problem_id":"A","contest_time":"5:00:00"}}`,
	}
	path := filepath.Join(t.TempDir(), "outside.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := run("standings", "--feed", path)
	for _, want := range []string{"line 4: submission s1 at -0:01:00.000 is outside the contest time",
		"line 6: submission s3 at 5:00:00.000 is outside the contest time", "2 submissions outside the contest time do not count"} {
		if err != nil || !strings.Contains(errOut, want) {
			t.Errorf("got %v, %q; want it to say %q", err, errOut, want)
		}
	}
	if strings.Contains(errOut, "s2") {
		t.Errorf("got %q; want nothing said of s2, within the contest", errOut)
	}
}
