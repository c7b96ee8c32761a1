package postgres_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"rankd"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// traffic makes the entries of a contest's usual ingest traffic, as the engine hands them to the store (the
// same as package sqlite's benchmarks, so that the figures compare): CCS event-feed lines of 200 to 300
// bytes, hashed the engine's way, without tokens unless asked. Every submission is new and is followed by
// its judgement; one judgement in ten is first sent without a verdict and sent again with it later.
type traffic struct {
	next    int
	judge   bool
	resends []int
	tokens  bool
}

var verdicts = []string{"AC", "WA", "TLE", "WA", "RTE", "AC", "WA", "CE"}

func (tr *traffic) entries(n int) []rankd.LogEntry {
	entries := make([]rankd.LogEntry, 0, n)
	for len(entries) < n {
		switch {
		case tr.judge:
			s := tr.next - 1
			pending := s%10 == 3
			if pending {
				tr.resends = append(tr.resends, s)
			}
			entries = append(entries, tr.judgement(s, !pending))
			tr.judge = false
		case len(tr.resends) > 0 && tr.next-tr.resends[0] >= 10:
			entries = append(entries, tr.judgement(tr.resends[0], true))
			tr.resends = tr.resends[1:]
		default:
			entries = append(entries, tr.submission(tr.next))
			tr.next++
			tr.judge = true
		}
	}
	if tr.tokens {
		for i := range entries {
			entries[i].Token = fmt.Sprintf("cdi%d-%d", tr.next, i)
			entries[i].Event.Token = entries[i].Token
		}
	}
	return entries
}

func contestTime(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

func (tr *traffic) submission(s int) rankd.LogEntry {
	id := fmt.Sprint(1000 + s)
	team := fmt.Sprint(1 + s*7919%130)
	problem := fmt.Sprintf("%c-some-problem-name-%06d", 'A'+s%13, s%13*7717)
	t := time.Duration(s) * 397 * time.Millisecond
	data := fmt.Sprintf(`{"type":"submissions","id":%q,"data":{"id":%q,"problem_id":%q,"team_id":%q,"language_id":"cpp","contest_time":%q,"time":"2025-03-02T09:34:48.183Z"}}`,
		id, id, problem, team, contestTime(t))
	e := logEntry(rankd.EventSubmission, id, data)
	e.Event.Submission = &rankd.Submission{ID: id, TeamID: team, ProblemID: problem, Time: t}
	return e
}

func (tr *traffic) judgement(s int, verdict bool) rankd.LogEntry {
	id := fmt.Sprint(5000 + s)
	t := contestTime(time.Duration(s)*397*time.Millisecond + time.Second)
	var data string
	if verdict {
		data = fmt.Sprintf(`{"type":"judgements","id":%q,"data":{"id":%q,"submission_id":"%d","judgement_type_id":%q,"start_contest_time":%q,"start_time":"2025-03-02T09:34:49.110Z","end_contest_time":%q,"end_time":"2025-03-02T09:34:52.297Z"}}`,
			id, id, 1000+s, verdicts[s%len(verdicts)], t, t)
	} else {
		data = fmt.Sprintf(`{"type":"judgements","id":%q,"data":{"id":%q,"submission_id":"%d","start_contest_time":%q,"start_time":"2025-03-02T09:34:49.110Z"}}`,
			id, id, 1000+s, t)
	}
	return logEntry(rankd.EventJudgement, id, data)
}

func logEntry(typ rankd.EventType, id, data string) rankd.LogEntry {
	sum := sha256.Sum256([]byte(data))
	return rankd.LogEntry{Event: rankd.Event{Type: typ, ID: id}, Data: []byte(data), Hash: hex.EncodeToString(sum[:16])}
}

// BenchmarkAppend measures one Append call of a batch of the usual traffic: batch=1 is a commit per entry,
// the larger ones the group commit the engine does (from 512 entries, written with COPY). The tokens case
// gives every entry a token, as a CCS feed does.
func BenchmarkAppend(b *testing.B) {
	cases := []struct {
		size   int
		tokens bool
	}{{1, false}, {100, false}, {1000, false}, {5000, false}, {1000, true}}
	for _, c := range cases {
		name := fmt.Sprintf("batch=%d", c.size)
		if c.tokens {
			name += "/tokens"
		}
		b.Run(name, func(b *testing.B) {
			db := MustOpen(b, pgtest.MustSchema(b))
			ctx := context.Background()
			accept := func(int) error { return nil }
			tr := &traffic{tokens: c.tokens}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				entries := tr.entries(c.size)
				n += len(entries)
				b.StartTimer()
				if _, err := db.Append(ctx, "c1", entries, accept); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/entry")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkReplay measures reading a contest's log back, per entry.
func BenchmarkReplay(b *testing.B) {
	for _, c := range []struct{ n, batch int }{{100_000, 5000}, {20_000, 10}} {
		b.Run(fmt.Sprintf("batch=%d", c.batch), func(b *testing.B) {
			db := MustOpen(b, pgtest.MustSchema(b))
			tr := &traffic{}
			for i := 0; i < c.n; i += c.batch {
				storetest.MustAppend(b, db, "c1", tr.entries(c.batch)...)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				count := 0
				if err := db.Replay(ctx, "c1", 0, func(*rankd.LogEntry) error { count++; return nil }); err != nil {
					b.Fatal(err)
				}
				if count != c.n {
					b.Fatalf("replayed %d entries, want %d", count, c.n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.n), "ns/entry")
			b.ReportMetric(float64(b.N*c.n)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
