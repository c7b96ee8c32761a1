package main_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// Deleting a contest removes its finalization jobs (docs/api.md), also right after a finalization: a script
// that tears contests down as soon as their final standings are served (rehearsals, a test bench run every
// day) left the job behind, still "running" in the job queue while its standings were served already. Kept
// (completed, for the job queue's day of retention), it is taken for the finalization of a contest created
// again with the id: that one, never finalized, says it is being built, or done with a version of the old one.
func TestSoakDeletedContestLeavesNoFinalization(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	base := p.URL + "/api/v1/contests/again"
	bundle := func(start time.Time) string {
		return fmt.Sprintf(`{"contest":{"id":"again","name":"Again","start_time":%q,"duration":"2:00:00"},
			"problems":[{"id":"A","label":"A","name":"A","ordinal":0}],"teams":[{"id":"t1","name":"Alpha"}]}`,
			start.UTC().Format(time.RFC3339))
	}
	for round := range 15 {
		MustDo(t, "POST", p.URL+"/api/v1/contests", bundle(time.Now().Add(-3*time.Hour)), http.StatusCreated)
		MustPostAdmin(t, base+"/finalize", http.StatusAccepted, &finalStatus{})
		eventually(t, "the final standings", func() string {
			if code := MustStatus(t, base+"/final", testAdminToken); code != http.StatusOK {
				return fmt.Sprintf("status %d", code)
			}
			return ""
		})
		MustDo(t, "DELETE", base, "", http.StatusOK)

		// The id again, for a contest that starts in an hour: nothing of its finalization exists.
		MustDo(t, "POST", p.URL+"/api/v1/contests", bundle(time.Now().Add(time.Hour)), http.StatusCreated)
		var st finalStatus
		MustGetJSON(t, base+"/finalize", testAdminToken, &st)
		if st.State != "idle" || st.Version != 0 || st.Attempts != 0 {
			t.Fatalf("round %d: a contest created again after its id's contest was deleted just after its finalization says %+v, want idle: the deleted contest's job is left", round, st)
		}
		MustDo(t, "DELETE", base, "", http.StatusOK)
	}
}
