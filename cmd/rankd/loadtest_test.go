package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// loadtest --mode stream posts judgements at the rate asked, below 100 a second too.
func TestLoadtestStreamRate(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	t.Setenv("RANKD_ADMIN_TOKEN", testAdminToken)
	t.Setenv("RANKD_JUDGE_TOKEN", testJudgeToken)
	out := MustRun(t, "loadtest", "--server", p.URL, "--contest", "slow", "--mode", "stream", "--clients", "1",
		"--rate", "20", "--duration", "2s", "--teams", "5", "--problems", "2", "--json")
	var res struct {
		Posted int `json:"judgements_posted"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if res.Posted < 25 || res.Posted > 55 {
		t.Errorf("got %d judgements posted in 2 s at --rate 20, want about 40", res.Posted)
	}
}

func TestLoadtestUsage(t *testing.T) {
	t.Setenv("RANKD_JUDGE_TOKEN", testJudgeToken)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"loadtest", "--contest", "c", "--mode", "ingest"}, "--mode ingest needs --feed FILE"},
		{[]string{"loadtest", "--contest", "c", "--mode", "stream", "--rate", "0"}, "--rate must be at least 1"},
	} {
		_, errOut, err := run(tt.args...)
		if err == nil || !strings.Contains(errOut, tt.want) {
			t.Errorf("rankd %s: got %v, %q; want an error saying %q", strings.Join(tt.args, " "), err, errOut, tt.want)
		}
	}
}
