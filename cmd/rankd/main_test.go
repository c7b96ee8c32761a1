package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/ccs/ccstest"
	main "rankd/cmd/rankd"
	"rankd/gen"
)

// MustRun runs a rankd command and returns its standard output, failing the test on error.
func MustRun(tb testing.TB, args ...string) string {
	tb.Helper()
	out, errOut, err := run(args...)
	if err != nil {
		tb.Fatalf("rankd %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func run(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	m := &main.Main{Stdout: &o, Stderr: &e}
	err = m.Run(context.Background(), args)
	return o.String(), e.String(), err
}

func feed(tb testing.TB, name string) string {
	return ccstest.SharedPath(tb, "data", name, "event-feed.ndjson")
}

// MustLoad reads a feed into a board, counting the events the board refused.
func MustLoad(tb testing.TB, path string) (*board.Board, []rankd.Award) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b := board.New()
	var awards []rankd.Award
	rd := ccs.NewReader(f)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return b, awards
		}
		if err != nil {
			tb.Fatalf("line %d: %v", rd.Line(), err)
		}
		if ev.Type == rankd.EventAward && !ev.Delete {
			awards = append(awards, *ev.Award)
		}
		if _, err := b.Apply(&ev); err != nil {
			tb.Fatalf("line %d: %v", rd.Line(), err)
		}
	}
}

func TestEUC2025(t *testing.T) {
	b, feedAwards := MustLoad(t, feed(t, "euc2025"))
	// The contest system's own first-to-solve awards.
	want := map[string][]string{}
	for _, a := range feedAwards {
		if p, ok := strings.CutPrefix(a.ID, "first-to-solve-"); ok {
			want[p] = a.TeamIDs
		}
	}
	if len(want) != 11 {
		t.Fatalf("the feed has %d first-to-solve awards, want 11", len(want))
	}
	got := b.FirstToSolve(rankd.PublicView)
	for p, ids := range want {
		if g := got[p]; !slices.Equal(g, ids) {
			t.Errorf("first to solve %s: got %v, want %v", p, g, ids)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d first-to-solve problems, want %d", len(got), len(want))
	}
	// The finalized contest's public board is the final one: TU Delft first with 8 solved.
	st, err := b.Standings(rankd.PublicView, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	top := st.Rows[0]
	tm, _, _ := b.Team(top.TeamID)
	if org, _ := b.Organization(tm.OrganizationID); org.Name != "TU Delft" || top.Solved != 8 || top.Rank != 1 {
		t.Fatalf("got %s (%s) at rank %d with %d solved, want TU Delft first with 8", tm.Name, org.Name, top.Rank, top.Solved)
	}
	if st.Total != 53 {
		t.Fatalf("got %d teams ranked, want 53", st.Total)
	}
}

func TestWF47PublicFeedShowsFrozenSubmissionsPending(t *testing.T) {
	b, _ := MustLoad(t, feed(t, "wf47"))
	st, err := b.Standings(rankd.PublicView, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	// All 545 unjudged last-hour submissions show, the 3 after their team's own earlier solve included.
	if got := pendingOf(st); got != 545 {
		t.Fatalf("public: got %d pending submissions, want 545", got)
	}
	// The jury knows those 3 follow a solve, so they do not count there.
	jury, err := b.Standings(rankd.JuryView, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingOf(jury); got != 542 {
		t.Fatalf("jury: got %d pending submissions, want 542", got)
	}
}

func pendingOf(st rankd.Standings) int {
	n := 0
	for _, r := range st.Rows {
		for _, c := range r.Cells {
			n += c.Pending
		}
	}
	return n
}

func TestStandingsCCSValidates(t *testing.T) {
	v := ccstest.SchemaValidator(t, "scoreboard.json")
	for _, name := range []string{"euc2025", "wf47"} {
		for _, view := range []string{"public", "jury"} {
			t.Run(name+"/"+view, func(t *testing.T) {
				out := MustRun(t, "standings", "--feed", feed(t, name), "--view", view, "--format", "ccs")
				v.Validate(t, []byte(out))
				var sb struct {
					Rows []struct {
						Rank   int    `json:"rank"`
						TeamID string `json:"team_id"`
					} `json:"rows"`
				}
				if err := json.Unmarshal([]byte(out), &sb); err != nil {
					t.Fatal(err)
				}
				if len(sb.Rows) == 0 || sb.Rows[0].Rank != 1 {
					t.Fatalf("got %d rows, first %+v; want a ranked board", len(sb.Rows), sb.Rows)
				}
			})
		}
	}
}

// A contest whose start is not known yet (its countdown paused) has no moment of its own: its scoreboard is
// the board as read, at the time of reading, as the server's is (it said year 1).
func TestCCSScoreboardWithoutStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "feed.ndjson")
	lines := `{"type":"contest","id":"c","data":{"id":"c","name":"Paused","start_time":null,"duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","penalty_time":20}}
{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"A","ordinal":1}}
{"type":"teams","id":"t1","data":{"id":"t1","name":"One"}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	v := ccstest.SchemaValidator(t, "scoreboard.json")
	for _, args := range [][]string{
		{"standings", "--feed", path, "--format", "ccs"},
		{"standings", "--feed", path, "--format", "ccs", "--at", "1:00:00"},
		{"export", "--format", "json", path},
	} {
		var o, e bytes.Buffer
		m := &main.Main{Stdout: &o, Stderr: &e, Now: func() time.Time { return now }}
		if err := m.Run(context.Background(), args); err != nil {
			t.Fatalf("rankd %s: %v\n%s", strings.Join(args, " "), err, e.String())
		}
		v.Validate(t, o.Bytes())
		var sb struct {
			Time        string `json:"time"`
			ContestTime string `json:"contest_time"`
		}
		if err := json.Unmarshal(o.Bytes(), &sb); err != nil {
			t.Fatal(err)
		}
		if want := "2026-12-01T12:00:00.000Z"; sb.Time != want || sb.ContestTime != "0:00:00.000" {
			t.Errorf("rankd %s: got time %s, contest_time %s; want %s, 0:00:00.000", strings.Join(args, " "), sb.Time, sb.ContestTime, want)
		}
	}
}

func TestStandingsFormats(t *testing.T) {
	euc := feed(t, "euc2025")
	text := MustRun(t, "standings", "--feed", euc)
	if !strings.Contains(text, "Delft University of Technology") || !strings.Contains(text, "public view") {
		t.Fatalf("text output lacks the winner or the view:\n%s", text[:min(len(text), 500)])
	}
	csv := MustRun(t, "standings", "--feed", euc, "--format", "csv")
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 54 || !strings.HasPrefix(lines[1], "1,30,Segfault go BRRRR,8,") {
		t.Fatalf("csv: got %d lines, second %q", len(lines), lines[1])
	}
	// At 1:00 the board is an early one; the frozen public board at 4:30 hides the last half hour.
	early := MustRun(t, "standings", "--feed", euc, "--at", "1:00:00", "--format", "csv")
	if strings.Contains(strings.Split(early, "\n")[1], ",8,") {
		t.Fatalf("standings at 1:00 already show 8 solved")
	}
	frozen := MustRun(t, "standings", "--feed", euc, "--at", "4:30:00", "--format", "text")
	if !strings.Contains(frozen, "Frozen from 4:00:00") {
		t.Fatalf("standings at 4:30 do not say they are frozen:\n%s", frozen[:200])
	}
	group := MustRun(t, "standings", "--feed", euc, "--group", "37117", "--format", "csv")
	if n := len(strings.Split(strings.TrimSpace(group), "\n")) - 1; n != 41 {
		t.Fatalf("group 37117: got %d rows, want 41", n)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nope"},
		{"standings"},
		{"standings", "--feed", "x", "--format", "xml"},
		{"standings", "--feed", "x", "--view", "spy"},
		{"standings", "--feed", filepath.Join(t.TempDir(), "missing.ndjson")},
		{"bench"},
		{"gen", "--rules", "chess"},
		{"standings", "--feed", emptyFeed(t)},
		{"export", "--format", "tsv", emptyFeed(t)},
		{"standings", "--feed", noStartFeed(t), "--at", "2026-01-01T11:00:00Z"},
		{"serve", "--max-body", "0"},
		{"serve", "--max-body", "1073741824"},
		{"serve", "--redis", "redis://127.0.0.1:1"},
	} {
		if _, _, err := run(args...); err == nil {
			t.Errorf("rankd %v: got no error", args)
		}
	}
}

func TestBadLinesAreReportedAndSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	lines := strings.Join([]string{
		`{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"ok","penalty":false,"solved":true}}`,
		`{"type":"problems","id":"a","data":{"id":"a","label":"A","name":"A","ordinal":0,"test_data_count":1}}`,
		`{"type":"teams","id":"t","data":{"id":"t","name":"T","label":"t"}}`,
		`this is not json`,
		`{"type":"submissions","id":"1","data":{"id":"1","team_id":"ghost","problem_id":"a","contest_time":"0:10:00"}}`,
		`{"type":"submissions","id":"2","data":{"id":"2","team_id":"t","problem_id":"a","contest_time":"0:10:00"}}`,
		`{"type":"judgements","id":"j","data":{"id":"j","submission_id":"2","judgement_type_id":"AC","start_contest_time":"0:10:01"}}`,
	}, "\n")
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run("standings", "--feed", path, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "line 5") || !strings.Contains(errOut, `unknown team "ghost"`) || !strings.Contains(errOut, "line 6") ||
		!strings.Contains(errOut, "2 events skipped in all") {
		t.Fatalf("stderr does not report the bad lines:\n%s", errOut)
	}
	if !strings.Contains(out, "1,t,T,1,10") {
		t.Fatalf("the good lines were not applied:\n%s", out)
	}
}

func TestGenAndBench(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.ndjson")
	MustRun(t, "gen", "--teams", "50", "--submissions", "2000", "--seed", "7", "--out", path)
	again := MustRun(t, "gen", "--teams", "50", "--submissions", "2000", "--seed", "7")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != again {
		t.Fatalf("gen is not deterministic")
	}
	out := MustRun(t, "bench", "--feed", path, "--json")
	last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	var res map[string]any
	if err := json.Unmarshal([]byte(last), &res); err != nil {
		t.Fatalf("last line is not JSON: %q: %v", last, err)
	}
	for _, k := range []string{"events", "parse_seconds", "apply_seconds", "cold_apply_seconds", "batch", "apply_events_per_sec", "ns_per_event", "allocs_per_event", "bytes_per_submission"} {
		if _, ok := res[k]; !ok {
			t.Errorf("bench JSON lacks %q", k)
		}
	}
	if res["events"].(float64) < 2000 || res["skipped"].(float64) != 0 {
		t.Errorf("got %v judgements applied and %v skipped, want at least 2000 and none", res["events"], res["skipped"])
	}
	// A line that is no event and an event refused are both counted as skipped.
	bad := filepath.Join(t.TempDir(), "bad.ndjson")
	if err := os.WriteFile(bad, append(slices.Clone(first), "garbage\n{\"type\":\"judgements\",\"data\":{\"id\":\"zz\",\"submission_id\":\"nope\",\"judgement_type_id\":\"AC\"}}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out = MustRun(t, "bench", "--feed", bad, "--json")
	if err := json.Unmarshal([]byte(strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])), &res); err != nil || res["skipped"].(float64) != 2 {
		t.Errorf("a feed with a bad line and a refused event: got %v skipped (%v), want 2", res["skipped"], err)
	}
	// Every rules kind generates a feed each line of which validates as a CCS event, and whose CCS
	// scoreboard validates.
	v := ccstest.SchemaValidator(t, "scoreboard.json")
	lines := ccstest.SchemaValidator(t, "event-feed.json")
	for _, rules := range []string{"icpc", "oi", "ioi", "ctf"} {
		p := filepath.Join(t.TempDir(), rules+".ndjson")
		MustRun(t, "gen", "--rules", rules, "--teams", "20", "--submissions", "300", "--out", p)
		feed, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(feed), []byte("\n")) {
			lines.Validate(t, line)
		}
		v.Validate(t, []byte(MustRun(t, "standings", "--feed", p, "--format", "ccs")))
	}
}

// emptyFeed returns a feed that defines no contest.
func emptyFeed(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "empty.ndjson")
	if err := os.WriteFile(path, []byte("\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// noStartFeed returns a feed whose contest has no start time.
func noStartFeed(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "nostart.ndjson")
	line := `{"type":"contest","id":"c","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"pass-fail","start_time":null}}`
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// What the CLI says of small mistakes, and of the moment it shows.
func TestCLIMessages(t *testing.T) {
	euc := feed(t, "euc2025")
	t.Setenv("RANKD_JUDGE_TOKEN", "")
	t.Setenv("RANKD_ADMIN_TOKEN", "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"standings", "--feed", euc, "extra"}, `unexpected argument "extra"`},
		{[]string{"loadtest", "--contest", "c", "--mode", "ingest", "--feed", euc}, "set RANKD_JUDGE_TOKEN"},
	} {
		_, errOut, err := run(tt.args...)
		if err == nil || !strings.Contains(errOut, tt.want) {
			t.Errorf("rankd %s: got %v, %q; want an error saying %q", strings.Join(tt.args, " "), err, errOut, tt.want)
		}
	}
	// euc2025 is frozen from 4:00:00: the public board of an earlier moment is not.
	for _, tt := range []struct {
		at     string
		frozen bool
	}{{"1:00:00", false}, {"4:30:00", true}} {
		out := MustRun(t, "standings", "--feed", euc, "--at", tt.at)
		if got := strings.Contains(out, "Frozen from"); got != tt.frozen {
			t.Errorf("--at %s: says frozen %t, want %t", tt.at, got, tt.frozen)
		}
	}
}

// A public board whose frozen results have all been revealed, step by step, does not say that later
// submissions show as pending.
func TestStandingsTextRevealed(t *testing.T) {
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	b := board.New()
	err := gen.Generate(gen.Config{Seed: 2, ContestID: "c", Teams: 20, Problems: 5, Submissions: 400}, func(ev rankd.Event) error {
		if _, err := b.Apply(&ev); err != nil {
			return err
		}
		return w.Write(ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, remaining := b.Reveal(); remaining == 0 {
		t.Fatal("the generated contest has nothing frozen to reveal")
	}
	for {
		step, next, _ := b.Reveal()
		if next == nil {
			break
		}
		ev := rankd.Event{Type: rankd.EventReveal, ID: strconv.Itoa(step + 1),
			Reveal: &rankd.Reveal{Step: step + 1, TeamID: next.TeamID, ProblemID: next.ProblemID}}
		if _, err := b.Apply(&ev); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	revealed := filepath.Join(t.TempDir(), "revealed.ndjson")
	if err := os.WriteFile(revealed, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := MustRun(t, "standings", "--feed", revealed)
	if strings.Contains(out, "show as pending") || !strings.Contains(out, "every result since revealed") {
		t.Errorf("got\n%.300s\nwant it to say every frozen result is revealed", out)
	}
}
