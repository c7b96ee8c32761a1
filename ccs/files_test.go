package ccs

import (
	"strings"
	"testing"
)

func TestFileRefs(t *testing.T) {
	for _, tc := range []struct {
		json                  string
		objects, space, ascii bool
	}{
		{`[]`, true, false, true},
		{` [ ] `, true, true, true},
		{`[{}]`, true, false, true},
		{`[{"href":"a","mime":"b"},{"href":"c"}]`, true, false, true},
		{"[{\"href\" : \"a b\"},\t{}]", true, true, true},
		{"[{\"a\":\"b\"}\r\n]", true, true, true},
		{`[{"a":"\"]"},{"b":"\\"},{"c":"\u00e9\/"}]`, true, false, true},
		{`[{"a":"é"}]`, true, false, false},
		{`[{"a":["x",1,{}]}]`, true, false, true},
		{`[{},1]`, false, false, true},
		{`[{},"x"]`, false, false, true},
		{`[ {} , "x" ]`, false, true, true},
		{`[[]]`, false, false, true},
		{`[null]`, false, false, true},
		{`{}`, false, false, true},
		{`{"a":[{}]}`, false, false, true},
		{`"[{}]"`, false, false, true},
		{`1`, false, false, true},
	} {
		if got := fileRefsObjects(tc.json); got != tc.objects {
			t.Errorf("%s: fileRefsObjects gives %v, want %v", tc.json, got, tc.objects)
		}
		if got := fileRefsObjects([]byte(tc.json)); got != tc.objects {
			t.Errorf("%s: fileRefsObjects of the bytes gives %v, want %v", tc.json, got, tc.objects)
		}
		end, objects := skipFileRefs([]byte(tc.json), len(tc.json)-len(strings.TrimLeft(tc.json, " ")))
		if want := len(strings.TrimRight(tc.json, " ")); end != want || objects != tc.objects {
			t.Errorf("%s: skipFileRefs gives %d, %v; want %d, %v", tc.json, end, objects, want, tc.objects)
		}
		if got := hasSpace([]byte(tc.json)); got != tc.space {
			t.Errorf("%s: hasSpace gives %v, want %v", tc.json, got, tc.space)
		}
		if got := isASCII([]byte(tc.json)); got != tc.ascii {
			t.Errorf("%s: isASCII gives %v, want %v", tc.json, got, tc.ascii)
		}
		if got, want := string(appendCompact(nil, []byte(tc.json))), compactOf(t, tc.json); got != want {
			t.Errorf("%s: compacted to %s, want %s", tc.json, got, want)
		}
	}
	for _, bad := range []string{`[`, `[{}`, `[{},]`, `[{} {}]`, `[{]`, `[01]`} {
		if end, _ := skipFileRefs([]byte(bad), 0); end >= 0 {
			t.Errorf("%s: skipFileRefs gives %d, want -1", bad, end)
		}
	}
	if !isASCII([]byte("0123456789abcdef")) || isASCII([]byte("0123456789abcdeé")) || isASCII([]byte("é0123456789")) {
		t.Error("isASCII is wrong about a long text")
	}
}

// compactOf is appendCompact's result as the general path would get it: the value parsed and marshalled.
func compactOf(t *testing.T, s string) string {
	t.Helper()
	var r Reader
	v, err := r.p.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(v.MarshalTo(nil))
}
