package http_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/gen"
	rankdhttp "rankd/http"
	"rankd/stream"
)

// streamContest is a generated contest with hidden teams and rejudges, as feed lines and as events.
func streamContest(tb testing.TB, seed uint64) ([][]byte, []rankd.Event) {
	tb.Helper()
	var lines [][]byte
	var evs []rankd.Event
	cfg := gen.Config{Seed: seed, ContestID: "c1", Teams: 30, Problems: 6, Submissions: 700, HiddenTeams: 2, Thaw: true}
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		line, err := ccs.AppendEvent(nil, ev)
		lines = append(lines, line)
		evs = append(evs, ev.Clone())
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return lines, evs
}

// summary is what a row shows, in one comparable line.
func rowSummary(rank int, team string, solved int, penalty int64, score float64, timeMS int64, cells []string) string {
	return fmt.Sprintf("%d %s %d %d %g %d %s", rank, team, solved, penalty, score, timeMS, strings.Join(cells, ","))
}

func followedRows(b stream.Board) []string {
	var out []string
	for _, r := range b.Rows {
		var cells []string
		for _, c := range r.Cells {
			cells = append(cells, fmt.Sprintf("%s:%v/%v/%d/%d/%d/%d/%g", c.ProblemID, c.Solved, c.FirstToSolve, c.Judged, c.Pending, c.TimeMS, c.Penalty, c.Score))
		}
		out = append(out, rowSummary(r.Rank, r.TeamID, r.Solved, r.Penalty, r.Score, r.TimeMS, cells))
	}
	return out
}

func standingsRows(st rankd.Standings) []string {
	var out []string
	for _, r := range st.Rows {
		var cells []string
		for _, c := range r.Cells {
			cells = append(cells, fmt.Sprintf("%s:%v/%v/%d/%d/%d/%d/%g", c.ProblemID, c.Solved, c.FirstToSolve, c.Judged, c.Pending, c.Time.Milliseconds(), c.Penalty, c.Score))
		}
		out = append(out, rowSummary(r.Rank, r.TeamID, r.Solved, r.Penalty, r.Score, r.Time.Milliseconds(), cells))
	}
	return out
}

// servedRows reads a whole view through the scoreboard endpoint, as the same summaries.
func (e *env) servedRows(tb testing.TB, view, token string) (uint64, []string) {
	tb.Helper()
	var sb struct {
		Seq  uint64
		Rows []stream.Row
	}
	e.MustDo(tb, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view="+view, token, nil, &sb)
	return sb.Seq, followedRows(stream.Board{Rows: sb.Rows})
}

// identities are the rows' teams as a board has them: name, organization and groups.
func identities(rows []stream.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s %q %q %q", r.TeamID, r.TeamName, r.Organization, r.GroupIDs))
	}
	return out
}

// A client that applies the stream holds exactly the server's board: checked at many moments of a whole
// contest posted in random batches, with bans and unbans, teams hidden and shown again, renamed, rejudges,
// hidden teams, the thaw and random reconnects, in the public, jury and a team view.
func TestStreamKeepsAnExactCopy(t *testing.T) {
	e := MustOpen(t)
	lines, _ := streamContest(t, 11)
	rng := rand.New(rand.NewPCG(11, 12))
	post := func(batch [][]byte) {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, string(bytes.Join(batch, nil)), nil)
	}
	post(lines[:60]) // the contest, its problems and teams
	lines = lines[60:]
	team := e.MustTeamToken(t, "3")

	views := []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}, {"team:3", team}}
	followers := make([]*stream.Follower, len(views))
	cancels := make([]context.CancelFunc, len(views))
	// A follower is run again once its last run returned: two runs at once apply two connections' frames
	// to one board (the old one's last frame after the new one's resumption: a gap).
	ran := make([]chan struct{}, len(views))
	var wg sync.WaitGroup
	start := func(i int) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		cancels[i], ran[i] = cancel, done
		wg.Go(func() { _ = followers[i].Run(ctx); close(done) })
	}
	for i, v := range views {
		followers[i] = &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream?view=" + v.view, Token: v.token}
		start(i)
	}
	defer func() {
		for _, c := range cancels {
			c()
		}
		wg.Wait()
	}()

	check := func() {
		t.Helper()
		for i, v := range views {
			seq, want := e.servedRows(t, v.view, v.token)
			deadline := time.Now().Add(5 * time.Second)
			for {
				b, ok := followers[i].Board()
				if ok && b.Seq == seq {
					if got := followedRows(b); strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("view %s at seq %d: the followed board differs:\ngot  %q\nwant %q", v.view, seq, got, want)
					}
					var sb struct{ Rows []stream.Row }
					e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard?view="+v.view, v.token, nil, &sb)
					if got, want := identities(b.Rows), identities(sb.Rows); !slices.Equal(got, want) {
						t.Fatalf("view %s at seq %d: the followed board's teams differ:\ngot  %q\nwant %q", v.view, seq, got, want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("view %s: the follower is at %d (ok %v), the server at %d", v.view, b.Seq, ok, seq)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	var barred []string // "ban/ID" or "hide/ID"
	renamed := 0
	for len(lines) > 0 {
		n := min(1+rng.IntN(40), len(lines))
		post(lines[:n])
		lines = lines[n:]
		// Teams barred for a while, then back: a row that comes back must come whole.
		id := fmt.Sprint(1 + rng.IntN(30))
		switch r := rng.IntN(20); {
		case r == 0:
			e.Do(t, "POST", "/api/v1/contests/c1/teams/"+id+"/ban", adminToken, nil)
			barred = append(barred, "ban/"+id)
		case r == 1:
			e.Do(t, "POST", "/api/v1/contests/c1/teams/"+id+"/hide", adminToken, nil)
			barred = append(barred, "hide/"+id)
		case r == 2 && len(barred) > 0:
			k := rng.IntN(len(barred))
			e.Do(t, "DELETE", "/api/v1/contests/c1/teams/"+barred[k], adminToken, nil)
			barred = slices.Delete(barred, k, k+1)
			check()
		case r == 3:
			renamed++
			e.Do(t, "POST", "/api/v1/contests/c1/teams", adminToken, fmt.Sprintf(`{"id":%q,"name":"Renamed %d"}`, id, renamed))
		case r == 4:
			i := rng.IntN(len(views))
			cancels[i]()
			<-ran[i]
			start(i)
		case r < 8:
			check()
		}
		if rng.IntN(4) == 0 {
			time.Sleep(time.Duration(rng.IntN(8)) * time.Millisecond)
		}
	}
	check()
	for i := range followers {
		if _, gaps := followers[i].Stats(); gaps != 0 {
			t.Errorf("view %s: %d gaps", views[i].view, gaps)
		}
	}
}

// The public stream carries nothing the public view does not show: after every frame, the followed
// board equals the public view the same events give offline, at that sequence number.
func TestPublicStreamShowsOnlyThePublicView(t *testing.T) {
	e := MustOpen(t)
	lines, evs := streamContest(t, 21)
	offline := board.New()
	public := map[uint64][]string{}
	apply := func(ev rankd.Event) {
		if _, err := offline.Apply(&ev); err != nil {
			t.Fatal(err)
		}
		public[offline.Seq(rankd.PublicView)] = standingsRows(MustStandings(t, offline, rankd.PublicView))
	}
	post := func(batch [][]byte) {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, string(bytes.Join(batch, nil)), nil)
	}
	for _, ev := range evs[:60] {
		apply(ev)
	}
	post(lines[:60])

	var mu sync.Mutex
	var frames []stream.Board
	f := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream", OnFrame: func(_ string, b *stream.Board) {
		mu.Lock()
		frames = append(frames, stream.Board{Seq: b.Seq, Rows: append([]stream.Row(nil), b.Rows...)})
		mu.Unlock()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = f.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	rng := rand.New(rand.NewPCG(21, 22))
	for i := 60; i < len(lines); {
		n := min(1+rng.IntN(30), len(lines)-i)
		for _, ev := range evs[i : i+n] {
			apply(ev)
		}
		post(lines[i : i+n])
		i += n
		time.Sleep(time.Duration(rng.IntN(4)) * time.Millisecond)
	}
	final := offline.Seq(rankd.PublicView)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := f.Board(); b.Seq == final {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the follower did not reach the final sequence number")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) < 20 {
		t.Fatalf("got %d frames, want the contest followed frame by frame", len(frames))
	}
	for _, fr := range frames {
		want, ok := public[fr.Seq]
		if !ok {
			t.Fatalf("a frame at public seq %d, which the public view never had", fr.Seq)
		}
		if got := followedRows(fr); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("public frame at seq %d differs from the public view:\ngot  %q\nwant %q", fr.Seq, got, want)
		}
	}
}

// MustStandings is the whole of a view of an offline board.
func MustStandings(tb testing.TB, b *board.Board, v rankd.View) rankd.Standings {
	tb.Helper()
	st, err := b.Standings(v, 0, -1)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// sseEvent is one server-sent event as read off the wire.
type sseEvent struct{ name, id, data string }

// MustStream opens a stream and returns a function that reads its next event (comments included, as
// name ":"), failing after a timeout.
func (e *env) MustStream(tb testing.TB, query string, header map[string]string) (next func() sseEvent, resp *http.Response) {
	tb.Helper()
	return e.MustStreamOf(tb, "c1", query, header)
}

// MustStreamOf is MustStream of contest cid.
func (e *env) MustStreamOf(tb testing.TB, cid, query string, header map[string]string) (next func() sseEvent, resp *http.Response) {
	tb.Helper()
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/"+cid+"/scoreboard/stream"+query, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("stream: status %d", resp.StatusCode)
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				events <- sseEvent{name: ":"}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			case strings.HasPrefix(line, "retry: "):
				ev.name = "retry"
			}
		}
	}()
	return func() sseEvent {
		tb.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				tb.Fatal("the stream ended")
			}
			return ev
		case <-time.After(5 * time.Second):
			tb.Fatal("no event within 5 s")
		}
		return sseEvent{}
	}, resp
}

// nextFrame skips comments and returns the next event; it gives up (an empty event) after 5 s.
func nextFrame(next func() sseEvent) sseEvent {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ev := next(); ev.name != ":" {
			return ev
		}
	}
	return sseEvent{}
}

func TestStreamProtocol(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	next, resp := e.MustStream(t, "", nil)
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("header %s: got %q, want %q", k, got, want)
		}
	}
	if ev := next(); ev.name != "retry" {
		t.Fatalf("first: got %+v, want the retry hint", ev)
	}
	snap := nextFrame(next)
	if snap.name != "snapshot" || snap.id == "" {
		t.Fatalf("got %+v, want a snapshot with an id", snap)
	}
	// Idle: heartbeats (the test server sends one every 50 ms).
	if ev := next(); ev.name != ":" {
		t.Errorf("idle: got %+v, want a heartbeat comment", ev)
	}
	// A public change: a diff based on the snapshot.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	diff := nextFrame(next)
	var d struct {
		Seq     uint64
		BaseSeq uint64 `json:"base_seq"`
		Rows    []stream.Row
	}
	if diff.name != "diff" || json.Unmarshal([]byte(diff.data), &d) != nil || fmt.Sprint(d.BaseSeq) != snap.id || len(d.Rows) != 1 || d.Rows[0].TeamID != "t2" {
		t.Fatalf("got %+v, want a diff from %s with t2's row", diff, snap.id)
	}

	// Reconnecting with the snapshot's id resumes with that diff, not a snapshot.
	next2, _ := e.MustStream(t, "", map[string]string{"Last-Event-ID": snap.id})
	if ev := nextFrame(next2); ev.name != "retry" {
		t.Fatalf("got %+v, want the retry hint", ev)
	}
	if ev := nextFrame(next2); ev.name != "diff" || ev.id != diff.id {
		t.Errorf("resume from %s: got %s %s, want the diff %s", snap.id, ev.name, ev.id, diff.id)
	}
	// From a number the server never had: a fresh snapshot.
	next3, _ := e.MustStream(t, "?last_event_id=999999", nil)
	nextFrame(next3)
	if ev := nextFrame(next3); ev.name != "snapshot" {
		t.Errorf("resume from an unknown number: got %s, want a snapshot", ev.name)
	}
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream?view=jury", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("jury stream without a token: got %d, want 401", r.Status)
	}
}

// A freeze the clock brings moves no sequence number: the followers of the public and team views hear of it
// in a diff that changes nothing else (its seq is its base_seq), within a second or so, and a client that
// resumes at the last number hears of it too. The jury's view hides nothing and hears nothing.
func TestStreamFrozenByTheClock(t *testing.T) {
	e := MustOpen(t)
	e.SetNow(contestStart.Add(3*time.Hour + 59*time.Minute))
	e.MustContest(t)
	team := e.MustTeamToken(t, "t1")
	type follow struct {
		query string
		next  func() sseEvent
		seq   uint64
	}
	var follows []*follow
	for _, tc := range []struct{ query, token string }{{"", ""}, {"?view=team", team}} {
		header := map[string]string{}
		if tc.token != "" {
			header["Authorization"] = "Bearer " + tc.token
		}
		next, _ := e.MustStream(t, tc.query, header)
		nextFrame(next) // retry
		var snap struct {
			Seq    uint64
			Frozen bool
		}
		if ev := nextFrame(next); ev.name != "snapshot" || json.Unmarshal([]byte(ev.data), &snap) != nil || snap.Frozen {
			t.Fatalf("%s at 3:59: got %+v, want a snapshot not frozen", tc.query, ev)
		}
		follows = append(follows, &follow{tc.query, next, snap.Seq})
	}
	e.SetNow(contestStart.Add(4*time.Hour + time.Minute))
	for _, f := range follows {
		var d struct {
			Seq     uint64
			BaseSeq uint64 `json:"base_seq"`
			Frozen  bool
			Rows    []stream.Row
		}
		ev := nextFrame(f.next)
		if ev.name != "diff" || json.Unmarshal([]byte(ev.data), &d) != nil || !d.Frozen || d.Seq != f.seq || d.BaseSeq != f.seq || len(d.Rows) != 0 {
			t.Errorf("%s after the freeze began: got %+v, want a diff at %d from %d saying frozen and nothing else", f.query, ev, f.seq, f.seq)
		}
	}
	seq := follows[0].seq
	next, _ := e.MustStream(t, "", map[string]string{"Last-Event-ID": fmt.Sprint(seq)})
	nextFrame(next) // retry
	if ev := nextFrame(next); ev.name != "diff" || !strings.Contains(ev.data, `"frozen":true`) {
		t.Errorf("resumed at %d after the freeze began: got %+v, want a diff saying frozen", seq, ev)
	}
	f := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream"}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	go f.Run(ctx)
	for ctx.Err() == nil {
		if b, ok := f.Board(); ok {
			if !b.Frozen {
				t.Errorf("the Go follower's board: got frozen false, want true")
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("the Go follower got no board in 3 s")
}

// A stream of the view of a team the contest does not have (a mistyped id, a team deleted) is refused before
// it starts, 404 as the page is: told in an event after a 200, clients asked again and again.
func TestStreamOfAnUnknownTeam(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, query := range []string{"?view=team:zzz", "?view=team:zzz&top=3&throttle=1s"} {
		r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream"+query, judgeToken, nil)
		var body struct{ Code, Message string }
		_ = json.Unmarshal(r.Body, &body)
		if r.Status != http.StatusNotFound || body.Code != "not_found" || !strings.Contains(body.Message, "zzz") {
			t.Errorf("%s: got %d %s, want 404 not_found naming the team", query, r.Status, r.Body)
		}
	}
}

func TestStreamBigScreen(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	next, _ := e.MustStream(t, "?top=2&throttle=100ms", nil)
	nextFrame(next) // retry
	var top struct {
		Seq    uint64
		Total  int
		Frozen *bool
		Rows   []stream.Row
	}
	ev := nextFrame(next)
	if ev.name != "top" || json.Unmarshal([]byte(ev.data), &top) != nil || len(top.Rows) != 2 || top.Total != 3 || top.Rows[0].TeamID != "t1" {
		t.Fatalf("got %+v, want the top 2 of 3 with t1 first", ev)
	}
	if top.Frozen == nil || !*top.Frozen {
		t.Errorf("at 4:30, frozen since 4:00: got frozen %v, want true", top.Frozen)
	}
	first := top.Seq
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	ev = nextFrame(next)
	if ev.name != "top" || json.Unmarshal([]byte(ev.data), &top) != nil || top.Seq <= first || top.Rows[1].TeamID != "t2" || top.Rows[1].Solved != 1 {
		t.Errorf("after t2's solve: got %+v, want a new top with t2 second, 1 solved", ev)
	}
	// A thaw by hand shows with the next frame, though no row changed: the screen says it is thawed.
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	top.Frozen = nil
	if ev = nextFrame(next); ev.name != "top" || json.Unmarshal([]byte(ev.data), &top) != nil || top.Frozen == nil || *top.Frozen {
		t.Errorf("after a thaw by hand: got %+v, want a top frame saying frozen false", ev)
	}
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream?top=5", "", nil); r.Status != http.StatusBadRequest {
		t.Errorf("top without throttle: got %d, want 400", r.Status)
	}
	// Both given, top 0: the answer says what is wrong with top (it said both were needed).
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream?top=0&throttle=5s", "", nil); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "top must be a number of rows") {
		t.Errorf("top=0 with a throttle: got %d %s, want 400 about top", r.Status, r.Body)
	}
	// A group is not filtered on the stream (its rows say their groups): asked for, it is refused, not ignored.
	for _, q := range []string{"?group=g1", "?group=g1&top=2&throttle=1s", "?group="} {
		if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream"+q, "", nil); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "group_ids") {
			t.Errorf("stream%s: got %d %s, want 400 saying the rows carry their groups", q, r.Status, r.Body)
		}
	}
}

// A client that subscribes between two frames, while a cell changes and then changes back, still ends with
// the cell as it is: its snapshot is taken at a frame's end, so the next frame's cells are the changes since.
func TestStreamSnapshotBetweenFrames(t *testing.T) {
	e := MustOpenWith(t, options{tick: 400 * time.Millisecond})
	e.MustContest(t)
	judge := func(id, verdict, at string) {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
			fmt.Sprintf(`{"id":%q,"submission_id":"s30","judgement_type_id":%q,"start_contest_time":%q}`, id, verdict, at), nil)
	}
	// A follower from the start, so that the channel exists and frames are made.
	first := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = first.Run(ctx) }()
	time.Sleep(50 * time.Millisecond)

	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
		`{"id":"s30","team_id":"t3","problem_id":"A","contest_time":"2:00:00"}`, nil)
	time.Sleep(450 * time.Millisecond) // a frame with s30 pending
	judge("j30", "WA", "2:01:00")      // a frame at once: A of t3 judged 1, not solved
	time.Sleep(20 * time.Millisecond)
	judge("j31", "AC", "2:02:00") // within the tick: solved
	late := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream"}
	go func() { _ = late.Run(ctx) }()
	time.Sleep(50 * time.Millisecond) // its snapshot: solved
	judge("j32", "WA", "2:03:00")     // back to judged 1, not solved, as the frame before the snapshot had it

	seq, want := e.servedRows(t, "public", "")
	deadline := time.Now().Add(5 * time.Second)
	for _, f := range []*stream.Follower{first, late} {
		for {
			b, ok := f.Board()
			if ok && b.Seq == seq {
				if got := followedRows(b); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("followed board differs:\ngot  %q\nwant %q", got, want)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the follower is at %d, the server at %d", b.Seq, seq)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// Beyond the bound on live streams a client is told to poll, and a stream that ends frees its place.
func TestStreamLimit(t *testing.T) {
	e := MustOpenWith(t, options{maxStreams: 1})
	e.MustContest(t)
	req, err := http.NewRequest("GET", e.URL+"/api/v1/contests/c1/scoreboard/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %v %v", resp, err)
	}
	if r := e.Do(t, "GET", "/api/v1/contests/c1/scoreboard/stream", "", nil); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("second stream: got %d, Retry-After %q; want 503 with a Retry-After", r.Status, r.Header.Get("Retry-After"))
	}
	// The jury's screens and tools are not shut out by anyone's streams.
	for _, path := range []string{"/api/v1/contests/c1/scoreboard/stream?view=jury", "/api/contests/c1/event-feed"} {
		jctx, jcancel := context.WithCancel(context.Background())
		jreq, err := http.NewRequestWithContext(jctx, "GET", e.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		jreq.Header.Set("Authorization", "Bearer "+adminToken)
		jresp, err := http.DefaultClient.Do(jreq)
		if err != nil || jresp.StatusCode != http.StatusOK {
			t.Errorf("%s with the admin token at the bound: got %v, %v; want 200", path, jresp, err)
		}
		jcancel()
		if err == nil {
			jresp.Body.Close()
		}
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(e.URL + "/api/v1/contests/c1/scoreboard/stream?top=1&throttle=1s")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if err == nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatal("the place of the closed stream was not freed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Clients that connect at once to a view of one version share one snapshot: a burst of connections to a big
// board rendered megabytes each, holding up every contest's frames and the commits.
func TestStreamSnapshotsShared(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	rendered := func() int { return e.MustCounter(t, "rankd_stream_snapshots_rendered_total") }
	before := rendered()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			next, _ := e.MustStream(t, "", nil)
			for _, want := range []string{"retry", "snapshot"} {
				if ev := nextFrame(next); ev.name != want {
					t.Errorf("got %+v, want %s", ev, want)
				}
			}
		})
	}
	wg.Wait()
	if got := rendered() - before; got != 1 {
		t.Errorf("20 clients of one version: got %d snapshots rendered, want 1", got)
	}
}

// unrankedRows is a board's rows without their ranks.
func unrankedRows(b stream.Board) []stream.RowData {
	out := []stream.RowData{}
	for _, r := range b.Rows {
		r.Rank = 0
		out = append(out, r.RowData)
	}
	return out
}

// followTo runs a follower of the view until it holds the page's seq; it returns the follower's board and
// stops it.
func followTo(t *testing.T, e *env, query, token string) stream.Board {
	t.Helper()
	f := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream" + query, Token: token}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var sb struct{ Seq uint64 }
		e.MustDo(t, http.StatusOK, "GET", "/api/v1/contests/c1/scoreboard"+query, token, nil, &sb)
		if b, ok := f.Board(); ok && b.Seq == sb.Seq {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower did not reach %d", sb.Seq)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A client that was not connected when its contest was deleted never hears of it; the contest is created
// again with the id and goes past the client's number within one frame. The resume from that number must
// not be a diff applied to the old board (the old board's rows the new contest did not change would stay
// on the client): one server resumes only at its frames' boundaries, so it gets a snapshot.
func TestStreamResumeAfterContestCreatedAgain(t *testing.T) {
	e := MustOpenWith(t, options{tick: 200 * time.Millisecond})
	e.MustContest(t)
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		map[string]any{"id": "t9", "name": "Old team", "group_ids": []string{"g1"}}, nil)
	old := followTo(t, e, "?view=jury", judgeToken) // then its connection drops
	e.MustDo(t, http.StatusOK, "DELETE", "/api/v1/contests/c1", adminToken, nil, nil)

	e.MustDo(t, http.StatusCreated, "POST", "/api/v1/contests", adminToken, testContest(), nil)
	live := &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream?view=jury", Token: judgeToken}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = live.Run(ctx) }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, ok := live.Board(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no snapshot")
		}
	}
	// The contest's feed sent again, in one request: one commit, one frame past the old number.
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf(`{"type":"submissions","data":{"id":"s%d","team_id":"t%d","problem_id":"A","contest_time":"1:%02d:00"}}`, i, 1+i%2, i))
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(lines, "\n")+"\n", nil)
	want := followTo(t, e, "?view=jury", judgeToken)
	if want.Seq <= old.Seq {
		t.Fatalf("the new board is at %d, not past the old one's %d", want.Seq, old.Seq)
	}

	// The old client resumes with its number, as stream.Follower and the web board do.
	next, _ := e.MustStream(t, "?view=jury", map[string]string{"Last-Event-ID": fmt.Sprint(old.Seq), "Authorization": "Bearer " + judgeToken})
	nextFrame(next)
	ev := nextFrame(next)
	got := old
	switch ev.name {
	case "snapshot":
		return // the board it gets is the new contest's
	case "diff":
		if err := got.ApplyDiff([]byte(ev.data)); err != nil {
			return // refused as a gap: the client asks again
		}
		for got.Seq < want.Seq {
			if err := got.ApplyDiff([]byte(nextFrame(next).data)); err != nil {
				return
			}
		}
	}
	if g, w := unrankedRows(got), unrankedRows(want); !reflect.DeepEqual(g, w) {
		js, _ := json.Marshal(g)
		jw, _ := json.Marshal(w)
		t.Errorf("the old contest's board at %d resumed on the new one: got %d %s\nwant %d %s\n(first event %s %s)", old.Seq, got.Seq, js, want.Seq, jw, ev.name, ev.data)
	}
}

// A team's view resumes with one diff of the rows that changed since the client's number, rendered when it
// reconnects (the channel of one team's view keeps no window of frames): applied to the client's board it
// gives the server's, through bans and the team's own verdicts. The client is the view's only one: its channel
// outlives it for a while.
func TestTeamStreamResumesWithOneDiff(t *testing.T) {
	e := MustOpenWith(t, options{tick: 20 * time.Millisecond})
	lines, _ := streamContest(t, 5)
	post := func(batch [][]byte) {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, string(bytes.Join(batch, nil)), nil)
	}
	post(lines[:300])
	token := e.MustTeamToken(t, "3")
	auth := map[string]string{"Authorization": "Bearer " + token}

	for round, batch := range [][][]byte{lines[300:420], lines[420:800], lines[800:]} {
		next, resp := e.MustStream(t, "?view=team", auth)
		nextFrame(next)
		snap := nextFrame(next)
		var held stream.Board
		if snap.name != "snapshot" || held.ApplySnapshot([]byte(snap.data)) != nil {
			t.Fatalf("round %d: got %s, want a snapshot", round, snap.name)
		}
		resp.Body.Close()
		for deadline := time.Now().Add(5 * time.Second); e.server.StreamFollowers("c1")["team:3"] != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the server still counts the client that left: %v", round, e.server.StreamFollowers("c1"))
			}
		}

		for i := 0; i < len(batch); i += 40 {
			post(batch[i:min(i+40, len(batch))])
			if i == 80 {
				e.MustDo(t, http.StatusOK, "POST", fmt.Sprintf("/api/v1/contests/c1/teams/%d/ban", 4+round), adminToken, nil, nil)
			}
			time.Sleep(30 * time.Millisecond) // a frame or more apart
		}
		want := followTo(t, e, "?view=team", token)

		next, resp = e.MustStream(t, "?view=team", map[string]string{"Authorization": "Bearer " + token, "Last-Event-ID": snap.id})
		nextFrame(next)
		ev := nextFrame(next)
		if ev.name != "diff" {
			t.Fatalf("round %d: resumed from %s with %q, want one diff", round, snap.id, ev.name)
		}
		if err := held.ApplyDiff([]byte(ev.data)); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for held.Seq < want.Seq {
			if err := held.ApplyDiff([]byte(nextFrame(next).data)); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if got, w := followedRows(held), followedRows(want); !reflect.DeepEqual(got, w) {
			t.Fatalf("round %d: resumed from %s to %d:\ngot  %q\nwant %q", round, snap.id, held.Seq, got, w)
		}
		resp.Body.Close()
	}
}

// A view's channel outlives its last client by DefaultWindow ticks, for the client to resume, and is let go
// after: a client back later gets a snapshot.
func TestStreamChannelLetGo(t *testing.T) {
	e := MustOpenWith(t, options{tick: time.Millisecond})
	e.MustContest(t)
	next, resp := e.MustStream(t, "", nil)
	nextFrame(next)
	snap := nextFrame(next)
	resp.Body.Close()
	left := time.Now()
	for deadline := left.Add(5 * time.Second); len(e.server.StreamFollowers("c1")) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the channel is kept 5 s after its client left: %v", e.server.StreamFollowers("c1"))
		}
	}
	if kept := time.Since(left); kept < rankdhttp.DefaultWindow*time.Millisecond/2 {
		t.Errorf("the channel was let go %v after its client left, want about %v", kept, rankdhttp.DefaultWindow*time.Millisecond)
	}

	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	next, _ = e.MustStream(t, "", map[string]string{"Last-Event-ID": snap.id})
	nextFrame(next)
	if ev := nextFrame(next); ev.name != "snapshot" {
		t.Errorf("back after the channel was let go: got %q, want a snapshot", ev.name)
	}
}

// A problem deleted (or another put in its place) takes its cells off every row: followers get a snapshot of
// their view, since a diff only adds or replaces cells. They kept the deleted problem's cells.
func TestStreamAfterAProblemIsDeleted(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	team := e.MustTeamToken(t, "t2")
	views := []struct{ view, token string }{{"public", ""}, {"jury", judgeToken}, {"team", team}}
	followers := make([]*stream.Follower, len(views))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i, v := range views {
		followers[i] = &stream.Follower{URL: e.URL + "/api/v1/contests/c1/scoreboard/stream?view=" + v.view, Token: v.token}
		go func() { _ = followers[i].Run(ctx) }()
	}
	follow := func(what string) {
		t.Helper()
		for i, v := range views {
			seq, want := e.servedRows(t, v.view, v.token)
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
				b, ok := followers[i].Board()
				if ok && b.Seq >= seq {
					if got := followedRows(b); !slices.Equal(got, want) {
						t.Fatalf("%s, view %s at %d:\ngot  %q\nwant %q", what, v.view, seq, got, want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s, view %s: the follower is at %d, the server at %d", what, v.view, b.Seq, seq)
				}
			}
		}
	}
	follow("before")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, `{"type":"problems","id":"B","data":null}`+"\n", nil)
	follow("problem B deleted")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"problems","id":"Z","data":{"id":"Z","label":"Z","name":"Zebras","ordinal":1}}`+"\n", nil)
	follow("problem Z added in its place")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"problems","id":"Y","data":{"id":"Y","label":"Y","name":"Yaks","ordinal":5}}`+"\n", nil)
	follow("problem Y added")
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
		`{"id":"j2b","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"1:30:00"}`, nil)
	follow("a judgement after")
}
