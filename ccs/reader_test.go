package ccs_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"rankd"
	"rankd/ccs"
)

// contestLine starts the feeds of the tests that need a contest start (2025-03-02T09:30:00Z).
const contestLine = `{"type":"contest","id":"c","data":{"id":"c","name":"C","start_time":"2025-03-02T09:30:00.000Z","duration":"5:00:00.000","scoreboard_type":"pass-fail","penalty_time":20},"token":"t0"}`

func TestReaderObjects(t *testing.T) {
	start := MustTime(t, "2025-03-02T09:30:00.000Z")
	contest := rankd.Event{Type: rankd.EventContest, ID: "c", Token: "t0", Contest: &rankd.Contest{
		ID: "c", Name: "C", FormalName: "C", Start: start, Duration: 5 * time.Hour, PenaltyTime: 20 * time.Minute,
		NoExtension: true}}
	for _, tc := range []struct {
		name string
		feed string
		want []rankd.Event
	}{
		{
			name: "contest 2023-06, penalty in minutes",
			feed: `{"type":"contest","id":null,"data":{"id":"wf47_finals","name":"47th ICPC World Finals","formal_name":"WF47","start_time":"2024-04-18T11:47:59.000+02:00","duration":"5:00:00.000","scoreboard_freeze_duration":"1:00:00.000","scoreboard_type":"pass-fail","penalty_time":20,"logo":[]},"token":"cd<1"}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "wf47_finals", Token: "cd<1", Contest: &rankd.Contest{
				ID: "wf47_finals", Name: "47th ICPC World Finals", FormalName: "WF47", Rules: rankd.ICPC,
				Start: MustTime(t, "2024-04-18T11:47:59.000+02:00"), Duration: 5 * time.Hour,
				FreezeDuration: time.Hour, PenaltyTime: 20 * time.Minute, NoExtension: true}}},
		},
		{
			name: "contest, penalty as a relative time, no scoreboard_type nor formal_name",
			feed: `{"type":"contest","id":"euc2025","data":{"id":"euc2025","name":"EUC 2025","start_time":"2025-03-02T09:30:00.000Z","duration":"5:00:00.000","penalty_time":"0:15:00.000"}}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "euc2025", Contest: &rankd.Contest{
				ID: "euc2025", Name: "EUC 2025", FormalName: "EUC 2025", Start: start, Duration: 5 * time.Hour,
				PenaltyTime: 15 * time.Minute, NoExtension: true}}},
		},
		{
			name: "score contest without penalty or start",
			feed: `{"type":"contest","data":{"id":"oi","name":"OI","start_time":null,"duration":"3:00:00","scoreboard_type":"score"}}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "oi", Contest: &rankd.Contest{
				ID: "oi", Name: "OI", FormalName: "OI", Rules: rankd.OI, Duration: 3 * time.Hour,
				PenaltyTime: rankd.DefaultPenaltyTime, NoExtension: true}}},
		},
		{
			name: "contest with every extension",
			feed: `{"type":"contest","data":{"id":"ctf","name":"CTF","duration":"48:00:00","scoreboard_type":"score","rankd":{"rules":"ctf","oi_mode":"last","hide_until_end":true,"tie_by_time":true,"first_blood":[50,30,10],"medals":{"gold":4,"silver":4,"bronze":4},"future":1}}}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "ctf", Contest: &rankd.Contest{
				ID: "ctf", Name: "CTF", FormalName: "CTF", Rules: rankd.CTF, Duration: 48 * time.Hour,
				PenaltyTime: rankd.DefaultPenaltyTime, OIMode: rankd.OILast, HideUntilEnd: true, TieByTime: true,
				FirstBlood: []int64{50, 30, 10}, Medals: rankd.Medals{Gold: 4, Silver: 4, Bronze: 4}}}},
		},
		{
			name: "the extension's rules win over scoreboard_type",
			feed: `{"type":"contest","data":{"id":"x","name":"X","duration":"5:00:00","scoreboard_type":"score","rankd":{"rules":"ioi","oi_mode":"best"}}}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "x", Contest: &rankd.Contest{
				ID: "x", Name: "X", FormalName: "X", Rules: rankd.IOI, Duration: 5 * time.Hour,
				PenaltyTime: rankd.DefaultPenaltyTime}}},
		},
		{
			name: "contest 2020-03, plural type",
			feed: `{"id":"e1","type":"contests","op":"create","data":{"id":"c","name":"C","start_time":"2025-03-02T09:30:00.000Z","duration":"5:00:00.000","penalty_time":20}}`,
			want: []rankd.Event{{Type: rankd.EventContest, ID: "c", Token: "e1", Contest: &rankd.Contest{
				ID: "c", Name: "C", FormalName: "C", Start: start, Duration: 5 * time.Hour, PenaltyTime: 20 * time.Minute,
				NoExtension: true}}},
		},
		{
			name: "judgement types, penalty defaults to not solved",
			feed: `{"type":"judgement-types","id":"CE","data":{"id":"CE","name":"compiler error","penalty":false,"solved":false}}
{"type":"judgement-types","id":"WA","data":{"id":"WA","name":"wrong answer","solved":false}}
{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"correct","solved":true}}`,
			want: []rankd.Event{
				{Type: rankd.EventJudgementType, ID: "CE", JudgementType: &rankd.JudgementType{ID: "CE", Name: "compiler error"}},
				{Type: rankd.EventJudgementType, ID: "WA", JudgementType: &rankd.JudgementType{ID: "WA", Name: "wrong answer", Penalty: true}},
				{Type: rankd.EventJudgementType, ID: "AC", JudgementType: &rankd.JudgementType{ID: "AC", Name: "correct", Solved: true}},
			},
		},
		{
			name: "judgement types without a penalty flag: a compile error costs nothing",
			feed: `{"type":"judgement-types","id":"CE","data":{"id":"CE","name":"Compile Error","solved":false}}
{"type":"judgement-types","id":"ce2","data":{"id":"ce2","name":"compilation failed","solved":false}}
{"type":"judgement-types","id":"RTE","data":{"id":"RTE","name":"run-time error","solved":false}}`,
			want: []rankd.Event{
				{Type: rankd.EventJudgementType, ID: "CE", JudgementType: &rankd.JudgementType{ID: "CE", Name: "Compile Error"}},
				{Type: rankd.EventJudgementType, ID: "ce2", JudgementType: &rankd.JudgementType{ID: "ce2", Name: "compilation failed"}},
				{Type: rankd.EventJudgementType, ID: "RTE", JudgementType: &rankd.JudgementType{ID: "RTE", Name: "run-time error", Penalty: true}},
			},
		},
		{
			name: "problem, plain and with the extension",
			feed: `{"type":"problems","id":"A-x","data":{"id":"A-x","label":"A","name":"Ads","ordinal":0,"color":"purple","rgb":"#800080","test_data_count":41,"time_limit":2}}
{"type":"problems","id":"web1","data":{"id":"web1","label":"W1","name":"Web","ordinal":3,"max_score":100,"rankd":{"value":500,"minimum":100,"decay":20,"function":"logarithmic","subtasks":[30,70.5]}}}`,
			want: []rankd.Event{
				{Type: rankd.EventProblem, ID: "A-x", Problem: &rankd.Problem{ID: "A-x", Label: "A", Name: "Ads", Color: "purple", RGB: "#800080", TestDataCount: 41}},
				{Type: rankd.EventProblem, ID: "web1", Problem: &rankd.Problem{ID: "web1", Label: "W1", Name: "Web", Ordinal: 3,
					MaxScore: 100, Value: 500, Minimum: 100, Decay: 20, Function: rankd.ValueLogarithmic, Subtasks: []float64{30, 70.5}}},
			},
		},
		{
			name: "problem, a test data count that is not one left out",
			feed: `{"type":"problems","id":"a","data":{"id":"a","test_data_count":"41"}}
{"type":"problems","id":"b","data":{"id":"b","test_data_count":-1}}
{"type":"problems","id":"c","data":{"id":"c","test_data_count":2.5}}`,
			want: []rankd.Event{
				{Type: rankd.EventProblem, ID: "a", Problem: &rankd.Problem{ID: "a"}},
				{Type: rankd.EventProblem, ID: "b", Problem: &rankd.Problem{ID: "b"}},
				{Type: rankd.EventProblem, ID: "c", Problem: &rankd.Problem{ID: "c"}},
			},
		},
		{
			name: "groups, organizations, teams",
			feed: `{"type":"groups","id":"g1","data":{"id":"g1","icpc_id":"1","name":"Observers","hidden":true}}
{"type":"organizations","id":"2","data":{"id":"2","name":"UAIC","formal_name":"Alexandru Ioan Cuza University of Ia\u0219i","country":"ROU","logo":[{"href":"x","mime":"image/png"}]}}
{"type":"teams","id":"41","data":{"id":"41","label":"41","name":"AGH1","display_name":"AGH","organization_id":"2","group_ids":["g1","g2"],"hidden":false,"location":{"x":1,"y":2,"rotation":0}}}
{"type":"teams","id":"42","data":{"id":"42","name":"Ghost","hidden":true,"group_ids":[],"organization_id":null}}`,
			want: []rankd.Event{
				{Type: rankd.EventGroup, ID: "g1", Group: &rankd.Group{ID: "g1", Name: "Observers", Hidden: true}},
				{Type: rankd.EventOrganization, ID: "2", Organization: &rankd.Organization{ID: "2", Name: "UAIC", FormalName: "Alexandru Ioan Cuza University of Iași", Country: "ROU"}},
				{Type: rankd.EventTeam, ID: "41", Team: &rankd.Team{ID: "41", Label: "41", Name: "AGH1", DisplayName: "AGH", OrganizationID: "2", GroupIDs: []string{"g1", "g2"}}},
				{Type: rankd.EventTeam, ID: "42", Team: &rankd.Team{ID: "42", Name: "Ghost", Hidden: true}},
			},
		},
		{
			name: "submissions: contest_time wins, else time minus the contest start",
			feed: contestLine + `
{"type":"submissions","id":"1","data":{"id":"1","team_id":"28","problem_id":"J","language_id":"cpp","contest_time":"0:04:48.183","time":"2030-01-01T00:00:00.000Z"}}
{"type":"submissions","id":"2","data":{"id":"2","team_id":"28","problem_id":"J","time":"2025-03-02T11:34:48.183+02:00"}}
{"type":"submissions","id":"3","data":{"id":"3","team_id":"28","problem_id":"J","time":"2025-03-02T09:29:00Z"}}`,
			want: []rankd.Event{contest,
				{Type: rankd.EventSubmission, ID: "1", Submission: &rankd.Submission{ID: "1", TeamID: "28", ProblemID: "J", Time: rel(t, "0:04:48.183"), LanguageID: "cpp"}},
				{Type: rankd.EventSubmission, ID: "2", Submission: &rankd.Submission{ID: "2", TeamID: "28", ProblemID: "J", Time: rel(t, "0:04:48.183")}},
				{Type: rankd.EventSubmission, ID: "3", Submission: &rankd.Submission{ID: "3", TeamID: "28", ProblemID: "J", Time: -time.Minute}},
			},
		},
		{
			name: "submissions: language, entry point and files, in every style",
			feed: `{"type":"submissions","id":"1","data":{"id":"1","language_id":"java","problem_id":"J","team_id":"28","contest_time":"0:01:00","entry_point":"Main","files":[{"href":"contests/c/submissions/1/files","mime":"application/zip"}],"reaction":null}}
{"type":"submissions","id":"2","data":{"id":"2","language_id":"cpp","problem_id":"J","team_id":"28","contest_time":"0:01:00","entry_point":null,"files":[]}}
{"type":"submissions","id":"3","data":{"id":"3","problem_id":"J","team_id":"28","contest_time":"0:01:00","files":[ { "href" : "a b\u00e9\/" , "mime":"x", "n": -1.5E+3, "o":{"p":[ ],"q":true} } ,` + "\t\r" + ` {"href":"é","mime":"y","href":"dup"} ]}}
{"type":"submissions","id":"4","data":{"id":"4","problem_id":"J","team_id":"28","contest_time":"0:01:00","files":null,"entry_point":"","language_id":null}}
{"id":"e5","type":"submissions","op":"create","data":{"id":"5","language_id":"kotlin","problem_id":"J","team_id":"28","contest_time":"0:01:00","entry_point":"MainKt","files":[{"href":"f","mime":"m"}]}}
{"type":"submissions","id":null,"data":[{"id":"6","language_id":"c","problem_id":"J","team_id":"28","contest_time":"0:01:00","files":[{"href":"g","mime":"m"}]}]}
{"type":"submissions","id":"7","data":{"id":"7","language_id":"py\u0074hon3","problem_id":"J","team_id":"28","contest_time":"0:01:00","entry_point":"a\"b","files":[{"href":"a` + "\xff" + `b","mime":"` + "\u2028" + `"}]}}`,
			want: []rankd.Event{
				{Type: rankd.EventSubmission, ID: "1", Submission: &rankd.Submission{ID: "1", TeamID: "28", ProblemID: "J", Time: time.Minute,
					LanguageID: "java", EntryPoint: "Main", Files: `[{"href":"contests/c/submissions/1/files","mime":"application/zip"}]`}},
				{Type: rankd.EventSubmission, ID: "2", Submission: &rankd.Submission{ID: "2", TeamID: "28", ProblemID: "J", Time: time.Minute, LanguageID: "cpp"}},
				{Type: rankd.EventSubmission, ID: "3", Submission: &rankd.Submission{ID: "3", TeamID: "28", ProblemID: "J", Time: time.Minute,
					Files: `[{"href":"a b\u00e9\/","mime":"x","n":-1.5E+3,"o":{"p":[],"q":true}},{"href":"é","mime":"y","href":"dup"}]`}},
				{Type: rankd.EventSubmission, ID: "4", Submission: &rankd.Submission{ID: "4", TeamID: "28", ProblemID: "J", Time: time.Minute}},
				{Type: rankd.EventSubmission, ID: "5", Token: "e5", Submission: &rankd.Submission{ID: "5", TeamID: "28", ProblemID: "J", Time: time.Minute,
					LanguageID: "kotlin", EntryPoint: "MainKt", Files: `[{"href":"f","mime":"m"}]`}},
				{Type: rankd.EventSubmission, ID: "6", Submission: &rankd.Submission{ID: "6", TeamID: "28", ProblemID: "J", Time: time.Minute,
					LanguageID: "c", Files: `[{"href":"g","mime":"m"}]`}},
				// Invalid UTF-8 becomes U+FFFD and U+2028 is escaped, as the Writer does in strings.
				{Type: rankd.EventSubmission, ID: "7", Submission: &rankd.Submission{ID: "7", TeamID: "28", ProblemID: "J", Time: time.Minute,
					LanguageID: "python3", EntryPoint: `a"b`, Files: "[{\"href\":\"a\uFFFDb\",\"mime\":\"\\u2028\"}]"}},
			},
		},
		{
			name: "state started is the start absolute times are measured from",
			feed: contestLine + `
{"type":"state","data":{"started":"2025-03-02T09:31:00.000Z","frozen":null}}
{"type":"submissions","id":"1","data":{"id":"1","team_id":"28","problem_id":"J","time":"2025-03-02T09:41:00Z"}}`,
			want: []rankd.Event{contest,
				{Type: rankd.EventState, State: &rankd.State{Started: timePtr(t, "2025-03-02T09:31:00.000Z")}},
				{Type: rankd.EventSubmission, ID: "1", Submission: &rankd.Submission{ID: "1", TeamID: "28", ProblemID: "J", Time: 10 * time.Minute}},
			},
		},
		{
			name: "judgements: pending, judged, null verdict, absolute times, score and subtasks",
			feed: contestLine + `
{"type":"judgements","id":"1473","data":{"id":"1473","submission_id":"1457","start_contest_time":"0:04:49.109","start_time":"2025-03-02T09:34:49.110Z"}}
{"type":"judgements","id":"1473","data":{"id":"1473","submission_id":"1457","judgement_type_id":"WA","start_contest_time":"0:04:49.109","start_time":"2025-03-02T09:34:49.110Z","end_contest_time":"0:04:52.297","end_time":"2025-03-02T09:34:52.297Z"}}
{"type":"judgements","id":"9","data":{"id":"9","submission_id":"8","judgement_type_id":null,"start_time":"2025-03-02T09:40:00Z","end_time":null}}
{"type":"judgements","id":"10","data":{"id":"10","submission_id":"8","judgement_type_id":"AC","start_time":"2025-03-02T09:40:00Z","end_time":"2025-03-02T09:40:02.5Z","score":42.5,"rankd":{"subtask_scores":[10,32.5]}}}`,
			want: []rankd.Event{contest,
				{Type: rankd.EventJudgement, ID: "1473", Judgement: &rankd.Judgement{ID: "1473", SubmissionID: "1457", StartTime: rel(t, "0:04:49.109")}},
				{Type: rankd.EventJudgement, ID: "1473", Judgement: &rankd.Judgement{ID: "1473", SubmissionID: "1457", TypeID: "WA",
					StartTime: rel(t, "0:04:49.109"), EndTime: rel(t, "0:04:52.297")}},
				{Type: rankd.EventJudgement, ID: "9", Judgement: &rankd.Judgement{ID: "9", SubmissionID: "8", StartTime: 10 * time.Minute}},
				{Type: rankd.EventJudgement, ID: "10", Judgement: &rankd.Judgement{ID: "10", SubmissionID: "8", TypeID: "AC",
					StartTime: 10 * time.Minute, EndTime: 10*time.Minute + 2500*time.Millisecond, Score: 42.5, SubtaskScores: []float64{10, 32.5}}},
			},
		},
		{
			name: "state and awards",
			feed: `{"type":"state","data":{"started":"2025-03-02T09:30:00.000Z","ended":"2025-03-02T14:30:00.000Z","frozen":"2025-03-02T13:30:00.000Z","thawed":"2025-03-02T18:12:59.000Z","finalized":"2025-03-02T18:19:22.397Z","end_of_updates":"2025-03-02T18:19:22.397+01:00"},"token":"cdi2810"}
{"type":"state","data":{}}
{"type":"awards","id":"first-to-solve-C","data":{"id":"first-to-solve-C","team_ids":["2"],"citation":"First to solve problem C","parameters":{}}}
{"type":"awards","id":"winner","data":{"id":"winner","citation":"Winner","team_ids":null}}`,
			want: []rankd.Event{
				{Type: rankd.EventState, Token: "cdi2810", State: &rankd.State{
					Started: timePtr(t, "2025-03-02T09:30:00.000Z"), Ended: timePtr(t, "2025-03-02T14:30:00.000Z"),
					Frozen: timePtr(t, "2025-03-02T13:30:00.000Z"), Thawed: timePtr(t, "2025-03-02T18:12:59.000Z"),
					Finalized: timePtr(t, "2025-03-02T18:19:22.397Z"), EndOfUpdates: timePtr(t, "2025-03-02T18:19:22.397+01:00")}},
				{Type: rankd.EventState, State: &rankd.State{}},
				{Type: rankd.EventAward, ID: "first-to-solve-C", Award: &rankd.Award{ID: "first-to-solve-C", Citation: "First to solve problem C", TeamIDs: []string{"2"}}},
				{Type: rankd.EventAward, ID: "winner", Award: &rankd.Award{ID: "winner", Citation: "Winner"}},
			},
		},
		{
			name: "bans: ban, explicit unban, unban by delete, banned by default, id from the envelope",
			feed: `{"type":"bans","id":"41","data":{"team_id":"41","banned":true}}
{"type":"bans","id":"41","data":{"team_id":"41","banned":false}}
{"type":"bans","id":"41","data":null}
{"type":"bans","id":null,"data":{"team_id":"42"}}
{"type":"bans","id":"43","data":{}}
{"id":"e9","type":"bans","op":"delete","data":{"id":"44"}}`,
			want: []rankd.Event{
				{Type: rankd.EventBan, ID: "41", Ban: &rankd.Ban{TeamID: "41", Banned: true}},
				{Type: rankd.EventBan, ID: "41", Ban: &rankd.Ban{TeamID: "41"}},
				{Type: rankd.EventBan, ID: "41", Delete: true, Ban: &rankd.Ban{TeamID: "41"}},
				{Type: rankd.EventBan, ID: "42", Ban: &rankd.Ban{TeamID: "42", Banned: true}},
				{Type: rankd.EventBan, ID: "43", Ban: &rankd.Ban{TeamID: "43", Banned: true}},
				{Type: rankd.EventBan, ID: "44", Token: "e9", Delete: true, Ban: &rankd.Ban{TeamID: "44"}},
			},
		},
		{
			name: "deletes in both styles",
			feed: `{"type":"teams","id":"41","data":null,"token":"t1"}
{"type":"submissions","id":"7","data":null}
{"type":"contest","id":null,"data":null}
{"type":"state","data":null}
{"id":"e5","type":"judgements","op":"delete","data":{"id":"12"}}
{"id":"e6","type":"contests","op":"delete","data":{"id":"c"}}`,
			want: []rankd.Event{
				{Type: rankd.EventTeam, ID: "41", Delete: true, Token: "t1"},
				{Type: rankd.EventSubmission, ID: "7", Delete: true},
				{Type: rankd.EventContest, Delete: true},
				{Type: rankd.EventState, Delete: true},
				{Type: rankd.EventJudgement, ID: "12", Delete: true, Token: "e5"},
				{Type: rankd.EventContest, ID: "c", Delete: true, Token: "e6"},
			},
		},
		{
			name: "2020-03 updates, numeric event id",
			feed: `{"id":"17","type":"teams","op":"update","data":{"id":"3","name":"T3","label":"3"}}
{"id":18,"type":"groups","op":"create","data":{"id":"g","name":"G"}}`,
			want: []rankd.Event{
				{Type: rankd.EventTeam, ID: "3", Token: "17", Team: &rankd.Team{ID: "3", Name: "T3", Label: "3"}},
				{Type: rankd.EventGroup, ID: "g", Token: "18", Group: &rankd.Group{ID: "g", Name: "G"}},
			},
		},
		{
			// The line's token names one event: the last element's (the log refuses a token for two objects).
			name: "a whole collection is handed out one object at a time",
			feed: `{"type":"problems","id":null,"data":[{"id":"a","label":"A","name":"Asteroids","ordinal":1},{"id":"b","label":"B","name":"Bottles","ordinal":2},{"id":"c","label":"C","name":"Cats","ordinal":3}],"token":"p"}
{"type":"groups","data":[]}
{"type":"groups","id":null,"data":[{"id":"g","name":"G"}],"token":"q"}`,
			want: []rankd.Event{
				{Type: rankd.EventProblem, ID: "a", Problem: &rankd.Problem{ID: "a", Label: "A", Name: "Asteroids", Ordinal: 1}},
				{Type: rankd.EventProblem, ID: "b", Problem: &rankd.Problem{ID: "b", Label: "B", Name: "Bottles", Ordinal: 2}},
				{Type: rankd.EventProblem, ID: "c", Token: "p", Problem: &rankd.Problem{ID: "c", Label: "C", Name: "Cats", Ordinal: 3}},
				{Type: rankd.EventGroup, ID: "g", Token: "q", Group: &rankd.Group{ID: "g", Name: "G"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs, _ := readAll(t, tc.feed)
			for _, err := range errs {
				t.Errorf("unexpected error: %v", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !sameEvent(got[i], tc.want[i]) {
					t.Errorf("event %d:\n got %s\nwant %s", i, show(got[i]), show(tc.want[i]))
				}
			}
		})
	}
}

func TestReaderSkipsAndCounts(t *testing.T) {
	feed := `{"type":"languages","id":"c","data":{"id":"c","name":"C"}}

{"type":"clarifications","id":"78","data":{"id":"78","text":"hi"}}
{"type":"accounts","id":"live","data":{"id":"live"}}
{"type":"persons","id":"p","data":{"id":"p"}}
{"type":"runs","id":"r","data":{"id":"r"}}
{"type":"commentary","id":"m","data":{"id":"m"}}
{"type":"start-status","id":"s","data":{"id":"s"}}
{"type":"map-info","data":{"aisles":[]}}
{"type":"languages","id":"cpp","data":null}
{"id":"1","type":"languages","op":"create","data":{"id":"java"}}
{"type":"unknown","id":"u","data":{}}
{"type":"teams","id":"1","data":{"id":"1","name":"T","label":"1"}}
   
{"type":"future-thing","id":"x","data":{}}`
	evs, errs, r := readAll(t, feed)
	if len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	if len(evs) != 1 || evs[0].Type != rankd.EventTeam {
		t.Fatalf("got %d events, want the team only", len(evs))
	}
	want := map[string]int{"languages": 3, "clarifications": 1, "accounts": 1, "persons": 1, "runs": 1,
		"commentary": 1, "start-status": 1, "map-info": 1, "unknown": 1, "future-thing": 1}
	got := r.Skipped()
	if len(got) != len(want) {
		t.Errorf("Skipped() = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("Skipped()[%q] = %d, want %d", k, got[k], n)
		}
	}
	got["languages"] = 99 // a copy: the reader's counts stay
	if r.Skipped()["languages"] != 3 {
		t.Error("Skipped() returned the reader's own map")
	}
}

func TestReaderErrors(t *testing.T) {
	const sub = `{"type":"submissions","id":"1","data":{"id":"1","team_id":"t","problem_id":"p",`
	const jud = `{"type":"judgements","id":"1","data":{"id":"1","submission_id":"1","start_contest_time":"0:01:00",`
	const con = `{"type":"contest","data":{"id":"c","name":"C","duration":"5:00:00",`
	const prob = `{"type":"problems","id":"p","data":{"id":"p",`
	for _, tc := range []struct {
		name string
		feed string
		want string // the error's whole message when it starts with "line", else a part of it
	}{
		{"bad JSON", `{"type":`, `line 1: bad JSON: column 8: unexpected end of JSON input`},
		{"bad JSON within", `{"type":"teams" "id":"1"}`, `line 1: bad JSON: column 17: invalid character '"' after object key:value pair`},
		{"not an object", `[1,2]`, `line 1: not a JSON object`},
		{"trailing garbage", `{"type":"teams"} x`, `line 1: bad JSON: column 18: invalid character 'x' after top-level value`},
		{"no type", `{"id":"1","data":{}}`, `line 1: "type": required`},
		{"type not a string", `{"type":5,"id":"1","data":{}}`, `line 1: "type": want a string, got number`},
		{"no data", `{"type":"teams","id":"1"}`, `line 1: teams: "data": required`},
		{"id not a string", `{"type":"teams","id":1,"data":{"id":"1"}}`, `line 1: teams: "id": want a string, got number`},
		{"token not a string", `{"type":"teams","id":"1","data":{"id":"1"},"token":true}`, `line 1: teams: "token": want a string, got true`},
		{"delete without id", `{"type":"teams","id":null,"data":null}`, `line 1: teams: "id": required for a delete`},
		{"data not an object", `{"type":"teams","id":"1","data":"x"}`, `line 1: teams: "data": want an object, got string`},
		{"ids differ", `{"type":"teams","id":"1","data":{"id":"2"}}`, `line 1: teams: "id": "2" differs from the event's id "1"`},
		{"ids differ but print alike", "{\"type\":\"teams\",\"id\":\"e\u0301\",\"data\":{\"id\":\"\u00e9\"}}",
			`line 1: teams: "id": "\u00e9" differs from the event's id "e\u0301"`},
		{"no id at all", `{"type":"teams","data":{"name":"x"}}`, `line 1: teams: "id": required`},
		{"bool", `{"type":"teams","id":"1","data":{"id":"1","hidden":"yes"}}`, `line 1: teams: "hidden": want a boolean, got string`},
		{"array", `{"type":"teams","id":"1","data":{"id":"1","group_ids":"g"}}`, `line 1: teams: "group_ids": want an array, got string`},
		{"array of strings", `{"type":"teams","id":"1","data":{"id":"1","group_ids":["g",1]}}`, `line 1: teams: "group_ids": want strings, got number`},
		{"array for one object", `{"type":"teams","id":"1","data":[{"id":"1"}]}`, `line 1: teams: "data": an array replaces a whole collection: its id must be null, not "1"`},
		{"array for the contest", `{"type":"state","data":[{}]}`, `line 1: state: "data": an array replaces a whole collection: state is one object, not a collection`},
		{"array for the state", `{"type":"state","data":[{}]}`, `line 1: state: "data": an array`},
		{"array element not an object", `{"type":"teams","data":[1]}`, `line 1: teams: "data": want an object, got number`},

		{"bad contest_time", contestLine + "\n" + sub + `"contest_time":"x"}}`, `line 2: submissions: "contest_time": bad relative time "x"`},
		{"contest_time not a string", sub + `"contest_time":5}}`, `line 1: submissions: "contest_time": want a string, got number`},
		{"no team", `{"type":"submissions","id":"1","data":{"id":"1","problem_id":"p","contest_time":"0:01:00"}}`, `line 1: submissions: "team_id": required`},
		{"no problem", `{"type":"submissions","id":"1","data":{"id":"1","team_id":"t","contest_time":"0:01:00"}}`, `line 1: submissions: "problem_id": required`},
		{"no time", sub + `"language_id":"c"}}`, `line 1: submissions: "contest_time": required`},
		{"language not a string", sub + `"contest_time":"0:01:00","language_id":5}}`, `line 1: submissions: "language_id": want a string, got number`},
		{"entry point not a string", sub + `"contest_time":"0:01:00","entry_point":{}}}`, `line 1: submissions: "entry_point": want a string, got object`},
		{"files not an array", sub + `"contest_time":"0:01:00","files":"f.zip"}}`, `line 1: submissions: "files": want an array of file references, got string`},
		{"files not objects", sub + `"contest_time":"0:01:00","files":[{},"f.zip"]}}`, `line 1: submissions: "files": want an array of file references (objects), got string in it`},
		{"files with a bad escape", sub + `"contest_time":"0:01:00","files":[{"href":"\q"}]}}`, `line 1: submissions: "files": bad JSON`},
		{"files with a control character", sub + `"contest_time":"0:01:00","files":[{"href":"a` + "\t" + `b"}]}}`, `line 1: submissions: "files": bad JSON`},
		{"time without a start", sub + `"time":"2025-03-02T09:34:48.183Z"}}`, `line 1: submissions: "time": no "contest_time" and no contest start`},
		{"time after a start was removed", contestLine + "\n" + `{"type":"contest","data":null}` + "\n" + sub + `"time":"2025-03-02T09:34:48.183Z"}}`, `line 3: submissions: "time": no "contest_time"`},
		{"bad time", contestLine + "\n" + sub + `"time":"2025-03-02 09:34"}}`, `line 2: submissions: "time": bad absolute time "2025-03-02 09:34"`},
		{"time too far", contestLine + "\n" + sub + `"time":"9999-03-02T09:34:00Z"}}`, `line 2: submissions: "time": 9999-03-02T09:34:00.000Z is too far from the contest start`},

		{"no submission", `{"type":"judgements","id":"1","data":{"id":"1","start_contest_time":"0:01:00"}}`, `line 1: judgements: "submission_id": required`},
		{"no start", `{"type":"judgements","id":"1","data":{"id":"1","submission_id":"1"}}`, `line 1: judgements: "start_contest_time": required`},
		{"bad end", jud + `"end_contest_time":"1:00"}}`, `line 1: judgements: "end_contest_time": bad relative time "1:00"`},
		{"verdict not a string", jud + `"judgement_type_id":1}}`, `line 1: judgements: "judgement_type_id": want a string, got number`},
		{"score not a number", jud + `"score":"x"}}`, `line 1: judgements: "score": want a number, got string`},
		{"score infinite", jud + `"score":1e400}}`, `line 1: judgements: "score": want a finite number, got 1e400`},
		{"subtask scores", jud + `"rankd":{"subtask_scores":[1,"x"]}}}`, `line 1: judgements: "rankd.subtask_scores": want a number, got string`},

		{"no duration", `{"type":"contest","data":{"id":"c","name":"C"}}`, `line 1: contest: "duration": required`},
		{"bad start_time", con + `"start_time":"tomorrow"}}`, `line 1: contest: "start_time": bad absolute time "tomorrow"`},
		{"start_time without its offset", con + `"start_time":"2025-03-02T09:30:00"}}`, `bad absolute time "2025-03-02T09:30:00": it has no offset (Z for UTC, or ±hh:mm)`},
		{"bad freeze", con + `"scoreboard_freeze_duration":"1h"}}`, `line 1: contest: "scoreboard_freeze_duration": bad relative time "1h"`},
		{"penalty not whole", con + `"penalty_time":1.5}}`, `line 1: contest: "penalty_time": want whole minutes, got 1.5`},
		{"penalty huge", con + `"penalty_time":99999999999999999}}`, `line 1: contest: "penalty_time": want whole minutes`},
		{"penalty bad string", con + `"penalty_time":"x"}}`, `line 1: contest: "penalty_time": bad relative time "x"`},
		{"penalty bool", con + `"penalty_time":true}}`, `line 1: contest: "penalty_time": want minutes or a relative time, got true`},
		{"scoreboard type", con + `"scoreboard_type":"points"}}`, `line 1: contest: "scoreboard_type": want pass-fail or score, got "points"`},
		{"extension not an object", con + `"rankd":"ctf"}}`, `line 1: contest: "rankd": want an object, got string`},
		{"rules", con + `"rankd":{"rules":"foo"}}}`, `line 1: contest: "rankd.rules": unknown rules "foo"`},
		{"oi mode", con + `"rankd":{"oi_mode":"worst"}}}`, `line 1: contest: "rankd.oi_mode": want best or last, got "worst"`},
		{"hide until end", con + `"rankd":{"hide_until_end":1}}}`, `line 1: contest: "rankd.hide_until_end": want a boolean, got number`},
		{"tie by time", con + `"rankd":{"tie_by_time":"yes"}}}`, `line 1: contest: "rankd.tie_by_time": want a boolean`},
		{"first blood", con + `"rankd":{"first_blood":[50,"x"]}}}`, `line 1: contest: "rankd.first_blood": want an integer, got string`},
		{"first blood fraction", con + `"rankd":{"first_blood":[1.5]}}}`, `line 1: contest: "rankd.first_blood": want an integer, got 1.5`},
		{"medals", con + `"rankd":{"medals":[4,4,4]}}}`, `line 1: contest: "rankd.medals": want an object, got array`},
		{"medal count", con + `"rankd":{"medals":{"gold":"4"}}}}`, `line 1: contest: "rankd.medals.gold": want an integer, got string`},

		{"ordinal", prob + `"ordinal":"1"}}`, `line 1: problems: "ordinal": want an integer, got string`},
		{"max score", prob + `"max_score":"100"}}`, `line 1: problems: "max_score": want a number, got string`},
		{"value function", prob + `"rankd":{"function":"exponential"}}}`, `line 1: problems: "rankd.function": unknown value function "exponential"`},
		{"value", prob + `"rankd":{"value":1.5}}}`, `line 1: problems: "rankd.value": want an integer, got 1.5`},
		{"minimum", prob + `"rankd":{"minimum":"1"}}}`, `line 1: problems: "rankd.minimum": want an integer`},
		{"decay", prob + `"rankd":{"decay":null,"subtasks":{}}}}`, `line 1: problems: "rankd.subtasks": want an array, got object`},

		{"solved missing", `{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"correct"}}`, `line 1: judgement-types: "solved": required`},
		{"penalty flag", `{"type":"judgement-types","id":"AC","data":{"id":"AC","solved":true,"penalty":"no"}}`, `line 1: judgement-types: "penalty": want a boolean`},
		{"state time", `{"type":"state","data":{"started":"2025-03-02T09:30:00.000Z","frozen":"soon"}}`, `line 1: state: "frozen": bad absolute time "soon"`},
		{"award teams", `{"type":"awards","id":"w","data":{"id":"w","citation":"W","team_ids":"1"}}`, `line 1: awards: "team_ids": want an array, got string`},
		{"organization name", `{"type":"organizations","id":"o","data":{"id":"o","name":7}}`, `line 1: organizations: "name": want a string, got number`},
		{"group name", `{"type":"groups","id":"g","data":{"id":"g","name":{}}}`, `line 1: groups: "name": want a string, got object`},

		{"banned", `{"type":"bans","id":"1","data":{"team_id":"1","banned":"yes"}}`, `line 1: bans: "banned": want a boolean, got string`},
		{"ban ids differ", `{"type":"bans","id":"1","data":{"team_id":"2"}}`, `line 1: bans: "team_id": "2" differs from the event's id "1"`},
		{"ban without team", `{"type":"bans","data":{"banned":true}}`, `line 1: bans: "team_id": required`},

		{"2020 op", `{"id":"1","type":"teams","op":"frob","data":{"id":"1"}}`, `line 1: teams: "op": want create, update or delete, got "frob"`},
		{"2020 op type", `{"id":"1","type":"teams","op":1,"data":{"id":"1"}}`, `line 1: teams: "op": want a string, got number`},
		{"2020 data", `{"id":"1","type":"teams","op":"create","data":null}`, `line 1: teams: "data": want an object`},
		{"2020 delete without id", `{"id":"1","type":"teams","op":"delete","data":{}}`, `line 1: teams: "id": required for a delete`},

		{"line counting skips blank lines", "\n\r\n  \n" + `{"type":"teams","id":"1","data":{"id":"1","name":5}}`, `line 4: teams: "name": want a string`},
		{"a long value is clipped", `{"type":"teams","id":"1","data":{"id":"1","group_ids":[],"organization_id":7,"name":"` + strings.Repeat("n", 1000) + `"}}`, `line 1: teams: "organization_id": want a string, got number`},
		{"a long bad time is clipped", sub + `"contest_time":"` + strings.Repeat("9", 100) + `"}}`, `line 1: submissions: "contest_time": bad relative time "` + strings.Repeat("9", 64) + `..."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, errs, _ := readAll(t, tc.feed)
			if len(errs) != 1 {
				t.Fatalf("got errors %v and %d events; want one error %q", errs, len(evs), tc.want)
			}
			err := errs[0]
			var e *rankd.Error
			if !errors.As(err, &e) || e.Code != rankd.EINVALID {
				t.Fatalf("got %#v, want a *rankd.Error with code %q", err, rankd.EINVALID)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to contain %q", err.Error(), tc.want)
			}
		})
	}
}

// TestReaderGoesOnAfterErrors checks that a bad line costs only itself, and that Line follows.
func TestReaderGoesOnAfterErrors(t *testing.T) {
	feed := contestLine + "\n" +
		`{"type":"submissions","id":"1","data":{"id":"1","team_id":"t","problem_id":"p","contest_time":"x"}}` + "\n" +
		"\n" +
		`not json` + "\r\n" +
		`{"type":"languages","id":"c","data":{}}` + "\n" +
		`{"type":"submissions","id":"2","data":{"id":"2","team_id":"t","problem_id":"p","contest_time":"0:01:00"}}` + "\r\n" +
		`{"type":"judgements","id":"3","data":{"id":"3","submission_id":"2","start_contest_time":"0:01:01"}}`
	r := ccs.NewReader(strings.NewReader(feed))
	for _, want := range []struct {
		line int
		typ  rankd.EventType
		err  bool
	}{{1, rankd.EventContest, false}, {2, 0, true}, {4, 0, true}, {6, rankd.EventSubmission, false}, {7, rankd.EventJudgement, false}} {
		ev, err := r.Next()
		if (err != nil) != want.err || ev.Type != want.typ || r.Line() != want.line {
			t.Errorf("got %s, %v at line %d; want type %s (error %v) at line %d", show(ev), err, r.Line(), want.typ, want.err, want.line)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("at the end got %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the end got %v, want io.EOF again", err)
	}
}

// TestReaderReuse documents the contract: the Submission and Judgement are overwritten by the next call, the
// strings they hold are not.
func TestReaderReuse(t *testing.T) {
	r := ccs.NewReader(strings.NewReader(`{"type":"submissions","id":"1","data":{"id":"1","team_id":"t1","problem_id":"p","contest_time":"0:01:00"}}
{"type":"submissions","id":"2","data":{"id":"2","team_id":"t2","problem_id":"p","contest_time":"0:02:00"}}`))
	first, _ := r.Next()
	id, team := first.Submission.ID, first.Submission.TeamID
	second, _ := r.Next()
	if first.Submission != second.Submission {
		t.Error("the Reader allocated a second Submission; want it reused")
	}
	if id != "1" || team != "t1" {
		t.Errorf("strings of the first submission changed to %q, %q", id, team)
	}
}

func TestReaderLongLines(t *testing.T) {
	name := strings.Repeat("é", 3<<20) // a 6 MB line, far beyond the read buffer
	feed := `{"type":"teams","id":"1","data":{"id":"1","name":"` + name + `"}}` + "\n" +
		`{"type":"teams","id":"2","data":{"id":"2","name":"short"}}`
	evs, errs, _ := readAll(t, feed)
	if len(errs) != 0 || len(evs) != 2 || evs[0].Team.Name != name || evs[1].Team.Name != "short" {
		t.Fatalf("got %d events, errors %v; want both teams", len(evs), errs)
	}
	if testing.Short() {
		t.Skip("skipping the over-long line in short mode")
	}
	feed = `{"type":"teams","id":"1","data":{"id":"1","name":"` + strings.Repeat("x", ccs.MaxLineSize) + `"}}` + "\n" +
		`{"type":"teams","id":"2","data":{"id":"2","name":"after"}}`
	r := ccs.NewReader(strings.NewReader(feed))
	if _, err := r.Next(); rankd.ErrorCode(err) != rankd.ETOOLARGE || !strings.Contains(err.Error(), "line 1: ") {
		t.Errorf("over-long line: got %v, want an ETOOLARGE error naming line 1", err)
	}
	if ev, err := r.Next(); err != nil || ev.Team == nil || ev.Team.Name != "after" || r.Line() != 2 {
		t.Errorf("after the over-long line: got %s, %v at line %d; want team 2 at line 2", show(ev), err, r.Line())
	}
}

func TestReaderPassesOnReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := ccs.NewReader(io.MultiReader(strings.NewReader(`{"type":"groups","id":"g","data":{"id":"g","name":"G"}}`+"\n"), iotest.ErrReader(boom)))
	if ev, err := r.Next(); err != nil || ev.Group == nil {
		t.Fatalf("got %s, %v; want the group", show(ev), err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("got %v, want the reader's error", err)
	}
}

// A byte order mark at the start of the file, as some editors write, is not part of the first line; nor one
// at the start of a line within, where two such files joined with cat leave it. One elsewhere is (and the
// line is not JSON).
func TestReaderByteOrderMark(t *testing.T) {
	team := `{"type":"teams","id":"1","data":{"id":"1","name":"T","label":"1"}}`
	for _, feed := range []string{"\ufeff" + team + "\r\n" + team, team + "\n\ufeff" + team} {
		evs, errs, _ := readAll(t, feed)
		if len(errs) != 0 || len(evs) != 2 || evs[0].Type != rankd.EventTeam || evs[1].Type != rankd.EventTeam {
			t.Errorf("%q: got %d events, errors %v; want 2 teams", feed, len(evs), errs)
		}
	}
	if _, errs, _ := readAll(t, team+"\n \ufeff"+team); len(errs) != 1 {
		t.Errorf("a byte order mark after a space: got errors %v, want one", errs)
	}
}

// A line nested too deep gets a message of one line: the parser named every enclosing value, 14 KB of
// "cannot parse array value: " for 5,000 levels.
func TestReaderDeepNestingMessage(t *testing.T) {
	line := `{"type":"submissions","data":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}\n"
	_, err := ccs.NewReader(strings.NewReader(line)).Next()
	if msg := rankd.ErrorMessage(err); !strings.Contains(msg, "too big depth") || len(msg) > 300 {
		t.Errorf("got a message of %d bytes: %.300s; want one naming the depth, under 300 bytes", len(msg), msg)
	}
}
