//go:build !race

package export_test

// raceEnabled: see review_scale_race_test.go.
const raceEnabled = false
