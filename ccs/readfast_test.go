package ccs

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// fastLines are lines the fast path reads, and lines it must hand to the general path, however close to
// the plain shape; the contest and state lines first give absolute times their start.
var fastLines = []string{
	`{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-01-01T10:00:00Z","duration":"5:00:00"}}`,
	`{"type":"submissions","id":"1","data":{"id":"1","team_id":"9","problem_id":"a","contest_time":"0:00:01.058","time":"2026-01-01T10:00:01.058Z"}}`,
	`{"type":"submissions","id":"2","data":{"id":"2","team_id":"9","problem_id":"a","time":"2026-01-01T11:00:01.5+01:00"}}`,
	`  {"data":{"problem_id":"a","team_id":"9","id":"3","contest_time":"-0:00:01"},"id":"3","type":"submissions","token":"t3"}` + "\r\n",
	`{"type":"submissions","id":null,"data":{"id":"4","team_id":"9","problem_id":"a","contest_time":"1:00:00","files":[{"href":"x\u00e9","mime":"a/b"}],"n":-1.5e+3,"b":[true,false,null,{}],"e":[]}}`,
	`{"type":"submissions","id":"5","data":{"team_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"6","data":{"id":"6","team_id":"9","team_id":"8","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","type":"judgements","id":"7","data":{"id":"7","team_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"judgements","id":"1","data":{"id":"1","submission_id":"1","judgement_type_id":"AC","start_contest_time":"0:00:02","end_contest_time":"0:00:03"}}`,
	`{"type":"judgements","id":"2","data":{"id":"2","submission_id":"1","judgement_type_id":null,"start_time":"2026-01-01T10:00:02Z","end_time":null,"score":null,"rankd":null}}`,
	`{"type":"judgements","id":"3","data":{"id":"3","submission_id":"1","start_contest_time":"0:00:02"},"token":null}`,
	`{"type":"submissions","id":"10","data":{"id":"10","language_id":"java","problem_id":"a","team_id":"9","contest_time":"0:01:00","entry_point":"Main","files":[{"href":"contests/c/submissions/10/files","mime":"application/zip"}]}}`,
	`{"type":"submissions","id":"11","data":{"id":"11","language_id":"cpp","problem_id":"a","team_id":"9","contest_time":"0:01:00","entry_point":null,"files":[]}}`,
	`{"type":"submissions","id":"12","data":{"id":"12","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":[ {"href": "a\/b\u00e9 é", "mime" :"x","n":[ 1e3 , {} ]}` + "\t" + `,{"href":"c","mime":"y","href":"d"} ],"entry_point":"","language_id":null}}`,
	`{"type":"submissions","id":"13","data":{"id":"13","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":[ ]}}`,
	`{"type":"submissions","id":"14","data":{"id":"14","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":null,"reaction":[{"href":"r","mime":"video/mp4"}]}}`,
	// the general path's business
	`{"type":"judgements","id":"4","data":{"id":"4","submission_id":"1","judgement_type_id":"AC","start_contest_time":"0:00:02","score":1.5}}`,
	`{"type":"judgements","id":"5","data":{"id":"5","submission_id":"1","start_contest_time":"0:00:02","rankd":{"subtask_scores":[1]}}}`,
	`{"type":"judgements","id":"6","data":{"id":"6","submission_id":"1","start_contest_time":"0:00:02"},"token":6}`,
	`{"type":"submissions","id":"8","data":{"id":"9","team_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":9,"problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"\u0039","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","te\u0061m_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00","x":01}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00","x":"\q"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00"}} x`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00"}`,
	`{"type":"submissions","id":"8","data":null}`,
	`{"type":"submissions","id":"8","op":"create","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submission","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","contest_time":"1:00:00"}}`,
	`{"type":"submissions","id":"8","data":{"id":"8","team_id":"9","problem_id":"a","time":"2026-01-01T10:00:00"}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":[{"href":"a` + "\xff" + `","mime":"x"}]}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":[{"href":"a` + "\u2029" + `","mime":"x"}]}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":[{"href":"a","mime":"x"},[]]}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":{"href":"a","mime":"x"}}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","files":"a"}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","language_id":7}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","language_id":"c\u0070p"}}`,
	`{"type":"submissions","id":"15","data":{"id":"15","problem_id":"a","team_id":"9","contest_time":"0:01:00","entry_point":["Main"]}}`,
	`{"type":"state","data":{"started":"2026-01-01T10:30:00Z"}}`,
	`{"type":"submissions","id":"9","data":{"id":"9","team_id":"9","problem_id":"a","time":"2026-01-01T10:00:00Z"}}`,
}

// TestFastPathAgrees reads every line both ways: where the fast path takes a line, the general path must
// give the same event; and the lines meant for each path go where they should.
func TestFastPathAgrees(t *testing.T) {
	fast := 0
	for _, line := range fastLines {
		if agree(t, []byte(line), nil) {
			fast++
		}
	}
	if fast != 16 {
		t.Errorf("the fast path read %d lines, want 16", fast)
	}
	for _, name := range []string{"euc2025", "wf47"} {
		_, file, _, _ := runtime.Caller(0)
		data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", name, "event-feed.ndjson"))
		if err != nil {
			t.Skip(err)
		}
		n, fast := 0, 0
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, MaxLineSize)
		var r *Reader
		for sc.Scan() {
			n++
			if agreeWith(t, &r, sc.Bytes()) {
				fast++
			}
		}
		t.Logf("%s: %d of %d lines read by the fast path", name, fast, n)
	}
}

// FuzzFastPath checks on arbitrary lines that the fast path never disagrees with the general one.
func FuzzFastPath(f *testing.F) {
	for _, l := range fastLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line at a time
		}
		agree(t, line, nil)
	})
}

// agree reads line with a reader that has seen the contest line of fastLines.
func agree(t *testing.T, line []byte, _ *Reader) bool {
	t.Helper()
	var r *Reader
	agreeWith(t, &r, []byte(fastLines[0]))
	return agreeWith(t, &r, line)
}

// agreeWith reads line with the fast and the general path of two readers in step (*r and its twin, made
// on first use), checks that they agree, and reports whether the fast path took it.
func agreeWith(t *testing.T, r **Reader, line []byte) bool {
	t.Helper()
	if *r == nil {
		*r = NewReader(bytes.NewReader(nil))
	}
	fastR := *r
	slowR := *fastR
	slowR.names, slowR.skipped = map[string]string{}, map[string]int{}
	fe, ok := fastR.readFast(line)
	se, skip, err := slowR.parseLine(line)
	if !ok {
		// the general path reads it: let the reader carry its state on (contest start, state)
		*fastR = slowR
		fastR.names, fastR.skipped = map[string]string{}, map[string]int{}
		return false
	}
	if err != nil || skip {
		t.Fatalf("%s: fast path read %+v, general path: skip %v, %v", line, fe, skip, err)
	}
	if !reflect.DeepEqual(fe, se) {
		t.Fatalf("%s:\nfast    %+v %+v %+v\ngeneral %+v %+v %+v", line, fe, fe.Submission, fe.Judgement, se, se.Submission, se.Judgement)
	}
	return true
}
