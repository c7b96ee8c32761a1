package ccs_test

import (
	"math"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
)

func TestParseRelTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"0:00:00", 0},
		{"0:00:00.000", 0},
		{"0:20:00.000", 20 * time.Minute},
		{"1:02:03.456", time.Hour + 2*time.Minute + 3*time.Second + 456*time.Millisecond},
		{"5:00:00", 5 * time.Hour},
		{"125:00:00.001", 125*time.Hour + time.Millisecond},
		{"-0:06:13.697", -(6*time.Minute + 13*time.Second + 697*time.Millisecond)},
		{"-2:16:23.346", -(2*time.Hour + 16*time.Minute + 23*time.Second + 346*time.Millisecond)},
		{"0:00:01.5", 1500 * time.Millisecond},
		{"0:00:01.123456789", time.Second + 123456789},
		{"00:01:00", time.Minute}, // leading zero hours, outside the schema's pattern but harmless
	} {
		got, err := ccs.ParseRelTime(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRelTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "x", "-", "1", "1:00", "1:2:03", "1:02:3", "1:60:00", "1:00:60", "1:00:00.", "1:00:00.1234567890",
		"--1:00:00", "+1:00:00", "1:00:00Z", " 1:00:00", "1:00:00 ", "a:00:00", "1:0a:00", "1:00:00.12a",
		"99999999:00:00", "3000000:00:00", ":00:00", "1:00:00:00",
	} {
		if d, err := ccs.ParseRelTime(in); err == nil {
			t.Errorf("ParseRelTime(%q) = %v, want an error", in, d)
		} else if rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("ParseRelTime(%q) error code = %q, want %q", in, rankd.ErrorCode(err), rankd.EINVALID)
		}
	}
}

func TestFormatRelTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0:00:00.000"},
		{20 * time.Minute, "0:20:00.000"},
		{time.Hour + 2*time.Minute + 3*time.Second + 456*time.Millisecond, "1:02:03.456"},
		{125 * time.Hour, "125:00:00.000"},
		{-(6*time.Minute + 13*time.Second + 697*time.Millisecond), "-0:06:13.697"},
		{time.Second + 999999, "0:00:01.000"},      // below the millisecond is dropped
		{-1500 * time.Microsecond, "-0:00:00.002"}, // down, as the board counts a time
		{-500 * time.Microsecond, "-0:00:00.001"},  // still before the start
		{math.MinInt64, "-2562047:47:16.855"},
		{math.MaxInt64, "2562047:47:16.854"},
	} {
		if got := ccs.FormatRelTime(tc.in); got != tc.want {
			t.Errorf("FormatRelTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Any time reads back as the same millisecond, counted down as the board counts it.
	floorMS := func(d time.Duration) time.Duration {
		m := d / time.Millisecond
		if d%time.Millisecond < 0 {
			m--
		}
		return m * time.Millisecond
	}
	for _, d := range []time.Duration{-300 * time.Microsecond, -1, 1, 999999, -999999, -1000001, 4*time.Hour + 1} {
		if got, err := ccs.ParseRelTime(ccs.FormatRelTime(d)); err != nil || got != floorMS(d) {
			t.Errorf("ParseRelTime(FormatRelTime(%v)) = %v, %v; want %v", d, got, err, floorMS(d))
		}
	}
	// Whole milliseconds within the accepted range read back as they were.
	for _, d := range []time.Duration{0, time.Millisecond, -time.Millisecond, 59*time.Minute + 59*time.Second, 1999999 * time.Hour, -1999999 * time.Hour} {
		if got, err := ccs.ParseRelTime(ccs.FormatRelTime(d)); err != nil || got != d {
			t.Errorf("ParseRelTime(FormatRelTime(%v)) = %v, %v", d, got, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   time.Time
		offset int // seconds east, as kept by the result
	}{
		{"2025-03-02T09:30:00.000Z", time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC), 0},
		{"2025-03-02T09:30:00Z", time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC), 0},
		{"2025-03-02t09:30:00z", time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC), 0},
		{"2024-04-18T12:00:00.000+02:00", time.Date(2024, 4, 18, 10, 0, 0, 0, time.UTC), 7200},
		{"2024-04-18T11:51:13.969+02:00", time.Date(2024, 4, 18, 9, 51, 13, 969e6, time.UTC), 7200},
		{"2014-06-25T11:22:05.034+01", time.Date(2014, 6, 25, 10, 22, 5, 34e6, time.UTC), 3600},
		{"2014-06-25T11:22:05-0530", time.Date(2014, 6, 25, 16, 52, 5, 0, time.UTC), -19800},
		{"2014-06-25T11:22:05.5+00:00", time.Date(2014, 6, 25, 11, 22, 5, 5e8, time.UTC), 0},
		{"2024-02-29T23:59:59.123456789Z", time.Date(2024, 2, 29, 23, 59, 59, 123456789, time.UTC), 0},
	} {
		got, err := ccs.ParseTime(tc.in)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if _, off := got.Zone(); off != tc.offset {
			t.Errorf("ParseTime(%q) offset = %d, want %d", tc.in, off, tc.offset)
		}
	}
	for _, in := range []string{
		"", "2025-03-02", "2025-03-02T09:30:00", "2025-03-02T09:30:00.Z", "2025-03-02 09:30:00Z",
		"2025-02-29T09:30:00Z", "2025-13-01T00:00:00Z", "2025-00-01T00:00:00Z", "2025-04-31T00:00:00Z",
		"2025-03-02T24:00:00Z", "2025-03-02T09:60:00Z", "2025-03-02T09:30:60Z", "2025-03-02T09:30:00+24:00",
		"2025-03-02T09:30:00+02:60", "2025-03-02T09:30:00+2", "2025-03-02T09:30:00+02:0", "2025-03-02T09:30:00ZZ",
		"2025-03-02T09:30:00.1234567890Z", "20x5-03-02T09:30:00Z", "2025-03-02T09:30:00+02-00",
	} {
		if got, err := ccs.ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", in, got)
		} else if rankd.ErrorCode(err) != rankd.EINVALID {
			t.Errorf("ParseTime(%q) error code = %q, want %q", in, rankd.ErrorCode(err), rankd.EINVALID)
		}
	}
}

func TestParseTimeSharesZones(t *testing.T) {
	a, _ := ccs.ParseTime("2024-04-18T12:00:00.000+02:00")
	b, _ := ccs.ParseTime("2024-04-18T13:00:00.000+02:00")
	if a.Location() != b.Location() {
		t.Errorf("two +02:00 times have different locations; want one cached zone per offset")
	}
}

func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC), "2025-03-02T09:30:00.000Z"},
		{time.Date(2024, 4, 18, 11, 51, 13, 969e6, time.FixedZone("", 7200)), "2024-04-18T11:51:13.969+02:00"},
		{time.Date(2024, 4, 18, 11, 51, 13, 969999999, time.FixedZone("", -19800)), "2024-04-18T11:51:13.969-05:30"},
	} {
		got := ccs.FormatTime(tc.in)
		if got != tc.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := ccs.ParseTime(got)
		if err != nil || !back.Equal(tc.in.Truncate(time.Millisecond)) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", got, back, err, tc.in)
		}
	}
}
