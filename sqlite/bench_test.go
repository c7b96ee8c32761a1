package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"rankd"
	"rankd/storetest"
)

// benchEntries returns n new entries of a contest's usual traffic, numbered from first: a submission and
// its judgement, each with a token, lines of event-feed size.
func benchEntries(first, n int) []rankd.LogEntry {
	entries := make([]rankd.LogEntry, 0, n)
	for i := first; len(entries) < n; i++ {
		id := fmt.Sprint(i / 2)
		var e rankd.LogEntry
		if i%2 == 0 {
			e = storetest.Submission(id, fmt.Sprintf("team%d", i%997), string(rune('A'+i%12)), time.Duration(i)*time.Millisecond)
		} else {
			e = storetest.Entry(rankd.EventJudgement, id, fmt.Sprintf(
				`{"type":"judgements","id":%q,"data":{"id":%q,"submission_id":%q,"judgement_type_id":"AC","start_contest_time":"1:00:00.000"}}`,
				id, id, id))
		}
		entries = append(entries, storetest.WithToken(e, fmt.Sprint("tok", i)))
	}
	return entries
}

// BenchmarkAppend measures one Append call of a batch of new entries: the batch=1 case is a commit (an
// fsync) per entry, the larger ones the group commit the engine does.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			db := MustOpen(b, b.TempDir())
			ctx := context.Background()
			accept := func(int) error { return nil }
			b.ReportAllocs()
			next := 0
			for b.Loop() {
				b.StopTimer()
				entries := benchEntries(next, size)
				next += size
				b.StartTimer()
				if _, err := db.Append(ctx, "c1", entries, accept); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(next), "ns/entry")
			b.ReportMetric(float64(next)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkReplay measures reading a contest's log back, per entry.
func BenchmarkReplay(b *testing.B) {
	const n = 100_000
	db := MustOpen(b, b.TempDir())
	for i := 0; i < n; i += 5000 {
		storetest.MustAppend(b, db, "c1", benchEntries(i, 5000)...)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		if err := db.Replay(ctx, "c1", 0, func(*rankd.LogEntry) error { count++; return nil }); err != nil {
			b.Fatal(err)
		}
		if count != n {
			b.Fatalf("replayed %d entries, want %d", count, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
}
