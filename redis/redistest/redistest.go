// Package redistest gives tests a key prefix of their own on the Redis server named by RANKD_TEST_REDIS
// (.ci/redis.sh starts one): without it the tests skip, except in CI (CI=true), where they fail.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// EnvURL names the environment variable that gives the URL of the Redis server the tests use, e.g.
// redis://127.0.0.1:63790/0 (.ci/redis.sh starts one and prints it). Each test works under a key prefix of
// its own, whose keys are deleted when the test ends.
const EnvURL = "RANKD_TEST_REDIS"

// MustServer returns the test server's URL. Without one the test is skipped, except in CI (CI=true), where
// it fails: there, a missing server must not pass for a green run.
func MustServer(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set, and CI=true: the Redis tests need a server (eval \"$(.ci/redis.sh)\" starts one)", EnvURL)
		}
		tb.Skipf("%s is not set: skipping the tests against Redis (eval \"$(.ci/redis.sh)\" starts a server)", EnvURL)
	}
	return u
}

// MustClient returns a client of the test server, closed when the test ends.
func MustClient(tb testing.TB) *goredis.Client {
	tb.Helper()
	o, err := goredis.ParseURL(MustServer(tb))
	if err != nil {
		tb.Fatalf("%s: %v", EnvURL, err)
	}
	c := goredis.NewClient(o)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// MustPrefix returns a key prefix no other test uses. The keys under it are deleted when the test ends.
func MustPrefix(tb testing.TB) string {
	tb.Helper()
	c := MustClient(tb)
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	prefix := "rankdtest-" + hex.EncodeToString(b)
	tb.Cleanup(func() {
		if err := Delete(context.Background(), c, prefix); err != nil {
			tb.Errorf("delete the keys of prefix %s: %v", prefix, err)
		}
	})
	return prefix
}

// Delete deletes every key under prefix, as a flush of the server would, but for that prefix only.
func Delete(ctx context.Context, c *goredis.Client, prefix string) error {
	iter := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		if err := c.Unlink(ctx, keys[:n]...).Err(); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
