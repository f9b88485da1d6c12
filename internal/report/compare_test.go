package report

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/try"
)

// CompareText writes what `latlab compare` printed before its printers
// moved here: the golden files are that output on compare's fixtures.
func TestCompareTextGolden(t *testing.T) {
	td := func(name string) string { return filepath.Join("..", "compare", "testdata", name) }
	for _, c := range []struct {
		name  string
		files []string
	}{
		{"two", []string{td("a.json"), td("b.json")}},
		{"ranking", []string{td("a.json"), td("b.json"), td("c.json"), td("other/a.json")}},
		{"toofew", []string{td("a.json"), td("one.json")}},
		// A run of fewer than 100 samples: the ranking's p99 column would
		// be its maximum, and is the maximum, headed max.
		{"ranking-few", []string{td("a.json"), td("b.json"), td("one.json")}},
		{"perrun", []string{td("tcp/before"), td("tcp/after")}},
		{"try", []string{td("try.json")}},
		{"try-noise", []string{td("try-noise.json")}},
		{"try-noise-cpus", []string{td("try-noise-cpus.json")}},
		{"try-dpcisr", []string{td("try-dpcisr.json")}},
		{"mixed", []string{td("mixed.hist"), td("mixed-wake.json")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := compare.Run(context.Background(), compare.RunOptions{Files: c.files, By: "p50", Seed: 1, Detect: 0.05,
				Arms: map[string]compare.Arms{try.Kind.Name(): try.CompareInputs}})
			if err != nil {
				t.Fatal(err)
			}
			// The golden files name other/a.json with a forward slash.
			for i := range r.Runs {
				r.Runs[i].Label = filepath.ToSlash(r.Runs[i].Label)
			}
			for i := range r.Pairs {
				r.Pairs[i].Verdict = filepath.ToSlash(r.Pairs[i].Verdict)
			}
			for i := range r.Notes { // "3 comparisons against testdata/a.json"
				r.Notes[i] = filepath.ToSlash(r.Notes[i])
			}
			var b bytes.Buffer
			CompareText(&b, r)
			goldie.New(t).Assert(t, "compare-"+c.name, b.Bytes())
		})
	}
}

func TestLevelPct(t *testing.T) {
	for level, want := range map[float64]string{0.95: "95%", 0.9833333: "98.33%", 0.99: "99%", 0.995: "99.5%"} {
		if got := levelPct(level); got != want {
			t.Errorf("levelPct(%v) = %q, want %q", level, got, want)
		}
	}
}

// The Kolmogorov-Smirnov line names the test its p-value is from: the
// one for dependent samples when a run is dependent, and a document
// written before there was one (no test named, a dependent run) says
// that its p-value counts the samples as independent.
func TestCompareTextNamesTheKSTest(t *testing.T) {
	dep := &stats.Serial{Lag1: 0.8, EffectiveN: 110, Dependent: true, Block: 20}
	indep := &stats.Serial{Lag1: 0.01, EffectiveN: 1000}
	for _, c := range []struct {
		name     string
		serial   *stats.Serial
		ks       stats.KS
		want     string
		wantAsIf bool
	}{
		{"dependent", dep, stats.KS{D: 0.104, P: 0.165, Test: stats.SerialKSTest, Replicates: 2000, Grid: 512},
			"Kolmogorov-Smirnov for dependent samples D = 0.104, p = 0.165", false},
		{"independent", indep, stats.KS{D: 0.104, P: 0.00004, Test: stats.KSTest}, "Kolmogorov-Smirnov D = 0.104, p < 0.001", false},
		{"older document", dep, stats.KS{D: 0.104, P: 0.00004}, "Kolmogorov-Smirnov D = 0.104, p < 0.001", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum := stats.Summary{Count: 1000}
			ci := &stats.CI{Estimate: 100, Lo: -50, Hi: 250, Level: 0.95, Method: "moving-block bootstrap, blocks of 20 samples, 2000 replicates"}
			r := &compare.Result{Quantity: "wake-up lateness", By: "p50", Level: 0.95, Seed: 1,
				Runs: []compare.RunSummary{{Label: "a.json", Summary: sum, Serial: c.serial}, {Label: "b.json", Summary: sum, Serial: c.serial}},
				Pairs: []compare.Pair{{A: 0, B: 1, ALabel: "a.json", BLabel: "b.json", Test: stats.SerialMannWhitneyTest,
					MWU: stats.MWU{U: 500000, P: 0.5, Superiority: 0.5}, PAdjusted: 0.5, KS: c.ks, Outcome: compare.NoDifference,
					Verdict: "b.json vs a.json: no detectable difference", ByDiff: ci, ByName: "p50",
					Rows: []compare.Row{{Stat: "p50", Unit: "ns", A: 20000, B: 20100, Diff: ci}}}}}
			var b bytes.Buffer
			CompareText(&b, r)
			out := strings.Join(strings.Fields(b.String()), " ") // lines joined
			if !strings.Contains(out, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, b.String())
			}
			if asIf := strings.Contains(out, "(as if independent)"); asIf != c.wantAsIf {
				t.Errorf("\"as if independent\" said: %v, want %v:\n%s", asIf, c.wantAsIf, b.String())
			}
		})
	}
}
