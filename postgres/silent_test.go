package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"rankd"
	"rankd/postgres"
	"rankd/postgres/pgtest"
)

// Bounds of the tests of a database that does not answer: what they open gives up after bound, and its Close
// waits closeWait at each step. A call returning within slack past them is taken as bounded.
const (
	bound     = 500 * time.Millisecond
	closeWait = 300 * time.Millisecond
	slack     = 2 * time.Second
)

// password is the password in the URLs of these tests: no error may repeat it.
const password = "s3cret-pw"

// MustSilentServer listens on loopback as a PostgreSQL server that accepts connections and then never answers,
// after writing first (nil: nothing at all), and returns a URL of it. The connections are closed when the
// test ends.
func MustSilentServer(tb testing.TB, first []byte) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				if first != nil {
					var buf [1024]byte
					if _, err := c.Read(buf[:]); err != nil { // the startup message
						return
					}
					if _, err := c.Write(first); err != nil {
						return
					}
				}
				_, _ = io.Copy(io.Discard, c) // read whatever comes, answer nothing
			})
		}
	})
	tb.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "postgres://rankd:" + password + "@" + ln.Addr().String() + "/rankd?sslmode=disable"
}

// authenticationOK is the server's first message once it accepted a client without a password.
var authenticationOK = []byte{'R', 0, 0, 0, 8, 0, 0, 0, 0}

// checkNoAnswer checks that err, what a call gave after took, is the EUNAVAILABLE of a database that did not
// answer in time, bounded by within, and that it does not repeat the URL's password.
func checkNoAnswer(t *testing.T, err error, took, within time.Duration) {
	t.Helper()
	if code := rankd.ErrorCode(err); code != rankd.EUNAVAILABLE {
		t.Fatalf("got %v (code %q), want %s", err, code, rankd.EUNAVAILABLE)
	}
	if took > within+slack {
		t.Errorf("took %s, want at most %s", took, within+slack)
	}
	if msg := rankd.ErrorMessage(err); msg != "the database is unavailable" {
		t.Errorf("message: got %q, want %q", msg, "the database is unavailable")
	}
	if strings.Contains(err.Error(), password) {
		t.Errorf("error %q repeats the password", err)
	}
}

// A database that accepts connections and does not answer (a server stopped by kill -STOP, a network that drops
// packets) fails Open in a bounded time with EUNAVAILABLE, rather than holding a server's start for ever; an
// interrupt still ends it at once, as an interrupt.
func TestOpenSilentServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first []byte
	}{
		{"never answers", nil},
		{"answers the first bytes, then never", authenticationOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := MustSilentServer(t, tc.first)
			begin := time.Now()
			db, err := postgres.OpenWithin(context.Background(), u, bound, closeWait)
			if err == nil {
				_ = db.Close()
				t.Fatal("Open of a server that never answers succeeded")
			}
			checkNoAnswer(t, err, time.Since(begin), bound)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want it to wrap context.DeadlineExceeded", err)
			}
			if got := err.Error(); !strings.Contains(got, "no answer within "+bound.String()) {
				t.Errorf("got %q, want it to say there was no answer within %s", got, bound)
			}
		})
		t.Run(tc.name+", interrupted", func(t *testing.T) {
			u := MustSilentServer(t, tc.first)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			begin := time.Now()
			_, err := postgres.OpenWithin(ctx, u, time.Minute, closeWait)
			if took := time.Since(begin); took > slack {
				t.Errorf("interrupted Open took %s, want at most %s", took, slack)
			}
			if !errors.Is(err, context.Canceled) || rankd.ErrorCode(err) == rankd.EUNAVAILABLE {
				t.Errorf("got %v, want context.Canceled, not %s", err, rankd.EUNAVAILABLE)
			}
		})
	}
}

// Each new connection is bounded by ConnectTimeout (the pool's own default is 2 minutes), unless the URL sets
// connect_timeout.
func TestConnectTimeout(t *testing.T) {
	u := pgtest.MustSchema(t)
	if got := MustOpen(t, u).Pool().Config().ConnConfig.ConnectTimeout; got != postgres.ConnectTimeout {
		t.Errorf("connect timeout: got %s, want %s", got, postgres.ConnectTimeout)
	}
	if got := MustOpen(t, u+"&connect_timeout=3").Pool().Config().ConnConfig.ConnectTimeout; got != 3*time.Second {
		t.Errorf("connect timeout with connect_timeout=3: got %s, want 3s", got)
	}
}

// A database that answers the connection, then not the migration (waiting for a lock another session holds, as
// behind another server's migration that never ends) fails Open in a bounded time too; once the lock is free,
// Open succeeds.
func TestOpenMigrationWithoutAnswer(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	raw := MustRaw(t, u)
	const migrationLock = 0x72616e6b // package postgres' key
	if _, err := raw.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	db, err := postgres.OpenWithin(ctx, u, bound, closeWait)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open succeeded while another session held the migration's lock")
	}
	checkNoAnswer(t, err, time.Since(begin), bound)
	if _, err := raw.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		t.Fatal(err)
	}
	db, err = postgres.OpenWithin(ctx, u, 10*time.Second, closeWait)
	if err != nil {
		t.Fatalf("Open once the lock is free: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// A database that goes silent (kill -STOP) after Open: taking the exclusive lock as a server starts fails in a
// bounded time, and so does Close at shutdown, even with a call still waiting under a context without deadline;
// Close then says so. Once the database answers again, that call ends and its connection is closed.
func TestSilentAfterOpen(t *testing.T) {
	u := pgtest.MustSchema(t)
	ctx := context.Background()
	p := pgtest.MustProxy(t, u)

	t.Run("HoldExclusive", func(t *testing.T) {
		db, err := postgres.OpenWithin(ctx, p.URL, bound, closeWait)
		if err != nil {
			t.Fatal(err)
		}
		p.Freeze()
		defer p.Thaw()
		begin := time.Now()
		err = db.HoldExclusive(ctx)
		checkNoAnswer(t, err, time.Since(begin), bound)
		begin = time.Now()
		_ = db.Close() // nothing in use: HoldExclusive gave up its connection
		if took := time.Since(begin); took > 2*closeWait+slack {
			t.Errorf("Close took %s, want at most %s", took, 2*closeWait+slack)
		}
	})

	t.Run("Close", func(t *testing.T) {
		db, err := postgres.OpenWithin(ctx, p.URL, 10*time.Second, closeWait)
		if err != nil {
			t.Fatal(err)
		}
		// Two connections made while the database answers: one for HoldExclusive, one for the call.
		var conns []*pgxpool.Conn
		for range 2 {
			c, err := db.Pool().Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Release()
		}
		if err := db.HoldExclusive(ctx); err != nil {
			t.Fatal(err)
		}
		p.Freeze()
		defer p.Thaw()
		called := make(chan error, 1)
		go func() {
			_, err := db.Contests(context.Background()) // waits for ever on a silent database
			called <- err
		}()
		for db.Pool().Stat().AcquiredConns() < 2 {
			time.Sleep(time.Millisecond) // the call took its connection, beside the one of HoldExclusive
		}
		begin := time.Now()
		err = db.Close()
		if took := time.Since(begin); took > 2*closeWait+slack {
			t.Errorf("Close took %s, want at most %s", took, 2*closeWait+slack)
		}
		if rankd.ErrorCode(err) != rankd.EUNAVAILABLE || !strings.Contains(err.Error(), "still in use") {
			t.Errorf("Close with a call in flight: got %v, want %s saying connections are still in use", err, rankd.EUNAVAILABLE)
		}
		p.Thaw()
		select {
		case <-called:
		case <-time.After(10 * time.Second):
			t.Error("the call in flight did not end once the database answered again")
		}
	})
}
