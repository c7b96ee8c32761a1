package http_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"rankd"
)

type itemResult struct {
	Item    int
	Type    string
	ID      string
	Status  string
	Pos     int64
	Code    string
	Message string
	Cause   string
}

type ingestResponse struct {
	Accepted, Duplicates, Rejected int
	Results                        []itemResult
}

// An event whose token the log gives another event is refused with the cause token_taken; sent with
// ?taken_tokens=drop, it is taken without its token, by its content, and its result says so.
func TestIngestTokenTaken(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	post := func(query, line string) itemResult {
		t.Helper()
		var res ingestResponse
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events"+query, judgeToken, "["+line+"]", &res)
		if len(res.Results) != 1 {
			t.Fatalf("got %d results, want 1", len(res.Results))
		}
		return res.Results[0]
	}
	first := post("", `{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"},"token":"x1"}`)
	other := `{"type":"submissions","data":{"id":"s11","team_id":"t1","problem_id":"B","contest_time":"2:01:00"},"token":"x1"}`
	if got := post("", other); got.Status != "rejected" || got.Code != "conflict" || got.Cause != "token_taken" {
		t.Errorf("another event under a taken token: got %+v, want rejected, conflict, cause token_taken", got)
	}
	stored := post("?taken_tokens=drop", other)
	if stored.Status != "accepted" || stored.Cause != "token_taken" || stored.Message == "" || stored.Pos <= first.Pos {
		t.Errorf("the same, taken_tokens=drop: got %+v, want accepted, cause token_taken, saying so", stored)
	}
	if got := post("?taken_tokens=drop", other); got.Status != "duplicate" || got.Pos != stored.Pos || got.Cause != "token_taken" {
		t.Errorf("sent again: got %+v, want a duplicate of position %d, cause token_taken", got, stored.Pos)
	}
	// The token still names its event.
	if got := post("?taken_tokens=drop", `{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"},"token":"x1"}`); got.Status != "duplicate" || got.Pos != first.Pos || got.Cause != "" {
		t.Errorf("the token's own event again: got %+v, want a duplicate of position %d", got, first.Pos)
	}
	e.MustDo(t, http.StatusBadRequest, "POST", "/api/v1/contests/c1/events?taken_tokens=keep", judgeToken, "["+other+"]", nil)
}

func TestIngestResultsPerItem(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s11","team_id":"nobody","problem_id":"B","contest_time":"2:00:00"}}`,
		`not json`,
		`{"type":"judgements","data":{"id":"j10","submission_id":"s10","judgement_type_id":"AC","start_contest_time":"2:01:00"}}`,
		`{"type":"judgements","data":{"id":"j11","submission_id":"s10","judgement_type_id":"NOPE","start_contest_time":"2:01:00"}}`,
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
	}, "\n")+"\n", &res)
	want := []struct {
		status, code string
	}{
		{"accepted", ""}, {"rejected", "unprocessable"}, {"rejected", "invalid"}, {"accepted", ""},
		{"rejected", "unprocessable"}, {"duplicate", ""},
	}
	if len(res.Results) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(res.Results), len(want), res.Results)
	}
	for i, w := range want {
		got := res.Results[i]
		if got.Item != i+1 || got.Status != w.status || got.Code != w.code {
			t.Errorf("item %d: got %+v, want status %s code %q", i+1, got, w.status, w.code)
		}
		if got.Status == "rejected" && !strings.HasPrefix(got.Message, fmt.Sprintf("line %d: ", i+1)) {
			t.Errorf("item %d: rejected with %q, want a reason that names its line", i+1, got.Message)
		}
	}
	if res.Results[5].Pos != res.Results[0].Pos {
		t.Errorf("duplicate: got position %d, want the first one's %d", res.Results[5].Pos, res.Results[0].Pos)
	}
	if res.Accepted != 2 || res.Duplicates != 1 || res.Rejected != 3 {
		t.Errorf("got counts %d/%d/%d, want 2/1/3", res.Accepted, res.Duplicates, res.Rejected)
	}
}

// A retry of the same request gets the same answer, and the board does not move.
func TestIngestRetryIsIdempotent(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	body := `{"id":"j9","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`
	var first, again itemResultsOnly
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken, body, &first)
	var jury struct{ Seq uint64 }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &jury)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken, body, &again)
	if first.Results[0].Status != "accepted" || again.Results[0].Status != "duplicate" ||
		again.Results[0].Pos != first.Results[0].Pos {
		t.Errorf("got %+v then %+v, want accepted then duplicate at the same position", first.Results, again.Results)
	}
	var after struct{ Seq uint64 }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view=jury", judgeToken, nil, &after)
	if after.Seq != jury.Seq {
		t.Errorf("jury sequence moved on a duplicate: %d → %d", jury.Seq, after.Seq)
	}
}

type itemResultsOnly struct{ Results []itemResult }

// A rejudge is a new judgement of the same submission: the latest counts.
func TestIngestRejudge(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	var row struct{ Solved, Penalty int }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t2", "", nil, &row)
	if row.Solved != 1 || row.Penalty != 60 {
		t.Errorf("after the rejudge: got %+v, want 1 solved with penalty 60", row)
	}
}

func TestIngestErrors(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	tests := []struct {
		name, path, body string
		want             int
		code             string
	}{
		{"malformed JSON", "/api/v1/contests/c1/judgements", `{"id":`, http.StatusBadRequest, "invalid"},
		{"not an object", "/api/v1/contests/c1/judgements", `42`, http.StatusBadRequest, "invalid"},
		{"single rejected", "/api/v1/contests/c1/submissions",
			`{"id":"x","team_id":"ghost","problem_id":"A","contest_time":"1:00:00"}`, http.StatusUnprocessableEntity, "unprocessable"},
		{"unknown contest", "/api/v1/contests/nope/submissions",
			`{"id":"x","team_id":"t1","problem_id":"A","contest_time":"1:00:00"}`, http.StatusNotFound, "not_found"},
		{"too large", "/api/v1/contests/c1/submissions", `[` + strings.Repeat(`{"id":"x"},`, 200000) + `{}]`,
			http.StatusRequestEntityTooLarge, "too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body struct{ Code, Message string }
			e.MustDo(t, tt.want, "POST", tt.path, judgeToken, tt.body, &body)
			if body.Code != tt.code || body.Message == "" {
				t.Errorf("got %+v, want code %s with a message", body, tt.code)
			}
		})
	}
}

// ?results=problems answers with the counts and the events that were not accepted only.
func TestIngestResultsProblemsOnly(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events?results=problems", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s11","team_id":"nobody","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
	}, "\n")+"\n", &res)
	if res.Accepted != 1 || res.Rejected != 1 || res.Duplicates != 1 || len(res.Results) != 2 ||
		res.Results[0].Item != 2 || res.Results[1].Status != "duplicate" {
		t.Errorf("got %+v, want counts 1/1/1 and items 2 (rejected) and 3 (duplicate)", res)
	}
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events?results=some", judgeToken, "{}"); r.Status != http.StatusBadRequest {
		t.Errorf("results=some: got %d, want 400", r.Status)
	}
}

// submissionLines returns n NDJSON lines of submissions s<from>, s<from+1>, ..., one in twenty malformed.
func submissionLines(from, n int) []string {
	lines := make([]string, n)
	for i := range lines {
		id := from + i
		lines[i] = fmt.Sprintf(`{"type":"submissions","data":{"id":"s%d","team_id":"t%d","problem_id":"A","contest_time":"2:%02d:00"}}`, id, 1+id%3, id%60)
		if id%20 == 0 {
			lines[i] = `{"type":"submissions","data":`
		}
	}
	return lines
}

// A request of many parts, more than wait for their commit at once, answers for every line in order; one
// beyond the body limit is refused as too large: at once when its length says so, or, streamed, once the limit
// is reached, what it queued before stored: sent again, none of it is lost.
func TestIngestLargeFeed(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	lines := submissionLines(100, 9000) // 9 parts, about 0.9 MB
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", &res)
	if res.Accepted != 8550 || res.Rejected != 450 || len(res.Results) != len(lines) {
		t.Fatalf("got %d accepted, %d rejected, %d results; want 8550, 450, %d", res.Accepted, res.Rejected, len(res.Results), len(lines))
	}
	for i, r := range res.Results {
		if r.Item != i+1 {
			t.Fatalf("result %d is of item %d, want %d", i, r.Item, i+1)
		}
	}

	big := submissionLines(10000, 15000) // about 1.5 MB, over the 1 MiB limit
	var refused struct{ Code string }
	// Its length said at once: refused before anything is stored.
	e.MustDo(t, http.StatusRequestEntityTooLarge, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(big, "\n")+"\n", &refused)
	if refused.Code != "too_large" {
		t.Errorf("got code %q, want too_large", refused.Code)
	}
	var after []struct{ ID string }
	if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/submissions?offset=8553", adminToken, nil, &after); len(after) != 1 {
		t.Fatalf("after a refused body: got %d submissions past the first 8,553, want 1: 4 of the contest and 8,550 of the first request", len(after))
	}
	// Streamed without a length: the limit comes after 10 parts of 1,000 lines (about 100 bytes each), and those are stored.
	e.MustDo(t, http.StatusRequestEntityTooLarge, "POST", "/api/v1/contests/c1/events", judgeToken, chunked(strings.Join(big, "\n")+"\n"), &refused)
	for i, half := range [][]string{big[:7500], big[7500:]} {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events?results=problems", judgeToken, strings.Join(half, "\n")+"\n", &res)
		if res.Accepted+res.Duplicates != 7125 || res.Rejected != 375 {
			t.Errorf("sent again: got %d accepted, %d duplicates, %d rejected; want 7125 in all and 375 rejected", res.Accepted, res.Duplicates, res.Rejected)
		}
		if want := []int{7125, 2375}[i]; res.Duplicates != want {
			t.Errorf("lines %d to %d sent again: got %d duplicates, want %d", 7500*i+1, 7500*(i+1), res.Duplicates, want)
		}
	}
}

// An id or token that is not text (a NUL byte, invalid UTF-8) is refused with its line; the other events of
// the request are stored.
func TestIngestIDsNotText(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s\u0000","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s12","team_id":"t1","problem_id":"B","contest_time":"2:00:00"},"token":"t` + "\xff" + `"}`,
		`{"type":"submissions","data":{"id":"s13","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
	}, "\n")+"\n", &res)
	if res.Accepted != 2 || res.Rejected != 2 || len(res.Results) != 4 ||
		res.Results[1].Code != "invalid" || res.Results[2].Code != "invalid" {
		t.Errorf("got %+v, want items 1 and 4 accepted, 2 and 3 rejected as invalid", res)
	}
	// The same of any text of an event: a NUL character in a team's name; a backslash followed by "u0000" is
	// text like any other.
	res = ingestResponse{}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", adminToken, strings.Join([]string{
		`{"type":"teams","data":{"id":"t7","name":"Nul\u0000Team"}}`,
		`{"type":"teams","data":{"id":"t8","name":"Back\\u0000slash"}}`,
	}, "\n")+"\n", &res)
	if res.Accepted != 1 || len(res.Results) != 2 || res.Results[0].Code != "invalid" || res.Results[1].Status != "accepted" {
		t.Errorf("got %+v, want the NUL name rejected as invalid, the backslash one accepted", res)
	}
}

// Another contest's feed posted to an existing contest is refused whole: its teams and submissions would
// fit, and the log cannot be undone.
func TestIngestAnotherContestsFeed(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var body struct{ Code, Message string }
	e.MustDo(t, http.StatusBadRequest, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"contest","data":{"id":"other","name":"Other","duration":"5:00:00","start_time":"2026-01-01T10:00:00Z"}}`,
		`{"type":"teams","data":{"id":"t9","name":"Intruder"}}`,
	}, "\n")+"\n", &body)
	if body.Code != "invalid" || !strings.Contains(body.Message, `"other"`) {
		t.Errorf("got %+v, want invalid naming the feed's contest", body)
	}
	var teams []struct{ ID string }
	e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/teams", adminToken, nil, &teams)
	for _, tm := range teams {
		if tm.ID == "t9" {
			t.Error("the other contest's team was stored")
		}
	}
	// Beyond the first part (1,000 lines), committed while the rest was read, the answer says what may be
	// stored: it said the request was refused whole.
	lines := make([]string, 0, 1501)
	for i := range 1500 {
		lines = append(lines, fmt.Sprintf(`{"type":"teams","data":{"id":"x%d","name":"X%d"}}`, i, i))
	}
	lines = append(lines, `{"type":"contest","data":{"id":"other","name":"Other","duration":"5:00:00","start_time":"2026-01-01T10:00:00Z"}}`)
	e.MustDo(t, http.StatusBadRequest, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", &body)
	if want := "line 1501: the events define contest \"other\", not \"c1\" (the events before line 1001 may have been stored"; !strings.Contains(body.Message, want) {
		t.Errorf("got %q, want it to say %q", body.Message, want)
	}
}

// A feed whose file starts with a byte order mark is read as without it.
func TestIngestByteOrderMark(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, "\ufeff"+strings.Join([]string{
		`{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}`,
		`{"type":"submissions","data":{"id":"s11","team_id":"t1","problem_id":"B","contest_time":"2:01:00"}}`,
	}, "\n")+"\n", &res)
	if res.Accepted != 2 {
		t.Errorf("got %+v, want both accepted", res)
	}
}

// A body that ends before its Content-Length is the client's error (400), not an internal one.
func TestIngestShortBody(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"type":"submissions","id":"s1"`
	fmt.Fprintf(conn, "POST /api/v1/contests/c1/events HTTP/1.1\r\nHost: rankd\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", judgeToken, len(body)+100, body)
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Code string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadRequest || got.Code != rankd.EINVALID {
		t.Errorf("got %d %q, want 400 %q", resp.StatusCode, got.Code, rankd.EINVALID)
	}
}

// NDJSON sent as JSON (curl's default type is neither) is refused with the way to send it.
func TestIngestNDJSONWithoutItsType(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	body := `{"type":"submissions","data":{"id":"s10","team_id":"t1","problem_id":"B","contest_time":"2:00:00"}}` + "\n" +
		`{"type":"submissions","data":{"id":"s11","team_id":"t1","problem_id":"B","contest_time":"2:01:00"}}` + "\n"
	req, err := http.NewRequest("POST", e.URL+"/api/v1/contests/c1/events", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+judgeToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Code, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(got.Message, "application/x-ndjson") {
		t.Errorf("got %d %q, want 400 naming application/x-ndjson", resp.StatusCode, got.Message)
	}
}

// A 2023-06 line replacing a whole collection, with a token, stores every element, and sent again stores
// nothing: each element took the line's token, and the log refused the second object under it.
func TestIngestCollectionWithToken(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	line := `{"type":"teams","id":null,"data":[{"id":"t7","name":"Seven"},{"id":"t8","name":"Eight"},{"id":"t9","name":"Nine"}],"token":"c9"}` + "\n"
	for i, want := range []struct{ accepted, duplicate int }{{3, 0}, {0, 3}} {
		var res struct{ Accepted, Duplicates, Rejected int }
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, line, &res)
		if res.Accepted != want.accepted || res.Duplicates != want.duplicate || res.Rejected != 0 {
			t.Errorf("sent %d times: got %+v, want %d accepted and %d duplicates", i+1, res, want.accepted, want.duplicate)
		}
	}
	for _, id := range []string{"t7", "t8", "t9"} {
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/"+id, "", nil, nil)
	}
}

// A judge whose request body stalls is answered 400, saying so and after which line, on the NDJSON route as on
// a JSON one (the timed-out read cancels the request, which answered 503 "gave up waiting for the commit").
func TestIngestStalledBody(t *testing.T) {
	e := MustOpenWith(t, options{bodyTimeout: 300 * time.Millisecond})
	e.MustContest(t)
	for _, tc := range []struct{ path, contentType, body, want string }{
		{"/api/v1/contests/c1/events", "application/x-ndjson",
			`{"type":"submissions","data":{"id":"x1","team_id":"t1","problem_id":"A","contest_time":"0:40:00"}}` + "\n",
			"the request body stalled: it sent nothing for 300ms, after line 1"},
		{"/api/v1/contests/c1/submissions", "application/json", `{"id":"x2","team_id":"t1",`, "the request body stalled"},
	} {
		pr, pw := io.Pipe()
		go func() { _, _ = pw.Write([]byte(tc.body)) }() // and nothing more
		req, err := http.NewRequest("POST", e.URL+tc.path, pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+judgeToken)
		req.Header.Set("Content-Type", tc.contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		pw.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s with a stalled body: got %d %s, want 400 saying %q", tc.path, resp.StatusCode, b, tc.want)
		}
	}
}

// A submission made before the contest's start, or at or after its end, is stored and listed and counts on no
// board: its result says so (it was accepted as any other, and a judge with a clock off learnt nothing). So does
// the result of one made later than the contest's time now, which counts.
func TestIngestSubmissionOutsideTheContestSaysSo(t *testing.T) {
	e := MustOpen(t) // at 4:30:00
	e.MustContest(t)
	var res ingestResponse
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken, `[
		{"id":"s20","team_id":"t1","problem_id":"B","contest_time":"-0:05:00"},
		{"id":"s21","team_id":"t1","problem_id":"B","contest_time":"5:00:00"},
		{"id":"s22","team_id":"t1","problem_id":"B","contest_time":"4:30:59"},
		{"id":"s23","team_id":"t1","problem_id":"B","contest_time":"4:59:59"}]`, &res)
	want := []string{"before the contest's start", "at or after the contest's end (5:00:00.000)", "",
		"contest_time 4:59:59.000 is ahead of the contest's clock (4:30:00.000 now)"}
	if len(res.Results) != len(want) {
		t.Fatalf("got %d results, want %d", len(res.Results), len(want))
	}
	for i, r := range res.Results {
		if r.Status != "accepted" || want[i] == "" && r.Message != "" || !strings.Contains(r.Message, want[i]) {
			t.Errorf("item %d: got %s %q, want accepted saying %q", i+1, r.Status, r.Message, want[i])
		}
	}
}

// What curl makes of a feed file: -d drops its line ends, running the events together on one line; a path it
// cannot read sends nothing. Each answer says so.
func TestIngestCurlMistakes(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, ndjson("")); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "the body is empty") {
		t.Errorf("an empty body: got %d %s, want 400 saying it is empty", r.Status, r.Body)
	}
	runTogether := ndjson(`{"type":"teams","data":{"id":"t8","name":"T8"}}{"type":"teams","data":{"id":"t9","name":"T9"}}`)
	if r := e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, runTogether); r.Status != http.StatusOK ||
		!strings.Contains(string(r.Body), `"rejected":1`) || !strings.Contains(string(r.Body), "--data-binary") {
		t.Errorf("events run together: got %d %s, want the line rejected, pointing at --data-binary", r.Status, r.Body)
	}
}

// Empty collections are nothing to do, not an error: a tool that syncs a list, empty today, gets 200.
func TestIngestEmptyCollections(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/api/v1/contests/c1/teams", "[]"},
		{"POST", "/api/v1/contests/c1/judgements", "[]"},
		{"POST", "/api/v1/contests/c1/events", "[]"},
		{"PATCH", "/api/v1/contests/c1", "{}"},
		{"PATCH", "/api/v1/contests/c1", `{"teams":[]}`},
	} {
		token := judgeToken
		if tc.method == "PATCH" || strings.HasSuffix(tc.path, "/teams") {
			token = adminToken
		}
		var res ingestResponse
		e.MustDo(t, http.StatusOK, tc.method, tc.path, token, tc.body, &res)
		if res.Accepted+res.Duplicates+res.Rejected != 0 {
			t.Errorf("%s %s %s: got %+v, want nothing done", tc.method, tc.path, tc.body, res)
		}
	}
}
