package ccs_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"rankd/ccs"
)

// FuzzFeedFilter reads a feed as the log holds it (each event read, then written as one line) into the
// public feed's filter: the filter takes every line without a panic, and every line it emits reads back as
// one event.
func FuzzFeedFilter(f *testing.F) {
	for _, feed := range feeds {
		sc := bufio.NewScanner(bytes.NewReader(MustReadFeed(f, feed)))
		sc.Buffer(nil, ccs.MaxLineSize)
		var head [][]byte
		for i := 0; i < 150 && sc.Scan(); i++ {
			head = append(head, bytes.Clone(sc.Bytes()))
		}
		f.Add(bytes.Join(head, []byte("\n")))
	}
	f.Add([]byte(contestLine + "\n" +
		`{"type":"state","data":{"started":"2025-03-02T09:30:00Z","frozen":"2025-03-02T13:30:00Z"}}` + "\n" +
		`{"type":"teams","id":"t","data":{"id":"t","name":"T","group_ids":["g"],"hidden":false}}` + "\n" +
		`{"type":"groups","id":"g","data":{"id":"g","name":"G","hidden":true}}` + "\n" +
		`{"type":"submissions","id":"s","data":{"id":"s","team_id":"t","problem_id":"p","contest_time":"4:30:00"}}` + "\n" +
		`{"type":"judgements","id":"j","data":{"id":"j","submission_id":"s","judgement_type_id":"AC","start_contest_time":"4:31:00"}}` + "\n" +
		`{"type":"awards","id":"winner","data":{"id":"winner","citation":"Winner","team_ids":["t"]}}` + "\n" +
		`{"type":"bans","id":"t","data":{"team_id":"t","banned":true}}` + "\n" +
		`{"type":"submissions","id":"s","data":null}` + "\n" +
		`{"type":"state","data":{"started":"2025-03-02T09:30:00Z","frozen":"2025-03-02T13:30:00Z","ended":"2025-03-02T14:30:00Z","thawed":"2025-03-02T15:00:00Z"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var lines [][]byte
		r := ccs.NewReader(bytes.NewReader(data))
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				continue
			}
			line, err := ccs.AppendEvent(nil, ev)
			if err != nil {
				t.Fatalf("writing %s: %v", show(ev), err)
			}
			lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
		}
		ff := ccs.NewFeedFilter()
		for i, line := range lines {
			err := ff.Add(int64(i+1), line, func(out []byte) error {
				rd := ccs.NewReader(bytes.NewReader(out))
				if _, err := rd.Next(); err != nil && !errors.Is(err, io.EOF) {
					t.Fatalf("log line %q: the public feed gets %q, which does not read: %v", line, out, err)
				}
				if _, err := rd.Next(); !errors.Is(err, io.EOF) {
					t.Fatalf("log line %q: the public feed gets %q, more than one event", line, out)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
		}
	})
}
