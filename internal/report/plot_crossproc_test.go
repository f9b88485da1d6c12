package report

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/stats"
)

// The crossproc plot draws every sleep, so the research's split at 8 ms
// (8 or 16 ms, never the 14.4 ms mean) shows, and the expected curve of
// the build's rule is named as such.
func TestCrossprocPlotShowsEverySleep(t *testing.T) {
	row := func(req int64, samples []int64) crossproc.Row {
		return crossproc.Row{RequestedNs: req, ChildGrantedNs: req, Samples: samples, Slept: stats.Summarize(samples)}
	}
	rep := func(v int64, n int) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	split := append(rep(8e6, 20), rep(16e6, 80)...)
	split = append(split, 120e6) // one sleep preempted for 120 ms
	res := &crossproc.Result{Method: "sleep", DurationNs: 1e6, HoldNs: 2e9, Rule: crossproc.Isolated2004, Rows: []crossproc.Row{
		row(0, rep(15_625_000, 64)), row(6e6, rep(12e6, 80)), row(7e6, rep(14e6, 70)), row(8e6, split),
	}}
	res.Verdict = crossproc.Classify(res.Rows, time.Millisecond, crossproc.Facts{Windows: true, Build: 19045})
	b, err := CrossprocPlot(res, "svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"every sleep", "expected if isolated (Windows 10 2004+), mean (this build)", "expected if global, mean",
		"1 sleep above the largest p99 not shown"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	// One dot per sleep drawn (all but the hidden one), as small circles.
	if n := strings.Count(svg, "fill-opacity"); n < 64+80+70+100 {
		t.Errorf("%d translucent marks, want one per sleep", n)
	}
}
