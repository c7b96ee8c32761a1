package main_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden pins the output of whole commands on the real feeds and on generated contests of every rules
// kind: any change in the rules, the views or the formats shows up here as a diff to review.
func TestGolden(t *testing.T) {
	euc, wf := feed(t, "euc2025"), feed(t, "wf47")
	gens := map[string]string{}
	for _, rules := range []string{"icpc", "oi", "ioi", "ctf"} {
		p := filepath.Join(t.TempDir(), rules+".ndjson")
		MustRun(t, "gen", "--rules", rules, "--teams", "12", "--problems", "5", "--submissions", "150", "--seed", "3", "--hidden", "1", "--out", p)
		gens[rules] = p
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"euc2025-final.csv", []string{"standings", "--feed", euc, "--format", "csv"}},
		{"euc2025-frozen-public.txt", []string{"standings", "--feed", euc, "--at", "4:30:00"}},
		{"euc2025-frozen-jury.csv", []string{"standings", "--feed", euc, "--at", "4:30:00", "--view", "jury", "--format", "csv"}},
		{"euc2025-frozen-team30.csv", []string{"standings", "--feed", euc, "--at", "4:30:00", "--view", "team:30", "--format", "csv"}},
		{"euc2025-awards.json", []string{"awards", "--feed", euc}},
		{"wf47-public.csv", []string{"standings", "--feed", wf, "--format", "csv"}},
		{"wf47-jury.csv", []string{"standings", "--feed", wf, "--view", "jury", "--format", "csv"}},
		{"gen-icpc-public.txt", []string{"standings", "--feed", gens["icpc"]}},
		{"gen-icpc-jury.txt", []string{"standings", "--feed", gens["icpc"], "--view", "jury"}},
		{"gen-oi.txt", []string{"standings", "--feed", gens["oi"], "--view", "jury"}},
		{"gen-ioi.txt", []string{"standings", "--feed", gens["ioi"], "--view", "jury"}},
		{"gen-ctf.txt", []string{"standings", "--feed", gens["ctf"], "--view", "jury"}},
		{"gen-ctf-awards.json", []string{"awards", "--feed", gens["ctf"], "--view", "jury"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := MustRun(t, tt.args...)
			path := filepath.Join("testdata", "golden", tt.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/rankd -run TestGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("output differs from %s (rerun with -update after checking the change):\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}
