package rankd_test

import (
	"testing"

	"rankd"
)

// FuzzParseView checks that a view is refused with EINVALID or read as one whose String reads back the same.
func FuzzParseView(f *testing.F) {
	for _, seed := range []string{"", "public", "jury", "team:t1", "team:", "team", "Jury", "team:team:x", "team:\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := rankd.ParseView(s)
		if err != nil {
			if rankd.ErrorCode(err) != rankd.EINVALID {
				t.Fatalf("%q: got %v, want an error with code %s", s, err, rankd.EINVALID)
			}
			return
		}
		back, err := rankd.ParseView(v.String())
		if err != nil || back != v {
			t.Fatalf("%q read as %+v, written as %q, read back as %+v (%v)", s, v, v.String(), back, err)
		}
		if v.Kind == rankd.ViewTeam && v.TeamID == "" {
			t.Fatalf("%q: a team view without a team", s)
		}
	})
}
