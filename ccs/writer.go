package ccs

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"rankd"
)

// Writer writes rankd events as a CCS event feed in the 2023-06 style: one {"type","id","data","token"} line
// per event, "data": null for deletions, "id": null for the contest and the state. What the Reader reads
// back from it equals what was written. The rankd extensions are written only where they differ from their
// defaults, so a plain ICPC contest gives a plain CCS feed. A Writer is not safe for concurrent use.
type Writer struct {
	bw  *bufio.Writer
	buf []byte

	// What absolute times are written from, as the Reader will resolve them: the last state's started,
	// else the last contest's start. Absolute times are left out while both are unknown.
	contestStart, started time.Time
}

// NewWriter returns a Writer to w. It buffers: call Flush when done.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.bw.Flush() }

// Write writes one event. An event without the object its type needs, an unknown type, an id that differs
// from the object's, a score that is not a finite number or a submission's Files that is not a JSON array of
// objects is an EINVALID error and writes nothing; errors of the underlying writer are returned as they are.
func (w *Writer) Write(ev rankd.Event) error {
	b, err := w.appendEvent(w.buf[:0], ev)
	w.buf = b
	if err != nil {
		return err
	}
	_, err = w.bw.Write(b)
	return err
}

// AppendEvent appends ev to b as one feed line, newline included, the way a new Writer writes a first event:
// times are relative only (no start is known), so the line depends on the event alone. It is how a log
// stores an event.
func AppendEvent(b []byte, ev rankd.Event) ([]byte, error) {
	var w Writer
	return w.appendEvent(b, ev)
}

func (w *Writer) appendEvent(b []byte, ev rankd.Event) ([]byte, error) {
	if ev.Type == rankd.EventUnknown || ev.Type > rankd.EventReveal {
		return b, rankd.Errorf(rankd.EINVALID, "write event: unknown type %d", ev.Type)
	}
	b = append(b, `{"type":`...)
	b = appendString(b, ev.Type.String())
	b = append(b, `,"id":`...)
	if ev.Delete {
		if singleton(ev.Type) {
			b = appendIDOrNull(b, ev.ID)
		} else {
			b = appendString(b, ev.ID) // even "": a delete needs an id
		}
		b = append(b, `,"data":null`...)
		switch ev.Type {
		case rankd.EventContest:
			w.contestStart = time.Time{}
		case rankd.EventState:
			w.started = time.Time{}
		}
		return w.appendToken(b, ev.Token), nil
	}
	id, ok := objectID(ev)
	switch {
	case !ok:
		return b, rankd.Errorf(rankd.EINVALID, "write %s event: no %s object", ev.Type, ev.Type)
	case ev.ID != "" && ev.ID != id:
		return b, rankd.Errorf(rankd.EINVALID, "write %s event: id %q differs from the object's id %q", ev.Type, ev.ID, id)
	}
	if singleton(ev.Type) {
		b = append(b, "null"...)
	} else {
		b = appendString(b, id)
	}
	b = append(b, `,"data":`...)
	var err error
	switch ev.Type {
	case rankd.EventContest:
		b = w.appendContest(b, ev.Contest)
	case rankd.EventJudgementType:
		b = appendJudgementType(b, ev.JudgementType)
	case rankd.EventProblem:
		b, err = appendProblem(b, ev.Problem)
	case rankd.EventGroup:
		b = appendGroup(b, ev.Group)
	case rankd.EventOrganization:
		b = appendOrganization(b, ev.Organization)
	case rankd.EventTeam:
		b = appendTeam(b, ev.Team)
	case rankd.EventSubmission:
		b, err = w.appendSubmission(b, ev.Submission)
	case rankd.EventJudgement:
		b, err = w.appendJudgement(b, ev.Judgement)
	case rankd.EventState:
		b = w.appendState(b, ev.State)
	case rankd.EventBan:
		b = appendBan(b, ev.Ban)
	case rankd.EventAward:
		b = appendAward(b, ev.Award)
	case rankd.EventReveal:
		b, err = appendReveal(b, ev.Reveal)
	}
	if err != nil {
		return b, rankd.Errorf(rankd.EINVALID, "write %s event %q: %s", ev.Type, id, rankd.ErrorMessage(err))
	}
	return w.appendToken(b, ev.Token), nil
}

// objectID returns the id of the object an event carries; ok is false when the object is missing.
func objectID(ev rankd.Event) (id string, ok bool) {
	switch ev.Type {
	case rankd.EventContest:
		return idOf(ev.Contest, func(c *rankd.Contest) string { return c.ID })
	case rankd.EventJudgementType:
		return idOf(ev.JudgementType, func(t *rankd.JudgementType) string { return t.ID })
	case rankd.EventProblem:
		return idOf(ev.Problem, func(p *rankd.Problem) string { return p.ID })
	case rankd.EventGroup:
		return idOf(ev.Group, func(g *rankd.Group) string { return g.ID })
	case rankd.EventOrganization:
		return idOf(ev.Organization, func(o *rankd.Organization) string { return o.ID })
	case rankd.EventTeam:
		return idOf(ev.Team, func(t *rankd.Team) string { return t.ID })
	case rankd.EventSubmission:
		return idOf(ev.Submission, func(s *rankd.Submission) string { return s.ID })
	case rankd.EventJudgement:
		return idOf(ev.Judgement, func(j *rankd.Judgement) string { return j.ID })
	case rankd.EventState:
		return "", ev.State != nil
	case rankd.EventBan:
		return idOf(ev.Ban, func(b *rankd.Ban) string { return b.TeamID })
	case rankd.EventAward:
		return idOf(ev.Award, func(a *rankd.Award) string { return a.ID })
	case rankd.EventReveal:
		return idOf(ev.Reveal, revealID)
	}
	return "", false
}

func idOf[T any](p *T, id func(*T) string) (string, bool) {
	if p == nil {
		return "", false
	}
	return id(p), true
}

func (w *Writer) appendToken(b []byte, token string) []byte {
	if token != "" {
		b = append(b, `,"token":`...)
		b = appendString(b, token)
	}
	return append(b, "}\n"...)
}

// start mirrors Reader.start.
func (w *Writer) start() time.Time {
	if !w.started.IsZero() {
		return w.started
	}
	return w.contestStart
}

func (w *Writer) appendContest(b []byte, c *rankd.Contest) []byte {
	w.contestStart = c.Start
	b = append(b, `{"id":`...)
	b = appendString(b, c.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, c.Name)
	if c.FormalName != "" && c.FormalName != c.Name {
		b = append(b, `,"formal_name":`...)
		b = appendString(b, c.FormalName)
	}
	b = append(b, `,"start_time":`...)
	b = appendTimeOrNull(b, c.Start)
	b = append(b, `,"duration":`...)
	b = appendRelString(b, c.Duration)
	if c.FreezeDuration != 0 {
		b = append(b, `,"scoreboard_freeze_duration":`...)
		b = appendRelString(b, c.FreezeDuration)
	}
	// The 2023-06 schema wants penalty_time in whole minutes for pass-fail and none for score contests; a
	// penalty those cannot carry is written as a relative time, which the Reader (and 2020-03) also takes.
	if c.Rules == rankd.ICPC {
		b = append(b, `,"scoreboard_type":"pass-fail"`...)
	} else {
		b = append(b, `,"scoreboard_type":"score"`...)
	}
	if c.Rules == rankd.ICPC || c.PenaltyTime != rankd.DefaultPenaltyTime {
		b = append(b, `,"penalty_time":`...)
		if c.PenaltyTime%time.Minute == 0 {
			b = strconv.AppendInt(b, int64(c.PenaltyTime/time.Minute), 10)
		} else {
			b = appendRelString(b, c.PenaltyTime)
		}
	}
	// The extension, only where it differs from the defaults (rules follow from scoreboard_type for ICPC
	// and OI).
	e := b
	b = append(b, `,"rankd":{`...)
	n := len(b)
	if c.Rules != rankd.ICPC && c.Rules != rankd.OI {
		b = appendMember(b, n, "rules")
		b = appendString(b, c.Rules.String())
	}
	if c.OIMode == rankd.OILast {
		b = appendMember(b, n, "oi_mode")
		b = append(b, `"last"`...)
	}
	if c.HideUntilEnd {
		b = appendMember(b, n, "hide_until_end")
		b = append(b, "true"...)
	}
	if c.TieByTime {
		b = appendMember(b, n, "tie_by_time")
		b = append(b, "true"...)
	}
	if len(c.FirstBlood) > 0 {
		b = appendMember(b, n, "first_blood")
		b = append(b, '[')
		for i, v := range c.FirstBlood {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, ']')
	}
	if c.Medals != (rankd.Medals{}) {
		b = appendMember(b, n, "medals")
		b = append(b, `{"gold":`...)
		b = strconv.AppendInt(b, int64(c.Medals.Gold), 10)
		b = append(b, `,"silver":`...)
		b = strconv.AppendInt(b, int64(c.Medals.Silver), 10)
		b = append(b, `,"bronze":`...)
		b = strconv.AppendInt(b, int64(c.Medals.Bronze), 10)
		b = append(b, '}')
	}
	if len(b) == n {
		b = e // no extension
	} else {
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendJudgementType(b []byte, t *rankd.JudgementType) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, t.Name)
	b = append(b, `,"penalty":`...)
	b = strconv.AppendBool(b, t.Penalty)
	b = append(b, `,"solved":`...)
	b = strconv.AppendBool(b, t.Solved)
	return append(b, '}')
}

func appendProblem(b []byte, p *rankd.Problem) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, p.ID)
	b = append(b, `,"label":`...)
	b = appendString(b, cmp.Or(p.Label, p.ID)) // as /problems serves it
	b = append(b, `,"name":`...)
	b = appendString(b, p.Name)
	b = append(b, `,"ordinal":`...)
	b = strconv.AppendInt(b, int64(p.Ordinal), 10)
	if p.RGB != "" {
		b = append(b, `,"rgb":`...)
		b = appendString(b, p.RGB)
	}
	if p.Color != "" {
		b = append(b, `,"color":`...)
		b = appendString(b, p.Color)
	}
	var err error
	if p.MaxScore != 0 {
		b = append(b, `,"max_score":`...)
		if b, err = appendFloat(b, p.MaxScore); err != nil {
			return b, err
		}
	}
	if p.TestDataCount != 0 {
		// Unknown (0) is left out: a problem line without it is the one rankd wrote before it kept it.
		b = append(b, `,"test_data_count":`...)
		b = strconv.AppendInt(b, int64(p.TestDataCount), 10)
	}
	e := b
	b = append(b, `,"rankd":{`...)
	n := len(b)
	for _, v := range []struct {
		key string
		v   int64
	}{{"value", p.Value}, {"minimum", p.Minimum}, {"decay", p.Decay}} {
		if v.v != 0 {
			b = appendMember(b, n, v.key)
			b = strconv.AppendInt(b, v.v, 10)
		}
	}
	if p.Function != rankd.ValueStatic {
		b = appendMember(b, n, "function")
		b = appendString(b, p.Function.String())
	}
	if len(p.Subtasks) > 0 {
		b = appendMember(b, n, "subtasks")
		if b, err = appendFloats(b, p.Subtasks); err != nil {
			return b, err
		}
	}
	if len(b) == n {
		b = e
	} else {
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendGroup(b []byte, g *rankd.Group) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, g.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, g.Name)
	if g.Hidden {
		b = append(b, `,"hidden":true`...)
	}
	return append(b, '}')
}

func appendOrganization(b []byte, o *rankd.Organization) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, o.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, o.Name)
	if o.FormalName != "" {
		b = append(b, `,"formal_name":`...)
		b = appendString(b, o.FormalName)
	}
	if o.Country != "" {
		b = append(b, `,"country":`...)
		b = appendString(b, o.Country)
	}
	return append(b, '}')
}

func appendTeam(b []byte, t *rankd.Team) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, t.ID)
	b = append(b, `,"label":`...)
	b = appendString(b, cmp.Or(t.Label, t.ID)) // as /teams serves it
	b = append(b, `,"name":`...)
	b = appendString(b, t.Name)
	if t.DisplayName != "" {
		b = append(b, `,"display_name":`...)
		b = appendString(b, t.DisplayName)
	}
	if t.OrganizationID != "" {
		b = append(b, `,"organization_id":`...)
		b = appendString(b, t.OrganizationID)
	}
	if len(t.GroupIDs) > 0 {
		b = append(b, `,"group_ids":`...)
		b = appendStrings(b, t.GroupIDs)
	}
	if t.Hidden {
		b = append(b, `,"hidden":true`...)
	}
	return append(b, '}')
}

// appendSubmission writes the members in the order of the 2023-06 schema. entry_point is always written,
// null for none: the schema's rule for c and cpp submissions (null or absent) fails when it is absent, as
// both branches of its oneOf match. files is [] for none, as the schema requires it; language_id, which it
// requires too, is left out when unknown rather than made up (see docs/ccs.md).
func (w *Writer) appendSubmission(b []byte, s *rankd.Submission) ([]byte, error) {
	if !validFiles(s.Files) {
		return b, rankd.Errorf(rankd.EINVALID, "files: not a JSON array of objects: %s", clip([]byte(s.Files)))
	}
	b = append(b, `{"id":`...)
	b = appendString(b, s.ID)
	if s.LanguageID != "" {
		b = append(b, `,"language_id":`...)
		b = appendString(b, s.LanguageID)
	}
	b = append(b, `,"problem_id":`...)
	b = appendString(b, s.ProblemID)
	b = append(b, `,"team_id":`...)
	b = appendString(b, s.TeamID)
	if start := w.start(); !start.IsZero() {
		b = append(b, `,"time":`...)
		b = appendTime(b, start.Add(s.Time))
	}
	b = append(b, `,"contest_time":`...)
	b = appendRelString(b, s.Time)
	b = append(b, `,"entry_point":`...)
	b = appendIDOrNull(b, s.EntryPoint)
	b = append(b, `,"files":`...)
	if s.Files == "" {
		b = append(b, "[]"...)
	} else {
		b = append(b, s.Files...)
	}
	return append(b, '}'), nil
}

func (w *Writer) appendJudgement(b []byte, j *rankd.Judgement) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, j.ID)
	b = append(b, `,"submission_id":`...)
	b = appendString(b, j.SubmissionID)
	b = append(b, `,"judgement_type_id":`...)
	b = appendIDOrNull(b, j.TypeID)
	var err error
	if j.Score != 0 {
		b = append(b, `,"score":`...)
		if b, err = appendFloat(b, j.Score); err != nil {
			return b, err
		}
	}
	start := w.start()
	b = append(b, `,"start_contest_time":`...)
	b = appendRelString(b, j.StartTime)
	if !start.IsZero() {
		b = append(b, `,"start_time":`...)
		b = appendTime(b, start.Add(j.StartTime))
	}
	// EndTime 0 stands for "not known" (see rankd.Judgement), which the CCS writes as null.
	b = append(b, `,"end_contest_time":`...)
	if j.EndTime == 0 {
		b = append(b, "null"...)
	} else {
		b = appendRelString(b, j.EndTime)
	}
	if !start.IsZero() {
		b = append(b, `,"end_time":`...)
		if j.EndTime == 0 {
			b = append(b, "null"...)
		} else {
			b = appendTime(b, start.Add(j.EndTime))
		}
	}
	if len(j.SubtaskScores) > 0 {
		b = append(b, `,"rankd":{"subtask_scores":`...)
		if b, err = appendFloats(b, j.SubtaskScores); err != nil {
			return b, err
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendState writes all six times, null when unset, as the 2023-06 schema requires four of them.
func (w *Writer) appendState(b []byte, s *rankd.State) []byte {
	w.started = time.Time{}
	if s.Started != nil {
		w.started = *s.Started
	}
	for i, t := range [...]struct {
		key string
		t   *time.Time
	}{
		{"started", s.Started}, {"frozen", s.Frozen}, {"ended", s.Ended},
		{"thawed", s.Thawed}, {"finalized", s.Finalized}, {"end_of_updates", s.EndOfUpdates},
	} {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = appendString(b, t.key)
		b = append(b, ':')
		if t.t == nil {
			b = append(b, "null"...)
		} else {
			b = appendTime(b, *t.t)
		}
	}
	return append(b, '}')
}

func appendBan(b []byte, ban *rankd.Ban) []byte {
	b = append(b, `{"team_id":`...)
	b = appendString(b, ban.TeamID)
	b = append(b, `,"banned":`...)
	b = strconv.AppendBool(b, ban.Banned)
	return append(b, '}')
}

func appendAward(b []byte, a *rankd.Award) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, a.ID)
	b = append(b, `,"citation":`...)
	b = appendString(b, a.Citation)
	b = append(b, `,"team_ids":`...)
	b = appendStrings(b, a.TeamIDs)
	return append(b, '}')
}

// appendMember appends the key of an object member, with a comma unless it is the first after position n.
func appendMember(b []byte, n int, key string) []byte {
	if len(b) > n {
		b = append(b, ',')
	}
	b = appendString(b, key)
	return append(b, ':')
}

func appendIDOrNull(b []byte, id string) []byte {
	if id == "" {
		return append(b, "null"...)
	}
	return appendString(b, id)
}

func appendRelString(b []byte, d time.Duration) []byte {
	b = append(b, '"')
	b = appendRelTime(b, d)
	return append(b, '"')
}

// appendTimeOrNull writes the zero time, rankd's "unknown", as null.
func appendTimeOrNull(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return appendTime(b, t)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, absLayout)
	return append(b, '"')
}

// appendStrings appends a JSON array of strings; nil gives [].
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func appendFloats(b []byte, fs []float64) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendFloat(b, f); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendFloat appends f as encoding/json does: the shortest form that reads back exactly, with an exponent
// only for very small or large magnitudes. JSON has no NaN or infinity, so those are errors.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, rankd.Errorf(rankd.EINVALID, "%v is not a JSON number", f)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD (written as is, so that writing
// what was read back gives the same bytes); U+2028 and U+2029 are escaped so that the line is also valid
// JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
