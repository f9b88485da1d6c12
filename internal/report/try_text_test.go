package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/try"
)

// try says its verdicts first, right under the head, then the evidence:
// they once came after the table of every arm's statistics.
func TestTryVerdictFirst(t *testing.T) {
	s := stats.Summary{Count: 100, Min: 1_000_000, P50: 1_070_000, P99: 1_300_000, Max: 1_400_000, Mean: 1_080_000}
	r := &try.Result{Knob: "timer-slack", Probe: try.ProbeSleep, By: "p50", Blocks: 6, Quantity: "slept time", Arms: []try.Arm{
		{Label: "current", Baseline: true, Current: "50µs", Summary: &s, Complete: 6},
		{Label: "51us", Summary: &s, Complete: 6, Verdict: &try.Verdict{Text: "51us vs current: no difference at p50"}},
	}}
	var b bytes.Buffer
	Try(&b, r)
	// The head is one wrapped line: the first line and its indented
	// continuation.
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "latlab try timer-slack: ") || !strings.HasPrefix(lines[1], "  ") ||
		lines[2] != "- 51us vs current: no difference at p50" || lines[3] != "" {
		t.Errorf("the verdict is not under the head:\n%s", b.String())
	}
	if strings.Count(b.String(), "no difference at p50") != 1 || !strings.Contains(b.String(), "baseline: 50µs (6 of 6 blocks complete)") {
		t.Errorf("output:\n%s", b.String())
	}
}
