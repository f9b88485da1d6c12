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
	// Mixed: a noise run over several CPUs found the value better on
	// some CPUs and worse on others.
	Mixed Outcome = "mixed"
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
	// the values (Holm). Both are absent for the dpcisr probe, whose
	// blocks hold histograms of buckets, not samples: it runs no
	// Mann-Whitney test.
	MannWhitney *stats.MWU `json:"mann_whitney,omitempty"`
	PHolm       *float64   `json:"mann_whitney_p_holm,omitempty"`
	// Blocks is the block test; absent from the summary verdict of a
	// noise run over several CPUs, whose block tests are per CPU
	// (NoiseCPUs).
	Blocks *BlockTest `json:"block_test,omitempty"`
	// DPCISR is the dpcisr probe's comparison of the value's pooled blocks
	// with the baseline's, for the module (as latlab dpcisr compare), its
	// sections' p_holm adjusted over every value's and section's test;
	// ChiSquaredPHolm is the p of its chi-squared test over the module's
	// DPC buckets, so adjusted (absent when no test could run: no DPC of
	// the module in one arm, or too few, or all in one bucket range), and
	// Blocks the block test of the module's DPCs (of its first section
	// when it ran none). DPCISRSections holds a verdict per section the
	// module ran in (DPC, and ISR where it has interrupts); over more than
	// one, Outcome and Text sum them up (Outcome may be mixed).
	DPCISR          *dpcisr.Comparison     `json:"dpcisr,omitempty"`
	ChiSquaredPHolm *float64               `json:"chi_squared_p_holm,omitempty"`
	DPCISRSections  []DPCISRSectionVerdict `json:"dpcisr_sections,omitempty"`
	// Rate is the noise probe's exact test of equal rates of
	// interruptions over the pooled complete blocks (--by rate), and the
	// interval of the value's rate over the baseline's at Level;
	// RatePHolm is its p Holm-adjusted over the values. MannWhitney and
	// PHolm then compare the interruptions' lengths, reported beside.
	Rate      *stats.RateTest `json:"rate,omitempty"`
	RatePHolm float64         `json:"rate_p_holm,omitempty"`
	// NoiseCPUs are the noise probe's verdicts per CPU of a run over
	// several (Rate, RatePHolm and Blocks then absent): every (value,
	// CPU) test Holm-adjusted together, Level Bonferroni's over them.
	// Outcome and Text sum them up; RelChange is the value's rate over
	// the baseline's over all the CPUs, less 1.
	NoiseCPUs []NoiseCPUVerdict `json:"noise_cpus,omitempty"`
	Text      string            `json:"text"`
	// fewestPerBlock and needPerBlock: the rounds compared block
	// statistics that were their blocks' maxima (fewer samples a block
	// than stats.BelowMax of By), so the block test is left out.
	fewestPerBlock, needPerBlock int
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
	if res.Probe == ProbeNoise && res.By == ByRate {
		return analyzeNoiseRate(res)
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
	// The block test compares each block's statistic: a p99 of a block of
	// 50 wake-ups is its maximum, and the rounds would compare maxima
	// under the name p99.
	fewest := math.MaxInt
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
		fewest = min(fewest, len(sorted))
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
	co := stats.CompareOptions{By: by, Alpha: Alpha, Family: k, Seed: seed, Rule: stats.IntervalAndRounds}
	base := &res.Arms[0]
	cs := make([]stats.Comparison, 0, k)
	need := stats.BelowMax(by)
	for j := 1; j < nArms; j++ {
		co.Rounds = roundDiffs(stat, j)
		if fewest < need {
			co.Rounds = nil // no block test: the verdict is too few
		}
		cs = append(cs, stats.Compare(base.samples, res.Arms[j].samples, co))
	}
	stats.AdjustFamily(cs)
	for j := 1; j < nArms; j++ {
		a, c := &res.Arms[j], cs[j-1]
		v := &Verdict{Outcome: outcomeWords[c.Verdict], By: by.String(), Level: c.Level, Diff: c.Interval, MinSamples: c.MinSamples,
			MannWhitney: &c.MWU, PHolm: &c.PAdjusted, Blocks: ptr(blockTest(*c.Rounds, c.RoundsPAdjusted))}
		if c.Interval != nil {
			if b := by.Of(base.samples); b != 0 {
				v.RelChange = c.Interval.Estimate / math.Abs(b)
			}
		}
		if fewest < need {
			v.fewestPerBlock, v.needPerBlock = fewest, need
		}
		a.Verdict = v
		a.Verdict.Text = verdictText(a, base, k)
	}
	return nil
}

// outcomeWords says the engine's verdict in try's words.
var outcomeWords = map[stats.Verdict]Outcome{
	stats.Better:       Better,
	stats.Worse:        Worse,
	stats.NoDifference: NoDifference,
	stats.TooFew:       TooFew,
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

func verdictText(a, base *Arm, k int) string {
	v := a.Verdict
	lvl := stats.FormatLevel(v.Level) // as compare writes a level
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
		if v.needPerBlock > 0 {
			return fmt.Sprintf("%s vs %s: no verdict, too few samples a block for the block test (fewest %d): a block's %s is its maximum below %d; use a longer --block-duration",
				a.Label, base.Label, v.fewestPerBlock, v.By, v.needPerBlock)
		}
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks",
			a.Label, base.Label, b.Rounds, Alpha, minRounds(Alpha, k))
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
			v.RelChange*100, lvl, stats.FormatP(*v.PHolm), holm, rounds, stats.FormatP(b.PHolm), holm)
	}
	d := *v.Diff
	s := fmt.Sprintf("%s vs %s: no difference at %s (%s [%s, %s], %s CI; Mann-Whitney %s%s; blocks: %s, %s%s)",
		a.Label, base.Label, v.By, units.SignedNsFixed(d.Estimate), units.SignedNsFixed(d.Lo), units.SignedNsFixed(d.Hi), lvl,
		stats.FormatP(*v.PHolm), holm, rounds, stats.FormatP(b.PHolm), holm)
	if (d.Hi < 0 || d.Lo > 0) && b.PHolm >= Alpha {
		s += "; the pooled samples differ but the rounds do not agree: drift or noise between blocks, not the setting, can explain it"
	}
	if *v.PHolm < Alpha {
		// Mann-Whitney weighs the whole distributions: "no difference at
		// p50" beside "p < 0.001" read as a contradiction
		s += fmt.Sprintf("; Mann-Whitney finds the distributions differ, somewhere other than their %s", v.By)
	}
	return s
}

// minRounds is the fewest rounds whose block test can reach p < alpha
// when it is one of k Holm-adjusted together (each with as many rounds):
// its smallest p, 2/2^n, times k.
func minRounds(alpha float64, k int) int {
	n := 1
	for float64(k)*2/math.Pow(2, float64(n)) >= alpha {
		n++
	}
	return n
}

func ptr[T any](v T) *T { return &v }

// exactRounds is the most rounds the signed-rank p is computed exactly for.
const exactRounds = stats.ExactSignedRankN

// signedRank is the block test of the per-round differences d
// (stats.SignedRank), before any adjustment.
func signedRank(d []float64) BlockTest { return blockTest(stats.SignedRank(d), 0) }

// blockTest is the document's record of the block test t with its
// Holm-adjusted p.
func blockTest(t stats.SignedRankTest, pHolm float64) BlockTest {
	return BlockTest{Rounds: t.Rounds, Lower: t.Lower, Higher: t.Higher, MedianDiff: t.MedianDiff, P: t.P, PHolm: pHolm, MinP: t.MinP, Method: t.Method}
}

// evidence is what the block test says for a verdict at Alpha, where
// floor is the smallest adjusted p its family can give it
// (stats.HolmFloor).
func (b BlockTest) evidence(floor float64) stats.Evidence {
	t := stats.SignedRankTest{Rounds: b.Rounds, Lower: b.Lower, Higher: b.Higher, MinP: b.MinP}
	return t.Evidence(b.PHolm, floor, Alpha)
}

// MinBlocksOf is the fewest blocks per arm with which the planned
// experiment r can reach a verdict at all: fewer, and every comparison
// ends "no verdict, too few complete rounds". The command says so before
// it measures. A test is made per value (the baseline excepted); a noise
// run over several CPUs by rate has one per value and CPU, and a dpcisr
// run one per value and section the module runs in (DPC and ISR on
// Windows, where a driver's module has both), all Holm-adjusted
// together.
func MinBlocksOf(r *Result) int {
	family := max(1, len(r.Arms)-1)
	switch {
	case r.Probe == ProbeNoise && r.By == ByRate:
		family *= len(r.NoiseCPUList())
	case r.Probe == ProbeDPCISR:
		family *= dpcisrSections
	}
	return minRounds(Alpha, family)
}
