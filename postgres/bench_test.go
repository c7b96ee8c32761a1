package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"rankd"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

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
			tr := &storetest.Traffic{Tokens: c.tokens}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				entries := tr.Entries(c.size)
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
			tr := &storetest.Traffic{}
			for i := 0; i < c.n; i += c.batch {
				storetest.MustAppend(b, db, "c1", tr.Entries(c.batch)...)
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
