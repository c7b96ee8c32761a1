package finalize_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"rankd"
	"rankd/engine"
	"rankd/finalize"
	"rankd/postgres"
	"rankd/postgres/pgtest"
)

// Servers started together on a new database each migrate River's tables: they take turns, and all start
// (without the lock, all but one failed on a duplicate type).
func TestServersStartingTogether(t *testing.T) {
	for round := range 3 {
		u := pgtest.MustSchema(t)
		ctx := context.Background()
		const servers = 4
		var wg sync.WaitGroup
		errs := make([]error, servers)
		for i := range servers {
			db, err := postgres.Open(ctx, u) // each server its own pool
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			e := engine.New(db, nil)
			wg.Go(func() {
				s, err := finalize.NewPostgres(ctx, db.Pool(), quick(db, e))
				if err == nil {
					err = s.Stop(ctx)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, server %d: got %v, want it started", round, i, err)
			}
		}
	}
}

// A database that stops answering as a server starts fails the start within StartTimeout, unavailable: the
// migration of the jobs' tables waited for it for ever, and the server never listened nor said why.
func TestStartSilentDatabase(t *testing.T) {
	ctx := context.Background()
	p := pgtest.MustProxy(t, pgtest.MustSchema(t))
	db, err := postgres.Open(ctx, p.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	cfg := quick(db, engine.New(db, nil))
	cfg.StartTimeout = 300 * time.Millisecond
	p.Freeze()
	defer p.Thaw()
	start := time.Now()
	s, err := finalize.NewPostgres(ctx, db.Pool(), cfg)
	if err == nil {
		_ = s.Stop(ctx)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("start against a silent database: took %v, want about 300 ms", took)
	}
	if rankd.ErrorCode(err) != rankd.EUNAVAILABLE {
		t.Errorf("start against a silent database: got %v, want unavailable", err)
	}
}
