package ccs_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
	"rankd/ccs/ccstest"
)

func TestWriterLines(t *testing.T) {
	start := MustTime(t, "2024-04-18T11:47:59.000+02:00")
	contest := &rankd.Contest{ID: "wf47", Name: "WF47", FormalName: "47th ICPC World Finals", Start: start,
		Duration: 5 * time.Hour, FreezeDuration: time.Hour, PenaltyTime: 20 * time.Minute}
	events := []rankd.Event{
		{Type: rankd.EventContest, ID: "wf47", Token: "cd<1", Contest: contest},
		{Type: rankd.EventSubmission, ID: "181", Submission: &rankd.Submission{ID: "181", TeamID: "47020", ProblemID: "riddle", Time: rel(t, "0:03:14.969")}},
		{Type: rankd.EventSubmission, ID: "182", Submission: &rankd.Submission{ID: "182", TeamID: "47020", ProblemID: "riddle", Time: rel(t, "0:03:20"),
			LanguageID: "java", EntryPoint: "Main", Files: `[{"href":"contests/wf47/submissions/182/files","mime":"application/zip"}]`}},
		{Type: rankd.EventJudgement, Judgement: &rankd.Judgement{ID: "537", SubmissionID: "181", StartTime: rel(t, "0:03:17.252")}},
		{Type: rankd.EventJudgement, ID: "537", Judgement: &rankd.Judgement{ID: "537", SubmissionID: "181", TypeID: "WA", StartTime: rel(t, "0:03:17.252"), EndTime: rel(t, "0:03:19.688")}},
		{Type: rankd.EventState, State: &rankd.State{Started: &start}},
		{Type: rankd.EventTeam, ID: "41", Delete: true, Token: "x"},
		{Type: rankd.EventBan, ID: "41", Ban: &rankd.Ban{TeamID: "41", Banned: true}},
		{Type: rankd.EventBan, ID: "41", Delete: true, Ban: &rankd.Ban{TeamID: "41"}},
		{Type: rankd.EventTeam, Team: &rankd.Team{ID: "41", Label: "41", Name: "Quote \" and \\ and\nnewline\u2028"}},
		{Type: rankd.EventAward, Award: &rankd.Award{ID: "winner", Citation: "Winner"}},
		// No label: the id, as /teams and /problems serve them.
		{Type: rankd.EventTeam, Team: &rankd.Team{ID: "42", Name: "Nameless"}},
		{Type: rankd.EventProblem, Problem: &rankd.Problem{ID: "riddle", Name: "Riddle"}},
	}
	want := `{"type":"contest","id":null,"data":{"id":"wf47","name":"WF47","formal_name":"47th ICPC World Finals","start_time":"2024-04-18T11:47:59.000+02:00","duration":"5:00:00.000","scoreboard_freeze_duration":"1:00:00.000","scoreboard_type":"pass-fail","penalty_time":20},"token":"cd<1"}
{"type":"submissions","id":"181","data":{"id":"181","problem_id":"riddle","team_id":"47020","time":"2024-04-18T11:51:13.969+02:00","contest_time":"0:03:14.969","entry_point":null,"files":[]}}
{"type":"submissions","id":"182","data":{"id":"182","language_id":"java","problem_id":"riddle","team_id":"47020","time":"2024-04-18T11:51:19.000+02:00","contest_time":"0:03:20.000","entry_point":"Main","files":[{"href":"contests/wf47/submissions/182/files","mime":"application/zip"}]}}
{"type":"judgements","id":"537","data":{"id":"537","submission_id":"181","judgement_type_id":null,"start_contest_time":"0:03:17.252","start_time":"2024-04-18T11:51:16.252+02:00","end_contest_time":null,"end_time":null}}
{"type":"judgements","id":"537","data":{"id":"537","submission_id":"181","judgement_type_id":"WA","start_contest_time":"0:03:17.252","start_time":"2024-04-18T11:51:16.252+02:00","end_contest_time":"0:03:19.688","end_time":"2024-04-18T11:51:18.688+02:00"}}
{"type":"state","id":null,"data":{"started":"2024-04-18T11:47:59.000+02:00","frozen":null,"ended":null,"thawed":null,"finalized":null,"end_of_updates":null}}
{"type":"teams","id":"41","data":null,"token":"x"}
{"type":"bans","id":"41","data":{"team_id":"41","banned":true}}
{"type":"bans","id":"41","data":null}
{"type":"teams","id":"41","data":{"id":"41","label":"41","name":"Quote \" and \\ and\nnewline\u2028"}}
{"type":"awards","id":"winner","data":{"id":"winner","citation":"Winner","team_ids":[]}}
{"type":"teams","id":"42","data":{"id":"42","label":"42","name":"Nameless"}}
{"type":"problems","id":"riddle","data":{"id":"riddle","label":"riddle","name":"Riddle","ordinal":0}}
`
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		if len(gl) != len(wl) {
			t.Errorf("got %d lines, want %d", len(gl), len(wl))
		}
	}
}

// extensionEvents holds events with every field and every extension set, and the corner cases of the
// writer's encoding.
func extensionEvents(tb testing.TB) []rankd.Event {
	start := MustTime(tb, "2025-03-02T09:30:00.000Z")
	started := MustTime(tb, "2025-03-02T09:31:00.500+05:30")
	return []rankd.Event{
		{Type: rankd.EventContest, ID: "ctf", Token: "1", Contest: &rankd.Contest{ID: "ctf", Name: "CTF", FormalName: "A CTF",
			Rules: rankd.CTF, Start: start, Duration: 48 * time.Hour, FreezeDuration: 2 * time.Hour, PenaltyTime: 90 * time.Second,
			OIMode: rankd.OILast, HideUntilEnd: true, TieByTime: true, FirstBlood: []int64{50, 30, 10},
			Medals: rankd.Medals{Gold: 1, Silver: 2, Bronze: 3}}},
		{Type: rankd.EventContest, ID: "oi", Contest: &rankd.Contest{ID: "oi", Name: "OI", FormalName: "OI", Rules: rankd.OI,
			Duration: 5 * time.Hour, PenaltyTime: rankd.DefaultPenaltyTime}},
		{Type: rankd.EventContest, ID: "oi10", Contest: &rankd.Contest{ID: "oi10", Name: "OI", FormalName: "OI", Rules: rankd.OI,
			Start: start, Duration: 5 * time.Hour, PenaltyTime: 10 * time.Minute, Medals: rankd.Medals{Bronze: 3}}},
		{Type: rankd.EventContest, ID: "ioi", Contest: &rankd.Contest{ID: "ioi", Name: "IOI", FormalName: "IOI", Rules: rankd.IOI,
			Start: start, Duration: 5 * time.Hour, PenaltyTime: rankd.DefaultPenaltyTime, TieByTime: true}},
		{Type: rankd.EventContest, ID: "icpc", Contest: &rankd.Contest{ID: "icpc", Name: "ICPC", FormalName: "ICPC", Rules: rankd.ICPC,
			Start: start, Duration: 5 * time.Hour, FreezeDuration: time.Hour, PenaltyTime: 0, Medals: rankd.Medals{Gold: 4, Silver: 4, Bronze: 4}}},
		{Type: rankd.EventJudgementType, ID: "CE", JudgementType: &rankd.JudgementType{ID: "CE", Name: "compiler error"}},
		{Type: rankd.EventJudgementType, ID: "AC", JudgementType: &rankd.JudgementType{ID: "AC", Name: "correct", Solved: true}},
		{Type: rankd.EventProblem, ID: "web1", Problem: &rankd.Problem{ID: "web1", Label: "W1", Name: "Web", Ordinal: 3, Color: "red",
			RGB: "#f00", Value: 500, Minimum: 100, Decay: 20, Function: rankd.ValueDEFCON, MaxScore: 1e-9, Subtasks: []float64{30, 70.25, 1e22}}},
		{Type: rankd.EventProblem, ID: "p", Problem: &rankd.Problem{ID: "p", Label: "P", Name: "Plain", Value: -5}},
		{Type: rankd.EventGroup, ID: "g", Group: &rankd.Group{ID: "g", Name: "G", Hidden: true}},
		{Type: rankd.EventOrganization, ID: "o", Organization: &rankd.Organization{ID: "o", Name: "O", FormalName: "Ø Üniversity", Country: "NOR"}},
		{Type: rankd.EventTeam, ID: "t", Token: "tok", Team: &rankd.Team{ID: "t", Label: "7", Name: "Tab\there \"q\" \x01 \u2029 中文",
			DisplayName: "D", OrganizationID: "o", GroupIDs: []string{"g", "h"}, Hidden: true}},
		{Type: rankd.EventSubmission, ID: "s1", Submission: &rankd.Submission{ID: "s1", TeamID: "t", ProblemID: "web1", Time: -90 * time.Second,
			LanguageID: "java", EntryPoint: "pkg.Main \"1\"", Files: `[{"href":"contests/ctf/submissions/s1/files","mime":"application/zip",` +
				`"filename":"s1 \u00e9\/é.zip","hash":"d41d8cd98f00b204e9800998ecf8427e","x":[1.5e3,true,null,{}]},{"href":"b","mime":"text/x-c"}]`}},
		{Type: rankd.EventState, State: &rankd.State{Started: &started}},
		{Type: rankd.EventSubmission, ID: "s2", Submission: &rankd.Submission{ID: "s2", TeamID: "t", ProblemID: "web1", Time: 47*time.Hour + time.Millisecond,
			LanguageID: "cpp"}},
		{Type: rankd.EventSubmission, ID: "s3", Submission: &rankd.Submission{ID: "s3", TeamID: "t", ProblemID: "p", Time: time.Hour,
			LanguageID: "python3", EntryPoint: "main.py", Files: `[{"href":"s3","mime":"application/zip"}]`}},
		{Type: rankd.EventJudgement, ID: "j1", Judgement: &rankd.Judgement{ID: "j1", SubmissionID: "s2", TypeID: "AC",
			StartTime: time.Hour, EndTime: time.Hour + 2*time.Second, Score: 99.5, SubtaskScores: []float64{30, 69.5, 0}}},
		{Type: rankd.EventJudgement, ID: "j2", Judgement: &rankd.Judgement{ID: "j2", SubmissionID: "s2", StartTime: -time.Second}},
		{Type: rankd.EventState, State: &rankd.State{Started: &start, Frozen: &start, Ended: &started, Thawed: &start, Finalized: &start, EndOfUpdates: &started}},
		{Type: rankd.EventAward, ID: "gold", Award: &rankd.Award{ID: "gold", Citation: "Gold medal", TeamIDs: []string{"t", "u"}}},
		{Type: rankd.EventBan, ID: "t", Ban: &rankd.Ban{TeamID: "t", Banned: true}},
		{Type: rankd.EventBan, ID: "t", Ban: &rankd.Ban{TeamID: "t"}},
		{Type: rankd.EventBan, ID: "t", Delete: true, Ban: &rankd.Ban{TeamID: "t"}},
		{Type: rankd.EventJudgement, ID: "j2", Delete: true},
		{Type: rankd.EventSubmission, ID: "s2", Delete: true, Token: "del"},
		{Type: rankd.EventTeam, ID: "t", Delete: true},
		{Type: rankd.EventProblem, ID: "p", Delete: true},
		{Type: rankd.EventGroup, ID: "g", Delete: true},
		{Type: rankd.EventOrganization, ID: "o", Delete: true},
		{Type: rankd.EventJudgementType, ID: "CE", Delete: true},
		{Type: rankd.EventAward, ID: "gold", Delete: true},
		{Type: rankd.EventState, Delete: true},
		{Type: rankd.EventContest, ID: "ctf", Delete: true},
		{Type: rankd.EventContest, Delete: true},
	}
}

func TestWriterRoundTrip(t *testing.T) {
	events := extensionEvents(t)
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatalf("Write(%s): %v", show(ev), err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, errs, _ := readAll(t, buf.String())
	for _, err := range errs {
		t.Errorf("reading back: %v", err)
	}
	if len(got) != len(events) {
		t.Fatalf("read back %d events, wrote %d", len(got), len(events))
	}
	lines := strings.Split(buf.String(), "\n")
	for i := range events {
		if c := got[i].Contest; c != nil {
			// A contest of default settings is written without the extension, and read back saying so.
			if want := !strings.Contains(lines[i], `"rankd":`); c.NoExtension != want {
				t.Errorf("event %d, written as %s: got NoExtension %t, want %t", i, lines[i], c.NoExtension, want)
			}
			c.NoExtension = false
		}
		if !sameEvent(got[i], events[i]) {
			t.Errorf("event %d, written as %s\n got %s\nwant %s", i, lines[i], show(got[i]), show(events[i]))
		}
	}
}

// TestWriterSchema checks the written objects against the 2023-06 event-feed schema, except rankd's own bans
// (not a CCS type) and a score contest with a penalty (which the schema forbids, and rankd keeps).
func TestWriterSchema(t *testing.T) {
	v := ccstest.SchemaValidator(t, "event-feed.json")
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	for _, ev := range extensionEvents(t) {
		if ev.Type == rankd.EventBan || ev.Type == rankd.EventContest && ev.ID == "oi10" {
			continue
		}
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		v.Validate(t, buf.Bytes())
		buf.Reset()
	}
}

// TestWriterSchemaWithoutLanguage checks the one way a submission rankd writes fails the schema: without
// language_id (the sender gave none, and rankd makes none up; docs/ccs.md). The line must pass once it is
// added, so that nothing else is missing.
func TestWriterSchemaWithoutLanguage(t *testing.T) {
	v := ccstest.SchemaValidator(t, "event-feed.json")
	start := MustTime(t, "2024-04-18T11:47:59.000+02:00")
	for _, tc := range []struct {
		name string
		sub  rankd.Submission
	}{
		{"no entry point, no files", rankd.Submission{ID: "1", TeamID: "t", ProblemID: "p", Time: time.Minute}},
		{"entry point and files", rankd.Submission{ID: "1", TeamID: "t", ProblemID: "p", Time: time.Minute, EntryPoint: "Main",
			Files: `[{"href":"f","mime":"application/zip"}]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := ccs.NewWriter(&buf)
			if err := w.Write(rankd.Event{Type: rankd.EventState, State: &rankd.State{Started: &start}}); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			buf.Reset()
			if err := w.Write(rankd.Event{Type: rankd.EventSubmission, Submission: &tc.sub}); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			checkWithoutLanguage(t, v, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
		})
	}
}

// checkWithoutLanguage checks a written submission line without language_id: it fails the schema, and passes
// once a language_id is added.
func checkWithoutLanguage(tb testing.TB, v *ccstest.Validator, line []byte) {
	tb.Helper()
	if bytes.Contains(line, []byte(`"language_id"`)) {
		tb.Fatalf("the line has a language_id: %s", line)
	}
	if v.Check(line) == nil {
		tb.Errorf("a submission without language_id passed the schema; the writer or the schema changed: %s", line)
	}
	i := bytes.Index(line, []byte(`"data":{`))
	if i < 0 {
		tb.Fatalf("no data object in %s", line)
	}
	i += len(`"data":{`)
	v.Validate(tb, append(append(append([]byte{}, line[:i]...), `"language_id":"x",`...), line[i:]...))
}

func TestWriterErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   rankd.Event
		want string
	}{
		{"unknown type", rankd.Event{Type: rankd.EventUnknown}, "unknown type 0"},
		{"type out of range", rankd.Event{Type: 200, ID: "x"}, "unknown type 200"},
		{"no object", rankd.Event{Type: rankd.EventTeam, ID: "1"}, "write teams event: no teams object"},
		{"no state", rankd.Event{Type: rankd.EventState}, "write state event: no state object"},
		{"ids differ", rankd.Event{Type: rankd.EventTeam, ID: "1", Team: &rankd.Team{ID: "2"}}, `id "1" differs from the object's id "2"`},
		{"NaN score", rankd.Event{Type: rankd.EventJudgement, Judgement: &rankd.Judgement{ID: "j", Score: math.NaN()}}, `write judgements event "j": NaN is not a JSON number`},
		{"infinite max score", rankd.Event{Type: rankd.EventProblem, Problem: &rankd.Problem{ID: "p", MaxScore: math.Inf(1)}}, "+Inf is not a JSON number"},
		{"infinite subtask", rankd.Event{Type: rankd.EventProblem, Problem: &rankd.Problem{ID: "p", Subtasks: []float64{1, math.Inf(-1)}}}, "-Inf is not a JSON number"},
		{"NaN subtask score", rankd.Event{Type: rankd.EventJudgement, Judgement: &rankd.Judgement{ID: "j", SubtaskScores: []float64{math.NaN()}}}, "NaN is not a JSON number"},
		{"files not JSON", rankd.Event{Type: rankd.EventSubmission, Submission: &rankd.Submission{ID: "s", Files: `[{"href":"x"`}}, `write submissions event "s": files: not a JSON array of objects: [{"href":"x"`},
		{"files not an array", rankd.Event{Type: rankd.EventSubmission, Submission: &rankd.Submission{ID: "s", Files: `{"href":"x"}`}}, "files: not a JSON array of objects"},
		{"files not objects", rankd.Event{Type: rankd.EventSubmission, Submission: &rankd.Submission{ID: "s", Files: `[{},"x"]`}}, "files: not a JSON array of objects"},
		{"files empty text", rankd.Event{Type: rankd.EventSubmission, Submission: &rankd.Submission{ID: "s", Files: ` `}}, "files: not a JSON array of objects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := ccs.NewWriter(&buf)
			err := w.Write(tc.ev)
			if rankd.ErrorCode(err) != rankd.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an EINVALID error containing %q", err, tc.want)
			}
			w.Flush()
			if buf.Len() != 0 {
				t.Errorf("a failed Write wrote %q", buf.String())
			}
		})
	}
}

func TestWriterReplacesInvalidUTF8(t *testing.T) {
	var buf bytes.Buffer
	w := ccs.NewWriter(&buf)
	if err := w.Write(rankd.Event{Type: rankd.EventGroup, Group: &rankd.Group{ID: "g", Name: "a\xffb"}}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	evs, errs, _ := readAll(t, buf.String())
	if len(errs) != 0 || len(evs) != 1 || evs[0].Group.Name != "a\uFFFDb" {
		t.Errorf("got %s (errors %v) from %s; want the name with U+FFFD", show(evs[0]), errs, buf.String())
	}
}
