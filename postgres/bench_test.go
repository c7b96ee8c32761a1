package postgres_test

import (
	"testing"

	"rankd"
	"rankd/postgres/pgtest"
	"rankd/storetest"
)

// The store's benchmarks (storetest) on PostgreSQL: from 512 entries an Append writes with COPY. The CPU
// they report is rankd's side only, not the server's.
func BenchmarkAppend(b *testing.B) {
	storetest.BenchmarkAppend(b, func(b *testing.B) rankd.EventLog { return MustOpen(b, pgtest.MustSchema(b)) })
}

func BenchmarkReplay(b *testing.B) {
	storetest.BenchmarkReplay(b, func(b *testing.B) rankd.EventLog { return MustOpen(b, pgtest.MustSchema(b)) })
}
