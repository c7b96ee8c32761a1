package http

import (
	"net/http"
	"net/url"
	"strings"
)

// param returns the first value of the request's query parameter name, "" when it has none: what
// param(r, name) returns, without parsing the whole query into a map (a page read asked for
// five parameters, and parsing them was a twentieth of its cost).
func param(r *http.Request, name string) string {
	v, _ := lookupParam(r.URL.RawQuery, name)
	return v
}

// hasParam reports whether the request's query names the parameter, as hasParam(r, name).
func hasParam(r *http.Request, name string) bool {
	_, ok := lookupParam(r.URL.RawQuery, name)
	return ok
}

// lookupParam finds the first value of name in a raw query as url.ParseQuery reads it: pairs separated by
// '&', a pair with a ';' or that does not unescape skipped.
func lookupParam(query, name string) (string, bool) {
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		key, ok := unescape(key)
		if !ok || key != name {
			continue
		}
		if value, ok = unescape(value); ok {
			return value, true
		}
	}
	return "", false
}

// unescape is url.QueryUnescape, which it calls only for text that has something to unescape.
func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}
