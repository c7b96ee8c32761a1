//go:build race

package export_test

// raceEnabled: the race detector makes allocations of its own (sync.Pool drops what it is given), so bounds
// on what code allocates do not hold under it.
const raceEnabled = true
