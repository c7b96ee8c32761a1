package ccs_test

import (
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
)

// TestReaderIntegersWrittenAsDecimals: JSON Schema's "integer" is any number without a fractional part, so
// a valid 2023-06 feed may send penalty_time (or an ordinal) as 20.0 or 2e1; the Reader takes them as the
// integers they are.
func TestReaderIntegersWrittenAsDecimals(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		check      func(ev rankd.Event) (got, want any)
	}{
		{"penalty 20.0", `{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00","penalty_time":20.0}}`,
			func(ev rankd.Event) (any, any) { return ev.Contest.PenaltyTime, 20 * time.Minute }},
		{"penalty 2e1", `{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00","penalty_time":2e1}}`,
			func(ev rankd.Event) (any, any) { return ev.Contest.PenaltyTime, 20 * time.Minute }},
		{"medals 4.0", `{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00","rankd":{"medals":{"gold":4.0}}}}`,
			func(ev rankd.Event) (any, any) { return ev.Contest.Medals.Gold, 4 }},
		{"ordinal 3.0", `{"type":"problems","id":"p","data":{"id":"p","ordinal":3.0}}`,
			func(ev rankd.Event) (any, any) { return ev.Problem.Ordinal, 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ccs.NewReader(strings.NewReader(tc.line)).Next()
			if err != nil {
				t.Fatalf("got %v, want the event", err)
			}
			if got, want := tc.check(ev); got != want {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
