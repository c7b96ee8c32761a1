package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/ccs/ccstest"
	"rankd/engine"
	rankdhttp "rankd/http"
	"rankd/sqlite"
)

// feedLine is one line of an event feed, as sent and as decoded.
type feedLine struct {
	Raw   []byte
	Type  string          `json:"type"`
	ID    *string         `json:"id"`
	Data  json.RawMessage `json:"data"`
	Token string          `json:"token"`
}

// String names a line in failure messages: its token, type and id.
func (l feedLine) String() string {
	id := "null"
	if l.ID != nil {
		id = *l.ID
	}
	if string(l.Data) == "null" {
		id = "-" + id
	}
	return l.Token + ":" + l.Type + "/" + id
}

// MustFeedLines decodes an NDJSON event feed, skipping the keep-alive newlines.
func MustFeedLines(tb testing.TB, body []byte) []feedLine {
	tb.Helper()
	var out []feedLine
	for _, raw := range bytes.Split(body, []byte{'\n'}) {
		if len(raw) == 0 {
			continue
		}
		var l feedLine
		if err := json.Unmarshal(raw, &l); err != nil {
			tb.Fatalf("a feed line is not JSON: %v: %s", err, raw)
		}
		l.Raw = raw
		out = append(out, l)
	}
	return out
}

// MustFeed reads a contest's event feed with ?stream=false and the query given ("" or "&since_token=..."),
// failing unless it answers 200 with NDJSON.
func (e *env) MustFeed(tb testing.TB, cid, query, token string) []feedLine {
	tb.Helper()
	r := e.Do(tb, "GET", "/api/contests/"+cid+"/event-feed?stream=false"+query, token, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("event feed%s: got status %d, want 200: %s", query, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		tb.Errorf("event feed: got Content-Type %q, want application/x-ndjson", ct)
	}
	return MustFeedLines(tb, r.Body)
}

// MustImport reads feed lines with rankd's own importer (ccs.Reader) onto a new board.
func MustImport(tb testing.TB, lines []feedLine) *board.Board {
	tb.Helper()
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l.Raw)
		buf.WriteByte('\n')
	}
	b := board.New()
	rd := ccs.NewReader(&buf)
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return b
		}
		if err != nil {
			tb.Fatalf("importing the feed: %v", err)
		}
		if _, err := b.Apply(&ev); err != nil {
			tb.Fatalf("importing the feed, line %d: %v", rd.Line(), err)
		}
	}
}

// MustServedStandings returns the server's standings of a contest in a view, as row summaries.
func (e *env) MustServedStandings(tb testing.TB, cid string, v rankd.View) []string {
	tb.Helper()
	var rows []string
	if err := e.engine.Read(cid, func(b *board.Board, _ int64) error {
		rows = standingsRows(MustStandings(tb, b, v))
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return rows
}

// checkSameBoard fails unless the board imported from a feed shows, in each view given, what the server shows.
func (e *env) checkSameBoard(tb testing.TB, cid string, imported *board.Board, views ...rankd.View) {
	tb.Helper()
	for _, v := range views {
		got, want := standingsRows(MustStandings(tb, imported, v)), e.MustServedStandings(tb, cid, v)
		if !reflect.DeepEqual(got, want) {
			tb.Errorf("%s view: the board imported from the feed differs from the server's:\ngot  %q\nwant %q", v, got, want)
		}
	}
}

// The euc2025 feed posted through the API comes back as a 2023-06 event feed: every line valid, each the
// stored line with its token, and rankd's importer rebuilds from it the server's board, jury and public alike;
// the public feed rebuilds the public board.
func TestEventFeedRealContest(t *testing.T) {
	e := MustOpen(t)
	feed, err := os.ReadFile(ccstest.SharedPath(t, "data", "euc2025", "event-feed.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Accepted int }
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/euc2025/events?results=problems", judgeToken, string(feed), &res)

	lines := e.MustFeed(t, "euc2025", "", adminToken)
	if len(lines) != res.Accepted {
		t.Fatalf("got %d lines, want one per accepted event: %d", len(lines), res.Accepted)
	}
	v := ccstest.SchemaValidator(t, "event-feed.json")
	var written bytes.Buffer
	w := ccs.NewWriter(&written)
	for i, l := range lines {
		v.Validate(t, l.Raw) // as written: euc2025's submissions have their language_id
		if want := strconv.Itoa(i + 1); l.Token != want {
			t.Errorf("line %d: got token %q, want its log position %s", i+1, l.Token, want)
		}
		// The line is the event as the log holds it (the Writer's normal form), with its absolute times when
		// the contest's start is known, and the token added.
		ev, err := ccs.NewReader(bytes.NewReader(l.Raw)).Next()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if ev.Token != l.Token {
			t.Errorf("line %d: the Reader sees token %q, want %q", i+1, ev.Token, l.Token)
		}
		written.Reset()
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := string(l.Raw) + "\n"; got != written.String() {
			t.Errorf("line %d:\ngot  %s\nwant %s", i+1, got, written.String())
		}
	}
	e.checkSameBoard(t, "euc2025", MustImport(t, lines), rankd.JuryView, rankd.PublicView)

	public := e.MustFeed(t, "euc2025", "", "")
	validated := map[string]bool{}
	for _, l := range lines {
		validated[string(l.Raw)] = true
	}
	for _, l := range public {
		if !validated[string(l.Raw)] {
			v.Validate(t, l.Raw)
		}
	}
	e.checkSameBoard(t, "euc2025", MustImport(t, public), rankd.PublicView)
}

// The euc2025 contest as its jury saw it: the judgements of the frozen submissions (which its public feed
// sends after the thaw) come in before the thaw. The public feed then has none of them and gives the public
// board; resumed once the thaw is posted, it brings them right after the thaw's state event, in log order.
func TestEventFeedRealContestThaw(t *testing.T) {
	e := MustOpen(t)
	feed, err := os.ReadFile(ccstest.SharedPath(t, "data", "euc2025", "event-feed.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	all := bytes.SplitAfter(feed, []byte{'\n'})
	thaw := -1
	for i, l := range all {
		if bytes.Contains(l, []byte(`"type":"state"`)) && bytes.Contains(l, []byte(`"thawed"`)) {
			thaw = i
			break
		}
	}
	if thaw < 0 {
		t.Fatal("euc2025 has no thaw")
	}
	live, thawing := all[:thaw:thaw], [][]byte{all[thaw]}
	for _, l := range all[thaw+1:] {
		if bytes.HasPrefix(l, []byte(`{"type":"judgements"`)) {
			live = append(live, l)
		} else {
			thawing = append(thawing, l)
		}
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/euc2025/events?results=problems", judgeToken, string(bytes.Join(live, nil)), nil)

	jury := e.MustFeed(t, "euc2025", "", judgeToken)
	before := e.MustFeed(t, "euc2025", "", "")
	frozen := frozenJudgements(t, jury, 4*time.Hour)
	if len(frozen) == 0 {
		t.Fatal("no judgement of a frozen submission in the jury feed")
	}
	for _, l := range before {
		if l.Type == "judgements" && frozen[*l.ID] {
			t.Errorf("the public feed sends judgement %s of a frozen submission before the thaw", *l.ID)
		}
	}
	e.checkSameBoard(t, "euc2025", MustImport(t, before), rankd.PublicView)

	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/euc2025/events?results=problems", judgeToken, string(bytes.Join(thawing, nil)), nil)
	after := e.MustFeed(t, "euc2025", "&since_token="+before[len(before)-1].Token, "")
	if after[0].Type != "state" {
		t.Fatalf("the first line after the thaw is %s, want the state that thaws", after[0])
	}
	// The frozen judgements come right after the thaw's state event, in the order of the log, and the public
	// feed's tokens go on one by one.
	juryPos := map[string]int{}
	for i, l := range jury {
		if l.Type == "judgements" {
			juryPos[*l.ID] = i
		}
	}
	released, last := map[string]bool{}, -1
	for i, l := range after {
		if want := fmt.Sprintf("p%d.%d", ccs.FeedFilterVersion, len(before)+i+1); l.Token != want {
			t.Fatalf("line %d after the thaw: got token %s, want %s", i, l.Token, want)
		}
		if i == 0 || len(released) == len(frozen) {
			continue
		}
		if l.Type != "judgements" || !frozen[*l.ID] {
			t.Fatalf("after the thaw's state event and %d frozen judgements of %d: got %s", len(released), len(frozen), l)
		}
		released[*l.ID] = true
		if juryPos[*l.ID] < last {
			t.Errorf("frozen judgement %s comes out of the log's order", *l.ID)
		}
		last = juryPos[*l.ID]
	}
	if len(released) != len(frozen) {
		t.Errorf("got %d frozen judgements after the thaw, want %d", len(released), len(frozen))
	}
	whole := append(before, after...)
	e.checkSameBoard(t, "euc2025", MustImport(t, whole), rankd.PublicView, rankd.JuryView)
	if got := e.MustFeed(t, "euc2025", "", ""); !sameLines(got, whole) {
		t.Errorf("the public feed read at once differs from the one read in two parts")
	}
}

// frozenJudgements returns the ids of the judgements of a feed whose submission was made at or after the freeze.
func frozenJudgements(tb testing.TB, lines []feedLine, freeze time.Duration) map[string]bool {
	tb.Helper()
	subTime := map[string]time.Duration{}
	out := map[string]bool{}
	for _, l := range lines {
		var d struct {
			SubmissionID string `json:"submission_id"`
			ContestTime  string `json:"contest_time"`
		}
		if string(l.Data) == "null" || json.Unmarshal(l.Data, &d) != nil {
			continue
		}
		switch l.Type {
		case "submissions":
			at, err := ccs.ParseRelTime(d.ContestTime)
			if err != nil {
				tb.Fatal(err)
			}
			subTime[*l.ID] = at
		case "judgements":
			if at, ok := subTime[d.SubmissionID]; ok && at >= freeze {
				out[*l.ID] = true
			}
		}
	}
	return out
}

func sameLines(a, b []feedLine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Raw, b[i].Raw) {
			return false
		}
	}
	return true
}

// MustFrozenContest is the test contest with frozen judgements (s3 WA, s4 AC after the freeze), a hidden team
// t4 with a judged submission, and a team token of t1.
func (e *env) MustFrozenContest(tb testing.TB) (teamToken string) {
	tb.Helper()
	e.MustContest(tb)
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/teams", adminToken,
		`{"id":"t4","name":"Delta","group_ids":["g1"],"hidden":true}`, nil)
	e.MustDo(tb, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join([]string{
		`{"type":"submissions","data":{"id":"s5","team_id":"t4","problem_id":"A","contest_time":"0:10:00"}}`,
		`{"type":"judgements","data":{"id":"j5","submission_id":"s5","judgement_type_id":"AC","start_contest_time":"0:11:00"}}`,
		`{"type":"judgements","data":{"id":"j3","submission_id":"s3","judgement_type_id":"WA","start_contest_time":"4:11:00"}}`,
		`{"type":"judgements","data":{"id":"j4","submission_id":"s4","judgement_type_id":"AC","start_contest_time":"4:21:00"}}`,
	}, "\n")+"\n", nil)
	return e.MustTeamToken(tb, "t1")
}

// ids lists the "type/id" of the lines of a feed.
func ids(lines []feedLine) []string {
	var out []string
	for _, l := range lines {
		s := l.String()
		out = append(out, s[strings.IndexByte(s, ':')+1:])
	}
	return out
}

// During the freeze the public feed (anonymous, team tokens, a jury token asking for it) has no verdict of a
// frozen submission and nothing of a hidden team, and gives the public board; the jury feed has everything.
// After the thaw the public feed has the frozen judgements, after the state that thaws, in log order.
func TestEventFeedPublicDuringFreeze(t *testing.T) {
	e := MustOpen(t)
	team := e.MustFrozenContest(t)
	jury := e.MustFeed(t, "c1", "", judgeToken)
	for _, want := range []string{"teams/t4", "submissions/s5", "judgements/j5", "judgements/j3", "judgements/j4"} {
		if !strings.Contains(strings.Join(ids(jury), " "), want) {
			t.Errorf("the jury feed lacks %s: %q", want, ids(jury))
		}
	}
	tests := []struct {
		name, query, token string
	}{
		{"anonymous", "", ""},
		{"team token", "", team},
		{"admin asking for the public view", "&view=public", adminToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			public := e.MustFeed(t, "c1", tt.query, tt.token)
			for _, l := range public {
				if s := l.String(); strings.Contains(s, "t4") || strings.Contains(s, "s5") || strings.Contains(s, "j5") ||
					strings.Contains(s, "j3") || strings.Contains(s, "j4") || bytes.Contains(l.Raw, []byte(`"t4"`)) {
					t.Errorf("the public feed sends %s: %s", s, l.Raw)
				}
			}
			e.checkSameBoard(t, "c1", MustImport(t, public), rankd.PublicView)
		})
	}

	before := e.MustFeed(t, "c1", "", "")
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	after := e.MustFeed(t, "c1", "&since_token="+before[len(before)-1].Token, "")
	got := ids(after)
	want := []string{"state/null", "judgements/j3", "judgements/j4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the thaw: got %q, want %q", got, want)
	}
	for i, l := range append(before, after...) {
		// The public feed's tokens count its lines: they say nothing of the events it did not send.
		if want := fmt.Sprintf("p%d.%d", ccs.FeedFilterVersion, i+1); l.Token != want {
			t.Errorf("the public feed's line %d: got token %s, want %s", i+1, l.Token, want)
		}
	}
	e.checkSameBoard(t, "c1", MustImport(t, append(before, after...)), rankd.PublicView)
	for _, l := range e.MustFeed(t, "c1", "", "") {
		if strings.Contains(l.String(), "t4") || strings.Contains(l.String(), "s5") || strings.Contains(l.String(), "j5") {
			t.Errorf("after the thaw the public feed sends %s of the hidden team", l)
		}
	}
}

// since_token resumes exactly: from every line of the feed, what follows is the rest of the feed, for the jury
// feed (tokens: log positions) and the public one (tokens pV.N: its N-th line, as version V of the public
// feed makes them); a token the feed does not have is a 400, as is a public token of another version (its
// lines were made otherwise), saying so.
func TestEventFeedResumes(t *testing.T) {
	e := MustOpen(t)
	e.MustFrozenContest(t)
	e.SetNow(contestStart.Add(6 * time.Hour))
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/thaw", adminToken, nil, nil)
	for _, token := range []string{adminToken, ""} {
		all := e.MustFeed(t, "c1", "", token)
		for i := range all {
			rest := e.MustFeed(t, "c1", "&since_token="+all[i].Token, token)
			if !sameLines(rest, all[i+1:]) {
				t.Errorf("token %q: after %s got %q, want %q", token, all[i], ids(rest), ids(all[i+1:]))
			}
		}
		if rest := e.MustFeed(t, "c1", "&since_token=0", token); !sameLines(rest, all) {
			t.Errorf("token %q: since_token=0 got %q, want the whole feed", token, ids(rest))
		}
	}
	jury, public := e.MustFeed(t, "c1", "", adminToken), e.MustFeed(t, "c1", "", "")
	juryEnd, publicEnd := jury[len(jury)-1].Token, public[len(public)-1].Token
	for _, tt := range []struct {
		token string
		feeds []string // the tokens of the feeds that refuse it: the jury's, the public's
	}{
		{"abc", []string{adminToken, ""}}, {"-1", []string{adminToken, ""}}, {"01", []string{adminToken, ""}},
		{"1.0", []string{adminToken, ""}}, {"0.1", []string{adminToken, ""}}, {"p0", []string{adminToken, ""}},
		{"p01", []string{adminToken, ""}}, {"99999999", []string{adminToken, ""}},
		{"p2.0", []string{adminToken, ""}}, {"p2.", []string{adminToken, ""}}, {"p.1", []string{adminToken, ""}},
		{"p02.1", []string{adminToken, ""}}, {"p2.1.1", []string{adminToken, ""}},
		{juryEnd + "1", []string{adminToken}}, {"p2.1", []string{adminToken}},
		// The public feed takes no log position: it would tell the log's length, hidden events included.
		{"1", []string{""}}, {juryEnd, []string{""}}, {publicEnd + "1", []string{""}},
	} {
		bad := tt.token
		t.Run(strings.ReplaceAll(bad, ".", "_"), func(t *testing.T) {
			for _, token := range tt.feeds {
				var body struct{ Code, Message string }
				e.MustDo(t, http.StatusBadRequest, "GET", "/api/contests/c1/event-feed?stream=false&since_token="+bad, token, nil, &body)
				if body.Code != rankd.EINVALID || body.Message == "" {
					t.Errorf("since_token %q: got %+v, want code %q with a message", bad, body, rankd.EINVALID)
				}
			}
		})
	}
	// A token of an earlier rankd's public feed counts lines made otherwise: its client is told to start over
	// (it resumed at another place, and missed whole teams).
	for _, old := range []string{"p5", "p1.5", fmt.Sprintf("p%d.5", ccs.FeedFilterVersion+1)} {
		var body struct{ Code, Message string }
		e.MustDo(t, http.StatusBadRequest, "GET", "/api/contests/c1/event-feed?stream=false&since_token="+old, "", nil, &body)
		if !strings.Contains(body.Message, "another rankd version") || !strings.Contains(body.Message, "from its start") {
			t.Errorf("since_token %q: got %+v, want a message saying it is another rankd version's", old, body)
		}
	}
}

// Who may read which feed: as the other endpoints, the jury feed needs a judge or admin token.
func TestEventFeedAuth(t *testing.T) {
	e := MustOpen(t)
	team := e.MustFrozenContest(t)
	tests := []struct {
		name, path, token string
		status            int
		jury              bool
	}{
		{"anonymous", "/api/contests/c1/event-feed?stream=false", "", http.StatusOK, false},
		{"team", "/api/contests/c1/event-feed?stream=false", team, http.StatusOK, false},
		{"judge", "/api/contests/c1/event-feed?stream=false", judgeToken, http.StatusOK, true},
		{"admin", "/api/contests/c1/event-feed?stream=false", adminToken, http.StatusOK, true},
		{"admin asking for jury", "/api/contests/c1/event-feed?stream=false&view=jury", adminToken, http.StatusOK, true},
		{"anonymous asking for jury", "/api/contests/c1/event-feed?stream=false&view=jury", "", http.StatusUnauthorized, false},
		{"team asking for jury", "/api/contests/c1/event-feed?stream=false&view=jury", team, http.StatusForbidden, false},
		{"unknown token", "/api/contests/c1/event-feed?stream=false", "no-such-token-0123456789", http.StatusUnauthorized, false},
		{"unknown contest", "/api/contests/nope/event-feed?stream=false", adminToken, http.StatusNotFound, false},
		{"bad stream", "/api/contests/c1/event-feed?stream=maybe", adminToken, http.StatusBadRequest, false},
		{"bad view", "/api/contests/c1/event-feed?stream=false&view=nobody", adminToken, http.StatusBadRequest, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do(t, "GET", tt.path, tt.token, nil)
			if r.Status != tt.status {
				t.Fatalf("got status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if r.Status != http.StatusOK {
				var body struct{ Code string }
				if err := json.Unmarshal(r.Body, &body); err != nil || body.Code == "" {
					t.Errorf("got body %s, want a JSON error", r.Body)
				}
				return
			}
			hasFrozen := bytes.Contains(r.Body, []byte(`"id":"j4"`))
			if hasFrozen != tt.jury {
				t.Errorf("got a frozen judgement: %v, want %v", hasFrozen, tt.jury)
			}
		})
	}
}

// MustFollow opens a streaming event feed and returns a function that reads its next line (a keep-alive
// newline as ""), failing when none comes within the timeout; ok is false once the feed has ended.
func (e *env) MustFollow(tb testing.TB, cid, query, token string) func(timeout time.Duration) (line string, ok bool) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/contests/"+cid+"/event-feed"+query, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("event feed: got status %d, want 200", resp.StatusCode)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	tb.Cleanup(func() {
		cancel()
		resp.Body.Close()
	})
	return func(timeout time.Duration) (string, bool) {
		tb.Helper()
		select {
		case l, ok := <-lines:
			return l, ok
		case <-time.After(timeout):
			tb.Fatalf("no line of the event feed within %s", timeout)
		}
		return "", false
	}
}

// nextEvent skips keep-alive newlines.
func nextEvent(tb testing.TB, next func(time.Duration) (string, bool), timeout time.Duration) string {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		l, ok := next(time.Until(deadline))
		if !ok {
			tb.Fatal("the event feed ended")
		}
		if l != "" {
			return l
		}
	}
}

// A streaming feed sends what the log holds, then each event committed later within a second, and a newline
// when idle (the server's heartbeat: 50 ms in the tests).
func TestEventFeedStreams(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tt := range []struct{ name, token string }{{"jury", judgeToken}, {"public", ""}} {
		t.Run(tt.name, func(t *testing.T) {
			have := e.MustFeed(t, "c1", "", tt.token)
			next := e.MustFollow(t, "c1", "", tt.token)
			for _, want := range have {
				if got := nextEvent(t, next, 5*time.Second); got != string(want.Raw) {
					t.Fatalf("got %s, want %s", got, want.Raw)
				}
			}
			keepAlive := false
			for deadline := time.Now().Add(5 * time.Second); !keepAlive && time.Now().Before(deadline); {
				l, ok := next(5 * time.Second)
				keepAlive = ok && l == ""
			}
			if !keepAlive {
				t.Fatal("no keep-alive newline on an idle feed")
			}
			id := "s-" + tt.name
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/submissions", judgeToken,
				`{"id":"`+id+`","team_id":"t1","problem_id":"B","contest_time":"1:30:00"}`, nil)
			begin := time.Now()
			got := nextEvent(t, next, time.Second)
			if !strings.Contains(got, `"id":"`+id+`"`) {
				t.Errorf("got %s, want submission %s", got, id)
			}
			t.Logf("the event came %s after its commit", time.Since(begin))
			if rest := e.MustFeed(t, "c1", "&since_token="+have[len(have)-1].Token, tt.token); len(rest) != 1 || string(rest[0].Raw) != got {
				t.Errorf("the feed read again after the last token: got %q, want the streamed line %s", ids(rest), got)
			}
		})
	}
}

// MustOpenServer is MustOpen that also returns the server, for tests that stop it.
func MustOpenServer(tb testing.TB) (*env, *rankdhttp.Server) {
	tb.Helper()
	return MustOpenServerOver(tb, func(db *sqlite.DB) rankdhttp.Store { return db })
}

// MustOpenServerOver is MustOpenServer whose server reads the store through what store makes of it (the
// engine reads the store itself).
func MustOpenServerOver(tb testing.TB, store func(db *sqlite.DB) rankdhttp.Store) (*env, *rankdhttp.Server) {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	e := &env{now: contestStart.Add(4*time.Hour + 30*time.Minute)}
	auth, err := rankdhttp.NewAuth(rankdhttp.Config{}, adminToken, judgeToken, db)
	if err != nil {
		tb.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	e.engine = engine.New(db, engine.NewMetrics(reg))
	if err := e.engine.Open(ctx); err != nil {
		tb.Fatal(err)
	}
	s := rankdhttp.NewServer(e.engine, store(db), auth, reg, reg)
	s.Now = func() time.Time { return e.now }
	s.Heartbeat = time.Hour // no keep-alive gets in the way
	ts := httptest.NewServer(s)
	e.URL = ts.URL
	tb.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		if err := s.Shutdown(ctx); err != nil {
			tb.Error(err)
		}
		if err := e.engine.Close(ctx); err != nil {
			tb.Error(err)
		}
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return e, s
}

// damagedLog is a store whose log cannot be read from position from on, as a damaged segment is not.
type damagedLog struct {
	*sqlite.DB
	from atomic.Int64
}

var errDamaged = errors.New("damaged log segment")

func (d *damagedLog) Replay(ctx context.Context, cid string, after int64, fn func(*rankd.LogEntry) error) error {
	return d.DB.Replay(ctx, cid, after, func(le *rankd.LogEntry) error {
		if le.Pos >= d.from.Load() {
			return errDamaged
		}
		return fn(le)
	})
}

// A log that cannot be read (a damaged segment behind the checkpoint the board was restored from) makes the
// feed fail where its client sees it: a 503 before the answer began, a broken connection after. The feed
// answered 200 with nothing, or ended cleanly where the damage began: a complete, wrong feed to the client.
func TestEventFeedOfADamagedLog(t *testing.T) {
	for _, tt := range []struct{ name, token string }{{"jury", judgeToken}, {"public", ""}} {
		t.Run(tt.name, func(t *testing.T) {
			var log *damagedLog
			e, _ := MustOpenServerOver(t, func(db *sqlite.DB) rankdhttp.Store {
				log = &damagedLog{DB: db}
				log.from.Store(1)
				return log
			})
			e.MustContest(t)
			var body struct{ Code, Message string }
			e.MustDo(t, http.StatusServiceUnavailable, "GET", "/api/contests/c1/event-feed?stream=false", tt.token, nil, &body)
			if !strings.Contains(body.Message, "cannot be read") {
				t.Errorf("a feed whose log cannot be read: got %+v, want a message saying so", body)
			}

			log.from.Store(math.MaxInt64)
			log.from.Store(int64(len(e.MustFeed(t, "c1", "", judgeToken)) + 1)) // the jury's feed has a line per entry
			// Read as it came, gzip-compressed: the gzip body must not end cleanly either.
			resp := e.rawGet(t, "/api/contests/c1/event-feed", tt.token, true)
			defer resp.Body.Close()
			type result struct {
				body []byte
				err  error
			}
			read := make(chan result, 1)
			go func() {
				body, err := io.ReadAll(resp.Body)
				read <- result{body, err}
			}()
			e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/judgements", judgeToken,
				`{"id":"j9","submission_id":"s1","judgement_type_id":"WA","start_contest_time":"1:00:00"}`, nil)
			select {
			case r := <-read:
				if r.err == nil {
					t.Error("a streaming feed whose log stops being readable: it ended cleanly, want a broken connection")
				}
				zr, err := gzip.NewReader(bytes.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadAll(zr); err == nil {
					t.Error("a streaming feed whose log stops being readable: its gzip body ended cleanly, want it cut")
				}
			case <-time.After(10 * time.Second):
				t.Error("a streaming feed whose log stops being readable: it goes on")
			}
		})
	}
}

// A streaming feed ends when the server shuts down.
func TestEventFeedEndsAtShutdown(t *testing.T) {
	e, s := MustOpenServer(t)
	e.MustContest(t)
	next := e.MustFollow(t, "c1", "", adminToken)
	nextEvent(t, next, 5*time.Second)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := next(5 * time.Second); !ok {
			return
		}
	}
}
