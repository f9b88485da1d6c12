package report

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/probe"
)

// A thread of latlab's own that held the CPU says so, in an explained
// wake-up's or interruption's lines and in the totals, for wake and noise.
func TestExplainNamesOwnThreads(t *testing.T) {
	own := explain.Ran{Kind: explain.KindThread, Name: "latlab", PID: 9, Prio: 120, Policy: "SCHED_OTHER", Count: 1, DurationNs: 200_000, Own: true}
	wake := namesWake(t)
	wd := wake.Data.(*probe.WakeData)
	wd.Explain[0].Ran = append(wd.Explain[0].Ran, own)
	wd.ExplainTotals = explain.Totals(wd.Explain)
	noise := namesNoise()
	nd := noise.Data.(*probe.NoiseData)
	nd.Explain[0].Ran = append(nd.Explain[0].Ran, own)
	nd.ExplainTotals = explain.Totals([]explain.Wakeup{{CPU: 0, Ran: nd.Explain[0].Ran}})
	for name, print := range map[string]func(*strings.Builder){
		"wake":  func(b *strings.Builder) { Wake(b, wake) },
		"noise": func(b *strings.Builder) { Noise(b, noise) },
	} {
		var b strings.Builder
		print(&b)
		out := b.String()
		for _, want := range []string{"thread latlab:9 (latlab's own, nice 0)", "latlab (latlab's own)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
	}
}
