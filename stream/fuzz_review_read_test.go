package stream

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzFollowerRead feeds a follower arbitrary stream bodies, as a server (or a proxy in front of one) may
// send them: reading ends with an error (the stream always ends), never a panic, and the board it keeps
// has its rows at their positions with ranks that follow from them.
func FuzzFollowerRead(f *testing.F) {
	snap := `{"seq":1,"rows":[{"team_id":"a","key":"1","cells":[{"problem_id":"A","solved":true}]},{"team_id":"b","key":"1"}]}`
	diff := `{"seq":2,"base_seq":1,"rows":[{"team_id":"b","pos":0,"key":"0","cells":[{"problem_id":"A","judged":1}]}],"removed":["a"]}`
	for _, seed := range []string{
		"retry: 2000\n\nevent: snapshot\nid: 1\ndata: " + snap + "\n\nevent: diff\nid: 2\ndata: " + diff + "\n\n: ping\n\n",
		"retry: 2000\r\n\r\nevent: snapshot\r\ndata: " + snap + "\r\n\r\n",
		"event: diff\ndata: " + diff + "\n\n",
		"event: snapshot\ndata: {\"seq\":3,\ndata: \"rows\":[]}\n\nevent: diff\ndata: {\"seq\":5,\"base_seq\":4}\n\n",
		"event: error\ndata: {\"code\":\"not_found\",\"message\":\"no contest\"}\n\n",
		"retry: 99999999999\nretry: -1\nevent: top\ndata: {}\n\n",
		"data\n\nevent\n\n:\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var fl Follower
		err := fl.read(bytes.NewReader(body))
		if err == nil {
			t.Fatalf("reading %q ended without an error", body)
		}
		if errors.Is(err, io.EOF) {
			t.Fatalf("reading %q: got io.EOF, want io.ErrUnexpectedEOF for a stream that ends", body)
		}
		b, _ := fl.Board()
		for i, r := range b.Rows {
			if r.Pos != i || r.Rank < 1 || r.Rank > i+1 {
				t.Fatalf("reading %q: row %d at pos %d with rank %d", body, i, r.Pos, r.Rank)
			}
		}
	})
}
