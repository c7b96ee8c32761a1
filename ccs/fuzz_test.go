package ccs_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"rankd"
	"rankd/ccs"
)

// FuzzReader feeds the Reader arbitrary bytes. It must not panic; every error must be an EINVALID
// *rankd.Error naming its line; the Writer must take every event read; and what it writes must read back
// without error and write again to the same bytes (so the Reader loses nothing of the Writer's output).
// The seed corpus is the first lines of each type of the real feeds (all of them would make the fuzzer spend
// a minute on thousands of near-identical judgements before it starts) and a few feeds in other styles.
func FuzzReader(f *testing.F) {
	const perType = 40
	for _, feed := range feeds {
		seen := map[string]int{}
		sc := bufio.NewScanner(bytes.NewReader(MustReadFeed(f, feed)))
		sc.Buffer(nil, ccs.MaxLineSize)
		for sc.Scan() {
			typ, _, _ := bytes.Cut(sc.Bytes(), []byte(`",`)) // {"type":"<type>", in both feeds
			if seen[string(typ)]++; seen[string(typ)] <= perType {
				f.Add(bytes.Clone(sc.Bytes()))
			}
		}
	}
	for _, seed := range []string{
		contestLine + "\n" + `{"type":"submissions","id":"2","data":{"id":"2","team_id":"28","problem_id":"J","time":"2025-03-02T11:34:48.183+02:00"}}`,
		`{"type":"state","data":{"started":"2025-03-02T09:31:00Z"}}` + "\n" + `{"type":"judgements","id":"1","data":{"id":"1","submission_id":"1","start_time":"2025-03-02T09:40:00Z","end_time":"2025-03-02T09:40:01.5Z","judgement_type_id":"AC","score":1.5,"rankd":{"subtask_scores":[1,0.5]}}}`,
		`{"id":"1","type":"contests","op":"create","data":{"id":"c","name":"C","duration":"5:00:00","scoreboard_type":"score","penalty_time":"0:01:30","rankd":{"rules":"ctf","oi_mode":"last","first_blood":[3,2,1],"medals":{"gold":1}}}}`,
		`{"id":"2","type":"problems","op":"update","data":{"id":"p","label":"P","name":"P","ordinal":1,"max_score":100,"rankd":{"value":500,"minimum":100,"decay":10,"function":"linear","subtasks":[40,60]}}}` + "\n" + `{"id":"3","type":"teams","op":"delete","data":{"id":"t"}}`,
		`{"type":"problems","id":null,"data":[{"id":"a","label":"A","name":"A","ordinal":1},{"id":"b"}]}`,
		`{"type":"bans","id":"t","data":{"team_id":"t","banned":true}}` + "\n" + `{"type":"bans","id":"t","data":null}`,
		`{"type":"teams","id":"t","data":{"id":"t","name":"a\u0000\ud800\"","group_ids":["g"],"hidden":true}}` + "\r\n\n",
		`{"type":"contest","id":null,"data":null}` + "\n" + `{"type":"state","data":{"started":"0001-01-01T00:00:00Z"}}`,
		`{"type":"submissions","id":"s","data":{"id":"s","language_id":"java","problem_id":"p","team_id":"t","contest_time":"0:01:00","entry_point":"Main","files":[ {"href":"a\/` + "\xff\u2028" + `","mime":"m","n":[1e3,{}]} ]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		w := ccs.NewWriter(&out)
		r := ccs.NewReader(bytes.NewReader(data))
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var e *rankd.Error
				if !errors.As(err, &e) || e.Code != rankd.EINVALID {
					t.Fatalf("got %#v, want a *rankd.Error with code %q", err, rankd.EINVALID)
				}
				if prefix := fmt.Sprintf("line %d: ", r.Line()); !strings.HasPrefix(e.Message, prefix) {
					t.Fatalf("error %q does not start with %q", e.Message, prefix)
				}
				continue
			}
			if err := w.Write(ev); err != nil {
				t.Fatalf("writing %s: %v", show(ev), err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		again, err := rewrite(out.Bytes())
		if err != nil {
			t.Fatalf("reading back %q: %v", out.Bytes(), err)
		}
		if !bytes.Equal(again, out.Bytes()) {
			t.Fatalf("written once:\n%s\nread and written again:\n%s", out.Bytes(), again)
		}
	})
}

// rewrite reads a feed and writes its events again, failing on any error.
func rewrite(feed []byte) ([]byte, error) {
	var out bytes.Buffer
	w := ccs.NewWriter(&out)
	r := ccs.NewReader(bytes.NewReader(feed))
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := w.Write(ev); err != nil {
			return nil, err
		}
	}
	err := w.Flush()
	return out.Bytes(), err
}
