package ccs_test

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
)

// mustBeInvalid fails unless err is an EINVALID *rankd.Error.
func mustBeInvalid(tb testing.TB, in string, err error) {
	tb.Helper()
	var e *rankd.Error
	if !errors.As(err, &e) || e.Code != rankd.EINVALID {
		tb.Fatalf("%q: got error %#v, want a *rankd.Error with code %q", in, err, rankd.EINVALID)
	}
}

// FuzzParseRelTime checks that a relative time is either refused with EINVALID or read as a duration that
// FormatRelTime writes back to the same milliseconds (it keeps no digit below the millisecond).
func FuzzParseRelTime(f *testing.F) {
	for _, seed := range []string{"0:00:00", "5:00:00", "1:02:03.456", "-0:06:13.697", "0:00:01.123456789",
		"125:00:00.001", "2000000:00:00", "-2000000:59:59.999999999", "00:01:00", "0:60:00", "1:2:3", "-:00:00", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ccs.ParseRelTime(s)
		if err != nil {
			mustBeInvalid(t, s, err)
			return
		}
		text := ccs.FormatRelTime(d)
		back, err := ccs.ParseRelTime(text)
		if err != nil {
			t.Fatalf("%q read as %v, written as %q: %v", s, d, text, err)
		}
		want := d.Truncate(time.Millisecond)
		if d < 0 && want != d {
			want -= time.Millisecond // FormatRelTime rounds down, not toward zero
		}
		if back != want {
			t.Fatalf("%q read as %v, written as %q, read back as %v, want %v", s, d, text, back, want)
		}
	})
}

// FuzzParseTime checks that an absolute time is either refused with EINVALID or read as a time that
// FormatTime writes back to the same millisecond and offset, and that every RFC 3339 time (the CCS form) the
// standard library reads is read the same.
func FuzzParseTime(f *testing.F) {
	for _, seed := range []string{"2025-03-02T11:34:48.183+02:00", "2025-03-02T09:31:00Z", "2024-02-29T23:59:59.999999999-08:00",
		"2023-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "2025-03-02t09:31:00z", "2025-03-02T09:31:00+0530", "2025-03-02T09:31:00+05",
		"2025-03-02T09:31:00.Z", "2025-03-02T09:31:00,5Z", "2025-03-02T24:00:00Z", "2025-03-02T09:31:00+24:00", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ccs.ParseTime(s)
		if std, stdErr := time.Parse(time.RFC3339Nano, s); stdErr == nil && rfc3339.MatchString(s) && offsetHours(std) < 24 {
			if err != nil {
				t.Fatalf("%q: got %v, want %v", s, err, std)
			}
			if !got.Equal(std) {
				t.Fatalf("%q: got %v, want %v", s, got, std)
			}
		}
		if err != nil {
			mustBeInvalid(t, s, err)
			return
		}
		text := ccs.FormatTime(got)
		back, err := ccs.ParseTime(text)
		if err != nil {
			t.Fatalf("%q read as %v, written as %q: %v", s, got, text, err)
		}
		_, off := got.Zone()
		if _, backOff := back.Zone(); !back.Equal(got.Truncate(time.Millisecond)) || backOff != off {
			t.Fatalf("%q read as %v, written as %q, read back as %v", s, got, text, back)
		}
	})
}

// offsetHours returns the hours of t's offset from UTC, without sign: RFC 3339 has no offset of 24 hours, which
// the standard library reads.
func offsetHours(t time.Time) int {
	_, off := t.Zone()
	return max(off, -off) / 3600
}

// rfc3339 is the strict form of the times of the CCS specification (the standard library reads more, such as
// one-digit hours).
var rfc3339 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$`)
