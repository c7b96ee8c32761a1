package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"rankd"
)

// BenchmarkAppend measures, on the stores open gives (a new empty one per case), one Append call of a batch of the usual traffic: the batch=1 case is a commit
// (an fsync) per entry, the larger ones the group commit the engine does. The tokens case gives every entry
// a token, as a CCS feed does.
func BenchmarkAppend(b *testing.B, open func(b *testing.B) rankd.EventLog) {
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
			db := open(b)
			ctx := context.Background()
			accept := func(int) error { return nil }
			tr := &Traffic{Tokens: c.tokens}
			b.ReportAllocs()
			n := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				entries := tr.Entries(c.size)
				n += len(entries)
				b.StartTimer()
				t := cpuTime()
				if _, err := db.Append(ctx, "c1", entries, accept); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - t
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/entry")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/entry") // the process's CPU: the store's own, not a server's
			}
		})
	}
}

// BenchmarkReplay measures, on the stores open gives, reading a contest's log back, per entry: a log written in large batches, and
// one written in batches of ten (single events that the engine's group commit gathers a few at a time).
func BenchmarkReplay(b *testing.B, open func(b *testing.B) rankd.EventLog) {
	for _, c := range []struct{ n, batch int }{{100_000, 5000}, {20_000, 10}} {
		b.Run(fmt.Sprintf("batch=%d", c.batch), func(b *testing.B) {
			db := open(b)
			tr := &Traffic{}
			for i := 0; i < c.n; i += c.batch {
				MustAppend(b, db, "c1", tr.Entries(c.batch)...)
			}
			ctx := context.Background()
			b.ReportAllocs()
			t := cpuTime()
			for b.Loop() {
				count := 0
				if err := db.Replay(ctx, "c1", 0, func(*rankd.LogEntry) error { count++; return nil }); err != nil {
					b.Fatal(err)
				}
				if count != c.n {
					b.Fatalf("replayed %d entries, want %d", count, c.n)
				}
			}
			cpu := cpuTime() - t
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.n), "ns/entry")
			b.ReportMetric(float64(b.N*c.n)/b.Elapsed().Seconds(), "entries/s")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*c.n), "cpu-ns/entry") // the process's CPU: the store's own, not a server's
			}
		})
	}
}
