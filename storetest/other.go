package storetest

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"rankd"
)

func testCheckpoints(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.LatestCheckpoint(ctx, "c1"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("LatestCheckpoint before any: got error %v, want code %s", err, rankd.ENOTFOUND)
	}
	saves := []struct {
		contest string
		cp      rankd.Checkpoint
	}{
		{"c1", rankd.Checkpoint{Pos: 5, Data: []byte("first")}},
		{"c2", rankd.Checkpoint{Pos: 0, Data: []byte{}}},
		{"c1", rankd.Checkpoint{Pos: 9, Data: []byte("\x00second\xff")}},
		{"c1", rankd.Checkpoint{Pos: 7, Data: []byte("late")}}, // behind the one stored: not kept
		{"c2", rankd.Checkpoint{Pos: 0, Data: []byte("again")}},
	}
	for _, sv := range saves {
		if err := s.SaveCheckpoint(ctx, sv.contest, sv.cp); err != nil {
			t.Fatalf("SaveCheckpoint(%s, %d): %v", sv.contest, sv.cp.Pos, err)
		}
	}
	tests := []struct {
		contest string
		want    rankd.Checkpoint
	}{
		{"c1", rankd.Checkpoint{Pos: 9, Data: []byte("\x00second\xff")}}, // the latest position
		{"c2", rankd.Checkpoint{Pos: 0, Data: []byte("again")}},          // the same position: the last saved
	}
	for _, tt := range tests {
		got, err := s.LatestCheckpoint(ctx, tt.contest)
		if err != nil {
			t.Errorf("LatestCheckpoint(%s): %v", tt.contest, err)
			continue
		}
		if got.Pos != tt.want.Pos || !bytes.Equal(got.Data, tt.want.Data) {
			t.Errorf("LatestCheckpoint(%s): got {%d %q}, want {%d %q}", tt.contest, got.Pos, got.Data, tt.want.Pos, tt.want.Data)
		}
	}
	if _, err := s.LatestCheckpoint(ctx, "c3"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("LatestCheckpoint of another contest: got error %v, want code %s", err, rankd.ENOTFOUND)
	}
	checkCode(t, "SaveCheckpoint at a negative position",
		s.SaveCheckpoint(ctx, "c1", rankd.Checkpoint{Pos: -1}), rankd.EINVALID)
	checkCode(t, "SaveCheckpoint without a contest", s.SaveCheckpoint(ctx, "", rankd.Checkpoint{}), rankd.EINVALID)
}

// testSubmissions: the list follows the log's submission events, and pages it by team, problem, offset
// and limit, in contest time then id order.
func testSubmissions(t *testing.T, s Store) {
	minutes := func(m float64) time.Duration { return time.Duration(m * float64(time.Minute)) }
	MustAppend(t, s, "c1",
		Submission("1", "t1", "A", minutes(10)),
		Submission("2", "t2", "A", minutes(5)),
		Submission("3", "t1", "B", minutes(20)),
		judgement("j1", "ignored"),
		// Equal times: ordered by id, bytewise ("10" < "9" < "B" < "a"), whatever the database's collation.
		Submission("9", "t2", "B", minutes(30)),
		Submission("a", "t1", "A", minutes(30)),
		Submission("B", "t3", "A", minutes(30)),
		Submission("10", "t3", "B", minutes(30)),
		// Before the start: contest times can be negative.
		Submission("early", "t3", "A", -minutes(1)),
		// Milliseconds survive.
		Submission("ms", "t2", "C", 90*time.Minute+1500*time.Millisecond),
		Submission("gone", "t1", "A", minutes(1)),
		Delete(rankd.EventSubmission, "gone"),
	)
	MustAppend(t, s, "c2", Submission("other", "t1", "A", minutes(1)))

	all := []string{"early", "2", "1", "3", "10", "9", "B", "a", "ms"}
	tests := []struct {
		name string
		f    rankd.SubmissionFilter
		want []string
	}{
		{"all", rankd.SubmissionFilter{}, all},
		{"team", rankd.SubmissionFilter{TeamID: "t1"}, []string{"1", "3", "a"}},
		{"problem", rankd.SubmissionFilter{ProblemID: "B"}, []string{"3", "10", "9"}},
		{"team and problem", rankd.SubmissionFilter{TeamID: "t3", ProblemID: "A"}, []string{"early", "B"}},
		{"unknown team", rankd.SubmissionFilter{TeamID: "t9"}, nil},
		{"limit", rankd.SubmissionFilter{Limit: 3}, all[:3]},
		{"offset", rankd.SubmissionFilter{Offset: 7}, all[7:]},
		{"offset and limit", rankd.SubmissionFilter{Offset: 2, Limit: 3}, all[2:5]},
		{"limit beyond the end", rankd.SubmissionFilter{Offset: 8, Limit: 5}, all[8:]},
		{"offset beyond the end", rankd.SubmissionFilter{Offset: 9}, nil},
		{"no limit", rankd.SubmissionFilter{Limit: -1}, all},
		{"team, offset and limit", rankd.SubmissionFilter{TeamID: "t2", Offset: 1, Limit: 1}, []string{"9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range MustSubmissions(t, s, "c1", tt.f) {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}

	subs := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{ProblemID: "C"})
	want := rankd.SubmissionRecord{ID: "ms", TeamID: "t2", ProblemID: "C", Time: 90*time.Minute + 1500*time.Millisecond, Pos: 10}
	if len(subs) != 1 || subs[0] != want {
		t.Errorf("got %+v, want [%+v]", subs, want)
	}
	if subs := MustSubmissions(t, s, "unknown", rankd.SubmissionFilter{}); len(subs) != 0 {
		t.Errorf("unknown contest: got %+v, want none", subs)
	}
	_, err := s.Submissions(context.Background(), "c1", rankd.SubmissionFilter{Offset: -1})
	checkCode(t, "negative offset", err, rankd.EINVALID)
}

// testSubmissionVersions: a submission's later version replaces it, its deletion removes it, and entries
// that are not stored (duplicates, refused) change nothing.
func testSubmissionVersions(t *testing.T, s Store) {
	ctx := context.Background()
	MustAppend(t, s, "c1", Submission("s1", "t1", "A", time.Minute), Submission("s2", "t2", "B", 2*time.Minute))
	// A new version of s1 moves it (team, problem and time change), at its new position.
	MustAppend(t, s, "c1", Submission("s1", "t3", "C", 3*time.Minute))
	// A duplicate of the latest version is not stored: the position stays.
	MustAppend(t, s, "c1", Submission("s1", "t3", "C", 3*time.Minute))
	// A refused version changes nothing.
	if _, err := s.Append(ctx, "c1", []rankd.LogEntry{Submission("s2", "t9", "Z", 0), Submission("s3", "t1", "A", 0)},
		func(int) error { return errRefused }); err != nil {
		t.Fatalf("Append: %v", err)
	}
	want := []rankd.SubmissionRecord{
		{ID: "s2", TeamID: "t2", ProblemID: "B", Time: 2 * time.Minute, Pos: 2},
		{ID: "s1", TeamID: "t3", ProblemID: "C", Time: 3 * time.Minute, Pos: 3},
	}
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want) {
		t.Errorf("after new versions: got %+v, want %+v", got, want)
	}
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{TeamID: "t1"}); len(got) != 0 {
		t.Errorf("old team of s1: got %+v, want none", got)
	}

	// Deleted, then sent again.
	MustAppend(t, s, "c1", Delete(rankd.EventSubmission, "s2"))
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want[1:]) {
		t.Errorf("after deleting s2: got %+v, want %+v", got, want[1:])
	}
	// As it was before: a repeat, which leaves it deleted. A new version brings it back.
	MustAppend(t, s, "c1", Submission("s2", "t2", "B", 2*time.Minute))
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want[1:]) {
		t.Errorf("after sending s2 as it was: got %+v, want %+v", got, want[1:])
	}
	MustAppend(t, s, "c1", Submission("s2", "t2", "B", 150*time.Second))
	want[0].Pos, want[0].Time = 5, 150*time.Second
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want) {
		t.Errorf("after sending s2 again: got %+v, want %+v", got, want)
	}
	// Deleting what is not there is a version like any other.
	MustAppend(t, s, "c1", Delete(rankd.EventSubmission, "never"))
	if got := MustSubmissions(t, s, "c1", rankd.SubmissionFilter{}); !slices.Equal(got, want) {
		t.Errorf("after deleting an unknown submission: got %+v, want %+v", got, want)
	}
}

func testTokens(t *testing.T, s Store) {
	ctx := context.Background()
	tokens := []rankd.Token{
		{Secret: "admin-secret", Role: rankd.RoleAdmin, Name: "root"},
		{Secret: "judge-secret", Role: rankd.RoleJudge, Name: "judge host"},
		{Secret: "team-secret", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t1", Name: "team one"},
		{Secret: "public-secret", Role: rankd.RolePublic},
	}
	for _, tok := range tokens {
		if err := s.SaveToken(ctx, tok); err != nil {
			t.Fatalf("SaveToken(%s): %v", tok.Name, err)
		}
	}
	for _, tok := range tokens {
		got, err := s.LookupToken(ctx, tok.Secret)
		want := tok
		want.Secret = ""
		if err != nil || got != want {
			t.Errorf("LookupToken(%s): got %+v, %v; want %+v", tok.Secret, got, err, want)
		}
	}
	if _, err := s.LookupToken(ctx, "admin-secret "); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("LookupToken of an unknown secret: got %v, want code %s", err, rankd.ENOTFOUND)
	}

	// Saving the same secret replaces the token.
	replaced := rankd.Token{Secret: "judge-secret", Role: rankd.RoleTeam, ContestID: "c2", TeamID: "t7", Name: "demoted"}
	if err := s.SaveToken(ctx, replaced); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	replaced.Secret = ""
	if got, err := s.LookupToken(ctx, "judge-secret"); err != nil || got != replaced {
		t.Errorf("LookupToken after replacing: got %+v, %v; want %+v", got, err, replaced)
	}

	// A team's tokens go together; other teams', other contests' and other roles' stay.
	more := []rankd.Token{
		{Secret: "team-secret-2", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t1", Name: "team one again"},
		{Secret: "other-team", Role: rankd.RoleTeam, ContestID: "c1", TeamID: "t2"},
		{Secret: "other-contest", Role: rankd.RoleTeam, ContestID: "c2", TeamID: "t1"},
	}
	for _, tok := range more {
		if err := s.SaveToken(ctx, tok); err != nil {
			t.Fatalf("SaveToken(%s): %v", tok.Secret, err)
		}
	}
	for _, tc := range []struct {
		contest, team string
		want          int
	}{{"c1", "t1", 2}, {"c1", "t1", 0}, {"c1", "t9", 0}, {"c1", "bad\xff", 0}} {
		if n, err := s.DeleteTeamTokens(ctx, tc.contest, tc.team); err != nil || n != tc.want {
			t.Errorf("DeleteTeamTokens(%s, %q): got %d, %v; want %d", tc.contest, tc.team, n, err, tc.want)
		}
	}
	for _, secret := range []string{"team-secret", "team-secret-2"} {
		if _, err := s.LookupToken(ctx, secret); rankd.ErrorCode(err) != rankd.ENOTFOUND {
			t.Errorf("LookupToken(%s) after deleting the team's tokens: got %v, want code %s", secret, err, rankd.ENOTFOUND)
		}
	}
	for _, secret := range []string{"admin-secret", "judge-secret", "other-team", "other-contest"} {
		if _, err := s.LookupToken(ctx, secret); err != nil {
			t.Errorf("LookupToken(%s) after deleting another team's tokens: %v", secret, err)
		}
	}
}

func testTokenInvalid(t *testing.T, s Store) {
	tests := []struct {
		name string
		tok  rankd.Token
	}{
		{"no secret", rankd.Token{Role: rankd.RoleAdmin}},
		{"no role", rankd.Token{Secret: "x"}},
		{"unknown role", rankd.Token{Secret: "x", Role: "root"}},
		{"team without team", rankd.Token{Secret: "x", Role: rankd.RoleTeam, ContestID: "c1"}},
		{"team without contest", rankd.Token{Secret: "x", Role: rankd.RoleTeam, TeamID: "t1"}},
	}
	for _, tt := range tests {
		checkCode(t, tt.name, s.SaveToken(context.Background(), tt.tok), rankd.EINVALID)
	}
	if _, err := s.LookupToken(context.Background(), "x"); rankd.ErrorCode(err) != rankd.ENOTFOUND {
		t.Errorf("LookupToken after invalid saves: got %v, want code %s", err, rankd.ENOTFOUND)
	}
}

// testCanceled: every method fails when its context is done.
func testCanceled(t *testing.T, s Store) {
	MustAppend(t, s, "c1", Submission("s1", "t1", "A", time.Minute))
	if err := s.SaveCheckpoint(context.Background(), "c1", rankd.Checkpoint{Pos: 1, Data: []byte("x")}); err != nil {
		t.Fatalf("SaveCheckpoint: %v", err)
	}
	if err := s.SaveToken(context.Background(), rankd.Token{Secret: "s", Role: rankd.RoleAdmin}); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		call func() error
	}{
		{"Append", func() error {
			_, err := s.Append(ctx, "c1", []rankd.LogEntry{judgement("j1", "a")}, nil)
			return err
		}},
		{"Replay", func() error {
			return s.Replay(ctx, "c1", 0, func(*rankd.LogEntry) error { return nil })
		}},
		{"Contests", func() error { _, err := s.Contests(ctx); return err }},
		{"SaveCheckpoint", func() error { return s.SaveCheckpoint(ctx, "c1", rankd.Checkpoint{Pos: 1}) }},
		{"LatestCheckpoint", func() error { _, err := s.LatestCheckpoint(ctx, "c1"); return err }},
		{"Submissions", func() error { _, err := s.Submissions(ctx, "c1", rankd.SubmissionFilter{}); return err }},
		{"SaveToken", func() error { return s.SaveToken(ctx, rankd.Token{Secret: "t", Role: rankd.RoleAdmin}) }},
		{"LookupToken", func() error { _, err := s.LookupToken(ctx, "s"); return err }},
		{"DeleteTeamTokens", func() error { _, err := s.DeleteTeamTokens(ctx, "c1", "t1"); return err }},
		{"DeleteContest", func() error { return s.DeleteContest(ctx, "c1") }},
	}
	for _, tt := range tests {
		if err := tt.call(); err == nil {
			t.Errorf("%s with a cancelled context: got no error", tt.name)
		}
	}
	// Nothing changed.
	if log := MustReplay(t, s, "c1", 0); len(log) != 1 {
		t.Errorf("log: got %d entries, want 1", len(log))
	}
	if _, err := s.LookupToken(context.Background(), "s"); err != nil {
		t.Errorf("LookupToken: %v", err)
	}
}
