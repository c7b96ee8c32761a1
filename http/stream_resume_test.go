package http_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"rankd/stream"
)

// A team's view resumes, with one diff, across each kind of change: rows added and removed, the freeze and
// the thaw, verdicts of its own and of others; a problem added, with a snapshot.
func TestTeamStreamResumesAcrossChanges(t *testing.T) {
	e := MustOpenWith(t, options{tick: 20 * time.Millisecond})
	e.MustContest(t)
	teamResumes(t, e, []resumeOp{
		{"a team added", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
				map[string]any{"id": "t4", "name": "Delta", "group_ids": []string{"g1"}}, nil)
		}},
		{"a team hidden", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams/t2/hide", adminToken, nil, nil)
		}},
		{"a team shown again", func() {
			e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1/teams/t2/hide", adminToken, nil, nil)
		}},
		{"a problem added", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/problems", adminToken,
				map[string]any{"id": "C", "label": "C", "name": "Cherries", "ordinal": 2}, nil)
		}},
		{"own verdict in the freeze", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}`, nil)
		}},
		{"other's verdict in the freeze", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:11:00"}`, nil)
		}},
		{"a team banned", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams/t1/ban", adminToken, nil, nil)
		}},
		{"the thaw", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
		}},
	})
}

// The freeze by hand, before the scheduled one.
func TestTeamStreamResumesAcrossFreeze(t *testing.T) {
	e := MustOpenWith(t, options{tick: 20 * time.Millisecond})
	e.SetNow(contestStart.Add(2 * time.Hour))
	e.MustContest(t)
	teamResumes(t, e, []resumeOp{
		{"the freeze by hand", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
		}},
		{"a verdict of another in the freeze", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"2:11:00"}`, nil)
		}},
		{"the thaw", func() {
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
		}},
	})
}

// resumeOp is a change made while a team's page is away.
type resumeOp struct {
	name string
	do   func()
}

// teamResumes takes a snapshot of team t3's view, lets its client go, makes each change, and resumes from the
// snapshot: one diff must bring it to the view as a new client gets it (or a snapshot, as after a problem added).
func teamResumes(t *testing.T, e *env, ops []resumeOp) {
	token := e.MustTeamToken(t, "t3")
	auth := map[string]string{"Authorization": "Bearer " + token}
	for _, op := range ops {
		next, resp := e.MustStream(t, "?view=team", auth)
		nextFrame(next)
		snap := nextFrame(next)
		var held stream.Board
		if snap.name != "snapshot" || held.ApplySnapshot([]byte(snap.data)) != nil {
			t.Fatalf("%s: got %s, want a snapshot", op.name, snap.name)
		}
		resp.Body.Close()
		for deadline := time.Now().Add(5 * time.Second); e.server.StreamFollowers("c1")["team:t3"] != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: client still counted", op.name)
			}
		}
		op.do()
		time.Sleep(100 * time.Millisecond)
		want := followTo(t, e, "?view=team", token)
		_, wantFrozen := snapshotFrozen(t, e, token)

		if want.Seq == held.Seq {
			t.Logf("%s: the view did not move", op.name)
			continue
		}
		next, resp = e.MustStream(t, "?view=team", map[string]string{"Authorization": "Bearer " + token, "Last-Event-ID": snap.id})
		nextFrame(next)
		ev := nextFrame(next)
		var frozen struct{ Frozen bool }
		_ = json.Unmarshal([]byte(ev.data), &frozen)
		if ev.name == "snapshot" {
			t.Logf("%s: resumed with a snapshot", op.name)
		} else if err := held.ApplyDiff([]byte(ev.data)); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		} else if held.Seq != want.Seq {
			t.Errorf("%s: resumed to %d, want %d", op.name, held.Seq, want.Seq)
		}
		if got, w := followedRows(held), followedRows(want); ev.name == "diff" && !reflect.DeepEqual(got, w) {
			t.Errorf("%s: resumed from %s:\ngot  %q\nwant %q\ndiff %s", op.name, snap.id, got, w, ev.data)
		}
		if frozen.Frozen != wantFrozen {
			t.Errorf("%s: resumed frozen %v, want %v", op.name, frozen.Frozen, wantFrozen)
		}
		resp.Body.Close()
	}
}

// snapshotFrozen returns the id of a new snapshot of the team's view and whether it hides verdicts.
func snapshotFrozen(t *testing.T, e *env, token string) (string, bool) {
	next, resp := e.MustStream(t, "?view=team", map[string]string{"Authorization": "Bearer " + token})
	defer resp.Body.Close()
	nextFrame(next)
	snap := nextFrame(next)
	var s struct{ Frozen bool }
	_ = json.Unmarshal([]byte(snap.data), &s)
	return snap.id, s.Frozen
}
