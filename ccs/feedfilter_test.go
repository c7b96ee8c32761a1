package ccs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/gen"
)

// oneLine hands a Reader one line at a time, so that a test parses many lines with one Reader.
type oneLine struct{ b []byte }

func (s *oneLine) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// summary names a public feed line: "type id", "-type id" for a deletion, "state thawed" for a state that
// reveals the board.
func summary(tb testing.TB, line []byte) string {
	tb.Helper()
	ev, err := ccs.NewReader(bytes.NewReader(line)).Next()
	if err != nil {
		tb.Fatalf("the filter sent a line the Reader refuses: %v: %s", err, line)
	}
	s := ev.Type.String() + " " + ev.ID
	switch {
	case ev.Delete:
		s = "-" + s
	case ev.Type == rankd.EventState && ev.State.EndOfUpdates != nil:
		s = "state end"
	case ev.Type == rankd.EventState && ev.State.Thawed != nil:
		s = "state thawed"
	case ev.Type == rankd.EventState || ev.Type == rankd.EventContest:
		s = ev.Type.String()
	}
	return s
}

// MustFilter runs a log of feed lines through a FeedFilter and returns the summaries of the lines it sent.
func MustFilter(tb testing.TB, log []string) []string {
	tb.Helper()
	f := ccs.NewFeedFilter()
	f.Fetch = func(pos int64) ([]byte, error) { return []byte(log[pos-1]), nil }
	var got []string
	for i, line := range log {
		err := f.Add(int64(i+1), []byte(line), func(l []byte) error {
			got = append(got, summary(tb, l))
			return nil
		})
		if err != nil {
			tb.Fatalf("entry %d: %v", i+1, err)
		}
	}
	return got
}

// The rules of the public feed, one by one, on small logs: what is sent, withheld, released and withdrawn,
// in which order.
func TestFeedFilterRules(t *testing.T) {
	const (
		contest    = `{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00.000Z","duration":"5:00:00.000","scoreboard_freeze_duration":"1:00:00.000","penalty_time":20}}`
		problem    = `{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"Apples","ordinal":0}}`
		groupG     = `{"type":"groups","id":"g","data":{"id":"g","name":"Universities"}}`
		groupGHid  = `{"type":"groups","id":"g","data":{"id":"g","name":"Universities","hidden":true}}`
		team1      = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha","group_ids":["g"]}}`
		team1Hid   = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha","group_ids":["g"],"hidden":true}}`
		team2Hid   = `{"type":"teams","id":"t2","data":{"id":"t2","name":"Bravo","hidden":true}}`
		sub1Early  = `{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"1:00:00.000"}}`
		jud1       = `{"type":"judgements","id":"j1","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"1:01:00.000"}}`
		sub2Frozen = `{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t1","problem_id":"A","contest_time":"4:10:00.000"}}`
		jud2Start  = `{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","start_contest_time":"4:11:00.000"}}`
		jud2       = `{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","judgement_type_id":"WA","start_contest_time":"4:11:00.000"}}`
		sub3Frozen = `{"type":"submissions","id":"s3","data":{"id":"s3","team_id":"t1","problem_id":"A","contest_time":"4:20:00.000"}}`
		jud3       = `{"type":"judgements","id":"j3","data":{"id":"j3","submission_id":"s3","judgement_type_id":"AC","start_contest_time":"4:21:00.000"}}`
		subHidden  = `{"type":"submissions","id":"s9","data":{"id":"s9","team_id":"t2","problem_id":"A","contest_time":"0:30:00.000"}}`
		judHidden  = `{"type":"judgements","id":"j9","data":{"id":"j9","submission_id":"s9","judgement_type_id":"AC","start_contest_time":"0:31:00.000"}}`
		ban1       = `{"type":"bans","id":"t1","data":{"team_id":"t1","banned":true}}`
		unban1     = `{"type":"bans","id":"t1","data":{"team_id":"t1","banned":false}}`
		ended      = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z"}}`
		thawed     = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z","thawed":"2026-03-01T16:00:00.000Z"}}`
		thawedEnd  = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","ended":"2026-03-01T15:00:00.000Z","thawed":"2026-03-01T16:00:00.000Z","finalized":"2026-03-01T16:00:00.000Z","end_of_updates":"2026-03-01T16:00:00.000Z"}}`
		unfrozen   = `{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00.000Z","duration":"5:00:00.000","penalty_time":20}}`
		award      = `{"type":"awards","id":"winner","data":{"id":"winner","citation":"Contest winner","team_ids":["t1"]}}`
		org1       = `{"type":"organizations","id":"o1","data":{"id":"o1","name":"Uni One"}}`
		org2       = `{"type":"organizations","id":"o2","data":{"id":"o2","name":"Jury Test Org"}}`
		team1Org   = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha","organization_id":"o1"}}`
		team1Org2  = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha","organization_id":"o2"}}`
		team1OrgH  = `{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha","organization_id":"o1","hidden":true}}`
		team2Org2  = `{"type":"teams","id":"t2","data":{"id":"t2","name":"Bravo","organization_id":"o2","hidden":true}}`
		finalized  = `{"type":"state","id":null,"data":{"started":"2026-03-01T10:00:00.000Z","frozen":"2026-03-01T14:00:00.000Z","ended":"2026-03-01T15:00:00.000Z","finalized":"2026-03-01T15:30:00.000Z"}}`
		oiContest  = `{"type":"contest","id":null,"data":{"id":"c","name":"C","start_time":"2026-03-01T10:00:00.000Z","duration":"5:00:00.000","scoreboard_type":"score","rankd":{"hide_until_end":true}}}`
	)
	base := []string{contest, problem, groupG, team1}
	for _, tc := range []struct {
		name string
		log  []string
		want []string
	}{
		{"a judgement before the freeze is sent", append(base[:4:4], sub1Early, jud1),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s1", "judgements j1"}},
		{"frozen judgements wait for the thaw, then follow it in log order",
			append(base[:4:4], sub2Frozen, jud2Start, sub3Frozen, jud3, jud2, ended, thawed),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s2", "submissions s3", "state",
				"state thawed", "judgements j3", "judgements j2"}},
		{"a thaw with the end of updates releases before it",
			append(base[:4:4], sub2Frozen, jud2, thawedEnd),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s2", "judgements j2", "state end"}},
		{"lifting the freeze during the contest releases",
			append(base[:4:4], sub2Frozen, jud2, unfrozen),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s2", "contest", "judgements j2"}},
		{"a freeze moved earlier withdraws what it now hides",
			append([]string{unfrozen}, problem, groupG, team1, sub2Frozen, jud2, contest),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s2", "judgements j2", "contest",
				"-judgements j2", "-submissions s2", "submissions s2"}},
		{"a hidden team never appears", append(base[:4:4], team2Hid, subHidden, judHidden, thawed),
			[]string{"contest", "problems A", "groups g", "teams t1", "state thawed"}},
		{"a team hidden later is deleted after its submissions, each after its judgements, and comes back with them",
			append(base[:4:4], sub1Early, jud1, sub2Frozen, team1Hid, team1),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s1", "judgements j1", "submissions s2",
				"-judgements j1", "-submissions s1", "-submissions s2", "-teams t1",
				"teams t1", "submissions s1", "judgements j1", "submissions s2"}},
		{"a ban is never sent; the team goes and comes back",
			append(base[:4:4], sub1Early, jud1, ban1, unban1),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s1", "judgements j1",
				"-judgements j1", "-submissions s1", "-teams t1", "teams t1", "submissions s1", "judgements j1"}},
		{"a hidden group takes its teams; shown again it brings them back",
			append(base[:4:4], sub1Early, groupGHid, groupG),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s1",
				"-submissions s1", "-teams t1", "-groups g", "groups g", "teams t1", "submissions s1"}},
		{"a team in a hidden group never appears", []string{contest, problem, groupGHid, team1, sub1Early, jud1},
			[]string{"contest", "problems A"}},
		{"a finalization before the thaw releases nothing: the thaw does", append(base[:4:4], sub2Frozen, jud2, award, finalized, thawed),
			[]string{"contest", "problems A", "groups g", "teams t1", "submissions s2", "state", "state thawed",
				"judgements j2", "awards winner"}},
		{"awards wait for the thaw", append(base[:4:4], award, thawed),
			[]string{"contest", "problems A", "groups g", "teams t1", "state thawed", "awards winner"}},
		{"an OI contest hidden until its end hides every verdict until then",
			[]string{oiContest, problem, team1, sub1Early, jud1, ended},
			[]string{"contest", "problems A", "teams t1", "submissions s1", "state", "judgements j1"}},
		{"an organization comes before its first public team; one of hidden teams only, or of none, never",
			[]string{contest, org1, org2, team2Org2, team1Org},
			[]string{"contest", "organizations o1", "teams t1"}},
		{"an organization goes after its last public team, and comes back before it",
			[]string{contest, org1, team1Org, team1OrgH, team1Org},
			[]string{"contest", "organizations o1", "teams t1", "-teams t1", "-organizations o1",
				"organizations o1", "teams t1"}},
		{"a team that moves to another organization takes it along, and the old one goes",
			[]string{contest, org1, org2, team1Org, team1Org2},
			[]string{"contest", "organizations o1", "teams t1", "organizations o2", "teams t1", "-organizations o1"}},
		{"an organization defined after its team follows it", []string{contest, team1Org, org1},
			[]string{"contest", "teams t1", "organizations o1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MustFilter(t, tc.log)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The lines the filter sends for visible objects are the log's lines, byte for byte.
func TestFeedFilterSendsTheLogsLines(t *testing.T) {
	log := []string{
		`{"type":"contest","id":null,"data":{"id":"c","name":"C","duration":"5:00:00.000","rankd":{"medals":{"gold":1}}}}`,
		`{"type":"teams","id":"t1","data":{"id":"t1","name":"Alpha"}}`,
	}
	f := ccs.NewFeedFilter()
	for i, line := range log {
		var got []string
		if err := f.Add(int64(i+1), []byte(line), func(l []byte) error { got = append(got, string(l)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != line {
			t.Errorf("entry %d: got %q, want the entry's line %q", i+1, got, line)
		}
	}
	if err := f.Add(3, []byte(`{"type":"teams","id":`), func([]byte) error { return nil }); rankd.ErrorCode(err) != rankd.EINVALID {
		t.Errorf("a damaged line: got %v, want an EINVALID error", err)
	}
}

// mustLine is an event as the log stores it.
func mustLine(tb testing.TB, ev rankd.Event) []byte {
	tb.Helper()
	b, err := ccs.AppendEvent(nil, ev)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte{'\n'})
}

// adminActions mixes into a generated contest what organisers do during one: teams hidden and shown, bans and
// unbans, a group hidden and shown, the freeze moved. It returns the events in log order.
func adminActions(tb testing.TB, cfg gen.Config, hideUntilEnd bool, seed uint64) []rankd.Event {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var evs []rankd.Event
	teams := map[string]rankd.Team{}
	var teamIDs, groupIDs []string
	groups := map[string]rankd.Group{}
	var contest rankd.Contest
	submitted := false
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		ev = ev.Clone()
		switch ev.Type {
		case rankd.EventContest:
			ev.Contest.HideUntilEnd = hideUntilEnd
			contest = *ev.Contest
		case rankd.EventTeam:
			ev.Team.GroupIDs = append([]string(nil), ev.Team.GroupIDs...)
			teams[ev.Team.ID] = *ev.Team
			teamIDs = append(teamIDs, ev.Team.ID)
		case rankd.EventGroup:
			groups[ev.Group.ID] = *ev.Group
			groupIDs = append(groupIDs, ev.Group.ID)
		case rankd.EventSubmission:
			submitted = true
		}
		evs = append(evs, ev)
		if !submitted || rng.IntN(30) != 0 {
			return nil
		}
		id := teamIDs[rng.IntN(len(teamIDs))]
		switch rng.IntN(4) {
		case 0:
			tm := teams[id]
			tm.Hidden = !tm.Hidden
			teams[id] = tm
			evs = append(evs, rankd.Event{Type: rankd.EventTeam, ID: id, Team: &tm})
		case 1:
			evs = append(evs, rankd.Event{Type: rankd.EventBan, ID: id, Ban: &rankd.Ban{TeamID: id, Banned: rng.IntN(2) == 0}})
		case 2:
			gid := groupIDs[rng.IntN(len(groupIDs))]
			g := groups[gid]
			g.Hidden = !g.Hidden
			groups[gid] = g
			evs = append(evs, rankd.Event{Type: rankd.EventGroup, ID: gid, Group: &g})
		case 3:
			c := contest
			c.FreezeDuration = time.Duration(rng.IntN(int(c.Duration/time.Minute))) * time.Minute
			contest = c
			evs = append(evs, rankd.Event{Type: rankd.EventContest, ID: c.ID, Contest: &c})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return evs
}

func rowsOf(tb testing.TB, b *board.Board, v rankd.View) []rankd.Row {
	tb.Helper()
	st, err := b.Standings(v, 0, -1)
	if err != nil {
		tb.Fatal(err)
	}
	return st.Rows
}

// A client that imports the public feed has, after every entry of the log, the public board of the log so far,
// and never a verdict the public may not see: on generated contests with organisers hiding and banning teams,
// hiding groups and moving the freeze. The output depends on the log alone.
func TestFeedFilterGivesThePublicBoard(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cfg          gen.Config
		hideUntilEnd bool
	}{
		{"icpc thawed", gen.Config{Seed: 1, Teams: 20, Problems: 5, Submissions: 300, HiddenTeams: 2, Thaw: true}, false},
		{"icpc frozen", gen.Config{Seed: 2, Teams: 20, Problems: 5, Submissions: 300, HiddenTeams: 1}, false},
		{"oi hidden until the end", gen.Config{Seed: 3, Rules: rankd.OI, Teams: 15, Problems: 4, Submissions: 200}, true},
		{"ctf", gen.Config{Seed: 4, Rules: rankd.CTF, Teams: 15, Problems: 6, Submissions: 200, HiddenTeams: 1, Thaw: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			truth, public := board.New(), board.New()
			var log [][]byte
			var out [2]bytes.Buffer
			filters := [2]*ccs.FeedFilter{ccs.NewFeedFilter(), ccs.NewFeedFilter()}
			fetches := 0
			for _, f := range filters {
				f.Fetch = func(pos int64) ([]byte, error) { fetches++; return log[pos-1], nil }
			}
			var last []byte
			var src oneLine
			rd := ccs.NewReader(&src)
			for _, ev := range adminActions(t, tc.cfg, tc.hideUntilEnd, tc.cfg.Seed) {
				if _, err := truth.Apply(&ev); err != nil {
					continue // refused: the engine would not log it
				}
				log = append(log, mustLine(t, ev))
				pos := int64(len(log))
				for i, f := range filters {
					k := 0
					err := f.Add(pos, log[pos-1], func(line []byte) error {
						fmt.Fprintf(&out[i], "%d.%d %s\n", pos, k, line)
						k++
						if i > 0 {
							return nil
						}
						last = append(last[:0], line...)
						src.b = line
						pev, err := rd.Next()
						if err != nil {
							return err
						}
						if pev.Type == rankd.EventJudgement && !pev.Delete && pev.Judgement.TypeID != "" {
							pub, _, _ := truth.Verdict(rankd.PublicView, pev.Judgement.SubmissionID)
							jury, _, _ := truth.Verdict(rankd.JuryView, pev.Judgement.SubmissionID)
							if pub != jury {
								t.Errorf("entry %d: the public feed sends judgement %s of submission %s, whose verdict the public view hides (public %q, jury %q)",
									pos, pev.Judgement.ID, pev.Judgement.SubmissionID, pub, jury)
							}
						}
						if _, err := public.Apply(&pev); err != nil {
							t.Fatalf("entry %d: the public feed's line does not apply: %v: %s", pos, err, line)
						}
						return nil
					})
					if err != nil {
						t.Fatalf("entry %d: %v", pos, err)
					}
				}
				// The public views are compared: the imported board's jury view differs from it only in what
				// the public view shows pending whatever happens (a submission after a solve, made during
				// the freeze), as a public CCS client applies the freeze too.
				if got, want := rowsOf(t, public, rankd.PublicView), rowsOf(t, truth, rankd.PublicView); !reflect.DeepEqual(got, want) {
					t.Fatalf("entry %d (%s): the public feed's board differs from the public view:\ngot  %+v\nwant %+v",
						pos, log[pos-1], got, want)
				}
			}
			if out[0].String() != out[1].String() {
				t.Errorf("two filters over the same log sent different lines")
			}
			if tc.cfg.Thaw && summary(t, last) != "state end" {
				t.Errorf("the last line sent is %s, want the state with end_of_updates", last)
			}
			t.Logf("%d log entries, %d public lines, %d fetches", len(log), strings.Count(out[0].String(), "\n"), fetches)
		})
	}
}

// The public feed's tokens count its lines, so a version of the filter must keep making the same lines of a
// log: this digest of the lines it makes of real contests, and of a generated one that hides and shows teams,
// holds it to that. When the digest changes, the filter's lines did: take the next FeedFilterVersion (tokens
// of the old lines are then refused, and their clients read the feed from its start) and record the digest.
// When only the log's lines changed (the Writer's output, the generator's contest), record the digest alone.
func TestFeedFilterVersion(t *testing.T) {
	digests := map[int]string{2: "a994e78386a30dc6ebaf4b4e53ce1b6904f37adac6691f6c4b4931b0702d87da"} // the generator's teams fail beyond their plans since 2026-12-03, not the filter
	h := sha256.New()
	filter := func(log [][]byte) {
		f := ccs.NewFeedFilter()
		f.Fetch = func(pos int64) ([]byte, error) { return log[pos-1], nil }
		for i, line := range log {
			if err := f.Add(int64(i+1), line, func(l []byte) error {
				h.Write(l)
				h.Write([]byte{'\n'})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"wf47", "euc2025"} {
		evs, _, _ := readAll(t, string(MustReadFeed(t, name)))
		var log [][]byte
		for _, ev := range evs {
			log = append(log, mustLine(t, ev))
		}
		filter(log)
	}
	truth := board.New()
	var log [][]byte
	cfg := gen.Config{Seed: 1, Teams: 20, Problems: 5, Submissions: 300, HiddenTeams: 2, Thaw: true}
	for _, ev := range adminActions(t, cfg, false, cfg.Seed) {
		if _, err := truth.Apply(&ev); err == nil {
			log = append(log, mustLine(t, ev))
		}
	}
	filter(log)
	if got, want := hex.EncodeToString(h.Sum(nil)), digests[ccs.FeedFilterVersion]; got != want {
		t.Errorf("the public feed's lines of version %d: got digest %s, want %s: see the test's comment", ccs.FeedFilterVersion, got, want)
	}
}

// BenchmarkFeedFilter measures the public feed of a real contest, which every public reader replays.
func BenchmarkFeedFilter(b *testing.B) {
	evs, errs, _ := readAll(b, string(MustReadFeed(b, "wf47")))
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	var log [][]byte
	n := 0
	for _, ev := range evs {
		line := mustLine(b, ev)
		log = append(log, line)
		n += len(line)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		f := ccs.NewFeedFilter()
		for i, line := range log {
			if err := f.Add(int64(i+1), line, func([]byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// FeedTimes gives the lines of a log (events written one by one, relative times only) as a Writer of the whole
// feed writes them, with the absolute times; from any point, when it followed the lines before without
// writing them.
func TestFeedTimesWritesWhatAWriterWrites(t *testing.T) {
	for _, feed := range feeds {
		t.Run(feed, func(t *testing.T) {
			evs, errs, _ := readAll(t, string(MustReadFeed(t, feed)))
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			var buf bytes.Buffer
			w := ccs.NewWriter(&buf)
			var log [][]byte
			for _, ev := range evs {
				ev.Token = ""
				log = append(log, mustLine(t, ev))
				if err := w.Write(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			want := bytes.SplitAfter(buf.Bytes(), []byte{'\n'})
			for _, from := range []int{0, len(log) / 3, len(log) - 1} {
				ft := ccs.NewFeedTimes()
				for i, line := range log {
					got, err := ft.Line(line, i < from)
					switch {
					case err != nil:
						t.Fatalf("line %d: %v", i+1, err)
					case i < from && got != nil:
						t.Fatalf("line %d: a skipped line gave %s", i+1, got)
					case i >= from && string(got)+"\n" != string(want[i]):
						t.Fatalf("line %d:\ngot  %s\nwant %s", i+1, got, want[i])
					}
				}
			}
		})
	}
}
