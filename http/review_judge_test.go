package http_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
)

// judgeLine is an event-feed line of a submission of team t1 to problem B, made at 2:mm:00.
func judgeLine(id string, mm int) string {
	return fmt.Sprintf(`{"type":"submissions","data":{"id":"%s","team_id":"t1","problem_id":"B","contest_time":"2:%02d:00"}}`, id, mm)
}

// judgeAnswer is an ingest answer, or an error, as a judge system reads it.
type judgeAnswer struct {
	Accepted, Duplicates, Rejected int
	Skipped                        map[string]int
	Results                        []itemResult
	Code, Message                  string
}

// mustPostRaw posts body with the headers given (Content-Type and Content-Encoding among them) and a judge
// token, and decodes the answer, which must have the status want.
func mustPostRaw(tb testing.TB, e *env, path string, header map[string]string, body []byte, want int) judgeAnswer {
	tb.Helper()
	a, err := postRaw(e, path, header, body, want)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// postRaw is mustPostRaw returning its failure, for other goroutines than the test's.
func postRaw(e *env, path string, header map[string]string, body []byte, want int) (judgeAnswer, error) {
	var a judgeAnswer
	req, err := http.NewRequest("POST", e.URL+path, bytes.NewReader(body))
	if err != nil {
		return a, err
	}
	req.Header.Set("Authorization", "Bearer "+judgeToken)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return a, err
	}
	if resp.StatusCode != want {
		return a, fmt.Errorf("POST %s: got status %d, want %d: %s", path, resp.StatusCode, want, data)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("POST %s: %v: %s", path, err, data)
	}
	return a, nil
}

func gzipped(tb testing.TB, s string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := io.WriteString(zw, s); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// A body compressed with gzip (Content-Encoding: gzip) is read decompressed, NDJSON and JSON alike, and the
// body limit holds for what it decompresses to; another encoding, or a body that is not what its encoding
// says, is refused whole rather than read as malformed lines.
func TestJudgeContentEncoding(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	ndjson := map[string]string{"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"}
	a := mustPostRaw(t, e, "/api/v1/contests/c1/events", ndjson, gzipped(t, judgeLine("s10", 0)+"\n"+judgeLine("s11", 1)+"\n"), http.StatusOK)
	if a.Accepted != 2 {
		t.Errorf("gzip NDJSON: got %+v, want 2 accepted", a)
	}
	a = mustPostRaw(t, e, "/api/v1/contests/c1/submissions", map[string]string{"Content-Type": "application/json", "Content-Encoding": "x-gzip"},
		gzipped(t, `{"id":"s12","team_id":"t1","problem_id":"B","contest_time":"2:02:00"}`), http.StatusOK)
	if a.Accepted != 1 {
		t.Errorf("gzip JSON: got %+v, want 1 accepted", a)
	}
	tests := []struct {
		name, encoding, body string
		status               int
		code                 string
	}{
		{"not gzip", "gzip", judgeLine("s13", 3) + "\n", http.StatusBadRequest, "invalid"},
		{"brotli", "br", judgeLine("s13", 3) + "\n", http.StatusUnsupportedMediaType, "unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": "application/x-ndjson", "Content-Encoding": tt.encoding},
				[]byte(tt.body), tt.status)
			if a.Code != tt.code || !strings.Contains(a.Message, "gzip") {
				t.Errorf("got %+v, want %s saying what to send", a, tt.code)
			}
		})
	}
	var subs []struct{ ID string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/submissions?view=jury&problem=B", judgeToken, nil, &subs)
	if len(subs) != 5 { // s3, s4 of the contest; s10, s11, s12
		t.Errorf("got %d submissions of B, want 5: %+v", len(subs), subs)
	}
	// 2 MiB of blanks decompress beyond the 1 MiB limit from a few kilobytes.
	bomb := gzipped(t, strings.Repeat(" ", 2<<20)+"\n")
	for _, ctype := range []string{"application/x-ndjson", "application/json"} {
		a = mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": ctype, "Content-Encoding": "gzip"},
			bomb, http.StatusRequestEntityTooLarge)
		if a.Code != "too_large" {
			t.Errorf("%s decompressing beyond the limit: got %+v, want too_large", ctype, a)
		}
	}
}

// The other names of NDJSON (JSON Lines) are read as NDJSON, with a charset or not.
func TestJudgeNDJSONMediaTypes(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for i, ctype := range []string{"application/x-ndjson; charset=utf-8", "application/ndjson", "application/jsonl", "application/x-jsonlines"} {
		t.Run(ctype, func(t *testing.T) {
			body := judgeLine(fmt.Sprintf("s%d", 20+2*i), 2*i) + "\n" + judgeLine(fmt.Sprintf("s%d", 21+2*i), 2*i+1) + "\n"
			a := mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": ctype}, []byte(body), http.StatusOK)
			if a.Accepted != 2 {
				t.Errorf("got %+v, want 2 accepted", a)
			}
		})
	}
}

// JSON bodies as judges and editors write them: with a byte order mark, with CRLF line ends.
func TestJudgeJSONByteOrderMark(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tests := []struct{ name, path, body string }{
		{"object", "/api/v1/contests/c1/submissions", "\ufeff" + `{"id":"s30","team_id":"t1","problem_id":"B","contest_time":"2:30:00"}`},
		{"array", "/api/v1/contests/c1/events", "\ufeff[" + judgeLine("s31", 31) + ",\r\n" + judgeLine("s32", 32) + "]\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustPostRaw(t, e, tt.path, map[string]string{"Content-Type": "application/json"}, []byte(tt.body), http.StatusOK)
			if a.Accepted == 0 || a.Rejected != 0 {
				t.Errorf("got %+v, want every event accepted", a)
			}
		})
	}
}

// NDJSON lines with CRLF ends and a last line without one are all read, BOM or not.
func TestJudgeNDJSONLineEnds(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	body := "\ufeff" + judgeLine("s40", 40) + "\r\n\r\n" + judgeLine("s41", 41) + "\r\n" + judgeLine("s42", 42)
	a := mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": "application/x-ndjson"}, []byte(body), http.StatusOK)
	if a.Accepted != 3 || len(a.Results) != 3 || a.Results[2].Item != 4 {
		t.Errorf("got %+v, want 3 accepted, the last as item 4", a)
	}
}

// A rejected element of a JSON body is named as the item it is, not as a line; a rejected single object
// answers with the error alone.
func TestJudgeJSONItemMessages(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	a := mustPostRaw(t, e, "/api/v1/contests/c1/judgements", map[string]string{"Content-Type": "application/json"}, []byte(`[
		{"id":"j50","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"},
		{"id":"s51","team_id":"t1","problem_id":"A","contest_time":"2:00:00"}]`), http.StatusOK)
	if want := `item 2: judgements: "submission_id": required`; a.Rejected != 1 || a.Results[1].Message != want {
		t.Errorf("got %+v, want item 2 rejected with %q", a, want)
	}
	a = mustPostRaw(t, e, "/api/v1/contests/c1/judgements", map[string]string{"Content-Type": "application/json"},
		[]byte(`{"id":"j52","submission_id":"s3","judgement_type_id":"AC"}`), http.StatusBadRequest)
	if want := `judgements: "start_contest_time": required`; a.Message != want {
		t.Errorf("got %q, want %q", a.Message, want)
	}
}

// A body that is not what its type says is refused with what to send instead.
func TestJudgeBodyHints(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tests := []struct{ name, path, ctype, body, want string }{
		{"empty", "/api/v1/contests/c1/judgements", "application/json", "", "the body is empty"},
		{"curl -d drops the line ends", "/api/v1/contests/c1/events", "application/x-www-form-urlencoded",
			judgeLine("s60", 0) + judgeLine("s61", 1), "--data-binary"},
		{"CRLF NDJSON as JSON", "/api/v1/contests/c1/events", "application/json",
			judgeLine("s60", 0) + "\r\n" + judgeLine("s61", 1) + "\r\n", "application/x-ndjson"},
		{"lines of objects", "/api/v1/contests/c1/submissions", "application/x-ndjson",
			`{"id":"s60","team_id":"t1","problem_id":"A","contest_time":"2:00:00"}` + "\n" +
				`{"id":"s61","team_id":"t1","problem_id":"A","contest_time":"2:00:00"}` + "\n", "JSON array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustPostRaw(t, e, tt.path, map[string]string{"Content-Type": tt.ctype}, []byte(tt.body), http.StatusBadRequest)
			if a.Code != "invalid" || !strings.Contains(a.Message, tt.want) {
				t.Errorf("got %+v, want invalid saying %q", a, tt.want)
			}
		})
	}
}

// Lines of a type rankd skips get no result but are counted by type, so that a misspelt type is seen.
func TestJudgeSkippedTypes(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	body := strings.Join([]string{
		`{"type":"languages","id":"cpp","data":{"id":"cpp","name":"C++"}}`,
		`{"type":"judgment","id":"j70","data":{"id":"j70","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}}`,
		judgeLine("s70", 10),
	}, "\n") + "\n"
	a := mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": "application/x-ndjson"}, []byte(body), http.StatusOK)
	if a.Accepted != 1 || a.Skipped["judgment"] != 1 || a.Skipped["languages"] != 1 || len(a.Skipped) != 2 {
		t.Errorf("got %+v, want 1 accepted and skipped {judgment: 1, languages: 1}", a)
	}
	a = mustPostRaw(t, e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": "application/x-ndjson"}, []byte(judgeLine("s71", 11)), http.StatusOK)
	if a.Skipped != nil {
		t.Errorf("nothing skipped: got skipped %v, want none", a.Skipped)
	}
}

// A body beyond the limit is refused saying the limit and what to do; streamed, it says which lines may
// have been stored.
func TestJudgeTooLarge(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	big := strings.Join(submissionLines(10000, 15000), "\n") + "\n" // about 1.5 MB, over the 1 MiB limit
	var a judgeAnswer
	e.MustDo(t, http.StatusRequestEntityTooLarge, "POST", "/api/v1/contests/c1/events", judgeToken, big, &a)
	if !strings.Contains(a.Message, "1048576 bytes") || !strings.Contains(a.Message, "smaller requests") || strings.Contains(a.Message, "stored") {
		t.Errorf("with its length: got %q, want the limit and smaller requests, nothing stored", a.Message)
	}
	// A part of 1,000 lines is queued, then a line of blanks reaches the limit.
	streamed := strings.Join(submissionLines(10000, 1000), "\n") + "\n" + strings.Repeat(" ", 1<<20) + "\n"
	e.MustDo(t, http.StatusRequestEntityTooLarge, "POST", "/api/v1/contests/c1/events", judgeToken, chunked(streamed), &a)
	if !strings.Contains(a.Message, "before line 1001 may have been stored") {
		t.Errorf("streamed: got %q, want the events before line 1001 said stored", a.Message)
	}
}

// Judges posting the same new events at once: each is stored once, every poster gets an answer for it
// (accepted once, duplicate for the others), and the board has it once.
func TestJudgeConcurrentSameIDs(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var lines []string
	for i := range 50 {
		lines = append(lines, judgeLine(fmt.Sprintf("s%d", 100+i), i))
	}
	body := []byte(strings.Join(lines, "\n") + "\n")
	const posters = 8
	answers := make([]judgeAnswer, posters)
	var wg sync.WaitGroup
	for p := range posters {
		wg.Go(func() {
			var err error
			if answers[p], err = postRaw(e, "/api/v1/contests/c1/events", map[string]string{"Content-Type": "application/x-ndjson"}, body, http.StatusOK); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	accepted := 0
	for _, a := range answers {
		if a.Accepted+a.Duplicates != len(lines) {
			t.Errorf("got %d accepted and %d duplicates, want %d in all", a.Accepted, a.Duplicates, len(lines))
		}
		accepted += a.Accepted
	}
	if accepted != len(lines) {
		t.Errorf("got %d accepted over all posters, want %d: each event once", accepted, len(lines))
	}
	var subs []struct{ ID string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/submissions?view=jury&team=t1", judgeToken, nil, &subs)
	if want := len(lines) + 1; len(subs) != want { // and s1
		t.Errorf("got %d submissions of t1, want %d", len(subs), want)
	}
}

// Many small posts over one kept-alive connection, answers accepted or refused, keep the connection.
func TestJudgeKeepAlive(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	reused := 0
	for i := range 100 {
		body := judgeLine(fmt.Sprintf("k%d", i), i%60)
		if i%10 == 9 {
			body = `{"type":"submissions","data":{"id":"bad"}}` // a single rejected event: a 400
		}
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
			if info.Reused {
				reused++
			}
		}}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST",
			e.URL+"/api/v1/contests/c1/events", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+judgeToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if reused != 99 {
		t.Errorf("got %d of 100 requests on a reused connection, want 99", reused)
	}
}

// A contest bundle compressed with gzip is read decompressed too, as the events are: one command line posts
// both the same way.
func TestContestBundleGzip(t *testing.T) {
	e := MustOpen(t)
	body, err := json.Marshal(testContest())
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", e.URL+"/api/v1/contests", bytes.NewReader(gzipped(t, string(body))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("gzip bundle: got status %d (%s), want %d", resp.StatusCode, data, http.StatusCreated)
	}
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1", "", nil, nil)
}
