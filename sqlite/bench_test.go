package sqlite_test

import (
	"testing"

	"rankd"
	"rankd/storetest"
)

func BenchmarkAppend(b *testing.B) {
	storetest.BenchmarkAppend(b, func(b *testing.B) rankd.EventLog { return MustOpen(b, b.TempDir()) })
}

func BenchmarkReplay(b *testing.B) {
	storetest.BenchmarkReplay(b, func(b *testing.B) rankd.EventLog { return MustOpen(b, b.TempDir()) })
}
