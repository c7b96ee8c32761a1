package ccs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"rankd"
	"rankd/ccs"
)

// submissionShapes are the submission lines judge systems send, from the least to the most they say of the
// code; %[1]d is the submission's number, so that ids and file references differ from line to line as in a
// real feed.
var submissionShapes = []struct {
	name, line string
	want       rankd.Submission // of number 7
}{
	{"bare", // wf47
		`{"type":"submissions","id":"%[1]d","data":{"id":"%[1]d","problem_id":"riddleofthesphinx","team_id":"47020","contest_time":"0:03:14.969","time":"2024-04-18T11:51:13.969+02:00"},"token":"cd<%[1]d"}`,
		rankd.Submission{ID: "7", TeamID: "47020", ProblemID: "riddleofthesphinx", Time: 194969e6}},
	{"language", // euc2025
		`{"type":"submissions","id":"%[1]d","data":{"id":"%[1]d","problem_id":"J-ultimate-wine-tasting-NUKSYM","team_id":"28","language_id":"cpp","contest_time":"0:04:48.183","time":"2025-03-02T09:34:48.183Z"},"token":"cdi%[1]d"}`,
		rankd.Submission{ID: "7", TeamID: "28", ProblemID: "J-ultimate-wine-tasting-NUKSYM", Time: 288183e6, LanguageID: "cpp"}},
	{"files", // DOMjudge
		`{"type":"submissions","id":"%[1]d","data":{"language_id":"cpp","time":"2025-03-02T09:34:48.183Z","contest_time":"0:04:48.183","team_id":"28","problem_id":"J","files":[{"href":"contests/euc2025/submissions/%[1]d/files","mime":"application/zip"}],"entry_point":null,"id":"%[1]d"},"token":"%[1]d"}`,
		rankd.Submission{ID: "7", TeamID: "28", ProblemID: "J", Time: 288183e6, LanguageID: "cpp",
			Files: `[{"href":"contests/euc2025/submissions/7/files","mime":"application/zip"}]`}},
	{"java", // the 2023-06 order, an entry point, a file name
		`{"type":"submissions","id":"%[1]d","data":{"id":"%[1]d","language_id":"java","problem_id":"J","team_id":"28","time":"2025-03-02T09:34:48.183Z","contest_time":"0:04:48.183","entry_point":"Main","files":[{"href":"contests/euc2025/submissions/%[1]d/files","filename":"Main.zip","mime":"application/zip"}]},"token":"%[1]d"}`,
		rankd.Submission{ID: "7", TeamID: "28", ProblemID: "J", Time: 288183e6, LanguageID: "java", EntryPoint: "Main",
			Files: `[{"href":"contests/euc2025/submissions/7/files","filename":"Main.zip","mime":"application/zip"}]`}},
	{"spaced", // a sender that writes ", " and ": " (Python's json.dumps)
		`{"type": "submissions", "id": "%[1]d", "data": {"id": "%[1]d", "language_id": "python3", "problem_id": "J", "team_id": "28", "contest_time": "0:04:48.183", "entry_point": "main.py", "files": [{"href": "contests/euc2025/submissions/%[1]d/files", "mime": "application/zip"}]}, "token": "%[1]d"}`,
		rankd.Submission{ID: "7", TeamID: "28", ProblemID: "J", Time: 288183e6, LanguageID: "python3", EntryPoint: "main.py",
			Files: `[{"href":"contests/euc2025/submissions/7/files","mime":"application/zip"}]`}},
}

// submissionFeed returns n submission lines of a shape, numbered from 1, after a state line that gives the
// absolute times their start.
func submissionFeed(format string, n int) []byte {
	b := []byte(`{"type":"state","data":{"started":"2025-03-02T09:30:00.000Z"}}` + "\n")
	for i := 1; i <= n; i++ {
		b = fmt.Appendf(b, format+"\n", i)
	}
	return b
}

// TestSubmissionShapes reads each shape, and checks that what the Writer makes of it reads back the same.
func TestSubmissionShapes(t *testing.T) {
	for _, tc := range submissionShapes {
		t.Run(tc.name, func(t *testing.T) {
			evs, errs, _ := readAll(t, string(submissionFeed(tc.line, 7)))
			if len(errs) != 0 || len(evs) != 8 {
				t.Fatalf("got %d events and errors %v, want 8 events", len(evs), errs)
			}
			if got := *evs[7].Submission; got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			line, err := ccs.AppendEvent(nil, evs[7])
			if err != nil {
				t.Fatal(err)
			}
			back, errs, _ := readAll(t, string(line))
			if len(errs) != 0 || len(back) != 1 || *back[0].Submission != tc.want {
				t.Errorf("written as %s, read back as %v (errors %v)", line, back, errs)
			}
		})
	}
}

// A log entry's content hash is taken over the line AppendEvent writes: it must change with every member
// rankd keeps of a submission, and only with them, so that a resend is a duplicate and a change is not.
func TestAppendEventCoversSubmissionMembers(t *testing.T) {
	base := rankd.Submission{ID: "1", TeamID: "t", ProblemID: "p", Time: 60e9, LanguageID: "java", EntryPoint: "Main",
		Files: `[{"href":"f","mime":"application/zip"}]`}
	line := func(s rankd.Submission) string {
		b, err := ccs.AppendEvent(nil, rankd.Event{Type: rankd.EventSubmission, ID: s.ID, Submission: &s})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := line(base)
	resent, _, _ := readAll(t, `{"type":"submissions","id":"1","data":{"files":[ {"href":"f", "mime":"application/zip"} ],"entry_point":"Main","language_id":"java","problem_id":"p","team_id":"t","contest_time":"0:01:00","time":"2030-01-01T00:00:00Z"},"token":"other"}`)
	resent[0].Token = ""
	if got, err := ccs.AppendEvent(nil, resent[0]); err != nil || string(got) != want {
		t.Errorf("a resend in another form gives %s (%v), want %s", got, err, want)
	}
	for _, change := range []func(*rankd.Submission){
		func(s *rankd.Submission) { s.LanguageID = "kotlin" },
		func(s *rankd.Submission) { s.LanguageID = "" },
		func(s *rankd.Submission) { s.EntryPoint = "Other" },
		func(s *rankd.Submission) { s.EntryPoint = "" },
		func(s *rankd.Submission) { s.Files = `[{"href":"g","mime":"application/zip"}]` },
		func(s *rankd.Submission) { s.Files = "" },
	} {
		s := base
		change(&s)
		if got := line(s); got == want {
			t.Errorf("%+v gives the same line as %+v: %s", s, base, got)
		}
	}
}

// BenchmarkReadSubmissions reads 1,024 submissions of each shape; allocs/line counts what one submission costs.
func BenchmarkReadSubmissions(b *testing.B) {
	const n = 1024
	for _, tc := range submissionShapes {
		data := submissionFeed(tc.line, n)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			lines := 0
			for b.Loop() {
				r := ccs.NewReader(bytes.NewReader(data))
				for {
					_, err := r.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					lines++
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(lines), "ns/line")
			// The Reader's own setup is spread over the lines; at 1,024 lines per feed it weighs little.
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(lines), "allocs/line")
		})
	}
}

// BenchmarkWriteSubmissions writes 1,024 submissions of each shape, as read.
func BenchmarkWriteSubmissions(b *testing.B) {
	const n = 1024
	for _, tc := range submissionShapes {
		evs, errs, _ := readAll(b, string(submissionFeed(tc.line, n)))
		if len(errs) != 0 {
			b.Fatal(errs)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			w := ccs.NewWriter(io.Discard)
			for b.Loop() {
				for _, ev := range evs {
					if err := w.Write(ev); err != nil {
						b.Fatal(err)
					}
				}
			}
			w.Flush()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/line")
		})
	}
}

// Files nested deeper than the fast path goes are read by the general path, and written as they are.
func TestDeepFiles(t *testing.T) {
	deep := `[{"href":"f","mime":"m","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}]`
	evs, errs, _ := readAll(t, `{"type":"submissions","id":"1","data":{"id":"1","team_id":"t","problem_id":"p","contest_time":"0:01:00","files":`+deep+`}}`)
	if len(errs) != 0 || len(evs) != 1 || evs[0].Submission.Files != deep {
		t.Fatalf("got %v, errors %v; want the submission with its files", evs, errs)
	}
	line, err := ccs.AppendEvent(nil, evs[0])
	if err != nil || !strings.Contains(string(line), `"files":`+deep+`}`) {
		t.Errorf("written as %s, %v", line, err)
	}
}
