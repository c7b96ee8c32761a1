package http

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

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
