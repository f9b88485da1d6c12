package compare_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// randomHist writes a histogram of n buckets with counts drawn at random
// (some empty), and overflows.
func randomHist(t *testing.T, dir, name string, rng *rand.Rand, n, most int, overflows int64) string {
	t.Helper()
	c := make([]int64, n)
	for i := range c {
		if rng.IntN(3) > 0 {
			c[i] = int64(rng.IntN(most + 1))
		}
	}
	c[rng.IntN(n)]++
	return histFile(t, dir, name, c, overflows)
}

// Comparing histograms from their bins gives what rebuilding their
// samples gives: the whole document and the text, for every statistic
// --by takes, with and without overflows, two runs and three. Every
// number of the document is compared to a relative 1e-9: the means and
// standard deviations are summed a bucket at a time instead of a sample
// at a time (TestBinnedSummary in stats: they agree to 1e-12), and the
// Kolmogorov-Smirnov D adds counts instead of 1/n per value (1e-12);
// the mean's interval beyond the bootstrap's budget is drawn around the
// mean, and the p-values are smooth functions of these. Everything else,
// percentiles, U, the bootstrap's draws and the text, is equal.
func TestBinnedAsExpanded(t *testing.T) {
	if math.MaxInt == math.MaxInt32 {
		// The rebuilt side's Mann-Whitney test (go-moremath) sums t^3 - t
		// over the ties in an int, which a tie of 1291 values overflows
		// on a 32-bit build: there the p-values of the rebuilt samples
		// are the wrong ones (1e-59 for 3e-61 here).
		t.Skip("the rebuilt samples' tie correction overflows a 32-bit int")
	}
	dir := testutil.TempDir(t)
	rng := rand.New(rand.NewPCG(21, 22))
	small1 := randomHist(t, dir, "small1.txt", rng, 12, 3, 0) // Mann-Whitney's exact path
	small2 := randomHist(t, dir, "small2.txt", rng, 12, 3, 0)
	// about 1,600 wake-ups: p99 is judged (368 needed); more would only
	// slow the rebuilt side's bootstrap of the mean (n draws a replicate)
	mid1 := randomHist(t, dir, "mid1.txt", rng, 200, 12, 0)
	mid2 := randomHist(t, dir, "mid2.txt", rng, 200, 12, 0)
	over1 := randomHist(t, dir, "over1.txt", rng, 150, 12, 40)
	over2 := randomHist(t, dir, "over2.txt", rng, 120, 12, 3)
	big1 := randomHist(t, dir, "big1.txt", rng, 300, 400, 0) // about 40000: the mean's normal approximation
	big2 := randomHist(t, dir, "big2.txt", rng, 300, 400, 0)
	for _, c := range []struct {
		files []string
		by    string
	}{
		{[]string{small1, small2}, "p50"},
		{[]string{small1, small2}, "mean"},
		{[]string{mid1, mid2}, "p50"},
		{[]string{mid1, mid2}, "p99"},
		{[]string{mid1, mid2, small1}, "mean"},
		{[]string{mid1, over1}, "p90"},
		{[]string{over1, over2}, "p50"},
		{[]string{over1, over2, mid2}, "p99"},
		{[]string{over2, mid1}, "mean"},
		{[]string{big1, big2}, "mean"},
		{[]string{big1, big2, mid1}, "p99.9"},
	} {
		name := fmt.Sprint(c.by, " ", filepath.Base(c.files[0]), " ", filepath.Base(c.files[1]), " ", len(c.files))
		t.Run(name, func(t *testing.T) {
			o := compare.RunOptions{Files: c.files, By: c.by}
			compare.SetExpandHistograms(true)
			want, err := run(t, o)
			compare.SetExpandHistograms(false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Runs[0].Samples() != nil {
				t.Fatal("the bins were expanded")
			}
			var gt, wt bytes.Buffer
			report.CompareText(&gt, got)
			report.CompareText(&wt, want)
			if gt.String() != wt.String() {
				t.Errorf("text from the bins:\n%s\nrebuilt:\n%s", gt.String(), wt.String())
			}
			gj, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			wj, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(gj, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(wj, &w); err != nil {
				t.Fatal(err)
			}
			if d := jsonDiff("", g, w, 1e-9); d != "" {
				t.Errorf("documents differ: %s\nbins: %s\nrebuilt: %s", d, gj, wj)
			}
		})
	}
}

// jsonDiff describes the first difference of two decoded JSON values,
// numbers to a relative tol; "" when none.
func jsonDiff(at string, a, b any, tol float64) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v against %v", at, a, b)
		}
		for k, v := range x {
			if d := jsonDiff(at+"."+k, v, y[k], tol); d != "" {
				return d
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v against %v", at, a, b)
		}
		for i := range x {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", at, i), x[i], y[i], tol); d != "" {
				return d
			}
		}
	case float64:
		y, ok := b.(float64)
		if !ok || (x != y && math.Abs(x-y) > tol*math.Max(math.Abs(x), math.Abs(y))) {
			return fmt.Sprintf("%s: %v against %v", at, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v against %v", at, a, b)
		}
	}
	return ""
}

// A histogram compared with wake results from its bins (and a wake
// result without raw samples from its histogram's) gives what rebuilding
// their samples gives, as TestBinnedAsExpanded checks for histograms
// alone, to the same 1e-9, the text equal line by line: wake results
// independent and serially dependent, with raw samples and without,
// against histograms with overflows above the wake results' values and
// among them (whose order is then lost), two runs and three. The one number
// that differs is the Kolmogorov-Smirnov p-value of a dependent wake
// run, a multiplier bootstrap whose draws for a histogram's side are
// taken a bucket at a time (the same distribution, other random
// numbers): it is checked to 0.05, and left out of the rest.
func TestMixedBinnedAsExpanded(t *testing.T) {
	if math.MaxInt == math.MaxInt32 {
		t.Skip("the rebuilt samples' tie correction overflows a 32-bit int (TestBinnedAsExpanded)")
	}
	dir := testutil.TempDir(t)
	rng := rand.New(rand.NewPCG(23, 24))
	// about 400 wake-ups a histogram, 400 a wake result around 20 µs:
	// the rebuilt side's bootstrap of the mean (n draws a replicate)
	// and the dependent run's multiplier bootstrap stay quick under the
	// race detector
	hist := randomHist(t, dir, "hist.txt", rng, 60, 20, 0)
	over := randomHist(t, dir, "over.txt", rng, 80, 15, 30) // range 80 µs: above every wake value
	cut := randomHist(t, dir, "cut.txt", rng, 22, 36, 30)   // range 22 µs: among them
	indep := wakeFile(t, dir, "indep.json", ar1Lateness(rng, 400, 0), false)
	dep := wakeFile(t, dir, "dep.json", ar1Lateness(rng, 400, 0.8), false)
	hdr := hdrOnly(t, wakeFile(t, dir, "hdr.json", ar1Lateness(rng, 400, 0), false))
	for _, c := range []struct {
		files []string
		by    string
		// dependent: a wake run is serially dependent, and the
		// Kolmogorov-Smirnov p-values differ by their draws
		dependent bool
	}{
		{[]string{hist, indep}, "p50", false},
		{[]string{indep, over}, "mean", false},
		{[]string{cut, indep}, "p90", false},
		{[]string{hdr, hist}, "p50", false},
		{[]string{dep, hist}, "p50", true},
		{[]string{hist, dep, hdr}, "p99", true},
		{[]string{cut, dep}, "p50", false}, // dep's values above 22 µs are not known: its order is lost
	} {
		name := fmt.Sprint(c.by, " ", filepath.Base(c.files[0]), " ", filepath.Base(c.files[1]), " ", len(c.files))
		t.Run(name, func(t *testing.T) {
			o := compare.RunOptions{Files: c.files, By: c.by}
			compare.SetExpandHistograms(true)
			want, err := run(t, o)
			compare.SetExpandHistograms(false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := run(t, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got.Runs {
				if r.Reconstructed && r.Samples() != nil {
					t.Fatalf("%s: rebuilt from its histogram", r.Label)
				}
			}
			for i := range got.Pairs {
				gp, wp := got.Pairs[i].KS.P, want.Pairs[i].KS.P
				dep := c.dependent && (got.Pairs[i].ALabel == "dep.json" || got.Pairs[i].BLabel == "dep.json")
				if dep != (got.Pairs[i].KS.Test == stats.SerialKSTest) {
					t.Errorf("pair %d: Kolmogorov-Smirnov test %q", i, got.Pairs[i].KS.Test)
				}
				if math.Abs(gp-wp) > 0.05 {
					t.Errorf("pair %d: Kolmogorov-Smirnov p %v, rebuilt %v", i, gp, wp)
				}
				if !dep && gp != wp && math.Abs(gp-wp) > 1e-9*math.Max(gp, wp) {
					t.Errorf("pair %d: Kolmogorov-Smirnov p %v, rebuilt %v", i, gp, wp)
				}
				got.Pairs[i].KS.P, want.Pairs[i].KS.P = 0, 0
			}
			var gt, wt bytes.Buffer
			report.CompareText(&gt, got)
			report.CompareText(&wt, want)
			if gt.String() != wt.String() {
				t.Errorf("text from the bins:\n%s\nrebuilt:\n%s", gt.String(), wt.String())
			}
			gj, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			wj, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(gj, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(wj, &w); err != nil {
				t.Fatal(err)
			}
			if d := jsonDiff("", g, w, 1e-9); d != "" {
				t.Errorf("documents differ: %s\nbins: %s\nrebuilt: %s", d, gj, wj)
			}
		})
	}
}
