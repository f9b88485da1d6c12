package report

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/stats"
)

// The HTML tables head their tail column max, and show the maximum,
// while a run has fewer than 100 samples (its p99 is then its maximum),
// as the text tables do; the check-up's probe then has no p99 row.
func TestHTMLTablesNoP99OfFewSamples(t *testing.T) {
	few := stats.Summary{Count: 60, P50: 1000, P99: 5000, Max: 5000}
	many := stats.Summary{Count: 300, P50: 1000, P99: 4000, Max: 9000}
	for _, c := range []struct {
		runs []stats.Summary
		want string
	}{
		{[]stats.Summary{many, many}, "p99"},
		{[]stats.Summary{many, few}, "max"},
	} {
		r := &compare.Result{Ranking: []int{0, 1}, Pairs: []compare.Pair{{}}}
		for _, s := range c.runs {
			r.Runs = append(r.Runs, compare.RunSummary{Label: "x", Summary: s})
		}
		if got := compareTable(r).Header[4]; got != c.want {
			t.Errorf("counts %d, %d: column %q, want %q", c.runs[0].Count, c.runs[1].Count, got, c.want)
		}
	}
	v, err := doctorProbe(&doctor.Probe{Name: "sleep", Summary: few})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range v.Rows {
		if row[0] == "p99" {
			t.Errorf("a p99 row from %d samples: %v", few.Count, v.Rows)
		}
	}
	v, err = doctorProbe(&doctor.Probe{Name: "wake", Summary: few, Threads: []doctor.ThreadStat{{CPU: 1, Summary: few}}})
	if err != nil {
		t.Fatal(err)
	}
	if last := v.Rows[len(v.Rows)-1][1]; strings.Contains(last, "p99") || !strings.Contains(last, "max") {
		t.Errorf("per-CPU row %q", last)
	}
}
