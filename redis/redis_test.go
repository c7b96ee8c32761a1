package redis_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rankd"
	"rankd/redis"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, url string
		opts      []redis.Option
		code      string
	}{
		{"no url", "", nil, rankd.EINVALID},
		{"bad url", "http://example.com", nil, rankd.EINVALID},
		{"unreachable", "redis://127.0.0.1:1/0", nil, rankd.EUNAVAILABLE},
		{"bad prefix", "redis://127.0.0.1:1/0", []redis.Option{redis.WithPrefix("a{b}")}, rankd.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := redis.Open(ctx, tt.url, tt.opts...)
			MustCode(t, err, tt.code)
			if msg := rankd.ErrorMessage(err); strings.Contains(msg, "dial") || strings.Contains(msg, "connection refused") {
				t.Errorf("got message %q, want one without the driver's text", msg)
			}
		})
	}
}

// The jury view of each case is rebuilt from the first step's rows, at position 1, then updated by the
// others, at positions 2, 3, ...; want lists the page read, as "rank team".
func TestStandings(t *testing.T) {
	p, _ := MustOpen(t)
	var (
		g1, g2   = []string{"g1"}, []string{"g2"}
		alpha    = icpcRow("b", "Alpha", g1, 10, 20, -1)
		alpha2   = icpcRow("e", "Alpha", g2, 20, 10, -2) // equal to alpha, same name, id after
		zeta     = icpcRow("a", "Zeta", g1, 20, 10, -1)  // equal too
		beta     = icpcRow("d", "Beta", g2, 5, 25, -1)   // same penalty, later last minute
		mid      = icpcRow("c", "Mid", nil, -1, -1, 7)
		fts      = icpcRow("f", "First", g1, 1, -1, -1)
		board    = []rankd.ProjectedRow{zeta, mid, alpha, beta, alpha2}
		boardRow = []string{"1 b", "1 e", "1 a", "4 d", "5 c"}
		oiByTime = []rankd.ProjectedRow{
			oiRow("a", "A", 50, 30), oiRow("b", "B", 50, 20), oiRow("c", "C", 50, 20), oiRow("d", "D", 50, 10),
			oiRow("e", "E", 100.0/3, 5), oiRow("f", "F", 0, 0), oiRow("g", "G", 50, 20), oiRow("h", "H", 70, 40),
		}
		oiByTimeRows = []string{"1 h", "2 d", "3 b", "3 c", "3 g", "6 a", "7 e", "8 f"}
	)
	fts.Cells[0].FirstToSolve = true
	type step struct {
		rows    []rankd.ProjectedRow
		removed []string
	}
	tests := []struct {
		name          string
		contest       func(id string) rankd.Contest
		steps         []step
		group         string
		offset, limit int
		total         int
		want          []string
	}{
		{name: "ties by name then id", steps: []step{{rows: board}}, limit: 10, total: 5, want: boardRow},
		{name: "page inside a tie", steps: []step{{rows: board}}, offset: 1, limit: 2, total: 5, want: []string{"1 e", "1 a"}},
		{name: "page after a tie", steps: []step{{rows: board}}, offset: 3, limit: 5, total: 5, want: []string{"4 d", "5 c"}},
		{name: "no limit", steps: []step{{rows: board}}, limit: -1, total: 5, want: boardRow},
		{name: "limit 0", steps: []step{{rows: board}}, limit: 0, total: 5},
		// Past 10¹⁷, a Lua number is no longer written as an integer when passed to Redis.
		{name: "huge limit", steps: []step{{rows: board}}, limit: 1e17, total: 5, want: boardRow},
		{name: "largest limit from an offset", steps: []step{{rows: board}}, offset: 3, limit: math.MaxInt, total: 5, want: []string{"4 d", "5 c"}},
		{name: "offset past the end", steps: []step{{rows: board}}, offset: 5, limit: 10, total: 5},
		{name: "group", steps: []step{{rows: board}}, group: "g1", limit: 10, total: 2, want: []string{"1 b", "1 a"}},
		{name: "group page", steps: []step{{rows: board}}, group: "g2", offset: 1, limit: 10, total: 2, want: []string{"2 d"}},
		{name: "unknown group", steps: []step{{rows: board}}, group: "nope", limit: 10},
		{name: "first to solve", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{fts}}}, limit: 10, total: 6,
			want: []string{"1 b", "1 e", "1 a", "4 d", "5 f", "6 c"}},
		{name: "new team in its group", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{fts}}}, group: "g1", limit: 10, total: 3,
			want: []string{"1 b", "1 a", "3 f"}},
		{name: "ban", steps: []step{{rows: board}, {removed: []string{"e", "nobody"}}}, limit: 10, total: 4,
			want: []string{"1 b", "1 a", "3 d", "4 c"}},
		{name: "banned team leaves its group", steps: []step{{rows: board}, {removed: []string{"e"}}}, group: "g2", limit: 10, total: 1,
			want: []string{"1 d"}},
		{name: "rename", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{renamed(zeta, "Aardvark")}}}, limit: 10, total: 5,
			want: []string{"1 a", "1 b", "1 e", "4 d", "5 c"}},
		{name: "renamed team in its group", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{renamed(zeta, "Aardvark")}}}, group: "g1", limit: 10, total: 2,
			want: []string{"1 a", "1 b"}},
		{name: "group change leaves the old group", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{regrouped(beta, "g1", "g3")}}}, group: "g2", limit: 10, total: 1,
			want: []string{"1 e"}},
		{name: "group change joins the new groups", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{regrouped(beta, "g1", "g3")}}}, group: "g1", limit: 10, total: 3,
			want: []string{"1 b", "1 a", "3 d"}},
		{name: "rename and group change at once", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{regrouped(renamed(beta, "Aaron"), "g1")}}}, group: "g1", limit: 10, total: 3,
			want: []string{"1 b", "1 a", "3 d"}},
		{name: "moves up", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{icpcRow("c", "Mid", nil, 1, 1, 1)}}}, limit: 2, total: 5,
			want: []string{"1 c", "2 b"}},
		{name: "moves down", steps: []step{{rows: board}, {rows: []rankd.ProjectedRow{icpcRow("b", "Alpha", g1, 10, -1, -1)}}}, limit: 10, total: 5,
			want: []string{"1 e", "1 a", "3 d", "4 c", "5 b"}},
		{name: "ctf by score then time", contest: ctfContest,
			steps: []step{{rows: []rankd.ProjectedRow{
				ctfRow("x", "X", 10, 20, -1), ctfRow("y", "Y", 10, 19, -1), ctfRow("z", "Z", 19, 10, -1),
				ctfRow("w", "W", -1, -1, 1), ctfRow("v", "V", -1, -1, -1), ctfRow("u", "U", -1, -1, -1),
			}}},
			limit: 10, total: 6, want: []string{"1 y", "1 z", "3 x", "4 w", "5 u", "5 v"}},
		{name: "oi by score then time", contest: oiTimedContest, steps: []step{{rows: oiByTime}}, limit: -1, total: 8, want: oiByTimeRows},
		{name: "oi page inside a tie of score and time", contest: oiTimedContest, steps: []step{{rows: oiByTime}}, offset: 3, limit: 3, total: 8, want: oiByTimeRows[3:6]},
		{name: "oi page at a later time of a score", contest: oiTimedContest, steps: []step{{rows: oiByTime}}, offset: 5, limit: 1, total: 8, want: oiByTimeRows[5:6]},
		{name: "oi page at the end of a tie", contest: oiTimedContest, steps: []step{{rows: oiByTime}}, offset: 4, limit: 10, total: 8, want: oiByTimeRows[4:]},
		{name: "oi score reached later", contest: oiTimedContest, steps: []step{{rows: oiByTime}, {rows: []rankd.ProjectedRow{oiRow("d", "D", 50, 25)}}}, offset: 1, limit: 3, total: 8,
			want: []string{"2 b", "2 c", "2 g"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contest := icpcContest
			if tt.contest != nil {
				contest = tt.contest
			}
			c := contest(fmt.Sprintf("c%d", i))
			latest := map[string]rankd.ProjectedRow{}
			for j, s := range tt.steps {
				for _, r := range s.rows {
					latest[r.TeamID] = r
				}
				if j == 0 {
					MustRebuild(t, p, c, 1, s.rows)
					continue
				}
				MustProject(t, p, update(c, int64(j+1), s.rows, s.removed, rankd.JuryView), true)
			}
			st := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, GroupID: tt.group, Offset: tt.offset, Limit: tt.limit})
			if st.Total != tt.total || st.Seq != uint64(len(tt.steps)) || st.Offset != tt.offset || st.ContestID != c.ID || st.View != rankd.JuryView {
				t.Errorf("got total %d, seq %d, offset %d, contest %s, view %v; want %d, %d, %d, %s, jury",
					st.Total, st.Seq, st.Offset, st.ContestID, st.View, tt.total, len(tt.steps), tt.offset, c.ID)
			}
			var want []rankd.Row
			for _, w := range tt.want {
				var rank int
				var team string
				fmt.Sscan(w, &rank, &team)
				want = append(want, ranked(latest[team], rank))
			}
			MustEqualRows(t, st.Rows, want)
		})
	}
}

func renamed(r rankd.ProjectedRow, name string) rankd.ProjectedRow {
	r.Name = name
	return r
}

func regrouped(r rankd.ProjectedRow, groups ...string) rankd.ProjectedRow {
	r.Groups = groups
	return r
}

// An update of one view leaves the other as it was, seq included.
func TestViews(t *testing.T) {
	p, _ := MustOpen(t)
	c := icpcContest("views")
	a, b := icpcRow("a", "A", nil, 1, -1, -1), icpcRow("b", "B", nil, -1, -1, -1)
	MustRebuild(t, p, c, 1, []rankd.ProjectedRow{a, b})
	b2 := icpcRow("b", "B", nil, 1, 1, -1)
	MustProject(t, p, update(c, 2, []rankd.ProjectedRow{b2}, nil, rankd.JuryView), true)

	jury := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10})
	public := MustStandings(t, p, rankd.ProjectionQuery{ContestID: c.ID, View: rankd.PublicView, Limit: 10})
	if jury.Seq != 2 || public.Seq != 1 {
		t.Errorf("got seqs jury %d, public %d; want 2, 1", jury.Seq, public.Seq)
	}
	MustEqualRows(t, jury.Rows, []rankd.Row{ranked(b2, 1), ranked(a, 2)})
	MustEqualRows(t, public.Rows, []rankd.Row{ranked(a, 1), ranked(b, 2)})
}

// Updates whose position is not past the projection's change nothing: stale ones, duplicates, and those
// that arrive after a later one.
func TestStaleUpdates(t *testing.T) {
	p, _ := MustOpen(t)
	ctx := context.Background()
	c := icpcContest("stale")
	a, b := icpcRow("a", "A", nil, 1, -1, -1), icpcRow("b", "B", nil, -1, -1, -1)
	MustRebuild(t, p, c, 5, []rankd.ProjectedRow{a, b})
	q := rankd.ProjectionQuery{ContestID: c.ID, View: rankd.JuryView, Limit: 10}
	before := MustStandings(t, p, q)

	bUp := icpcRow("b", "B", nil, 1, 1, 1)
	MustProject(t, p, update(c, 5, []rankd.ProjectedRow{bUp}, nil, rankd.JuryView), false)
	MustProject(t, p, update(c, 3, []rankd.ProjectedRow{bUp}, []string{"a"}, rankd.JuryView), false)
	if st := MustStandings(t, p, q); st.Seq != before.Seq {
		t.Fatalf("got seq %d after stale updates, want %d", st.Seq, before.Seq)
	} else {
		MustEqualRows(t, st.Rows, before.Rows)
	}

	// 7 arrives, then 6 (late) and 7 again (duplicate): only 7 counts.
	aUp := icpcRow("a", "A", nil, 1, 2, -1)
	MustProject(t, p, update(c, 7, []rankd.ProjectedRow{aUp}, nil, rankd.JuryView), true)
	MustProject(t, p, update(c, 6, []rankd.ProjectedRow{bUp}, nil, rankd.JuryView), false)
	MustProject(t, p, update(c, 7, []rankd.ProjectedRow{aUp}, nil, rankd.JuryView), false)
	if pos, err := p.Position(ctx, c.ID); err != nil || pos != 7 {
		t.Fatalf("got position %d, %v; want 7", pos, err)
	}
	st := MustStandings(t, p, q)
	MustEqualRows(t, st.Rows, []rankd.Row{ranked(aUp, 1), ranked(b, 2)})

	// A rebuild from the complete board at 7 brings what the late update carried, if the board has it.
	MustRebuild(t, p, c, 7, []rankd.ProjectedRow{aUp, bUp})
	st = MustStandings(t, p, q)
	MustEqualRows(t, st.Rows, []rankd.Row{ranked(bUp, 1), ranked(aUp, 2)})

	// A rebuild behind the projection is dropped.
	MustRebuild(t, p, c, 6, []rankd.ProjectedRow{a, b})
	st = MustStandings(t, p, q)
	MustEqualRows(t, st.Rows, []rankd.Row{ranked(bUp, 1), ranked(aUp, 2)})
}

// What go-redis itself says (a pool that cannot dial) goes to the server's structured log, not to stderr
// as plain lines among its JSON records.
func TestClientLogsThroughSlog(t *testing.T) {
	var buf bytes.Buffer
	redis.LogTo(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer redis.LogTo(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	if _, err := redis.Open(context.Background(), "redis://"+addr+"/0"); err == nil {
		t.Fatal("Open of a Redis that is not there: got no error")
	}
	var rec struct{ Level, Msg, Message string }
	if err := json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &rec); err != nil {
		t.Fatalf("got log %q, want JSON records: %v", buf.String(), err)
	}
	if rec.Level != "WARN" || rec.Msg != "redis client" || !strings.Contains(rec.Message, "dial") {
		t.Errorf("got %+v, want a warning of the redis client about dialing", rec)
	}
}

// A Redis that stops answering (stopped, or cut off) costs a read the caller's deadline, not go-redis's own
// timeouts: a page read gave it 100 ms and waited 5 s, with the contest's board locked meanwhile.
func TestSilentServerHonoursDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var silent atomic.Bool
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					cmd, err := readCommand(r)
					if err != nil {
						return
					}
					switch {
					case silent.Load():
						// Read, never answered.
					case strings.EqualFold(cmd, "hello"):
						_, _ = c.Write([]byte("-ERR unknown command 'HELLO'\r\n")) // RESP2, as a Redis 5 answers
					default:
						_, _ = c.Write([]byte("+OK\r\n")) // PING, CLIENT SETINFO
					}
				}
			}()
		}
	}()
	p, err := redis.Open(context.Background(), "redis://"+ln.Addr().String()+"/0")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	silent.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Standings(ctx, rankd.ProjectionQuery{ContestID: "c", View: rankd.JuryView, Limit: 10})
	if took := time.Since(start); took > time.Second {
		t.Errorf("a read with 100 ms to go, from a silent Redis: took %v, want about 100 ms", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got error %v, want the context's deadline", err)
	}
}

// readCommand reads one RESP command (an array of bulk strings) and returns its name.
func readCommand(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil {
		return "", err
	}
	var name string
	for i := range n {
		head, err := r.ReadString('\n') // $len
		if err != nil {
			return "", err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
		if err != nil {
			return "", err
		}
		arg := make([]byte, size+2) // and its CRLF
		if _, err := io.ReadFull(r, arg); err != nil {
			return "", err
		}
		if i == 0 {
			name = string(arg[:size])
		}
	}
	return name, nil
}
