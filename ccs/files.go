package ccs

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	"github.com/valyala/fastjson"
)

// A submission's files (CCS FILE[]) are kept as JSON text, not as objects: rankd reads nothing in them, and
// the text keeps every member a sender gives (href, mime, filename, hash, ...) for one allocation. The form
// kept (rankd.Submission.Files) is the sender's array with the whitespace between tokens removed, strings and
// numbers as the sender wrote them, escapes included; only what the Writer would not write in a string is
// changed: a byte of invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped. An empty array is kept as "".
// Both reader paths give this form: the fast one from the raw text, the general one from the parsed value.

// files returns a submission's files in the form above. A member that is not an array of objects is an
// error for the line; what is inside the objects is the sender's business.
func (f fields) files(key string) (string, error) {
	v := f.get(key)
	if v == nil {
		return "", nil
	}
	a, err := v.Array()
	if err != nil {
		return "", f.fail(key, "want an array of file references, got %s", v.Type())
	}
	if len(a) == 0 {
		return "", nil
	}
	for _, e := range a {
		// Type leaves an object as parsed; only a raw string would be unescaped, and that is an error anyway.
		if e.Type() != fastjson.TypeObject {
			return "", f.fail(key, "want an array of file references (objects), got %s in it", e.Type())
		}
	}
	// Untouched strings and keys are marshalled as the sender wrote them, numbers too: compacted raw text.
	b := v.MarshalTo(f.r.scratch[:0])
	f.r.scratch = b
	if err := fastjson.ValidateBytes(b); err != nil {
		// The parser lets some things through (bad escapes, control characters) that are not JSON.
		return "", f.fail(key, "bad JSON: %s", clip([]byte(err.Error())))
	}
	if !cleanJSON(b) {
		return string(appendCleanJSON(nil, b)), nil
	}
	return string(b), nil
}

// skipFileRefs is skipValue for the value of a member "files" at s[i]: the index just past it (-1 when it is
// not valid JSON), and whether it is an array of objects (empty included). It costs no more than skipValue,
// which the fast path would run over the member anyway.
func skipFileRefs(s []byte, i int) (end int, objects bool) {
	if i >= len(s) || s[i] != '[' {
		return skipValue(s, i, 1), false
	}
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1, true
	}
	objects = true
	for {
		if i >= len(s) {
			return -1, false
		}
		if s[i] != '{' {
			objects = false
		}
		if i = skipValue(s, i, 2); i < 0 {
			return -1, false
		}
		i = skipWS(s, i)
		if i >= len(s) {
			return -1, false
		}
		switch s[i] {
		case ',':
			i = skipWS(s, i+1)
		case ']':
			return i + 1, objects
		default:
			return -1, false
		}
	}
}

// fileRefsObjects reports whether valid JSON text is an array of objects (empty included).
func fileRefsObjects[T text](s T) bool {
	objects, depth, element := false, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if element { // the first token of an element of the outer value
			element = false
			if c != '{' && c != ']' { // ']' only right after '[' in valid JSON: the empty array
				return false
			}
		}
		switch c {
		case '"': // to the closing quote
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++ // an escape's next byte is not the closing quote
				}
			}
		case '[', '{':
			if depth == 0 {
				objects, element = c == '[', true
			}
			depth++
		case ']', '}':
			depth--
		case ',':
			element = depth == 1
		}
	}
	return objects
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasSpace reports whether b holds a byte of JSON whitespace: JSON text without one has nothing to compact.
func hasSpace(b []byte) bool {
	return bytes.IndexByte(b, ' ') >= 0 || bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\t') >= 0 ||
		bytes.IndexByte(b, '\r') >= 0
}

// appendCompact appends valid JSON text without the whitespace between its tokens.
func appendCompact(dst, s []byte) []byte {
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				dst = append(dst, c)
				i++
				c = s[i]
			case '"':
				inString = false
			}
			dst = append(dst, c)
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst
}

// cleanJSON reports whether JSON text needs nothing of appendCleanJSON: valid UTF-8 without U+2028, U+2029.
func cleanJSON(b []byte) bool {
	return utf8.Valid(b) && !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029"))
}

// appendCleanJSON appends JSON text as the Writer writes strings: each byte of invalid UTF-8 replaced by
// U+FFFD, U+2028 and U+2029 escaped (outside strings, valid JSON has neither).
func appendCleanJSON(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			dst = append(dst, b[i:i+size]...)
		}
		i += size
	}
	return dst
}

// validFiles reports whether a Submission's Files can be written as it is: "" or a JSON array of objects.
// What the Reader gives passes the fast path's check (which reads the string's bytes in place: they are only
// read); what goes deeper than that check does is left to fastjson's.
func validFiles(s string) bool {
	if s == "" {
		return true
	}
	if end, objects := skipFileRefs(unsafe.Slice(unsafe.StringData(s), len(s)), 0); end == len(s) && objects {
		return true
	}
	return fastjson.Validate(s) == nil && fileRefsObjects(s)
}
