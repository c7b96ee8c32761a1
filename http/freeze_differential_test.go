package http_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests here are differential. Two servers get the same contest and two histories that differ only in
// what the freeze hides (a frozen verdict AC or WA, judged or not, rejudged, deleted, moved to another
// submission...), and every answer the public and the other teams can get must be byte for byte the same on
// both: the pages with and without gzip and their headers (ETag, Content-Length...), the live streams (fresh
// or resumed), the big screen's and the streaming event feed. A check of one field finds the leaks one
// thought of; this one finds a sequence number, a size or a frame that tells.
//
// Nothing waits a fixed time: after each step, every stream is read up to its view's sequence number (the
// event feed up to its last line), so that the frames of two steps never merge on one server and not on the
// other; a last change that every view shows brings out whatever a leak queued before it.

// freezeScenario is a contest and two histories of it that the public and the other teams must not tell
// apart.
type freezeScenario struct {
	name string
	// contest creates contest c1 (MustContest when nil); setup follows it, on both servers, before the
	// streams open.
	contest step
	setup   []step
	// variants are what differs, one per server, posted once the streams are open; then follows on both.
	variants [2]step
	then     []step
	// privy are the teams that may tell the variants apart (their own verdicts): their views are not
	// compared.
	privy []string
}

// step is something done to a server: events posted, an admin's action, the clock set. It takes the
// server first, as a method expression of a MustX helper does.
type step func(e *env, tb testing.TB)

// judge posts event-feed lines as the judge system; each must be accepted.
func judge(lines ...string) step {
	return func(e *env, tb testing.TB) {
		tb.Helper()
		var res struct{ Rejected int }
		e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", &res)
		if res.Rejected != 0 {
			tb.Fatalf("posting %v: got %d rejected, want none", lines, res.Rejected)
		}
	}
}

// admin sends a request as the admin, which must succeed.
func admin(method, path string, body any) step {
	return func(e *env, tb testing.TB) {
		tb.Helper()
		e.MustDo(tb, http.StatusOK, method, path, adminToken, body, nil)
	}
}

// clock sets the server's clock to d into the contest. Only in setup: the streams' goroutines read the
// clock with nothing to order it after the write.
func clock(d time.Duration) step {
	return func(e *env, _ testing.TB) { e.SetNow(contestStart.Add(d)) }
}

// submission is the event-feed line of a submission at contest time at (h:mm:ss).
func submission(id, team, problem, at string) string {
	return fmt.Sprintf(`{"type":"submissions","data":{"id":%q,"team_id":%q,"problem_id":%q,"contest_time":%q}}`, id, team, problem, at)
}

// judgement is the event-feed line of a judgement started at contest time at.
func judgement(id, sub, verdict, at string) string {
	return fmt.Sprintf(`{"type":"judgements","data":{"id":%q,"submission_id":%q,"judgement_type_id":%q,"start_contest_time":%q}}`, id, sub, verdict, at)
}

// deletion is the event-feed line that deletes an object.
func deletion(typ, id string) string {
	return fmt.Sprintf(`{"type":%q,"id":%q,"data":null}`, typ, id)
}

// In MustContest, t2's submission s3 of B (4:10) and t3's s4 of B (4:20) are after the freeze and pending;
// the clock reads 4:30, the contest ends at 5:00.
var freezeScenarios = []freezeScenario{
	{name: "t2's frozen B AC vs WA", privy: []string{"t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))}},
	{name: "t2's frozen B pending vs AC", privy: []string{"t2"},
		variants: [2]step{nil, judge(judgement("j3", "s3", "AC", "4:11:00"))}},
	{name: "t3's frozen B CE vs WA", privy: []string{"t3"}, // a compile error costs no penalty
		variants: [2]step{judge(judgement("j4", "s4", "CE", "4:21:00")), judge(judgement("j4", "s4", "WA", "4:21:00"))}},
	{name: "t1's frozen A, solved before, AC vs WA", privy: []string{"t1"},
		variants: [2]step{
			judge(submission("s9", "t1", "A", "4:12:00"), judgement("j9", "s9", "AC", "4:13:00")),
			judge(submission("s9", "t1", "A", "4:12:00"), judgement("j9", "s9", "WA", "4:13:00"))}},
	{name: "rejudged WA to AC vs WA to WA", privy: []string{"t2"},
		variants: [2]step{
			judge(judgement("j3", "s3", "WA", "4:11:00"), judgement("j3b", "s3", "AC", "4:15:00")),
			judge(judgement("j3", "s3", "WA", "4:11:00"), judgement("j3b", "s3", "WA", "4:15:00"))}},
	{name: "AC judgement deleted vs WA", privy: []string{"t2"},
		variants: [2]step{
			judge(judgement("j3", "s3", "AC", "4:11:00"), deletion("judgements", "j3")),
			judge(judgement("j3", "s3", "WA", "4:11:00"))}},
	{name: "AC submission deleted vs WA one deleted", privy: []string{"t2"},
		variants: [2]step{
			judge(judgement("j3", "s3", "AC", "4:11:00"), deletion("submissions", "s3")),
			judge(judgement("j3", "s3", "WA", "4:11:00"), deletion("submissions", "s3"))}},
	{name: "first to solve B with a pending pre-freeze submission, AC vs WA", privy: []string{"t3"},
		setup: []step{judge(submission("p1", "t1", "B", "3:50:00"), submission("p2", "t2", "B", "3:55:00"),
			judgement("pj2", "p2", "AC", "3:56:00"))},
		variants: [2]step{judge(judgement("j4", "s4", "AC", "4:21:00")), judge(judgement("j4", "s4", "WA", "4:21:00"))}},
	{name: "hidden team's verdicts, before the freeze too, AC vs WA", privy: []string{"t9"},
		setup: []step{(*env).MustHiddenTeam},
		variants: [2]step{
			judge(judgement("hj1", "h1", "AC", "0:11:00"), judgement("hj3", "h3", "AC", "4:16:00")),
			judge(judgement("hj1", "h1", "WA", "0:11:00"), judgement("hj3", "h3", "WA", "4:16:00"))}},
	// t1's own frozen solve of B is the first in its view whatever t2's earlier frozen submission got.
	{name: "first to solve in t1's view, t2's earlier B AC vs WA", privy: []string{"t2"},
		setup:    []step{judge(submission("s5", "t1", "B", "4:15:00"), judgement("j5", "s5", "AC", "4:16:00"))},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))}},
	{name: "first to solve in t1's view, t2's earlier B pending vs WA", privy: []string{"t2"},
		setup:    []step{judge(submission("s5", "t1", "B", "4:15:00"), judgement("j5", "s5", "AC", "4:16:00"))},
		variants: [2]step{nil, judge(judgement("j3", "s3", "WA", "4:11:00"))}},
	// In MustCTFContest t1 took A's first blood and t2 solved it before the freeze, t3 after it (s3).
	// t3's own frozen solve of B takes the first blood in its view whatever t2's earlier one got.
	{name: "CTF first blood in t3's view, t2's earlier B AC vs WA", privy: []string{"t2"},
		contest: (*env).MustCTFContest, setup: []step{judge(submission("s4", "t2", "B", "4:20:00"),
			submission("s5", "t3", "B", "4:25:00"), judgement("j5", "s5", "AC", "4:26:00"))},
		variants: [2]step{judge(judgement("j4", "s4", "AC", "4:21:00")), judge(judgement("j4", "s4", "WA", "4:21:00"))}},
	{name: "CTF first blood in t3's view, t2's earlier B pending vs WA", privy: []string{"t2"},
		contest: (*env).MustCTFContest, setup: []step{judge(submission("s4", "t2", "B", "4:20:00"),
			submission("s5", "t3", "B", "4:25:00"), judgement("j5", "s5", "AC", "4:26:00"))},
		variants: [2]step{nil, judge(judgement("j4", "s4", "WA", "4:21:00"))}},
	// A's value decays with its solves: the frozen third one must not lower it for the others.
	{name: "CTF decay, t3's frozen A rejudged AC vs WA", privy: []string{"t3"},
		contest:  (*env).MustCTFContest,
		variants: [2]step{judge(judgement("j3b", "s3", "AC", "4:12:00")), judge(judgement("j3b", "s3", "WA", "4:12:00"))}},
	{name: "OI hidden until the end, t3's A 0 vs 100 points", privy: []string{"t3"},
		contest: (*env).MustHiddenOIContest, setup: []step{judge(submission("s3", "t3", "A", "1:00:00"))},
		variants: [2]step{judge(judgement("j3", "s3", "WA", "1:01:00")),
			judge(`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","score":100,"start_contest_time":"1:01:00"}}`)}},
	{name: "frozen by hand at 3:00, t1's B AC vs WA", privy: []string{"t1"},
		setup: []step{clock(3 * time.Hour), admin("POST", "/api/v1/contests/c1/freeze", nil),
			judge(submission("s7", "t1", "B", "3:10:00")), clock(4*time.Hour + 30*time.Minute)},
		variants: [2]step{judge(judgement("j7", "s7", "AC", "3:11:00")), judge(judgement("j7", "s7", "WA", "3:11:00"))}},
	{name: "ended not thawed, t2's B AC vs WA", privy: []string{"t2"},
		setup:    []step{clock(5*time.Hour + 30*time.Minute)},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))}},
	{name: "banned team's verdicts, before the freeze too, AC vs WA", privy: []string{"t3"},
		setup: []step{judge(submission("b1", "t3", "A", "1:00:00")), admin("POST", "/api/v1/contests/c1/teams/t3/ban", nil)},
		variants: [2]step{
			judge(judgement("bj1", "b1", "AC", "1:01:00"), judgement("j4", "s4", "AC", "4:21:00")),
			judge(judgement("bj1", "b1", "WA", "1:01:00"), judgement("j4", "s4", "WA", "4:21:00"))}},
	// The reveal's first step shows t3's WA; the cells it has not reached hide the rest.
	{name: "revealed one step, the cells still hidden AC vs WA", privy: []string{"t1", "t2"},
		setup: []step{clock(5*time.Hour + 30*time.Minute),
			judge(submission("s5", "t1", "B", "4:30:00"), judgement("j4", "s4", "WA", "4:21:00"))},
		variants: [2]step{
			judge(judgement("j3", "s3", "AC", "4:11:00"), judgement("j5", "s5", "AC", "4:31:00")),
			judge(judgement("j3", "s3", "WA", "4:11:00"), judgement("j5", "s5", "WA", "4:31:00"))},
		then: []step{admin("POST", "/api/v1/contests/c1/reveal/next", map[string]any{"step": 1})}},
	{name: "t2 hidden and shown again, its B AC vs WA", privy: []string{"t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then: []step{admin("POST", "/api/v1/contests/c1/teams/t2/hide", nil),
			admin("DELETE", "/api/v1/contests/c1/teams/t2/hide", nil)}},
	{name: "t2 banned and let back, its B AC vs WA", privy: []string{"t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then: []step{admin("POST", "/api/v1/contests/c1/teams/t2/ban", nil),
			admin("DELETE", "/api/v1/contests/c1/teams/t2/ban", nil)}},
	{name: "t2 moved to a hidden group and back, its B AC vs WA", privy: []string{"t2"},
		setup:    []step{admin("POST", "/api/v1/contests/c1/groups", map[string]any{"id": "g9", "name": "H", "hidden": true})},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then: []step{
			admin("POST", "/api/v1/contests/c1/teams", map[string]any{"id": "t2", "name": "Bravo", "group_ids": []string{"g9"}}),
			admin("POST", "/api/v1/contests/c1/teams", map[string]any{"id": "t2", "name": "Bravo", "group_ids": []string{"g1"}})}},
	{name: "problem B deleted and added again, t2's B AC vs WA", privy: []string{"t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then: []step{judge(deletion("problems", "B")),
			judge(`{"type":"problems","id":"B","data":{"id":"B","label":"B","name":"Bananas","ordinal":1}}`)}},
	{name: "submission deleted and sent again, its first judgement AC vs WA", privy: []string{"t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then:     []step{judge(deletion("submissions", "s3")), judge(submission("s3", "t2", "B", "4:12:00"))}},
	{name: "submission moved to t1, judged AC vs WA", privy: []string{"t1", "t2"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then:     []step{judge(submission("s3", "t1", "B", "4:10:00"))}},
	{name: "judgement moved to t3's submission, AC vs WA before", privy: []string{"t2", "t3"},
		variants: [2]step{judge(judgement("j3", "s3", "AC", "4:11:00")), judge(judgement("j3", "s3", "WA", "4:11:00"))},
		then:     []step{judge(judgement("j3", "s4", "AC", "4:11:00"))}},
}

// publicReads are the reads the public and the teams can make, of c1's pages in every form, the pages
// at moments before and during the freeze, the CCS API, the event feed and the web pages.
var publicReads = []string{
	"/api/v1/contests", "/api/v1/contests/c1",
	"/api/v1/contests/c1/scoreboard", "/api/v1/contests/c1/scoreboard?limit=1&offset=1",
	"/api/v1/contests/c1/scoreboard?group=g1", "/api/v1/contests/c1/scoreboard?view=team",
	"/api/v1/contests/c1/scoreboard/teams/t1", "/api/v1/contests/c1/scoreboard/teams/t2",
	"/api/v1/contests/c1/scoreboard/teams/t3", "/api/v1/contests/c1/scoreboard/teams/t9",
	"/api/v1/contests/c1/problems", "/api/v1/contests/c1/teams", "/api/v1/contests/c1/submissions",
	"/api/v1/contests/c1/submissions?team=t2", "/api/v1/contests/c1/submissions?problem=B",
	"/api/v1/contests/c1/submissions?team=t9", "/api/v1/contests/c1/awards",
	"/api/v1/contests/c1/history", "/api/v1/contests/c1/history?teams=t1,t2,t3",
	"/api/v1/contests/c1/scoreboard?at=4:15:00", "/api/v1/contests/c1/scoreboard?at=4:29:00",
	"/api/v1/contests/c1/scoreboard?at=4:30:00", "/api/v1/contests/c1/scoreboard?at=5:00:00",
	"/api/v1/contests/c1/export?format=csv", "/api/v1/contests/c1/export?format=tsv",
	"/api/v1/contests/c1/export?format=json", "/api/v1/contests/c1/reveal", "/api/v1/contests/c1/final",
	"/api/v1/contests/c1/finalize",
	"/api", "/api/contests", "/api/contests/c1", "/api/contests/c1/scoreboard", "/api/contests/c1/state",
	"/api/contests/c1/awards", "/api/contests/c1/teams", "/api/contests/c1/problems", "/api/contests/c1/groups",
	"/api/contests/c1/organizations", "/api/contests/c1/judgement-types", "/api/contests/c1/teams/t2",
	"/api/contests/c1/problems/B", "/api/contests/c1/awards/first-to-solve-B", "/api/contests/c1/awards/winners",
	"/api/contests/c1/event-feed?stream=false", "/api/contests/c1/event-feed?stream=false&since_token=p2.10",
	"/api/contests/c1/event-feed?stream=false&since_token=p2.14",
	"/", "/contests/c1", "/admin", "/admin/contests/c1", "/metrics", "/readyz",
}

// comparedHeaders are the headers of a read that must not tell the variants apart.
var comparedHeaders = []string{"Etag", "Content-Length", "Content-Type", "Content-Disposition", "Content-Encoding",
	"Cache-Control", "Last-Modified", "X-Accel-Buffering", "Retry-After"}

// quietStreams are the options of servers followed by tens of streams at once: a heartbeat checks a team's
// token again, so the tests' 50 ms would cost more than the rest.
var quietStreams = options{heartbeat: time.Second}

// rawClient leaves answers as they come: compressed when the server compressed them, with their length. A
// read that does not end (a stream where a page was expected) fails rather than hangs.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}

// Two histories that differ only in what the freeze hides look the same to the public and to the teams not
// concerned, in every answer, stream and header, before and after what comes next (a team hidden and shown
// again, a problem deleted, a reveal's step...).
func TestFreezeDifferential(t *testing.T) {
	t.Parallel()
	for _, sc := range freezeScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			checkFreezeScenario(t, sc)
		})
	}
}

// checkFreezeScenario runs a scenario's variants side by side, one server each, step by step, and compares
// what the readers not privy to the difference saw of each.
func checkFreezeScenario(t *testing.T, sc freezeScenario) {
	var servers [2]*observed
	for i := range servers {
		e := MustOpenWith(t, quietStreams)
		contest := sc.contest
		if contest == nil {
			contest = (*env).MustContest
		}
		contest(e, t)
		for _, s := range sc.setup {
			s(e, t)
		}
		servers[i] = observe(t, e, sc.privy)
	}
	do := func(steps [2]step) {
		t.Helper()
		for i, o := range servers {
			if steps[i] != nil {
				steps[i](o.e, t)
			}
		}
		// Each step's frames are out before the next: what each frame holds does not depend on the timing.
		for _, o := range servers {
			o.catchUp(t)
		}
	}
	for _, o := range servers {
		o.openStreams(t, "", "1")
	}
	do([2]step{})
	do(sc.variants)
	for _, s := range sc.then {
		do([2]step{s, s})
	}
	// A change of every view after the hidden ones: its frames, and the pages after it, are made from a
	// board that holds them.
	marker := admin("POST", "/api/v1/contests/c1/teams", map[string]any{"id": "tz", "name": "Zulu"})
	do([2]step{marker, marker})
	for _, o := range servers {
		o.readAll(t)
		o.openStreams(t, "late ", "2")
	}
	do([2]step{})

	// The premise: the jury tells the variants apart.
	juryFeed := func(o *observed) string {
		return string(o.e.Do(t, "GET", "/api/contests/c1/event-feed?stream=false", adminToken, nil).Body)
	}
	if juryFeed(servers[0]) == juryFeed(servers[1]) {
		t.Fatal("the jury's event feed: got the same with both variants, want them to differ (nothing would be hidden)")
	}
	checkAlike(t, servers[0].seen(), servers[1].seen(), "first variant", "second variant")
}

// checkAlike reports the answers that differ between two servers, named as they are: the first few in
// full, the streams first (fewer, and each holds all that came), then how many more.
func checkAlike(t *testing.T, want, got map[string]string, wantName, gotName string) {
	t.Helper()
	var streams, reads []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		switch {
		case want[k] == got[k]:
		case strings.HasPrefix(k, "GET "):
			reads = append(reads, k)
		default:
			streams = append(streams, k)
		}
	}
	differ := append(streams, reads...)
	const shown = 6
	for _, k := range differ[:min(len(differ), shown)] {
		line, w, g := firstDifference(want[k], got[k])
		t.Errorf("%s, line %d:\ngot  %s (%s)\nwant %s (%s)", k, line, g, gotName, w, wantName)
	}
	if len(differ) > shown {
		t.Errorf("and %d more answers differ", len(differ)-shown)
	}
}

// reader is who reads: the public (no token) or a team.
type reader struct{ name, token string }

// observed is a server and what its readers saw of it.
type observed struct {
	e       *env
	readers []reader
	streams []recording
	reads   map[string]string
}

// recording is a live answer as read so far.
type recording interface {
	// name says what the answer is, and to whom.
	name() string
	// catchUp reads on until the answer holds all that the server's state has it send.
	catchUp(tb testing.TB)
	// String is what was read.
	String() string
}

// observe lists the readers of e: the public and every team of the contest but the privy ones.
func observe(tb testing.TB, e *env, privy []string) *observed {
	tb.Helper()
	var teams []struct{ ID string }
	e.MustDo(tb, http.StatusOK, "GET", "/api/contests/c1/teams", adminToken, nil, &teams)
	o := &observed{e: e, readers: []reader{{name: "public"}}, reads: map[string]string{}}
	for _, t := range teams {
		if !slices.Contains(privy, t.ID) {
			o.readers = append(o.readers, reader{"team " + t.ID, e.MustTeamToken(tb, t.ID)})
		}
	}
	return o
}

// openStreams opens, for every reader, the live stream of its view, fresh and resumed from sequence number
// resume, the big screen's and the streaming event feed; their names begin with prefix.
func (o *observed) openStreams(tb testing.TB, prefix, resume string) {
	tb.Helper()
	for _, r := range o.readers {
		o.streams = append(o.streams,
			o.e.recordStream(tb, prefix+"stream as "+r.name, "", r.token, ""),
			o.e.recordStream(tb, prefix+"stream resumed from "+resume+" as "+r.name, "", r.token, resume),
			o.e.recordStream(tb, prefix+"big screen as "+r.name, "?top=2&throttle=100ms", r.token, ""),
			o.e.recordFeed(tb, prefix+"event feed as "+r.name, r.token))
	}
}

func (o *observed) catchUp(tb testing.TB) {
	tb.Helper()
	for _, s := range o.streams {
		s.catchUp(tb)
	}
}

// readAll GETs every public read as every reader, with and without gzip.
func (o *observed) readAll(tb testing.TB) {
	tb.Helper()
	for _, path := range publicReads {
		for _, r := range o.readers {
			for _, gz := range []bool{false, true} {
				o.reads[fmt.Sprintf("GET %s as %s, gzip %t", path, r.name, gz)] = o.e.readRaw(tb, path, r.token, gz)
			}
		}
	}
}

// seen is all the readers got, by what they read.
func (o *observed) seen() map[string]string {
	all := maps.Clone(o.reads)
	for _, s := range o.streams {
		all[s.name()] = s.String()
	}
	return all
}

// rawGet GETs path with token ("" for none), asking for gzip or not, through rawClient.
func (e *env) rawGet(tb testing.TB, path, token string, gz bool) *http.Response {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// readRaw GETs path with token ("" for none), asking for gzip or not, and returns the status, the compared
// headers and the body (uncompressed, with its compressed size).
func (e *env) readRaw(tb testing.TB, path, token string, gz bool) string {
	tb.Helper()
	resp := e.rawGet(tb, path, token, gz)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", resp.StatusCode)
	for _, h := range comparedHeaders {
		if v := resp.Header.Values(h); len(v) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", h, strings.Join(v, ", "))
		}
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		fmt.Fprintf(&b, "(%d bytes compressed)\n", len(body))
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			tb.Fatalf("GET %s: %v", path, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			tb.Fatalf("GET %s: %v", path, err)
		}
	}
	b.Write(body)
	return b.String()
}

// streamRecording is a live stream of a view (MustStream) as read so far.
type streamRecording struct {
	e            *env
	title, token string
	next         func() sseEvent
	events       []string
	// reached is the sequence number of the view the stream has brought its reader to: its last frame's, or
	// the one it resumed from; -1 before its snapshot.
	reached int64
}

// recordStream opens a live stream of the view of token, resumed from sequence number resume unless "".
func (e *env) recordStream(tb testing.TB, title, query, token, resume string) *streamRecording {
	tb.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	r := &streamRecording{e: e, title: title, token: token, reached: -1}
	if resume != "" {
		header["Last-Event-ID"] = resume
		r.reached, _ = strconv.ParseInt(resume, 10, 64)
		// From further than the view has come, the stream would answer with a snapshot, or not, as its
		// timing goes.
		if seq := e.viewSeq(tb, token); r.reached > seq {
			tb.Fatalf("%s: got the view at seq %d, want it at %d at least", title, seq, r.reached)
		}
	}
	next, resp := e.MustStream(tb, query, header)
	r.next = next
	r.events = append(r.events, "Content-Type: "+resp.Header.Get("Content-Type"))
	return r
}

func (r *streamRecording) name() string   { return r.title }
func (r *streamRecording) String() string { return strings.Join(r.events, "\n") }

func (r *streamRecording) catchUp(tb testing.TB) {
	tb.Helper()
	for want := r.e.viewSeq(tb, r.token); r.reached < want; {
		ev := nextFrame(r.next)
		if ev == (sseEvent{}) {
			tb.Fatalf("%s: got frames up to seq %d, want them up to the view's %d within 5 s", r.title, r.reached, want)
		}
		r.events = append(r.events, fmt.Sprintf("%s %s %s", ev.name, ev.id, ev.data))
		if ev.id != "" {
			seq, err := strconv.ParseInt(ev.id, 10, 64)
			if err != nil {
				tb.Fatalf("%s: got a frame numbered %q, want a sequence number", r.title, ev.id)
			}
			r.reached = seq
		}
	}
}

// viewSeq is the sequence number of the view token reads.
func (e *env) viewSeq(tb testing.TB, token string) int64 {
	tb.Helper()
	var p struct{ Seq int64 }
	e.MustDo(tb, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?limit=1", token, nil, &p)
	return p.Seq
}

// feedRecording is a streaming event feed (MustFollow) as read so far.
type feedRecording struct {
	e            *env
	title, token string
	next         func(time.Duration) (string, bool)
	lines        []string
}

func (e *env) recordFeed(tb testing.TB, title, token string) *feedRecording {
	tb.Helper()
	return &feedRecording{e: e, title: title, token: token, next: e.MustFollow(tb, "c1", "", token)}
}

func (r *feedRecording) name() string   { return r.title }
func (r *feedRecording) String() string { return strings.Join(r.lines, "\n") }

// catchUp reads up to the last line of the feed as a whole (?stream=false) reads.
func (r *feedRecording) catchUp(tb testing.TB) {
	tb.Helper()
	whole := r.e.Do(tb, "GET", "/api/contests/c1/event-feed?stream=false", r.token, nil)
	lines := strings.Split(strings.TrimSpace(string(whole.Body)), "\n")
	last := lines[len(lines)-1]
	for !slices.Contains(r.lines, last) {
		r.lines = append(r.lines, nextEvent(tb, r.next, 5*time.Second))
	}
}

// firstDifference returns the first line where want and got differ, each cut around where they part.
func firstDifference(want, got string) (line int, w, g string) {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			at := 0
			for at < min(len(w), len(g)) && w[at] == g[at] {
				at++
			}
			return i + 1, excerpt(w, at), excerpt(g, at)
		}
		w, g = "", ""
	}
	return 0, "", ""
}

// excerpt is s around byte at: 60 bytes before it, 100 from it.
func excerpt(s string, at int) string {
	from, to := max(0, at-60), min(len(s), at+100)
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

// A contest deleted and created again under its id answers every reader as on a server that never had the
// old one: none of the old contest's cached pages, frames, frozen verdicts or feed lines comes back.
func TestRecreatedContestLooksNew(t *testing.T) {
	t.Parallel()
	var seen [2]map[string]string
	for i, recreated := range []bool{false, true} {
		e := MustOpenWith(t, quietStreams)
		if recreated {
			e.MustContest(t)
			judge(judgement("j3", "s3", "AC", "4:11:00"), judgement("j4", "s4", "AC", "4:21:00"))(e, t)
			old := observe(t, e, nil)
			old.openStreams(t, "", "1")
			old.catchUp(t)
			old.readAll(t) // every page in the caches
			e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)
		}
		e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
		judge(submission("n1", "t3", "A", "0:20:00"), judgement("nj1", "n1", "WA", "0:21:00"),
			submission("n2", "t3", "B", "4:05:00"))(e, t)
		o := observe(t, e, nil)
		o.openStreams(t, "", "1")
		o.catchUp(t)
		o.readAll(t)
		seen[i] = o.seen()
	}
	checkAlike(t, seen[0], seen[1], "on a new server", "the contest recreated")
}

// Ids the public must not learn of (a team of a hidden group and that group, a hidden team, a banned team
// and its organization, which has no other team) answer every read as an id that never existed does, for
// the public and for a team. The ids are all as long as the unknown one: the answers' lengths compare too.
func TestHiddenIDsLookUnknown(t *testing.T) {
	t.Parallel()
	e := MustOpen(t)
	e.MustContest(t)
	e.MustHiddenTeam(t) // t9, in the hidden group g9
	for _, s := range []step{
		admin("POST", "/api/v1/contests/c1/organizations", map[string]any{"id": "o9", "name": "Hidden Org"}),
		admin("POST", "/api/v1/contests/c1/teams", map[string]any{"id": "t8", "name": "Banned", "organization_id": "o9", "group_ids": []string{"g1"}}),
		admin("POST", "/api/v1/contests/c1/teams/t8/ban", nil),
		admin("POST", "/api/v1/contests/c1/teams", map[string]any{"id": "t7", "name": "Hid", "hidden": true, "group_ids": []string{"g1"}}),
	} {
		s(e, t)
	}
	readers := []reader{{"public", ""}, {"team t1", e.MustTeamToken(t, "t1")}}
	for _, path := range []string{
		"/api/v1/contests/c1/scoreboard/teams/%s", "/api/v1/contests/c1/scoreboard/teams/%s?at=1:00:00",
		"/api/v1/contests/c1/history?teams=%s", "/api/v1/contests/c1/history?teams=t1,%s",
		"/api/v1/contests/c1/submissions?team=%s", "/api/v1/contests/c1/submissions?problem=%s",
		"/api/v1/contests/c1/scoreboard?group=%s", "/api/v1/contests/c1/scoreboard?at=4:00:00&group=%s",
		"/api/v1/contests/c1/scoreboard?view=team:%s", "/api/v1/contests/c1/scoreboard?at=4:00:00&view=team:%s",
		"/api/v1/contests/c1/scoreboard/stream?view=team:%s", "/api/v1/contests/c1/export?format=csv&view=team:%s",
		"/api/v1/contests/c1/history?view=team:%s", "/api/v1/contests/c1/final?view=team:%s",
		"/api/contests/c1/teams/%s", "/api/contests/c1/groups/%s", "/api/contests/c1/organizations/%s",
		"/api/contests/c1/scoreboard?group_id=%s",
	} {
		for _, r := range readers {
			read := func(id string) string {
				return strings.ReplaceAll(e.readRaw(t, fmt.Sprintf(path, id), r.token, false), id, "ID")
			}
			want := read("zz")
			for _, id := range []string{"t9", "g9", "t7", "t8", "o9"} {
				if got := read(id); got != want {
					t.Errorf("GET %s as %s: got\n%s\nwant as for an unknown id:\n%s", fmt.Sprintf(path, id), r.name, got, want)
				}
			}
		}
	}
}
