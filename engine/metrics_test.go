package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd/engine"
)

// A scrape does not wait for a commit the store does not answer: it reports the board as last read.
func TestMetricsWhileCommitHangs(t *testing.T) {
	ctx := context.Background()
	store := &hangingStore{DB: MustOpenStore(t, t.TempDir())}
	defer store.Close()
	reg := prometheus.NewRegistry()
	e := engine.New(store, engine.NewMetrics(reg))
	e.CommitTimeout = 4 * time.Second
	if err := e.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	entries := contestEntries(t)
	if _, err := e.Submit(ctx, "c", entries[:100]); err != nil {
		t.Fatal(err)
	}
	if got := MustGatherPos(t, reg, "c"); got != 100 {
		t.Fatalf("log position before the hang: got %v, want 100", got)
	}
	store.hang.Store(true)
	p, err := e.Enqueue(ctx, "c", entries[100:200])
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the commit takes the board's lock
	begin := time.Now()
	if got := MustGatherPos(t, reg, "c"); got != 100 {
		t.Errorf("log position while a commit hangs: got %v, want 100", got)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("a scrape while a commit hangs took %v", took)
	}
	if _, err := p.Wait(ctx); err == nil {
		t.Error("the commit the store did not answer succeeded")
	}
}

// MustGatherPos returns the rankd_board_log_position of a contest, failing tb when it is missing.
func MustGatherPos(tb testing.TB, reg *prometheus.Registry, contestID string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "rankd_board_log_position" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "contest" && l.GetValue() == contestID {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	tb.Fatalf("no rankd_board_log_position for contest %s", contestID)
	return 0
}
