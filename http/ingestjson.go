package http

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
)

// writeIngest writes an ingest answer. It is what encoding/json writes, appended by hand: a batch of
// thousands of events is answered with thousands of results, and reflection would cost more than
// committing them.
func writeIngest(w http.ResponseWriter, status int, r *ingestResponse) error {
	b := make([]byte, 0, 64+len(r.Results)*96)
	b = append(b, `{"accepted":`...)
	b = strconv.AppendInt(b, int64(r.Accepted), 10)
	b = append(b, `,"duplicates":`...)
	b = strconv.AppendInt(b, int64(r.Duplicates), 10)
	b = append(b, `,"rejected":`...)
	b = strconv.AppendInt(b, int64(r.Rejected), 10)
	if len(r.Skipped) > 0 {
		b = append(b, `,"skipped":{`...)
		for i, typ := range slices.Sorted(maps.Keys(r.Skipped)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, typ)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(r.Skipped[typ]), 10)
		}
		b = append(b, '}')
	}
	b = append(b, `,"results":[`...)
	for i := range r.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItemResult(b, &r.Results[i])
	}
	b = append(b, "]}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b) // an error is the client gone
	return nil
}

func appendItemResult(b []byte, r *itemResult) []byte {
	b = append(b, `{"item":`...)
	b = strconv.AppendInt(b, int64(r.Item), 10)
	if r.Type != "" {
		b = append(b, `,"type":`...)
		b = appendJSONString(b, r.Type)
	}
	if r.ID != "" {
		b = append(b, `,"id":`...)
		b = appendJSONString(b, r.ID)
	}
	b = append(b, `,"status":`...)
	b = appendJSONString(b, r.Status)
	if r.Pos != 0 {
		b = append(b, `,"pos":`...)
		b = strconv.AppendInt(b, r.Pos, 10)
	}
	if r.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, r.Seq, 10)
	}
	if r.Code != "" {
		b = append(b, `,"code":`...)
		b = appendJSONString(b, r.Code)
	}
	if r.Message != "" {
		b = append(b, `,"message":`...)
		b = appendJSONString(b, r.Message)
	}
	if r.Cause != "" {
		b = append(b, `,"cause":`...)
		b = appendJSONString(b, r.Cause)
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string: as it is when it needs no escaping (ids and codes
// always), else as encoding/json escapes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
