package try

import (
	"fmt"
	"math"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// The noise probe: each block runs latlab noise's measurement (a thread
// pinned to one CPU reading the clock in a loop, probe.Noise) for the
// block's duration. A block keeps the lengths of its interruptions as its
// samples and, in NoiseBlock, their count over the thread's runtime.
//
// Its default verdict (--by rate) is the rate of interruptions: what an
// isolated CPU is bought for is being interrupted less often, and the
// settings try is used on (irq affinity, isolation, timer migration, the
// NMI watchdog, RPS) move interrupts and ticks off a CPU: they change
// how many interruptions there are far more than how long each lasts.
// The lengths' distribution cannot show that: a CPU that loses half its
// ticks has the same p50. The rate is compared as latlab compare compares
// noise results: the counts of each arm's complete blocks pooled over
// their runtimes, an exact test of equal Poisson rates
// (stats.PoissonRates, Holm-adjusted over the values), and, as for every
// probe, the block test over the rounds' differences of the blocks'
// rates. A verdict needs both. --by p50, p99, max or mean compares the
// lengths instead, as the other probes' samples are compared.

// ByRate is the noise probe's --by for its rate of interruptions.
const ByRate = "rate"

// NoiseBlock is what a noise block counted on its CPU.
type NoiseBlock struct {
	CPU       int   `json:"cpu"`
	RuntimeNs int64 `json:"runtime_ns"` // the thread's time in its loop
	// Count is the interruptions of at least the threshold, NoiseNs
	// their summed length, MaxNs the longest; Kept of them are the
	// block's samples (all but when the probe's buffer filled).
	Count        int64   `json:"interruptions"`
	NoiseNs      int64   `json:"noise_ns"`
	MaxNs        int64   `json:"max_single_ns"`
	Kept         int64   `json:"kept"`
	PerSecond    float64 `json:"interruptions_per_s"`
	AvailablePct float64 `json:"available_pct"`
}

// noiseBlock is the block record of a noise thread's outcome.
func noiseBlock(cpu int, th *probe.NoiseThread) *NoiseBlock {
	n := &NoiseBlock{CPU: cpu, RuntimeNs: th.RuntimeNs(), Count: th.Count, NoiseNs: th.TotalNs, MaxNs: th.MaxNs, Kept: int64(len(th.Lengths))}
	if n.RuntimeNs > 0 {
		n.PerSecond = float64(n.Count) * 1e9 / float64(n.RuntimeNs)
		n.AvailablePct = 100 * float64(n.RuntimeNs-n.NoiseNs) / float64(n.RuntimeNs)
	}
	return n
}

// NoiseRate is an arm's interruptions pooled over its complete blocks.
type NoiseRate struct {
	Count        int64   `json:"interruptions"`
	RuntimeNs    int64   `json:"runtime_ns"`
	NoiseNs      int64   `json:"noise_ns"`
	PerSecond    float64 `json:"interruptions_per_s"`
	AvailablePct float64 `json:"available_pct"`
}

// pooledNoise sums an arm's complete noise blocks.
func pooledNoise(res *Result, arm int) NoiseRate {
	var r NoiseRate
	for _, b := range res.Runs {
		if b.Arm != arm || !b.Complete || b.Noise == nil {
			continue
		}
		r.Count += b.Noise.Count
		r.RuntimeNs += b.Noise.RuntimeNs
		r.NoiseNs += b.Noise.NoiseNs
	}
	if r.RuntimeNs > 0 {
		r.PerSecond = float64(r.Count) * 1e9 / float64(r.RuntimeNs)
		r.AvailablePct = 100 * float64(r.RuntimeNs-r.NoiseNs) / float64(r.RuntimeNs)
	}
	return r
}

// analyzeNoiseRate is Analyze for the noise probe by rate: each arm's
// complete blocks pooled and their rates compared with the baseline's
// (exact Poisson test, Holm), and the block test over the blocks' rates.
func analyzeNoiseRate(res *Result) error {
	nArms := len(res.Arms)
	if nArms < 2 {
		return fmt.Errorf("internal: %d arms", nArms)
	}
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
		if b.Noise == nil {
			continue
		}
		if b.Noise.RuntimeNs <= 0 || b.Noise.Count < 0 || b.Noise.Count > b.Noise.RuntimeNs {
			return fmt.Errorf("block %d counts %d interruptions in %d ns: a count is at least 0 and at most the runtime in ns, over a runtime above 0",
				b.Index, b.Noise.Count, b.Noise.RuntimeNs)
		}
		b.Stat = 0 // the block's figure is its Noise.PerSecond, not a time
		if !b.Complete {
			continue
		}
		res.Arms[b.Arm].Complete++
		stat[b.Arm][b.Round] = b.Noise.PerSecond
	}
	k := nArms - 1
	level := 1 - Alpha/float64(k)
	pooled := make([]NoiseRate, nArms)
	lengths := make([][]int64, nArms)
	budget := result.NewBudget()
	for i := range res.Arms {
		pooled[i] = pooledNoise(res, i)
		a := &res.Arms[i]
		a.Summary = nil
		a.Noise = &pooled[i]
		s, err := ArmSamples(res, i, budget)
		if err != nil {
			return err
		}
		if len(s) > 0 {
			sum := stats.Summarize(s)
			a.Summary = &sum
		}
		lengths[i] = s
	}
	base := &res.Arms[0]
	var rateP, blockP, mwP []float64
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := &Verdict{By: ByRate, Level: level}
		pa, pb := pooled[0], pooled[j]
		if pa.RuntimeNs > 0 && pb.RuntimeNs > 0 {
			rt, err := stats.PoissonRates(pa.Count, float64(pa.RuntimeNs)/1e9, pb.Count, float64(pb.RuntimeNs)/1e9, level)
			if err == nil {
				v.Rate = &rt
			}
		}
		v.Blocks = signedRank(roundDiffs(stat, j))
		v.MannWhitney = &stats.MWU{P: 1}
		if m, err := stats.MannWhitney(lengths[0], lengths[j]); err == nil {
			v.MannWhitney = &m
		}
		mwP = append(mwP, v.MannWhitney.P)
		p := 1.0
		if v.Rate != nil {
			p = v.Rate.P
		}
		rateP = append(rateP, p)
		blockP = append(blockP, v.Blocks.P)
		a.Verdict = v
	}
	for i, q := range stats.Holm(rateP) {
		res.Arms[i+1].Verdict.RatePHolm = q
	}
	for i, q := range stats.Holm(mwP) {
		res.Arms[i+1].Verdict.PHolm = &q
	}
	for i, q := range stats.Holm(blockP) {
		res.Arms[i+1].Verdict.Blocks.PHolm = q
	}
	floors := blockFloors(res.Arms[1:])
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		a.Verdict.Outcome = rateOutcome(a.Verdict, floors[j-1])
		if a.Verdict.Rate != nil && pooled[0].PerSecond > 0 {
			a.Verdict.RelChange = pooled[j].PerSecond/pooled[0].PerSecond - 1
		}
		a.Verdict.Text = rateVerdictText(a, base, k)
	}
	return nil
}

// rateOutcome asks for both tests, as Analyze does (stats.Decide): the
// pooled rates differ (exact test, Holm) in the direction of the ratio,
// and the rounds agree. floor is the smallest adjusted p the block test
// can reach (stats.HolmFloor).
func rateOutcome(v *Verdict, floor float64) Outcome {
	pooled := stats.Evidence{}
	if r := v.Rate; r != nil && !math.IsNaN(float64(r.Ratio)) {
		dir := 0
		switch {
		case float64(r.Ratio) < 1:
			dir = -1
		case float64(r.Ratio) > 1:
			dir = 1
		}
		pooled = stats.TestEvidence(v.RatePHolm, Alpha, dir)
	}
	return outcomeWords[stats.Decide(pooled, v.Blocks.evidence(floor))]
}

func rateVerdictText(a, base *Arm, k int) string {
	v := a.Verdict
	holm := ""
	if k > 1 {
		holm = " (Holm)"
	}
	b := v.Blocks
	if v.Rate == nil || a.Noise == nil || base.Noise == nil {
		return fmt.Sprintf("%s vs %s: no verdict, no complete block of one of them", a.Label, base.Label)
	}
	if v.Outcome == TooFew {
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks (%s vs %s interruptions/s)",
			a.Label, base.Label, b.Rounds, Alpha, minRounds(Alpha, k), sig3(a.Noise.PerSecond), sig3(base.Noise.PerSecond))
	}
	r := v.Rate
	rates := fmt.Sprintf("%s vs %s interruptions/s, %.3f%% vs %.3f%% available", sig3(a.Noise.PerSecond), sig3(base.Noise.PerSecond),
		a.Noise.AvailablePct, base.Noise.AvailablePct)
	ratio := fmt.Sprintf("rate ratio %s [%s, %s], %s CI, exact Poisson test %s%s", sig3(float64(r.Ratio)), sig3(r.Lo), sig3(float64(r.Hi)),
		stats.FormatLevel(v.Level), stats.FormatP(v.RatePHolm), holm)
	rounds := fmt.Sprintf("blocks: rate lower in %d of %d rounds, %s%s", b.Lower, b.Rounds, stats.FormatP(b.PHolm), holm)
	switch v.Outcome {
	case Better:
		return fmt.Sprintf("%s is better than %s: fewer interruptions (%s; %s; %s)", a.Label, base.Label, rates, ratio, rounds)
	case Worse:
		rounds = fmt.Sprintf("blocks: rate higher in %d of %d rounds, %s%s", b.Higher, b.Rounds, stats.FormatP(b.PHolm), holm)
		return fmt.Sprintf("%s is worse than %s: more interruptions (%s; %s; %s)", a.Label, base.Label, rates, ratio, rounds)
	}
	s := fmt.Sprintf("%s vs %s: no difference in the rate of interruptions (%s; %s; %s)", a.Label, base.Label, rates, ratio, rounds)
	if v.RatePHolm < Alpha && b.PHolm >= Alpha {
		s += "; the pooled counts differ but the rounds do not agree: drift or noise between blocks, not the setting, can explain it"
	}
	return s
}

// sig3 is x with three significant digits (all its integer digits from
// 1000 on, never an exponent), "inf" for +Inf.
func sig3(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsNaN(x):
		return "n/a"
	case math.Abs(x) >= 1000:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// FormatRate is a rate of interruptions per second as try prints it.
func FormatRate(x float64) string { return sig3(x) + "/s" }
