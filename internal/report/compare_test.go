package report

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/compare"
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
