package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd/gen"
	"rankd/postgres/pgtest"
	"rankd/redis/redistest"
	"rankd/stream"
)

// balancer is a TCP load balancer in front of rankd servers: each new connection goes to the server it points
// at or, when that one refuses it (killed), to the next that takes it, as a balancer's health check would.
type balancer struct {
	URL     string
	ln      net.Listener
	targets []string // host:port
	mu      sync.Mutex
	cur     int
	conns   map[net.Conn]struct{}
}

func MustBalancer(tb testing.TB, nodes ...*rankdProc) *balancer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	b := &balancer{URL: "http://" + ln.Addr().String(), ln: ln, conns: map[net.Conn]struct{}{}}
	for _, n := range nodes {
		u, err := url.Parse(n.URL)
		if err != nil {
			tb.Fatal(err)
		}
		b.targets = append(b.targets, u.Host)
	}
	go b.serve()
	tb.Cleanup(func() { _ = ln.Close(); b.Switch(0) })
	return b
}

func (b *balancer) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		first := b.cur
		b.mu.Unlock()
		var s net.Conn
		for i := range b.targets {
			if s, err = net.Dial("tcp", b.targets[(first+i)%len(b.targets)]); err == nil {
				break
			}
		}
		if s == nil {
			_ = c.Close()
			continue
		}
		b.mu.Lock()
		b.conns[c], b.conns[s] = struct{}{}, struct{}{}
		b.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			_ = dst.Close()
			_ = src.Close()
			b.mu.Lock()
			delete(b.conns, dst)
			delete(b.conns, src)
			b.mu.Unlock()
		}
		go pipe(s, c)
		go pipe(c, s)
	}
}

// Switch points the balancer at server i and drops every connection open: their clients reconnect there.
func (b *balancer) Switch(i int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cur = i
	for c := range b.conns {
		_ = c.Close()
	}
}

// recorder follows a stream and records, for each sequence number it held, the board it held then.
type recorder struct {
	name string
	f    *stream.Follower
	mu   sync.Mutex
	at   map[uint64]string // seq → the rows
	seqs []uint64          // the sequence numbers of the frames applied, in order
	kind []string          // their events
}

// rowsOf is the rows of a board as a comparable string.
func rowsOf(rows []stream.Row) string {
	data, _ := json.Marshal(rows)
	return string(data)
}

// StartRecorder follows url (a stream's address) until the test ends.
func StartRecorder(tb testing.TB, name, url, token string) *recorder {
	tb.Helper()
	r := &recorder{name: name, at: map[uint64]string{}}
	r.f = &stream.Follower{URL: url, Token: token, OnFrame: func(event string, b *stream.Board) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.at[b.Seq] = rowsOf(b.Rows)
		r.seqs = append(r.seqs, b.Seq)
		r.kind = append(r.kind, event)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.f.Run(ctx) // ends with the test
	}()
	tb.Cleanup(func() { cancel(); <-done })
	return r
}

// frames returns the sequence numbers and events of the frames applied so far.
func (r *recorder) frames() ([]uint64, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.seqs...), append([]string(nil), r.kind...)
}

// board returns the board recorded at seq.
func (r *recorder) board(seq uint64) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.at[seq]
	return s, ok
}

// MustMatchRecorders checks that every board got held was held by one of want at the same sequence number,
// and was the same board: a client moving between servers only ever holds a board of the server it reads.
func MustMatchRecorders(tb testing.TB, got *recorder, want ...*recorder) {
	tb.Helper()
	compareRecorders(tb, got, want, true)
}

// MustAgreeRecorders checks that the followers of two servers held the same board at every sequence number
// both held: a sequence number names one board on every server. Each server cuts its own frames (a tick
// may end between two commits on one and after both on the other), so not every number is held by both;
// some must be.
func MustAgreeRecorders(tb testing.TB, a, b *recorder) {
	tb.Helper()
	if compareRecorders(tb, a, []*recorder{b}, false) == 0 {
		tb.Errorf("%s and %s: got no sequence number both held, want some", a.name, b.name)
	}
}

// compareRecorders compares the boards got held with those of want at the same numbers and returns how
// many of its numbers one of want held; with held, each must have been.
func compareRecorders(tb testing.TB, got *recorder, want []*recorder, held bool) int {
	tb.Helper()
	seqs, _ := got.frames()
	shared := 0
	for _, seq := range seqs {
		g, _ := got.board(seq)
		found := false
		for _, w := range want {
			b, ok := w.board(seq)
			if !ok {
				continue
			}
			found = true
			if b != g {
				tb.Errorf("%s at seq %d: the board differs from %s's at that seq:\ngot  %.300s\nwant %.300s", got.name, seq, w.name, g, b)
				return shared
			}
		}
		if found {
			shared++
		} else if held {
			tb.Errorf("%s: seq %d is a board no server's own follower held", got.name, seq)
			return shared
		}
	}
	return shared
}

// MustHoldPage waits until a recorder's board is the page of its view at the same sequence number.
func MustHoldPage(tb testing.TB, r *recorder, url, contestID, query, token string) {
	tb.Helper()
	eventually(tb, r.name+" holds the board", func() string {
		var page pageJSON
		MustGetJSON(tb, url+"/api/v1/contests/"+contestID+"/scoreboard?"+query, token, &page)
		return holdsPage(r.f, page)
	})
}

// MustIssueTeamToken issues a token of a team's own view.
func MustIssueTeamToken(tb testing.TB, url, contestID, teamID string) string {
	tb.Helper()
	var got struct{ Token string }
	MustPostAdmin(tb, url+"/api/v1/contests/"+contestID+"/teams/"+teamID+"/tokens", http.StatusCreated, &got)
	return got.Token
}

// failoverView is a view a test follows, with the token that may see it.
type failoverView struct {
	name, query, token string
}

// MustFailoverViews returns the views a failover test follows — the jury's, the public's, and the team's own
// view (a token issued on the server at url) — and the address of a view's stream on a server.
func MustFailoverViews(tb testing.TB, url, contestID, teamID string) ([]failoverView, func(base string, v failoverView) string) {
	tb.Helper()
	team := MustIssueTeamToken(tb, url, contestID, teamID)
	views := []failoverView{{"jury", "view=jury", testAdminToken}, {"public", "view=public", ""}, {"team", "view=team", team}}
	return views, func(base string, v failoverView) string {
		return base + "/api/v1/contests/" + contestID + "/scoreboard/stream?" + v.query
	}
}

// MustStartCluster starts n servers of the distributed mode and defines a generated contest (its first
// batch) on the first; it returns the servers, the feed's remaining batches and the path of the whole feed.
func MustStartCluster(tb testing.TB, n int, cfg gen.Config, ticks ...string) ([]*rankdProc, [][]byte, string) {
	tb.Helper()
	args := []string{"--postgres", pgtest.MustSchema(tb), "--redis", redistest.MustServer(tb), "--redis-prefix", redistest.MustPrefix(tb)}
	data, _ := genFeed(tb, cfg)
	path := filepath.Join(tb.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	var nodes []*rankdProc
	for i := range n {
		own := args
		if i < len(ticks) {
			own = append(slices.Clone(args), "--tick", ticks[i])
		}
		nodes = append(nodes, StartRankd(tb, tb.TempDir(), own...))
	}
	batches := splitLines(data, 100)
	if _, err := postFeed(nodes[0].URL, cfg.ContestID, batches[0]); err != nil {
		tb.Fatal(err)
	}
	for _, node := range nodes {
		eventually(tb, "every server knows the contest", func() string {
			if code := MustStatus(tb, node.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard/teams/1", testAdminToken); code != http.StatusOK {
				return fmt.Sprintf("status %d", code)
			}
			return ""
		})
	}
	return nodes, batches[1:], path
}

// A spectator's stream behind a balancer moves from server to server while two servers take a contest's
// events (its freeze included): each move resumes with Last-Event-ID on another server, which cuts its
// frames at other numbers (its tick is another). Every board the moving stream held is the board the
// servers' own followers held at that sequence number (and theirs agree with each other), every move resumes
// with a diff rather than a snapshot, and at the end each stream holds the served page, the public one the
// offline public board: nothing frozen came through.
func TestFailoverResumeOnAnotherServer(t *testing.T) {
	cfg := gen.Config{Seed: 11, ContestID: "fail", Teams: 40, Problems: 6, Submissions: 1200, Start: runningStart()}.WithDefaults()
	nodes, batches, path := MustStartCluster(t, 2, cfg, "30ms", "400ms")
	lb := MustBalancer(t, nodes...)
	views, at := MustFailoverViews(t, nodes[1].URL, cfg.ContestID, "1")
	type followers struct {
		own    []*recorder // one per server
		moving *recorder
	}
	var all []followers
	for _, v := range views {
		var fs followers
		for i, n := range nodes {
			fs.own = append(fs.own, StartRecorder(t, fmt.Sprintf("%s on server %d", v.name, i), at(n.URL, v), v.token))
		}
		fs.moving = StartRecorder(t, v.name+" behind the balancer", at(lb.URL, v), v.token)
		all = append(all, fs)
	}
	for i, b := range batches {
		if _, err := postFeed(nodes[i%2].URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // a frame of the first server per batch, one of the second per ten
		if i%3 == 2 {
			lb.Switch((i / 3) % 2)
		}
	}
	for vi, v := range views {
		fs := all[vi]
		for i, r := range fs.own {
			MustHoldPage(t, r, nodes[i].URL, cfg.ContestID, v.query, v.token)
		}
		MustHoldPage(t, fs.moving, nodes[0].URL, cfg.ContestID, v.query, v.token)
		MustAgreeRecorders(t, fs.own[0], fs.own[1])
		MustMatchRecorders(t, fs.moving, fs.own...)
		reconnects, gaps := fs.moving.f.Stats()
		_, kinds := fs.moving.frames()
		snapshots := summarize(kinds)["snapshot"]
		if gaps != 0 {
			t.Errorf("%s: got %d gaps, want 0", v.name, gaps)
		}
		MustSameAnswers(t, nodes, cfg.ContestID, v)
		// The first frame is a snapshot; every move resumes from a frame of the other server, with a diff.
		if reconnects == 0 || snapshots != 1 {
			t.Errorf("%s: got %d snapshots in %d reconnections, want 1 (the first): every move resumed with a diff", v.name, snapshots, reconnects)
		}
	}
	want := offlineRows(t, path, "public")
	if got := MustServedRows(t, nodes[1].URL, cfg.ContestID, "public"); got != want {
		t.Errorf("the public board differs from the offline one")
	}
}

// runningStart is the start of a generated contest (5 hours, frozen for the last hour) that is frozen now
// and ends in half an hour: neither over nor finalized while a test runs.
func runningStart() time.Time {
	return time.Now().Add(-4*time.Hour - 30*time.Minute).Truncate(time.Second)
}

// summarize counts the events of each name.
func summarize(kinds []string) map[string]int {
	m := map[string]int{}
	for _, k := range kinds {
		m[k]++
	}
	return m
}

// MustFirstFrame opens a stream resuming from seq last and returns its first frame's event and sequence
// number, if one comes within wait.
func MustFirstFrame(tb testing.TB, url, token string, last uint64, wait time.Duration) (string, uint64, bool) {
	tb.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Last-Event-ID", strconv.FormatUint(last, 10))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	var event string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ": ")
		switch field {
		case "event":
			event = value
		case "id":
			seq, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return event, seq, true
		}
	}
	if ctx.Err() == nil {
		tb.Fatalf("GET %s: the stream ended without a frame: %v", url, sc.Err())
	}
	return "", 0, false
}

// A stream that resumes on a server behind the log (it has not applied yet what another stored) with a
// sequence number that server has not reached never goes back to an older board: the server catches up
// with the log first. The behind server here hears no notices (another Redis prefix), so it follows the
// log only once a second.
func TestFailoverResumeOnServerBehind(t *testing.T) {
	pg, rd := pgtest.MustSchema(t), redistest.MustServer(t)
	ahead := StartRankd(t, t.TempDir(), "--postgres", pg, "--redis", rd, "--redis-prefix", redistest.MustPrefix(t))
	behind := StartRankd(t, t.TempDir(), "--postgres", pg, "--redis", rd, "--redis-prefix", redistest.MustPrefix(t))
	cfg := gen.Config{Seed: 12, ContestID: "behind", Teams: 20, Problems: 4, Submissions: 400, Start: runningStart()}.WithDefaults()
	data, _ := genFeed(t, cfg)
	batches := splitLines(data, 50)
	if _, err := postFeed(ahead.URL, cfg.ContestID, batches[0]); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the behind server knows the contest", func() string {
		if code := MustStatus(t, behind.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard", testAdminToken); code != http.StatusOK {
			return fmt.Sprintf("status %d", code)
		}
		return ""
	})
	tried := 0
	for _, b := range batches[1:] {
		if _, err := postFeed(ahead.URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
		last := MustPage(t, ahead.URL, cfg.ContestID, "view=jury&limit=1").Seq
		if MustPage(t, behind.URL, cfg.ContestID, "view=jury&limit=1").Seq >= last {
			continue // caught up already
		}
		tried++
		// At the client's seq, the server has nothing to send until the next change.
		event, seq, ok := MustFirstFrame(t, behind.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard/stream?view=jury", testAdminToken, last, 500*time.Millisecond)
		switch {
		case ok && seq < last:
			t.Errorf("resumed from seq %d on a server behind: got a %s at seq %d, want one at seq %d or after", last, event, seq, last)
		case !ok && MustPage(t, behind.URL, cfg.ContestID, "view=jury&limit=1").Seq < last:
			t.Errorf("resumed from seq %d on a server behind: got no frame, and the server is still behind", last)
		}
		if tried == 4 {
			break
		}
	}
	if tried == 0 {
		t.Fatal("the behind server was never behind")
	}
}

// MustSameAnswers checks that the servers answer each page of a view with one ETag and one body, and that
// each takes the others' ETag for a 304: an ETag names one answer on every server.
func MustSameAnswers(tb testing.TB, nodes []*rankdProc, contestID string, v failoverView) {
	tb.Helper()
	get := func(url, etag string) (int, string, string) {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if v.token != "" {
			req.Header.Set("Authorization", "Bearer "+v.token)
		}
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			tb.Fatal(err)
		}
		return resp.StatusCode, resp.Header.Get("ETag"), string(body)
	}
	for _, page := range []string{"scoreboard", "scoreboard?limit=10", "problems", "awards"} {
		sep := "?"
		if strings.Contains(page, "?") {
			sep = "&"
		}
		path := "/api/v1/contests/" + contestID + "/" + page + sep + v.query
		_, etag, body := get(nodes[0].URL+path, "")
		for i, n := range nodes[1:] {
			if code, _, _ := get(n.URL+path, etag); code != http.StatusNotModified {
				tb.Errorf("%s on server %d with server 0's ETag %s: got status %d, want 304", path, i+1, etag, code)
			}
			if _, got, b := get(n.URL+path, ""); got != etag || b != body {
				tb.Errorf("%s on server %d: got ETag %s and %.200s, want %s and %.200s", path, i+1, got, b, etag, body)
			}
		}
	}
}

// A server killed (SIGKILL) while it streams: its clients, behind a balancer, get an error and resume on
// another server, each board they held being that server's at the same sequence number, without a gap.
func TestFailoverServerKilledWhileStreaming(t *testing.T) {
	cfg := gen.Config{Seed: 13, ContestID: "kill", Teams: 40, Problems: 6, Submissions: 1000, Start: runningStart()}.WithDefaults()
	nodes, batches, path := MustStartCluster(t, 3, cfg)
	lb := MustBalancer(t, nodes...)
	views, at := MustFailoverViews(t, nodes[2].URL, cfg.ContestID, "2")
	var own [][]*recorder
	var moving []*recorder
	for _, v := range views {
		var rs []*recorder
		for i, n := range nodes {
			rs = append(rs, StartRecorder(t, fmt.Sprintf("%s on server %d", v.name, i), at(n.URL, v), v.token))
		}
		own = append(own, rs)
		moving = append(moving, StartRecorder(t, v.name+" behind the balancer", at(lb.URL, v), v.token))
	}
	for i, b := range batches {
		if i == len(batches)/2 {
			nodes[0].Kill() // the balancer's server
		}
		node := nodes[1+i%2]
		if _, err := postFeed(node.URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
	}
	for vi, v := range views {
		MustHoldPage(t, moving[vi], nodes[1].URL, cfg.ContestID, v.query, v.token)
		MustMatchRecorders(t, moving[vi], own[vi]...)
		MustAgreeRecorders(t, own[vi][1], own[vi][0])
		MustAgreeRecorders(t, own[vi][1], own[vi][2])
		if reconnects, gaps := moving[vi].f.Stats(); reconnects == 0 || gaps != 0 {
			t.Errorf("%s: got %d reconnections and %d gaps, want some and none", v.name, reconnects, gaps)
		}
		MustSameAnswers(t, nodes[1:], cfg.ContestID, v)
	}
	if got, want := MustServedRows(t, nodes[1].URL, cfg.ContestID, "public"), offlineRows(t, path, "public"); got != want {
		t.Error("the public board differs from the offline one")
	}
}

// A team's own verdict during the freeze, stored by another server while this one's database was cut
// off, reaches the team's stream on this server once it rebuilds its board from the log: the verdict moves
// the team's view alone (not the public one), and a rebuild says which rows changed only for the public
// and jury views.
func TestFailoverTeamStreamAfterRebuild(t *testing.T) {
	pg, rd, prefix := pgtest.MustSchema(t), redistest.MustServer(t), redistest.MustPrefix(t)
	proxy := pgtest.MustProxy(t, pg)
	cut := StartRankd(t, t.TempDir(), "--postgres", proxy.URL, "--redis", rd, "--redis-prefix", prefix)
	other := StartRankd(t, t.TempDir(), "--postgres", pg, "--redis", rd, "--redis-prefix", prefix)
	cfg := gen.Config{Seed: 14, ContestID: "rebuild", Teams: 20, Problems: 4, Submissions: 300, Start: runningStart()}.WithDefaults()
	data, _ := genFeed(t, cfg)
	// The feed up to a submission during the freeze that solves a problem for its team, then its judgement.
	lines := strings.SplitAfter(string(data), "\n")
	type line struct {
		Type string
		Data struct {
			ID           string
			TeamID       string `json:"team_id"`
			ProblemID    string `json:"problem_id"`
			SubmissionID string `json:"submission_id"`
			Verdict      string `json:"judgement_type_id"`
			ContestTime  string `json:"contest_time"`
		}
	}
	parsed := make([]line, len(lines))
	for i, l := range lines {
		_ = json.Unmarshal([]byte(l), &parsed[i]) // the last one is empty
	}
	held, judged, teamID := -1, -1, ""
	solved := map[string]bool{}
	subs := map[string]int{}
	for i, l := range parsed {
		switch l.Type {
		case "submissions":
			subs[l.Data.ID] = i
		case "judgements":
			s := parsed[subs[l.Data.SubmissionID]].Data
			if l.Data.Verdict != "AC" || solved[s.TeamID+"/"+s.ProblemID] {
				continue
			}
			solved[s.TeamID+"/"+s.ProblemID] = true
			if s.ContestTime >= "4:10:00" && held < 0 {
				held, judged, teamID = subs[l.Data.SubmissionID], i, s.TeamID
			}
		}
	}
	if held < 0 || judged < held {
		t.Fatal("no problem solved during the freeze")
	}
	rest := []string{lines[judged]}
	lines = append(lines[:judged:judged], lines[judged+1:]...)
	for _, b := range splitLines([]byte(strings.Join(lines[:held+1], "")), 200) {
		if _, err := postFeed(other.URL, cfg.ContestID, b); err != nil {
			t.Fatal(err)
		}
	}
	mustCatchUp(t, cut, other, cfg.ContestID)
	v := failoverView{"team", "view=team", MustIssueTeamToken(t, other.URL, cfg.ContestID, teamID)}
	r := StartRecorder(t, "team "+teamID+" on the cut server", cut.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard/stream?"+v.query, v.token)
	MustHoldPage(t, r, cut.URL, cfg.ContestID, v.query, v.token)
	public := MustPage(t, other.URL, cfg.ContestID, "view=public").Seq
	before, _ := r.f.Board()

	proxy.Cut()
	if _, err := postFeed(other.URL, cfg.ContestID, []byte(strings.Join(rest, ""))); err != nil {
		t.Fatal(err)
	}
	// An event the cut server cannot store leaves its board to be rebuilt from the log.
	if _, err := postFeed(cut.URL, cfg.ContestID, []byte(lines[held])); err == nil {
		t.Fatal("the cut server stored an event without its database")
	}
	proxy.Restore()
	mustCatchUp(t, cut, other, cfg.ContestID)
	if got := MustPage(t, other.URL, cfg.ContestID, "view=public").Seq; got != public {
		t.Fatalf("the public view moved from seq %d to %d: the verdict was not hidden", public, got)
	}
	var own pageJSON
	MustGetJSON(t, other.URL+"/api/v1/contests/"+cfg.ContestID+"/scoreboard?"+v.query, v.token, &own)
	if own.Seq <= before.Seq {
		t.Fatalf("the team's view stayed at seq %d: its verdict did not move it", before.Seq)
	}
	MustHoldPage(t, r, cut.URL, cfg.ContestID, v.query, v.token)
}

// A team token revoked on one server ends the team's stream on another at its next heartbeat, and neither
// server takes the token for a stream again: a reconnection elsewhere is no way around a revocation.
func TestFailoverTeamTokenRevokedOnAnotherServer(t *testing.T) {
	cfg := gen.Config{Seed: 15, ContestID: "revoke", Teams: 10, Problems: 3, Submissions: 100, Start: runningStart()}.WithDefaults()
	nodes, _, _ := MustStartCluster(t, 2, cfg)
	token := MustIssueTeamToken(t, nodes[0].URL, cfg.ContestID, "3")
	streamPath := "/api/v1/contests/" + cfg.ContestID + "/scoreboard/stream?view=team"
	r := StartRecorder(t, "team 3 on server 0", nodes[0].URL+streamPath, token)
	MustHoldPage(t, r, nodes[0].URL, cfg.ContestID, "view=team", token)
	MustDo(t, "DELETE", nodes[1].URL+"/api/v1/contests/"+cfg.ContestID+"/teams/3/tokens", "", http.StatusOK)
	eventually(t, "the stream ends within a heartbeat (15 s)", func() string {
		if n, _ := r.f.Stats(); n == 0 {
			return "still open"
		}
		return ""
	})
	for i, n := range nodes {
		if got := MustStatus(t, n.URL+streamPath, token); got != http.StatusUnauthorized {
			t.Errorf("server %d: the revoked token's stream: got status %d, want 401", i, got)
		}
	}
}
