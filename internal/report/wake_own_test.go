package report

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/probe"
)

// A thread of latlab's own that held the CPU says so, in an explained
// wake-up's lines and in the totals.
func TestWakeExplainNamesOwnThreads(t *testing.T) {
	doc := namesWake(t)
	d := doc.Data.(*probe.WakeData)
	own := explain.Ran{Kind: explain.KindThread, Name: "latlab", PID: 9, Prio: 139, Policy: "SCHED_OTHER", Count: 1, DurationNs: 200_000, Own: true}
	d.Explain[0].Ran = append(d.Explain[0].Ran, own)
	d.ExplainTotals = explain.Totals(d.Explain)
	var b strings.Builder
	Wake(&b, doc)
	out := b.String()
	for _, want := range []string{"thread latlab:9 (latlab's own, nice 19)", "latlab (latlab's own)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
