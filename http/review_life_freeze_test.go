package http_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Changing the contest once the public board is frozen must not move the freeze later: the verdicts between
// where it began and where it would be now would go public. Extending the contest (a power cut) without
// lengthening the freeze, or shortening the freeze, is refused with the freeze duration that keeps it; what
// keeps the freeze, or moves it earlier, goes through. The same whoever sends the contest: an admin's PATCH,
// or a judge (a CCS relayed) sending it as an event, which lifted the freeze.
func TestLifeChangeDuringFreezeKeepsItsStart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		now      time.Duration // into the contest
		byHand   bool          // frozen by POST /freeze at 2:00 rather than by the schedule (4:00)
		duration string
		freeze   string
		want     int    // status of the PATCH
		wantMsg  string // in its message
		public   int    // t2's solved on the public board after it
	}{
		{name: "extended, freeze kept long", now: 4*time.Hour + 30*time.Minute, duration: "5:10:00", freeze: "1:10:00",
			want: http.StatusOK},
		{name: "extended, freeze as before", now: 4*time.Hour + 30*time.Minute, duration: "5:10:00", freeze: "1:00:00",
			want: http.StatusConflict, wantMsg: "1:10:00"},
		{name: "freeze shortened", now: 4*time.Hour + 30*time.Minute, duration: "5:00:00", freeze: "0:30:00",
			want: http.StatusConflict, wantMsg: "1:00:00"},
		{name: "freeze lengthened", now: 4*time.Hour + 30*time.Minute, duration: "5:00:00", freeze: "1:30:00",
			want: http.StatusOK},
		{name: "shortened", now: 4*time.Hour + 30*time.Minute, duration: "4:50:00", freeze: "1:00:00",
			want: http.StatusOK},
		{name: "after the end", now: 5*time.Hour + 30*time.Minute, duration: "5:10:00", freeze: "1:00:00",
			want: http.StatusConflict, wantMsg: "1:10:00"},
		{name: "before the freeze", now: 2 * time.Hour, duration: "5:10:00", freeze: "1:00:00",
			want: http.StatusOK, public: 1},
		{name: "frozen by hand, definition sent again", now: 2*time.Hour + 30*time.Minute, byHand: true,
			duration: "5:00:00", freeze: "1:00:00", want: http.StatusConflict, wantMsg: "3:00:00"},
	} {
		for _, byJudge := range []bool{false, true} {
			name := tc.name
			if byJudge {
				name += ", sent by the judge"
			}
			t.Run(name, func(t *testing.T) {
				e := MustOpen(t)
				e.MustContest(t)
				e.SetNow(contestStart.Add(2 * time.Hour))
				if tc.byHand {
					e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
				}
				// t2 solves B at 4:05 (at 2:05 when frozen by hand): hidden from the public once frozen.
				at := "4:05:00"
				if tc.byHand {
					at = "2:05:00"
				}
				e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
					`{"type":"submissions","data":{"id":"s9","team_id":"t2","problem_id":"B","contest_time":"` + at + `"}}`,
					`{"type":"judgements","data":{"id":"j9","submission_id":"s9","judgement_type_id":"AC","start_contest_time":"` + at + `"}}`,
				}, "\n")+"\n", nil)
				e.SetNow(contestStart.Add(tc.now))
				c := testContest()["contest"].(map[string]any)
				c["duration"], c["scoreboard_freeze_duration"] = tc.duration, tc.freeze
				var r response
				if byJudge {
					line, err := json.Marshal(map[string]any{"type": "contest", "data": c})
					if err != nil {
						t.Fatal(err)
					}
					r = e.Do(t, "POST", "/api/v1/contests/c1/events", judgeToken, string(line)+"\n")
				} else {
					r = e.Do(t, "PATCH", "/api/v1/contests/c1", adminToken, map[string]any{"contest": c})
				}
				if r.Status != tc.want || !strings.Contains(string(r.Body), tc.wantMsg) {
					t.Errorf("got %d %s, want %d naming %q", r.Status, r.Body, tc.want, tc.wantMsg)
				}
				var row struct{ Solved int }
				e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard/teams/t2", "", nil, &row)
				if row.Solved != tc.public {
					t.Errorf("public sees t2 with %d solved, want %d", row.Solved, tc.public)
				}
				if r.Status != http.StatusConflict {
					return
				}
				var got struct {
					Duration string `json:"duration"`
					Freeze   string `json:"scoreboard_freeze_duration"`
				}
				e.MustDo(t, http.StatusOK, "GET", "/api/contests/c1", "", nil, &got)
				if got.Duration == tc.duration+".000" && got.Freeze == tc.freeze+".000" {
					t.Errorf("a refused change was applied: duration %s, freeze %s", got.Duration, got.Freeze)
				}
			})
		}
	}
}

// A freeze by hand, a thaw, a freeze again and a thaw again leave the public board live: the second thaw's state
// is the first's, byte for byte, and was taken for a repeat of it (a judge's retry) and dropped, answered 200
// while the board stayed frozen for good.
func TestLifeFreezeThawTwiceByHand(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for i, at := range []time.Duration{2 * time.Hour, 2*time.Hour + time.Minute} {
		e.SetNow(contestStart.Add(at))
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/freeze", adminToken, nil, nil)
		e.SetNow(e.now.Add(10 * time.Second))
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
		var p page
		if e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard", "", nil, &p); p.Frozen {
			t.Errorf("thaw %d: the public board is frozen", i+1)
		}
	}
}
