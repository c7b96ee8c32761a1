package http_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rankd/stream"
)

// slowConn reads at most 512 bytes at a time, a millisecond apart, until its time is up: a client on a slow
// network, behind which the server's socket fills.
type slowConn struct {
	net.Conn
	until time.Time
}

func (c *slowConn) Read(p []byte) (int, error) {
	if time.Now().Before(c.until) {
		time.Sleep(time.Millisecond)
		p = p[:min(len(p), 512)]
	}
	return c.Conn.Read(p)
}

// Frames reach most connections written by the frame maker itself, and a connection that takes a frame
// only in part gets the rest from its stream's goroutine before anything else: clients that read slowly,
// compressed or not, still hold exactly the server's board, without a gap or a broken connection.
func TestStreamToSlowReaders(t *testing.T) {
	e := MustOpenWith(t, options{sendBuffer: 4096})
	lines, _ := streamContest(t, 21)
	post := func(batch []string) {
		e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken, strings.Join(batch, ""), nil)
	}
	all := make([]string, len(lines))
	for i, l := range lines {
		all[i] = string(l)
	}
	post(all[:60])
	all = all[60:]

	slowUntil := time.Now().Add(3 * time.Second)
	client := func(gzip bool) *http.Client {
		return &http.Client{Transport: &http.Transport{
			DisableCompression: !gzip,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				_ = c.(*net.TCPConn).SetReadBuffer(2048)
				return &slowConn{Conn: c, until: slowUntil}, nil
			},
		}}
	}
	url := e.URL + "/api/v1/contests/c1/scoreboard/stream?view=jury"
	followers := []*stream.Follower{{URL: url, Token: judgeToken}} // a fast one beside them
	for i := range 6 {
		followers = append(followers, &stream.Follower{URL: url, Token: judgeToken, Client: client(i%2 == 0)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for _, f := range followers {
		wg.Go(func() { _ = f.Run(ctx) })
	}
	for len(all) > 0 {
		n := min(25, len(all))
		post(all[:n])
		all = all[n:]
		time.Sleep(time.Millisecond)
	}
	seq, want := e.servedRows(t, "jury", judgeToken)
	for i, f := range followers {
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, ok := f.Board()
			if ok && b.Seq == seq {
				if got := followedRows(b); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("follower %d: the followed board differs:\ngot  %q\nwant %q", i, got, want)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("follower %d is at %d (ok %v), the server at %d", i, b.Seq, ok, seq)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if reconnects, gaps := f.Stats(); reconnects != 0 || gaps != 0 {
			t.Errorf("follower %d: got %d reconnects and %d gaps, want none", i, reconnects, gaps)
		}
	}
	sent := e.mustFramesSent(t)
	for _, how := range []string{"direct", "split", "queued"} {
		if sent[how] == 0 {
			t.Errorf("no frame went %s (%v): the test does not try that way", how, sent)
		}
	}
}

// mustFramesSent reads the server's counts of frames sent, by how.
func (e *env) mustFramesSent(tb testing.TB) map[string]float64 {
	tb.Helper()
	r := e.Do(tb, "GET", "/metrics", judgeToken, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("metrics: status %d", r.Status)
	}
	got := map[string]float64{}
	for line := range strings.Lines(string(r.Body)) {
		rest, ok := strings.CutPrefix(line, `rankd_stream_frames_sent_total{how="`)
		if !ok {
			continue
		}
		how, value, _ := strings.Cut(strings.TrimSpace(rest), `"} `)
		got[how], _ = strconv.ParseFloat(value, 64)
	}
	return got
}

// An HTTP/1.0 client's stream is not chunked: its frames go as they are, whoever writes them.
func TestStreamToHTTP10Client(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Write([]byte("GET /api/v1/contests/c1/scoreboard/stream?view=jury HTTP/1.0\r\nAuthorization: Bearer " + judgeToken + "\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) != 0 {
		t.Fatalf("got Transfer-Encoding %q for an HTTP/1.0 client, want none", resp.TransferEncoding)
	}
	readEvent := func() string {
		t.Helper()
		var ev []string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("after %q: %v", ev, err)
			}
			if line == "\n" && len(ev) > 0 {
				return strings.Join(ev, "")
			}
			if line != "\n" && !strings.HasPrefix(line, ":") { // not the heartbeats
				ev = append(ev, line)
			}
		}
	}
	for !strings.HasPrefix(readEvent(), "event: snapshot\n") {
	}
	e.MustDo(t, http.StatusOK, "POST", "/api/v1/contests/c1/events", judgeToken,
		`{"type":"judgements","data":{"id":"j10","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:21:00"}}`+"\n", nil)
	if got := readEvent(); !strings.HasPrefix(got, "event: diff\nid: ") {
		t.Errorf("after a judgement: got %q, want a diff as it is (no chunk's size before it)", got)
	}
}
