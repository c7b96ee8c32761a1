package ccs

import (
	"bytes"
	"time"

	"rankd"
)

// The fast path: most lines of a feed are submissions and judgements of one plain shape. readFast reads
// those without building a JSON tree; it accepts only what it fully understands and is at least as strict
// as the general parser, and hands anything else (another type, an escape in a key, a member it would have
// to interpret otherwise, any error) to the general path, which then decides. So both give the same event.

// fastMember is one member of a JSON object as the fast path scans it.
type fastMember struct {
	key  []byte
	val  []byte // a string's contents (without quotes, no escapes), or an object's or file references' raw text
	kind byte
}

// Kinds of member values.
const (
	fastOther  = iota // a valid value the fast path does not read
	fastString        // a string without escapes
	fastNull
	fastObject
	fastFileRefs // an array of objects, for a member "files" (see skipFileRefs)
)

// fastMaxDepth bounds the nesting the fast path skips over; deeper lines take the general path.
const fastMaxDepth = 32

// readFast returns the event of a submission or judgement line of the plain shape; ok is false for any
// other line, which the general path must read.
func (r *Reader) readFast(line []byte) (ev rankd.Event, ok bool) {
	members := r.fastData[:0]
	env, past, ok := scanMembers(line, skipWS(line, 0), r.fastEnv[:0], &members)
	r.fastEnv, r.fastData = env[:0], members[:0]
	if !ok || skipWS(line, past) != len(line) {
		return ev, false
	}
	var typ, id, token, data *fastMember
	for i := range env {
		m := &env[i]
		switch string(m.key) {
		case "type":
			typ = first(typ, m)
		case "id":
			id = first(id, m)
		case "token":
			token = first(token, m)
		case "data":
			data = first(data, m)
		case "op":
			return ev, false // the 2020-03 style
		}
	}
	if typ == nil || typ.kind != fastString || data == nil || data.kind != fastObject {
		return ev, false
	}
	switch string(typ.val) {
	case "submissions":
		ev.Type = rankd.EventSubmission
	case "judgements":
		ev.Type = rankd.EventJudgement
	default:
		return ev, false
	}
	if token != nil {
		switch token.kind {
		case fastString:
			ev.Token = string(token.val)
		case fastNull:
		default:
			return ev, false
		}
	}
	var envID []byte
	if id != nil {
		switch id.kind {
		case fastString:
			envID = id.val
		case fastNull:
			id = nil
		default:
			return ev, false
		}
	}
	f := fastFields(members)
	objID, kind := f.get("id")
	switch {
	case kind == fastString && id != nil && !bytes.Equal(objID, envID):
		return ev, false
	case kind == fastString:
		ev.ID = r.recent(objID)
	case kind == fastNull && id != nil:
		ev.ID = r.recent(envID)
	default:
		return ev, false
	}
	if ev.Type == rankd.EventSubmission {
		team, k1 := f.get("team_id")
		prob, k2 := f.get("problem_id")
		lang, k3 := f.get("language_id")
		entry, k4 := f.get("entry_point")
		t, ok := r.fastTime(f, "contest_time", "time", true)
		if k1 != fastString || k2 != fastString || !ok || (k3 != fastString && k3 != fastNull) ||
			(k4 != fastString && k4 != fastNull) {
			return ev, false
		}
		files, ok := r.fastFiles(f.get("files"))
		if !ok {
			return ev, false
		}
		r.sub = rankd.Submission{ID: ev.ID, TeamID: r.intern(team), ProblemID: r.intern(prob), Time: t,
			LanguageID: r.intern(lang), EntryPoint: r.intern(entry), Files: files}
		ev.Submission = &r.sub
		return ev, true
	}
	sub, k1 := f.get("submission_id")
	typID, k2 := f.get("judgement_type_id")
	_, k3 := f.get("score")
	_, k4 := f.get("rankd")
	start, ok1 := r.fastTime(f, "start_contest_time", "start_time", true)
	end, ok2 := r.fastTime(f, "end_contest_time", "end_time", false)
	if k1 != fastString || (k2 != fastString && k2 != fastNull) || k3 != fastNull || k4 != fastNull || !ok1 || !ok2 {
		return ev, false
	}
	r.jud = rankd.Judgement{ID: ev.ID, SubmissionID: r.recent(sub), TypeID: r.intern(typID), StartTime: start, EndTime: end}
	ev.Judgement = &r.jud
	return ev, true
}

// fastFiles is fields.files for the fast path, given the member's raw text and kind: ok is false for what
// the general path must judge (not an array of objects) or clean (see cleanJSON).
func (r *Reader) fastFiles(raw []byte, kind byte) (string, bool) {
	switch kind {
	case fastNull:
		return "", true
	case fastFileRefs:
	default:
		return "", false
	}
	if !isASCII(raw) && !cleanJSON(raw) {
		return "", false
	}
	if hasSpace(raw) {
		r.scratch = appendCompact(r.scratch[:0], raw)
		raw = r.scratch
	}
	if string(raw) == "[]" {
		return "", true
	}
	return string(raw), true
}

// first returns the first of a member's occurrences, as the general parser reads a repeated key.
func first(seen, m *fastMember) *fastMember {
	if seen != nil {
		return seen
	}
	return m
}

// fastFields are the members of an object.
type fastFields []fastMember

// get returns the first member key: its value and kind, fastNull when it is absent.
func (f fastFields) get(key string) ([]byte, byte) {
	for i := range f {
		if string(f[i].key) == key {
			return f[i].val, f[i].kind
		}
	}
	return nil, fastNull
}

// fastTime is fields.contestTime for the fast path: ok is false wherever that would fail.
func (r *Reader) fastTime(f fastFields, relKey, absKey string, required bool) (time.Duration, bool) {
	rel, kind := f.get(relKey)
	abs, akind := f.get(absKey)
	if (kind != fastString && kind != fastNull) || (akind != fastString && akind != fastNull) {
		return 0, false
	}
	if kind == fastString {
		return parseRel(rel)
	}
	if akind == fastNull {
		return 0, !required
	}
	t, ok := parseAbs(abs)
	start := r.start()
	if !ok || start.IsZero() {
		return 0, false
	}
	d := t.Sub(start)
	if d > maxRelHours*time.Hour || d < -maxRelHours*time.Hour {
		return 0, false
	}
	return d, true
}

// skipWS returns the index of the first byte at or after i that is not JSON whitespace.
func skipWS(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// scanMembers scans the object starting at s[i], appending its members to dst; end is the index just past
// it. Keys must be plain strings (no escapes). With data not nil, the members of the first member "data"
// that is an object are appended to *data on the way.
func scanMembers(s []byte, i int, dst []fastMember, data *[]fastMember) (members []fastMember, end int, ok bool) {
	if i >= len(s) || s[i] != '{' {
		return dst, 0, false
	}
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		return dst, i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return dst, 0, false
		}
		k, next, plain := scanString(s, i)
		if next < 0 || !plain {
			return dst, 0, false
		}
		i = skipWS(s, next)
		if i >= len(s) || s[i] != ':' {
			return dst, 0, false
		}
		i = skipWS(s, i+1)
		m := fastMember{key: k}
		if i >= len(s) {
			return dst, 0, false
		}
		switch c := s[i]; {
		case c == '"':
			v, next, plain := scanString(s, i)
			if next < 0 {
				return dst, 0, false
			}
			if plain {
				m.kind, m.val = fastString, v
			}
			i = next
		case c == 'n':
			if !bytes.HasPrefix(s[i:], []byte("null")) {
				return dst, 0, false
			}
			m.kind, i = fastNull, i+4
		case c == '{' && data != nil && string(k) == "data":
			var next int
			*data, next, ok = scanMembers(s, i, *data, nil)
			if !ok {
				return dst, 0, false
			}
			data = nil
			m.kind, m.val, i = fastObject, s[i:next], next
		case c == '[' && string(k) == "files":
			next, objects := skipFileRefs(s, i)
			if next < 0 {
				return dst, 0, false
			}
			if objects {
				m.kind, m.val = fastFileRefs, s[i:next]
			}
			i = next
		case c == '{':
			next := skipValue(s, i, 1)
			if next < 0 {
				return dst, 0, false
			}
			m.kind, m.val, i = fastObject, s[i:next], next
		default:
			if i = skipValue(s, i, 1); i < 0 {
				return dst, 0, false
			}
		}
		dst = append(dst, m)
		i = skipWS(s, i)
		if i >= len(s) {
			return dst, 0, false
		}
		switch s[i] {
		case ',':
			i = skipWS(s, i+1)
		case '}':
			return dst, i + 1, true
		default:
			return dst, 0, false
		}
	}
}

// scanString scans the string starting at the quote s[i]: its contents, the index past its closing quote
// (-1 when it is not a valid JSON string), and whether it is plain (no escapes, so the contents are the
// value).
func scanString(s []byte, i int) (val []byte, end int, plain bool) {
	plain = true
	for j := i + 1; j < len(s); j++ {
		for j < len(s) && plainByte[s[j]] {
			j++
		}
		if j == len(s) {
			break
		}
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, plain
		case c < 0x20:
			return nil, -1, false
		case c == '\\':
			plain = false
			if j+1 >= len(s) {
				return nil, -1, false
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(s) || !isHex(s[j+2]) || !isHex(s[j+3]) || !isHex(s[j+4]) || !isHex(s[j+5]) {
					return nil, -1, false
				}
				j += 5
			default:
				return nil, -1, false
			}
		}
	}
	return nil, -1, false
}

// plainByte marks the bytes that stand for themselves in a JSON string.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// skipValue returns the index just past the JSON value starting at s[i], or -1 when it is not a valid one
// (or nests deeper than fastMaxDepth).
func skipValue(s []byte, i, depth int) int {
	if i >= len(s) || depth > fastMaxDepth {
		return -1
	}
	switch c := s[i]; {
	case c == '"':
		_, end, _ := scanString(s, i)
		return end
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipWS(s, i+1)
		if i < len(s) && s[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(s) || s[i] != '"' {
					return -1
				}
				if _, i, _ = scanString(s, i); i < 0 {
					return -1
				}
				i = skipWS(s, i)
				if i >= len(s) || s[i] != ':' {
					return -1
				}
				i = skipWS(s, i+1)
			}
			if i = skipValue(s, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(s, i)
			if i >= len(s) {
				return -1
			}
			switch s[i] {
			case ',':
				i = skipWS(s, i+1)
			case closer:
				return i + 1
			default:
				return -1
			}
		}
	case c == 't':
		return literal(s, i, "true")
	case c == 'f':
		return literal(s, i, "false")
	case c == 'n':
		return literal(s, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNumber(s, i)
	}
	return -1
}

func literal(s []byte, i int, lit string) int {
	if !bytes.HasPrefix(s[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// skipNumber returns the index past the JSON number at s[i], or -1.
func skipNumber(s []byte, i int) int {
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}
