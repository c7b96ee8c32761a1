package ccstest_test

import (
	"testing"

	"rankd/ccs/ccstest"
)

func TestValidator(t *testing.T) {
	v := ccstest.SchemaValidator(t, "state.json")
	if err := v.Check([]byte(`{"started":null,"ended":null,"finalized":null,"end_of_updates":null}`)); err != nil {
		t.Errorf("a valid state failed: %v", err)
	}
	for _, doc := range []string{
		`{"started":null}`, // required members missing
		`{"started":"yesterday","ended":null,"finalized":null,"end_of_updates":null}`, // not an abstime
		`[]`,
		`{`,
	} {
		if v.Check([]byte(doc)) == nil {
			t.Errorf("%s passed state.json", doc)
		}
	}
	// References across files (scoreboard.json → state.json → common.json) resolve.
	sb := ccstest.SchemaValidator(t, "scoreboard.json")
	if sb.Check([]byte(`{"time":"2025-03-02T09:30:00.000Z","contest_time":"0:00:00.000","state":{},"rows":[]}`)) == nil {
		t.Error("a scoreboard with an incomplete state passed")
	}
}
