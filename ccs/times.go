package ccs

import (
	"strconv"
	"sync/atomic"
	"time"

	"rankd"
)

// absLayout is the CCS absolute time with milliseconds; Z07:00 keeps the offset ("Z" for UTC).
const absLayout = "2006-01-02T15:04:05.000Z07:00"

// maxRelHours bounds the hours of a relative time so that the result fits a time.Duration (about 2.56M hours).
const maxRelHours = 2_000_000

// maxRel bounds a relative time: a whole number of milliseconds, so that every time read is written back
// (rounded down to the millisecond) as one that reads again.
const maxRel = (maxRelHours+1)*time.Hour - time.Millisecond

// FormatRelTime formats d as a CCS relative time "H:MM:SS.mmm", with a leading "-" when negative. The format
// has no digits below the millisecond: d is rounded down to one, as the board counts times, so that a time
// read back counts as it did (a submission 0.3 ms before the start stays before it).
func FormatRelTime(d time.Duration) string { return string(appendRelTime(nil, d)) }

// appendRelTime appends FormatRelTime(d) to b without allocating.
func appendRelTime(b []byte, d time.Duration) []byte {
	u := uint64(d)
	if d < 0 {
		u = -u // two's complement: exact even for math.MinInt64
	}
	ms := u / uint64(time.Millisecond)
	if d < 0 && u%uint64(time.Millisecond) != 0 {
		ms++ // down, away from zero
	}
	if d < 0 && ms > 0 {
		b = append(b, '-')
	}
	m, s, f := ms/60_000%60, ms/1000%60, ms%1000
	b = strconv.AppendUint(b, ms/3_600_000, 10)
	return append(b, ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10),
		'.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// ParseRelTime parses a CCS relative time "(-)H:MM:SS(.uuu)". Any number of hour digits and one to nine
// fraction digits are accepted; the error is an EINVALID *rankd.Error.
func ParseRelTime(s string) (time.Duration, error) {
	d, ok := parseRel(s)
	if !ok {
		return 0, rankd.Errorf(rankd.EINVALID, "bad relative time %q", s)
	}
	return d, nil
}

// FormatTime formats t as a CCS absolute time with milliseconds, keeping its offset ("Z" for UTC).
func FormatTime(t time.Time) string { return t.Format(absLayout) }

// ParseTime parses a CCS absolute time "yyyy-mm-ddThh:mm:ss(.uuu)(Z|±hh(:mm)?)". One to nine fraction digits
// and offsets written ±hhmm are accepted too. The result is in UTC for a zero offset and in a fixed zone
// otherwise; the error is an EINVALID *rankd.Error.
func ParseTime(s string) (time.Time, error) {
	t, ok := parseAbs(s)
	if !ok {
		return time.Time{}, rankd.Errorf(rankd.EINVALID, "bad absolute time %q: %s", s, absWant(s))
	}
	return t, nil
}

// absWant says what a bad absolute time s lacks: its offset, most often.
func absWant[T text](s T) string {
	if _, ok := parseAbs(string(s) + "Z"); ok {
		return "it has no offset (Z for UTC, or ±hh:mm)"
	}
	return "want yyyy-mm-ddThh:mm:ss(.uuu) and an offset (Z or ±hh:mm)"
}

// text is what the time parsers read: the feed reader hands them the parser's bytes, so that it need not
// allocate a string per field.
type text interface{ ~string | ~[]byte }

// digits reads s[i:j] as a decimal number; ok is false unless every byte is a digit.
func digits[T text](s T, i, j int) (n int, ok bool) {
	for ; i < j; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// fraction reads the digits after a decimal point at s[i:] as nanoseconds, returning the index after them.
// ok is false when there is no digit or more than nine.
func fraction[T text](s T, i int) (ns int, next int, ok bool) {
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n := i - start
	if n == 0 || n > 9 {
		return 0, i, false
	}
	ns, _ = digits(s, start, i)
	for ; n < 9; n++ {
		ns *= 10
	}
	return ns, i, true
}

// parseRel parses a relative time; see ParseRelTime.
func parseRel[T text](s T) (time.Duration, bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		i, neg = 1, true
	}
	colon := i
	for colon < len(s) && s[colon] != ':' {
		colon++
	}
	if colon == i || colon-i > 7 || len(s) < colon+6 || s[colon+3] != ':' {
		return 0, false
	}
	h, ok1 := digits(s, i, colon)
	m, ok2 := digits(s, colon+1, colon+3)
	sec, ok3 := digits(s, colon+4, colon+6)
	if !ok1 || !ok2 || !ok3 || h > maxRelHours || m > 59 || sec > 59 {
		return 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
	if i = colon + 6; i < len(s) {
		if s[i] != '.' {
			return 0, false
		}
		ns, next, ok := fraction(s, i+1)
		if !ok || next != len(s) {
			return 0, false
		}
		d += time.Duration(ns)
	}
	if d > maxRel {
		return 0, false
	}
	if neg {
		d = -d
	}
	return d, true
}

// parseAbs parses an absolute time; see ParseTime.
func parseAbs[T text](s T) (time.Time, bool) {
	// yyyy-mm-ddThh:mm:ss is 19 bytes, and a zone follows.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s, 0, 4)
	month, ok2 := digits(s, 5, 7)
	day, ok3 := digits(s, 8, 10)
	hour, ok4 := digits(s, 11, 13)
	min, ok5 := digits(s, 14, 16)
	sec, ok6 := digits(s, 17, 19)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	i, ns := 19, 0
	if s[i] == '.' {
		var ok bool
		if ns, i, ok = fraction(s, i+1); !ok {
			return time.Time{}, false
		}
	}
	off, ok := parseOffset(s, i)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, ns, zone(off)), true
}

// parseOffset reads the zone at s[i:], which must end s: "Z", "±hh", "±hh:mm" or "±hhmm", in seconds east.
func parseOffset[T text](s T, i int) (int, bool) {
	n := len(s) - i
	if n == 1 && (s[i] == 'Z' || s[i] == 'z') {
		return 0, true
	}
	if n != 3 && n != 5 && n != 6 || (s[i] != '+' && s[i] != '-') {
		return 0, false
	}
	h, ok := digits(s, i+1, i+3)
	m, okm := 0, true
	switch n {
	case 5:
		m, okm = digits(s, i+3, i+5)
	case 6:
		if s[i+3] != ':' {
			return 0, false
		}
		m, okm = digits(s, i+4, i+6)
	}
	if !ok || !okm || h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[i] == '-' {
		off = -off
	}
	return off, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// zones caches one fixed zone per offset minute, so that parsing "+02:00" a million times does not create a
// million *time.Location values (time.Parse allocates one per call).
var zones [2*24*60 + 1]atomic.Pointer[time.Location]

// zone returns the location of an offset in seconds east of UTC (a whole number of minutes within ±24h).
func zone(off int) *time.Location {
	if off == 0 {
		return time.UTC
	}
	p := &zones[off/60+24*60]
	if l := p.Load(); l != nil {
		return l
	}
	p.CompareAndSwap(nil, time.FixedZone("", off))
	return p.Load()
}
