package try

import (
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// Outcome classifies a value against the baseline.
type Outcome string

// Outcomes. Lower values are better for every probe.
const (
	Better       Outcome = "better"
	Worse        Outcome = "worse"
	NoDifference Outcome = "no difference"
	TooFew       Outcome = "too few"
)

// Verdict is one value against the baseline.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	By      string  `json:"by"`
	// Level is the confidence level of Diff: Bonferroni-adjusted so that
	// the intervals of all values hold together at 1 - Alpha.
	Level float64 `json:"level"`
	// Diff is By(value) - By(baseline) over the samples of their complete
	// blocks, with a percentile-bootstrap interval; nil with too few.
	Diff *stats.CI `json:"diff,omitempty"`
	// RelChange is Diff's estimate relative to the baseline's By (0 when
	// that is 0).
	RelChange  float64 `json:"rel_change"`
	MinSamples int     `json:"min_samples_per_arm"`
	// MannWhitney tests the pooled samples; PHolm is its p adjusted over
	// the values (Holm).
	MannWhitney stats.MWU `json:"mann_whitney"`
	PHolm       float64   `json:"mann_whitney_p_holm"`
	Blocks      BlockTest `json:"block_test"`
	// DPCISR is the dpcisr probe's comparison of the value's pooled blocks
	// with the baseline's, for the module (as latlab dpcisr compare); its
	// chi-squared p, Holm-adjusted, is PHolm.
	DPCISR *dpcisr.Comparison `json:"dpcisr,omitempty"`
	Text   string             `json:"text"`
}

// BlockTest compares the value's block with the baseline's block of the
// same round, round by round: the difference of their By statistics. The
// order within each round is random, so without an effect each difference
// is as likely to come out positive as negative, whatever the drift: the
// test's p is exact under that randomization (Wilcoxon's signed-rank
// statistic, all 2^n sign patterns; a normal approximation beyond 100
// rounds). Pooled samples cannot tell a setting's effect from drift
// between blocks; this test can.
type BlockTest struct {
	// Rounds in which both blocks are complete.
	Rounds int `json:"rounds"`
	Lower  int `json:"lower"`  // rounds where the value's block was lower
	Higher int `json:"higher"` // and higher (the others tie, and count for neither side)
	// MedianDiff is the median of the differences (value - baseline).
	MedianDiff float64 `json:"median_diff_ns"`
	P          float64 `json:"p"`
	PHolm      float64 `json:"p_holm"`
	// MinP is the smallest p this many rounds can give: 2/2^n.
	MinP   float64 `json:"min_p"`
	Method string  `json:"method"`
}

// Analyze fills in each arm's summary and each value's verdict from the
// complete blocks of res.Runs. It is a pure function of res and seed.
func Analyze(res *Result, by stats.Statistic, seed uint64) error {
	if res.Probe == ProbeDPCISR {
		return analyzeDPCISR(res, by)
	}
	nArms := len(res.Arms)
	if nArms < 2 {
		return fmt.Errorf("internal: %d arms", nArms)
	}
	// The blocks' histograms are rebuilt within one budget per analysis.
	budget := result.NewBudget()
	perArm := make([][]int64, nArms)
	// stat[arm][round] of complete blocks.
	stat := make([]map[int]float64, nArms)
	for i := range stat {
		stat[i] = map[int]float64{}
	}
	for i := range res.Arms {
		res.Arms[i].Complete = 0
	}
	for i := range res.Runs {
		b := &res.Runs[i]
		if b.Arm < 0 || b.Arm >= nArms {
			return fmt.Errorf("block %d names arm %d of %d", b.Index, b.Arm, nArms)
		}
		s, err := blockSamples(b, budget)
		if err != nil {
			return fmt.Errorf("block %d: %w", b.Index, err)
		}
		sorted := slices.Clone(s)
		slices.Sort(sorted)
		if len(sorted) > 0 {
			b.Stat = by.Of(sorted)
		}
		if !b.Complete || len(sorted) == 0 {
			continue
		}
		res.Arms[b.Arm].Complete++
		perArm[b.Arm] = append(perArm[b.Arm], s...)
		stat[b.Arm][b.Round] = b.Stat
	}
	for i := range res.Arms {
		a := &res.Arms[i]
		slices.Sort(perArm[i])
		a.samples = perArm[i]
		a.Summary = nil
		if len(a.samples) > 0 {
			s := stats.SummarizeSorted(a.samples)
			a.Summary = &s
		}
	}
	k := nArms - 1
	level := 1 - Alpha/float64(k)
	boot := stats.Bootstrap{Seed: seed, Replicates: stats.ReplicatesFor(level, 2000), Level: level}
	minN := stats.MinSamples(by, level)
	base := &res.Arms[0]
	var mwP, blockP []float64
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := &Verdict{By: by.String(), Level: level, MinSamples: minN}
		if len(a.samples) > 0 && len(base.samples) > 0 {
			v.MannWhitney, _ = stats.MannWhitney(base.samples, a.samples)
			if min(len(a.samples), len(base.samples)) >= minN {
				ci := boot.DiffCI(base.samples, a.samples, by)
				v.Diff = &ci
				if b := by.Of(base.samples); b != 0 {
					v.RelChange = ci.Estimate / math.Abs(b)
				}
			}
		} else {
			v.MannWhitney.P = 1
		}
		v.Blocks = signedRank(roundDiffs(stat, j))
		mwP = append(mwP, v.MannWhitney.P)
		blockP = append(blockP, v.Blocks.P)
		a.Verdict = v
	}
	for i, p := range stats.Holm(mwP) {
		res.Arms[i+1].Verdict.PHolm = p
	}
	for i, p := range stats.Holm(blockP) {
		res.Arms[i+1].Verdict.Blocks.PHolm = p
	}
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		a.Verdict.Outcome = outcome(a.Verdict)
		a.Verdict.Text = verdictText(a, base, k)
	}
	return nil
}

// roundDiffs are arm j's per-round statistic minus the baseline's, over
// the rounds both completed, sorted: map order must not reach the result.
func roundDiffs(stat []map[int]float64, j int) []float64 {
	var d []float64
	for r, sb := range stat[0] {
		if sa, ok := stat[j][r]; ok {
			d = append(d, sa-sb)
		}
	}
	slices.Sort(d)
	return d
}

// outcome asks for both tests: the pooled samples' interval excludes no
// change, and the rounds agree (block test, Holm-adjusted) in the same
// direction.
func outcome(v *Verdict) Outcome {
	b := v.Blocks
	switch {
	case v.Diff == nil || b.Rounds == 0 || b.MinP >= Alpha:
		return TooFew
	case v.Diff.Hi < 0 && b.PHolm < Alpha && b.Lower > b.Higher:
		return Better
	case v.Diff.Lo > 0 && b.PHolm < Alpha && b.Higher > b.Lower:
		return Worse
	}
	return NoDifference
}

func verdictText(a, base *Arm, k int) string {
	v := a.Verdict
	lvl := fmt.Sprintf("%.0f%%", v.Level*100)
	if k > 1 {
		lvl = fmt.Sprintf("%.1f%%", v.Level*100)
	}
	holm := ""
	if k > 1 {
		holm = " (Holm)"
	}
	b := v.Blocks
	rounds := fmt.Sprintf("lower in %d of %d rounds", b.Lower, b.Rounds)
	switch v.Outcome {
	case TooFew:
		n := 0
		if a.Summary != nil && base.Summary != nil {
			n = int(min(a.Summary.Count, base.Summary.Count))
		}
		if v.Diff == nil {
			return fmt.Sprintf("%s vs %s: no verdict, too few samples (%d per arm): judging %s needs at least %d", a.Label, base.Label, n, v.By, v.MinSamples)
		}
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks",
			a.Label, base.Label, b.Rounds, Alpha, minRounds(Alpha))
	case Better, Worse:
		if v.Outcome == Worse {
			rounds = fmt.Sprintf("higher in %d of %d rounds", b.Higher, b.Rounds)
		}
		d := *v.Diff
		lo, hi := math.Abs(d.Hi), math.Abs(d.Lo)
		if v.Outcome == Worse {
			lo, hi = math.Abs(d.Lo), math.Abs(d.Hi)
		}
		return fmt.Sprintf("%s is %s than %s at %s by %s [%s, %s] (%+.1f%%, %s CI), Mann-Whitney %s%s; blocks: %s, %s%s",
			a.Label, v.Outcome, base.Label, v.By, units.NsFixed(math.Abs(d.Estimate)), units.NsFixed(lo), units.NsFixed(hi),
			v.RelChange*100, lvl, stats.FormatP(v.PHolm), holm, rounds, stats.FormatP(b.PHolm), holm)
	}
	d := *v.Diff
	s := fmt.Sprintf("%s vs %s: no difference at %s (%s [%s, %s], %s CI; Mann-Whitney %s%s; blocks: %s, %s%s)",
		a.Label, base.Label, v.By, units.SignedNsFixed(d.Estimate), units.SignedNsFixed(d.Lo), units.SignedNsFixed(d.Hi), lvl,
		stats.FormatP(v.PHolm), holm, rounds, stats.FormatP(b.PHolm), holm)
	if (d.Hi < 0 || d.Lo > 0) && b.PHolm >= Alpha {
		s += "; the pooled samples differ but the rounds do not agree: drift or noise between blocks, not the setting, can explain it"
	}
	return s
}

// minRounds is the fewest rounds whose block test can reach p < alpha.
func minRounds(alpha float64) int {
	n := 1
	for 2/math.Pow(2, float64(n)) >= alpha {
		n++
	}
	return n
}

// exactRounds is the most rounds the signed-rank p is computed exactly for.
const exactRounds = 100

// signedRank is the two-sided Wilcoxon signed-rank test of the
// differences d against a median of 0; zeros are dropped and tied
// magnitudes get their mean rank.
func signedRank(d []float64) BlockTest {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	t := BlockTest{Rounds: len(d), P: 1, MinP: math.Min(1, 2*math.Pow(0.5, float64(len(d)))), Method: "Wilcoxon signed-rank over rounds (exact)"}
	if len(d) > 0 {
		s := slices.Clone(d)
		slices.Sort(s)
		if len(s)%2 == 1 {
			t.MedianDiff = s[len(s)/2]
		} else {
			t.MedianDiff = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
	}
	n := len(nz)
	if n == 0 {
		return t
	}
	for _, x := range nz {
		if x < 0 {
			t.Lower++
		} else {
			t.Higher++
		}
	}
	// Doubled mid-ranks of |d| are whole numbers.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := math.Abs(nz[a]), math.Abs(nz[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	rank2 := make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		r := i + 1 + j + 1 // twice the mean of ranks i+1..j+1
		for m := i; m <= j; m++ {
			rank2[idx[m]] = r
		}
		i = j + 1
	}
	total, w := 0, 0
	for i, x := range nz {
		total += rank2[i]
		if x > 0 {
			w += rank2[i]
		}
	}
	dev := math.Abs(float64(w) - float64(total)/2)
	if n > exactRounds {
		t.Method = "Wilcoxon signed-rank over rounds (normal approximation)"
		var v float64
		for _, r := range rank2 {
			v += float64(r) * float64(r)
		}
		sd := math.Sqrt(v) / 2 // sum of (r/2)^2 for ranks r/2, times 4 for doubled W
		z := (dev - 1) / sd    // continuity correction of one doubled unit
		if z < 0 {
			z = 0
		}
		t.P = math.Min(1, math.Erfc(z/math.Sqrt2))
		return t
	}
	// Every sign pattern is equally likely: the distribution of W by
	// dynamic programming over the ranks.
	dist := make([]float64, total+1)
	dist[0] = 1
	hi := 0
	for _, r := range rank2 {
		for s := hi; s >= 0; s-- {
			if dist[s] != 0 {
				dist[s+r] += dist[s] / 2
				dist[s] /= 2
			}
		}
		hi += r
	}
	p := 0.0
	for s, q := range dist {
		if math.Abs(float64(s)-float64(total)/2) >= dev-1e-9 {
			p += q
		}
	}
	t.P = math.Min(1, p)
	return t
}
