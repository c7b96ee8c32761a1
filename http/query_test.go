package http

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzLookupParam checks that lookupParam reads a query as url.ParseQuery does.
func FuzzLookupParam(f *testing.F) {
	for _, q := range []string{"", "a=1", "a=1&a=2", "a", "a=", "b=1&a=%41", "a=%zz&a=2", "%61=x", "a;b=1&a=3",
		"a=1+2", "&&a=&", "a%3Db=c", "=1", "a=b=c"} {
		f.Add(q, "a")
	}
	f.Fuzz(func(t *testing.T, query, name string) {
		if strings.Count(query, "&") > 1000 {
			t.Skip() // url.ParseQuery refuses a query of too many parameters outright
		}
		want, _ := url.ParseQuery(query)
		got, ok := lookupParam(query, name)
		if got != want.Get(name) || ok != want.Has(name) {
			t.Fatalf("lookupParam(%q, %q) = %q, %t; want %q, %t", query, name, got, ok, want.Get(name), want.Has(name))
		}
	})
}
