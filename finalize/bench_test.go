package finalize_test

import (
	"context"
	"testing"

	"rankd"
	"rankd/engine"
	"rankd/gen"
	"rankd/sqlite"
)

// BenchmarkFinalize measures building and storing the final standings of a contest of 1,000,000 submissions
// by 10,000 teams (the board is loaded first, not timed):
//
//	go test -run '^$' -bench Finalize -benchtime 3x ./finalize/
func BenchmarkFinalize(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e := engine.New(st, nil)
	if err := e.Open(ctx); err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	var batch []rankd.LogEntry
	err = gen.Generate(gen.Config{Seed: 1, ContestID: "c", Teams: 10000, Problems: 12, Submissions: 1000000}, func(ev rankd.Event) error {
		entry, err := engine.Entry(ev)
		if err != nil {
			return err
		}
		if batch = append(batch, entry); len(batch) == 10000 {
			_, err = e.Submit(ctx, "c", batch)
			batch = nil
		}
		return err
	})
	if err == nil {
		_, err = e.Submit(ctx, "c", batch)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		f, err := e.Final(ctx, "c")
		if err != nil {
			b.Fatal(err)
		}
		f.Pos += int64(i) // a new version each time, as after a rejudge
		if _, err := st.SaveFinal(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}
