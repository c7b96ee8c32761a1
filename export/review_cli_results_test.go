package export_test

import (
	"strings"
	"testing"
)

// DOMjudge lists the teams sharing a rank in results.tsv by their effective name, the display name when
// they have one (Team::getEffectiveName), as its scoreboard shows them: so must rankd.
func TestResultsTSVOrdersTiesByDisplayName(t *testing.T) {
	b := icpcBoard()
	b.Teams[4].DisplayName = "Aarhus University" // t5, named Zeta, shares rank 5 with t6, Eta
	out := string(MustWrite(t, resultsTSVOf, b))
	got := strings.Index(out, "\nt5\t") < strings.Index(out, "\nt6\t")
	if !got {
		t.Errorf("got t6 (Eta) before t5 (displayed as Aarhus University), want t5 first:\n%s", out)
	}
}
