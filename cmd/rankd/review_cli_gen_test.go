package main_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	main "rankd/cmd/rankd"
)

// MustGenContest runs rankd gen with args and returns the feed's contest object.
func MustGenContest(tb testing.TB, args ...string) map[string]any {
	tb.Helper()
	out := MustRun(tb, append([]string{"gen", "--teams", "3", "--submissions", "5"}, args...)...)
	line, _, _ := strings.Cut(out, "\n")
	var ev struct {
		Type string
		Data map[string]any
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Type != "contest" {
		tb.Fatalf("got first line %q (%v), want the contest", line, err)
	}
	return ev.Data
}

// Without --freeze, gen freezes as gen.Config documents: the last hour, or the last quarter of a contest
// shorter than 4 hours; a 30-minute contest must not fail for a freeze nobody asked for.
func TestGenFreezeDefault(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want any // nil: no freeze, the field left out
	}{
		{nil, "1:00:00.000"},
		{[]string{"--duration", "2h"}, "0:30:00.000"},
		{[]string{"--duration", "30m"}, "0:07:30.000"},
		{[]string{"--duration", "30m", "--freeze", "10m"}, "0:10:00.000"},
		{[]string{"--freeze", "0"}, nil},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := MustGenContest(t, tt.args...)["scoreboard_freeze_duration"]; got != tt.want {
				t.Errorf("got freeze %v, want %v", got, tt.want)
			}
		})
	}
}

// A value gen cannot use is a usage mistake (exit status 2), said before anything is written.
func TestGenBadValuesAreUsageMistakes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rules", "chess"}, `unknown rules "chess"`},
		{[]string{"--teams", "0"}, "--teams"},
		{[]string{"--problems", "-1"}, "--problems"},
		{[]string{"--submissions", "-1"}, "--submissions"},
		{[]string{"--submissions", "0"}, "--submissions must be at least 1"},
		{[]string{"--groups", "-1"}, "--groups"},
		{[]string{"--hidden", "5", "--teams", "4"}, "--hidden"},
		{[]string{"--duration", "10s"}, "duration"},
		{[]string{"--freeze", "6h"}, "freeze"},
		{[]string{"--freeze", "-1h"}, "--freeze"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := (&main.Main{Stdout: &stdout, Stderr: &stderr}).Exit(context.Background(), append([]string{"gen"}, tt.args...))
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("got status %d and %q, want 2 and a message with %q", code, stderr.String(), tt.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("got %d bytes of feed, want none", stdout.Len())
			}
		})
	}
}
