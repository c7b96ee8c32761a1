package engine_test

import (
	"context"
	"testing"

	"rankd"
	"rankd/engine"
	"rankd/gen"
)

// BenchmarkSubmit measures durable ingest without HTTP: a generated contest submitted in batches of 5000
// entries to an engine over the SQLite store (group commit, board apply, fsync).
func BenchmarkSubmit(b *testing.B) {
	var entries []rankd.LogEntry
	err := gen.Generate(gen.Config{Seed: 2, ContestID: "c", Teams: 1000, Problems: 12, Submissions: 50000}, func(ev rankd.Event) error {
		e, err := engine.Entry(ev)
		entries = append(entries, e)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		store := MustOpenStore(b, b.TempDir())
		e := MustOpenEngine(b, store)
		e.CheckpointEvery = engine.DefaultCheckpointEvery
		for i := 0; i < len(entries); i += 5000 {
			if _, err := e.Submit(ctx, "c", entries[i:min(i+5000, len(entries))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(ctx); err != nil {
			b.Fatal(err)
		}
		store.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/event")
}
