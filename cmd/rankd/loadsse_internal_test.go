package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// sseRecord records what a parser reports.
type sseRecord struct {
	events, gaps int
	moves        []string // "prev→seq"
}

func (r *sseRecord) event() { r.events++ }
func (r *sseRecord) gap()   { r.gaps++ }
func (r *sseRecord) delivered(prev, seq uint64, _ time.Time) {
	r.moves = append(r.moves, fmt.Sprintf("%d→%d", prev, seq))
}

// chunked is body as a chunked HTTP/1.1 response, cut into chunks of at most n bytes.
func chunked(body string, n int) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%x\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	return b.String()
}

// The load tool's reader of streams finds the events, their numbers and gaps, wherever the reads and the
// chunks cut them.
func TestSSEParser(t *testing.T) {
	body := "retry: 2000\n\n" +
		"event: snapshot\nid: 10\ndata: {\"seq\":10,\"rows\":[]}\n\n" +
		": ping\n\n" +
		"event: diff\nid: 12\ndata: {\"seq\":12,\"base_seq\":10,\"frozen\":false,\"rows\":[{\"team_id\":\"" + strings.Repeat("x", 300) + "\"}]}\n\n" +
		"event: diff\nid: 15\ndata: {\"seq\":15,\"base_seq\":13,\"rows\":[]}\n\n" // a gap
	want := sseRecord{events: 3, gaps: 1, moves: []string{"10→12", "12→15"}}
	for _, chunk := range []int{1, 7, 64, 4096} {
		stream := chunked(body, chunk)
		for _, read := range []int{1, 3, 100, len(stream)} {
			var got sseRecord
			var p sseParser
			for s := stream; len(s) > 0; {
				k := min(read, len(s))
				if err := p.feed([]byte(s[:k]), time.Now(), &got); err != nil {
					t.Fatalf("chunks of %d, reads of %d: %v", chunk, read, err)
				}
				s = s[k:]
			}
			if got.events != want.events || got.gaps != want.gaps || !slices.Equal(got.moves, want.moves) {
				t.Errorf("chunks of %d, reads of %d: got %+v, want %+v", chunk, read, got, want)
			}
		}
	}
}

func TestSSEParserRefuses(t *testing.T) {
	tests := []struct{ name, stream, want string }{
		{"status", "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\n\r\n", "503"},
		{"not chunked", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "not chunked"},
		{"chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "size line"},
		{"end", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "ended"},
	}
	for _, tt := range tests {
		var p sseParser
		err := p.feed([]byte(tt.stream), time.Now(), &sseRecord{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func FuzzSSEParser(f *testing.F) {
	f.Add([]byte(chunked("event: diff\nid: 3\ndata: {\"seq\":3,\"base_seq\":1}\n\n", 5)))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p sseParser
		_ = p.feed(b, time.Now(), &sseRecord{}) // no panic
	})
}
