// Package pgtest gives tests a PostgreSQL schema of their own on the test server named by RANKD_TEST_POSTGRES
// (.ci/postgres.sh starts one): without it the tests skip, except in CI (CI=true), where they fail.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable that gives the URL of the PostgreSQL server the tests use, e.g.
// postgres://rankd@127.0.0.1:54329/rankd?sslmode=disable (.ci/postgres.sh starts one and prints it). Each test
// works in a schema of its own, created and dropped by the test.
const EnvURL = "RANKD_TEST_POSTGRES"

// MustServer returns the test server's URL. Without one the test is skipped, except in CI (CI=true), where
// it fails: there, a missing server must not pass for a green run.
func MustServer(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set, and CI=true: the PostgreSQL tests need a server (eval \"$(.ci/postgres.sh)\" starts one)", EnvURL)
		}
		tb.Skipf("%s is not set: skipping the tests against PostgreSQL (eval \"$(.ci/postgres.sh)\" starts a server)", EnvURL)
	}
	return u
}

// MustSchema creates a new, empty schema on the test server and returns the server's URL with its
// search_path set to it. The schema is dropped when the test ends.
func MustSchema(tb testing.TB) string {
	tb.Helper()
	u := MustServer(tb)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		tb.Fatalf("connect to %s: %v", EnvURL, err)
	}
	defer func() { _ = conn.Close(ctx) }() // a test connection: nothing to report
	name := "rankd_test_" + hex.EncodeToString(randomBytes(tb, 6))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			tb.Errorf("connect to drop schema %s: %v", name, err)
			return
		}
		defer func() { _ = conn.Close(ctx) }()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withParam(tb, u, "search_path", name)
}

// withParam returns the connection string u with a run-time parameter added.
func withParam(tb testing.TB, u, key, value string) string {
	tb.Helper()
	if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return u + " " + key + "=" + value // keyword/value form
	}
	p, err := url.Parse(u)
	if err != nil {
		tb.Fatalf("%s: %v", EnvURL, err)
	}
	q := p.Query()
	q.Set(key, value)
	p.RawQuery = q.Encode()
	return p.String()
}

func randomBytes(tb testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return b
}
