package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"

	"rankd"
	"rankd/engine"
)

// The hand-written ingest answer is byte for byte what encoding/json writes.
func TestWriteIngestEqualsEncodingJSON(t *testing.T) {
	resp := ingestResponse{Accepted: 2, Duplicates: 1, Rejected: 2, Results: []itemResult{
		{Item: 1, Type: "submissions", ID: "s1", Result: engine.Result{Status: "accepted", Pos: 17, Seq: 40}},
		{Item: 2, Type: "judgements", ID: "j\"1\\<é>\u2028", Result: engine.Result{Status: "duplicate", Pos: 9}},
		{Item: 3, Result: engine.Result{Status: "rejected", Code: "invalid", Message: "line 3: bad \"json\"\n\tat & <here>"}},
		{Item: 4, Type: "teams", ID: "", Result: engine.Result{Status: "rejected", Code: "unprocessable", Message: "unknown team \"x\""}},
		{Item: 5, Type: "teams", ID: "t\x01", Result: engine.Result{Status: "accepted", Pos: 1}},
	}}
	rec := httptest.NewRecorder()
	if err := writeIngest(rec, 200, &resp); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); got != string(want)+"\n" {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	empty := ingestResponse{Results: []itemResult{}}
	rec = httptest.NewRecorder()
	_ = writeIngest(rec, 200, &empty)
	want, _ = json.Marshal(empty)
	if got := rec.Body.String(); got != string(want)+"\n" {
		t.Errorf("empty: got %s, want %s", got, want)
	}
}

// Whatever a client posts, reading it into feed lines does not panic, and a body that is read gives one
// line per object.
func FuzzJSONLines(f *testing.F) {
	for _, seed := range []string{`{"id":"s1","team_id":"t1"}`, `[{"type":"teams","data":{"id":"t1"}},{}]`, `[]`, `42`,
		`{"type":"judgements","data":null}`, `[[1],[2]]`, `"x"`, `{`, "\x00"} {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(rankd.EventSubmission))
	}
	f.Fuzz(func(t *testing.T, body []byte, typ uint8) {
		feed, n, single, err := jsonLines(body, rankd.EventType(typ%uint8(rankd.EventAward+1)))
		if err != nil {
			return
		}
		if single && n != 1 {
			t.Errorf("a single object gave %d lines", n)
		}
		if lines := bytes.Count(feed, []byte{'\n'}) + 1; n > 0 && lines != n {
			t.Errorf("%d elements gave %d lines: %q", n, lines, feed)
		}
		for line := range bytes.Lines(feed) {
			if line[0] != '{' {
				t.Errorf("got line %q, want an object", line)
			}
		}
	})
}

// What is wrong with a body that is not JSON objects is said in the user's terms: where, and what was
// expected, not a parser's internals; an element that is not an object is refused, not read as a
// collection (an array) or a deletion (null).
func TestJSONLinesErrors(t *testing.T) {
	for _, tt := range []struct {
		body string
		typ  rankd.EventType
		want string
	}{
		{`{"id": }`, rankd.EventSubmission, `the body is not JSON: column 8: invalid character '}' looking for beginning of value`},
		{"[\n{\"id\":\"s1\"},\n{\"id\" \"s2\"}]", rankd.EventSubmission, `the body is not JSON: line 3, column 7: invalid character '"' after object key`},
		{`{"id": "s1"`, rankd.EventSubmission, `the body is not JSON: column 11: unexpected end of JSON input`},
		{`[[{"id":"s1"},{"id":"s2"}],[]]`, rankd.EventSubmission, `element 1 of the array is not a JSON object: each element is an object of submissions`},
		{`[{"id":"s1"},null]`, rankd.EventSubmission, `element 2 of the array is not a JSON object: each element is an object of submissions`},
		{`[{"type":"teams","data":{"id":"t1"}},"x"]`, rankd.EventUnknown, `element 2 of the array is not a JSON object: each element is an event`},
	} {
		_, _, _, err := jsonLines([]byte(tt.body), tt.typ)
		if got := rankd.ErrorMessage(err); got != tt.want || rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("%s: got %v, want %s %q", tt.body, err, rankd.EINVALID, tt.want)
		}
	}
}

// A JSON array of events costs about its own size again to turn into feed lines: its parse tree held over
// twenty times its size (a few judges posting 63 MB arrays at once ran a server out of memory).
func TestJSONLinesMemory(t *testing.T) {
	var body bytes.Buffer
	body.WriteString("[\n")
	for i := range 30000 {
		if i > 0 {
			body.WriteString(",\n")
		}
		fmt.Fprintf(&body, `  {"id": "s%d", "team_id": "t%d", "problem_id": "p%d", "language_id": "cpp", "contest_time": "1:%02d:00.000"}`, i, i%1000, i%12, i%60)
	}
	body.WriteString("\n]")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	feed, n, single, err := jsonLines(body.Bytes(), rankd.EventSubmission)
	runtime.ReadMemStats(&after)
	if err != nil || n != 30000 || single {
		t.Fatalf("got %d lines, single %v, %v; want 30000 lines", n, single, err)
	}
	if !bytes.HasPrefix(feed, []byte(`{"type":"submissions","data":{"id":"s0","team_id":"t0",`)) {
		t.Errorf("got first line %.80q, want the first element compacted in a submissions event", feed)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 3*uint64(body.Len()) {
		t.Errorf("a %d-byte array allocated %d bytes to read, want at most 3 times its size", body.Len(), allocated)
	}
}
