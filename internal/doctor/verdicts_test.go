package doctor

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
)

// The verdicts docs/commands/doctor.md documents are the verdicts some rule
// gives: a word no rule earns is not documented (the page once listed
// "harmful", "the measured evidence says it hurts latency", which no rule
// gave and none of the research backs without a caveat), and a rule's
// verdict is not left out.
func TestDocumentedVerdictsAreTheRulesVerdicts(t *testing.T) {
	given := map[string]bool{string(knob.Unknown): true} // judge's no-rule
	for _, r := range Rules {
		given[string(r.Verdict)] = true
	}
	b, err := os.ReadFile("../../docs/commands/doctor.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| verdict | means |")
	if !ok {
		t.Fatal("doctor.md has no verdict table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)` \\|").FindAllStringSubmatch(table, -1) {
		documented[m[1]] = true
	}
	var g, d []string
	for v := range given {
		g = append(g, v)
	}
	for v := range documented {
		d = append(d, v)
	}
	slices.Sort(g)
	slices.Sort(d)
	if !slices.Equal(g, d) {
		t.Errorf("the rules give %v, doctor.md documents %v", g, d)
	}
}
