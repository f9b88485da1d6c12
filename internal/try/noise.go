package try

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// The noise probe: each block runs latlab noise's measurement (a thread
// pinned to each CPU given, reading the clock in a loop, probe.Noise) for
// the block's duration. A block keeps the lengths of its interruptions
// (on all its CPUs) as its samples and, in a NoiseBlock per CPU, their
// count over the thread's runtime.
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
// lengths instead, as the other probes' samples are compared (on one CPU
// only).
//
// Over several CPUs each value gets a rate verdict per CPU, every (value,
// CPU) test in one Holm family: a setting that quiets one CPU of eight by
// chance is then no more likely to pass than on one CPU alone.

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

// NoiseCPURate is an arm's interruptions on one CPU of a run over
// several, pooled over its complete blocks.
type NoiseCPURate struct {
	CPU int `json:"cpu"`
	NoiseRate
}

// NoiseCPUVerdict is a value against the baseline on one CPU of a noise
// run over several CPUs: the rate verdict of a one-CPU run, with its
// p-values Holm-adjusted over every (value, CPU) test of the run.
type NoiseCPUVerdict struct {
	CPU     int     `json:"cpu"`
	Outcome Outcome `json:"outcome"`
	// Rate is the exact test of equal rates over the pooled complete
	// blocks, with the interval of the ratio at the verdict's Level.
	Rate      *stats.RateTest `json:"rate,omitempty"`
	RatePHolm float64         `json:"rate_p_holm"`
	// RelChange is the value's rate over the baseline's, less 1.
	RelChange float64   `json:"rel_change"`
	Blocks    BlockTest `json:"block_test"`
	Text      string    `json:"text"`
}

// NoiseCPUList is the CPUs the noise probe measured, in the order of each
// block's records.
func (r *Result) NoiseCPUList() []int {
	if len(r.NoiseCPUs) > 0 {
		return r.NoiseCPUs
	}
	return []int{r.OneNoiseCPU()}
}

// OneNoiseCPU is the CPU of a noise run over one (0 when the document
// does not say: before it said so, CPU 0 was left out).
func (r *Result) OneNoiseCPU() int {
	if r.NoiseCPU == nil {
		return 0
	}
	return *r.NoiseCPU
}

// noiseRecords is what a noise block counted, one record per CPU in the
// run's order (none when the block has none).
func (b *Block) noiseRecords() []NoiseBlock {
	if b.Noise != nil {
		return []NoiseBlock{*b.Noise}
	}
	return b.NoiseCPUs
}

// NoiseRate is a noise block's interruptions per second of the thread's
// runtime, over all its CPUs: with several, per CPU-second. ok is false
// for a block that counted nothing.
func (b *Block) NoiseRate() (float64, bool) {
	var n, rt int64
	for _, c := range b.noiseRecords() {
		n, rt = n+c.Count, rt+c.RuntimeNs
	}
	if rt <= 0 {
		return 0, false
	}
	return float64(n) * 1e9 / float64(rt), true
}

// pooledNoise sums an arm's complete noise blocks on the CPU of index c
// in the blocks' records.
func pooledNoise(res *Result, arm, c int) NoiseRate {
	var r NoiseRate
	for i := range res.Runs {
		b := &res.Runs[i]
		rec := b.noiseRecords()
		if b.Arm != arm || !b.Complete || c >= len(rec) {
			continue
		}
		r.Count += rec[c].Count
		r.RuntimeNs += rec[c].RuntimeNs
		r.NoiseNs += rec[c].NoiseNs
	}
	if r.RuntimeNs > 0 {
		r.PerSecond = float64(r.Count) * 1e9 / float64(r.RuntimeNs)
		r.AvailablePct = 100 * float64(r.RuntimeNs-r.NoiseNs) / float64(r.RuntimeNs)
	}
	return r
}

// rateTest is one value against the baseline on one CPU, before and
// after the Holm adjustment over the run's family.
type rateTest struct {
	rate       *stats.RateTest
	pHolm      float64
	blocks     BlockTest
	floor      float64
	outcome    Outcome
	base, valu NoiseRate
}

// analyzeNoiseRate is Analyze for the noise probe by rate: on each CPU,
// each arm's complete blocks pooled and their rates compared with the
// baseline's (exact Poisson test), and the block test over the blocks'
// rates; Holm over every (value, CPU) test, so that the family's error
// stays at Alpha however many CPUs are measured. A run over one CPU
// fills the verdict itself; one over several, a verdict per CPU
// (NoiseCPUs) under a verdict that sums them up.
func analyzeNoiseRate(res *Result) error {
	nArms := len(res.Arms)
	if nArms < 2 {
		return fmt.Errorf("internal: %d arms", nArms)
	}
	cpus := res.NoiseCPUList()
	nCPU := len(cpus)
	// stat[c][arm][round] is a complete block's rate on CPU index c.
	stat := make([][]map[int]float64, nCPU)
	for c := range stat {
		stat[c] = make([]map[int]float64, nArms)
		for i := range stat[c] {
			stat[c][i] = map[int]float64{}
		}
	}
	for i := range res.Arms {
		res.Arms[i].Complete = 0
	}
	for i := range res.Runs {
		b := &res.Runs[i]
		if b.Arm < 0 || b.Arm >= nArms {
			return fmt.Errorf("block %d names arm %d of %d", b.Index, b.Arm, nArms)
		}
		rec := b.noiseRecords()
		if len(rec) == 0 {
			continue
		}
		if len(rec) != nCPU {
			return fmt.Errorf("block %d has the counts of %d CPU(s): the run measures CPUs %s", b.Index, len(rec), CPUWords(cpus))
		}
		for c, n := range rec {
			if n.CPU != cpus[c] {
				return fmt.Errorf("block %d counts on CPU %d where the run measures CPU %d", b.Index, n.CPU, cpus[c])
			}
			if n.RuntimeNs <= 0 || n.Count < 0 || n.Count > n.RuntimeNs {
				return fmt.Errorf("block %d counts %d interruptions in %d ns: a count is at least 0 and at most the runtime in ns, over a runtime above 0",
					b.Index, n.Count, n.RuntimeNs)
			}
		}
		b.Stat = 0 // the block's figure is its rate, not a time
		if !b.Complete {
			continue
		}
		res.Arms[b.Arm].Complete++
		for c, n := range rec {
			stat[c][b.Arm][b.Round] = n.PerSecond
		}
	}
	k := nArms - 1
	family := k * nCPU
	level := 1 - Alpha/float64(family)
	// pooled[c][arm]
	pooled := make([][]NoiseRate, nCPU)
	for c := range pooled {
		pooled[c] = make([]NoiseRate, nArms)
		for i := range pooled[c] {
			pooled[c][i] = pooledNoise(res, i, c)
		}
	}
	lengths := make([][]int64, nArms)
	budget := result.NewBudget()
	for i := range res.Arms {
		a := &res.Arms[i]
		a.Summary, a.Noise, a.NoiseCPUs = nil, nil, nil
		if nCPU == 1 {
			a.Noise = &pooled[0][i]
		} else {
			for c, cpu := range cpus {
				a.NoiseCPUs = append(a.NoiseCPUs, NoiseCPURate{CPU: cpu, NoiseRate: pooled[c][i]})
			}
		}
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
	// tests[j-1][c], and the family's p-values in that order.
	tests := make([][]rateTest, k)
	var rateP, blockP, minP []float64
	for j := 1; j < nArms; j++ {
		tests[j-1] = make([]rateTest, nCPU)
		for c := range cpus {
			t := &tests[j-1][c]
			t.base, t.valu = pooled[c][0], pooled[c][j]
			if t.base.RuntimeNs > 0 && t.valu.RuntimeNs > 0 {
				rt, err := stats.PoissonRates(t.base.Count, float64(t.base.RuntimeNs)/1e9, t.valu.Count, float64(t.valu.RuntimeNs)/1e9, level)
				if err == nil {
					t.rate = &rt
				}
			}
			t.blocks = signedRank(roundDiffs(stat[c], j))
			p := 1.0
			if t.rate != nil {
				p = t.rate.P
			}
			rateP = append(rateP, p)
			blockP = append(blockP, t.blocks.P)
			minP = append(minP, t.blocks.MinP)
		}
	}
	rateQ, blockQ, floors := stats.Holm(rateP), stats.Holm(blockP), stats.HolmFloor(minP)
	for j := range tests {
		for c := range tests[j] {
			t, i := &tests[j][c], j*nCPU+c
			t.pHolm, t.blocks.PHolm, t.floor = rateQ[i], blockQ[i], floors[i]
			t.outcome = rateOutcome(t.rate, t.pHolm, t.blocks, t.floor)
		}
	}
	// The lengths, reported beside on one CPU: Mann-Whitney over the
	// values (a run over several CPUs pools its lengths over them, and
	// compares none).
	var mw []stats.MWU
	if nCPU == 1 {
		var mwP []float64
		for j := 1; j < nArms; j++ {
			m := stats.MWU{P: 1}
			if r, err := stats.MannWhitney(lengths[0], lengths[j]); err == nil {
				m = r
			}
			mw = append(mw, m)
			mwP = append(mwP, m.P)
		}
		mwQ := stats.Holm(mwP)
		for j := 1; j < nArms; j++ {
			t := tests[j-1][0]
			a := &res.Arms[j]
			q := mwQ[j-1]
			v := &Verdict{By: ByRate, Level: level, Rate: t.rate, RatePHolm: t.pHolm, Blocks: ptr(t.blocks), MannWhitney: &mw[j-1], PHolm: &q, Outcome: t.outcome}
			if t.rate != nil && t.base.PerSecond > 0 {
				v.RelChange = t.valu.PerSecond/t.base.PerSecond - 1
			}
			a.Verdict = v
			v.Text = rateVerdictText(a.Label, res.Arms[0].Label, t, v.Level, k)
		}
		return nil
	}
	base := &res.Arms[0]
	for j := 1; j < nArms; j++ {
		a := &res.Arms[j]
		v := &Verdict{By: ByRate, Level: level}
		var all [2]NoiseRate // the baseline's and the value's, over every CPU
		for c, cpu := range cpus {
			t := tests[j-1][c]
			cv := NoiseCPUVerdict{CPU: cpu, Outcome: t.outcome, Rate: t.rate, RatePHolm: t.pHolm, Blocks: t.blocks}
			if t.rate != nil && t.base.PerSecond > 0 {
				cv.RelChange = t.valu.PerSecond/t.base.PerSecond - 1
			}
			cv.Text = fmt.Sprintf("CPU %d: %s", cpu, rateVerdictText(a.Label, base.Label, t, level, family))
			v.NoiseCPUs = append(v.NoiseCPUs, cv)
			for x, r := range []NoiseRate{t.base, t.valu} {
				all[x].Count += r.Count
				all[x].RuntimeNs += r.RuntimeNs
			}
		}
		if all[0].Count > 0 && all[0].RuntimeNs > 0 && all[1].RuntimeNs > 0 {
			v.RelChange = float64(all[1].Count)*float64(all[0].RuntimeNs)/(float64(all[0].Count)*float64(all[1].RuntimeNs)) - 1
		}
		v.Outcome = noiseSummaryOutcome(v.NoiseCPUs)
		a.Verdict = v
		v.Text = noiseSummaryText(a.Label, base.Label, v.NoiseCPUs, k)
	}
	return nil
}

// noiseSummaryOutcome is a value's outcome over the CPUs of a run: better
// when it is better on some CPU and worse on none, worse the other way
// round, mixed when better on some and worse on others; too few when no
// CPU could have a verdict, no difference otherwise.
func noiseSummaryOutcome(cs []NoiseCPUVerdict) Outcome {
	return summaryOutcome(cs, func(c NoiseCPUVerdict) Outcome { return c.Outcome })
}

// summaryOutcome is the outcome of a value over its parts (CPUs, a
// module's sections), each part's outcome given by of: better when better
// in one and worse in none, mixed when better in one and worse in
// another, too few when no part could have a verdict, no difference
// otherwise.
func summaryOutcome[T any](parts []T, of func(T) Outcome) Outcome {
	n := map[Outcome]int{}
	for _, p := range parts {
		n[of(p)]++
	}
	switch {
	case n[Better] > 0 && n[Worse] > 0:
		return Mixed
	case n[Better] > 0:
		return Better
	case n[Worse] > 0:
		return Worse
	case n[TooFew] == len(parts):
		return TooFew
	}
	return NoDifference
}

// noiseSummaryText is the verdict line of a value over several CPUs: on
// how many it is better and worse, which, and the family of the Holm
// adjustment; the evidence is in each CPU's own text.
func noiseSummaryText(label, base string, cs []NoiseCPUVerdict, k int) string {
	on := map[Outcome][]string{}
	for _, c := range cs {
		on[c.Outcome] = append(on[c.Outcome], strconv.Itoa(c.CPU))
	}
	n := len(cs)
	where := func(o Outcome) string {
		l := on[o]
		switch len(l) {
		case 0:
			return "none"
		case 1:
			return "CPU " + l[0]
		}
		return fmt.Sprintf("%d of %d CPUs (%s)", len(l), n, strings.Join(l, ", "))
	}
	family := fmt.Sprintf("Holm over %d CPUs", n)
	if k > 1 {
		family = fmt.Sprintf("Holm over %d values x %d CPUs", k, n)
	}
	var head string
	switch o := noiseSummaryOutcome(cs); o {
	case Better:
		head = fmt.Sprintf("%s is better than %s: fewer interruptions on %s, more on none", label, base, where(Better))
	case Worse:
		head = fmt.Sprintf("%s is worse than %s: more interruptions on %s, fewer on none", label, base, where(Worse))
	case Mixed:
		head = fmt.Sprintf("%s vs %s: mixed, fewer interruptions on %s, more on %s", label, base, where(Better), where(Worse))
	case TooFew:
		return fmt.Sprintf("%s vs %s: no verdict on any of %d CPUs, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d (%s); use more --blocks",
			label, base, n, cs[0].Blocks.Rounds, Alpha, minRounds(Alpha, k*n), family)
	default:
		head = fmt.Sprintf("%s vs %s: no difference in the rate of interruptions on any of %d CPUs", label, base, n)
	}
	var rest []string
	for _, o := range []Outcome{NoDifference, TooFew} {
		if len(on[o]) > 0 && len(on[o]) < n {
			words := string(o)
			if o == TooFew {
				words = "no verdict"
			}
			rest = append(rest, fmt.Sprintf("%s on %s", words, where(o)))
		}
	}
	if len(rest) > 0 {
		head += "; " + strings.Join(rest, ", ")
	}
	return head + " (" + family + ")"
}

// rateOutcome asks for both tests, as Analyze does (stats.Decide): the
// pooled rates differ (exact test, Holm-adjusted p pHolm) in the
// direction of the ratio, and the rounds agree. floor is the smallest
// adjusted p the block test can reach (stats.HolmFloor).
func rateOutcome(r *stats.RateTest, pHolm float64, b BlockTest, floor float64) Outcome {
	pooled := stats.Evidence{}
	if r != nil && !math.IsNaN(float64(r.Ratio)) {
		dir := 0
		switch {
		case float64(r.Ratio) < 1:
			dir = -1
		case float64(r.Ratio) > 1:
			dir = 1
		}
		pooled = stats.TestEvidence(pHolm, Alpha, dir)
	}
	return outcomeWords[stats.Decide(pooled, b.evidence(floor))]
}

// rateVerdictText is a value's rate verdict against the baseline on one
// CPU, t the tests, level the interval's confidence, k the number of
// tests Holm adjusted together.
func rateVerdictText(label, base string, t rateTest, level float64, k int) string {
	holm := ""
	if k > 1 {
		holm = " (Holm)"
	}
	b := t.blocks
	if t.rate == nil || t.base.RuntimeNs == 0 || t.valu.RuntimeNs == 0 {
		return fmt.Sprintf("%s vs %s: no verdict, no complete block of one of them", label, base)
	}
	if t.outcome == TooFew {
		return fmt.Sprintf("%s vs %s: no verdict, too few complete rounds (%d): the block test cannot reach p < %.2f with fewer than %d; use more --blocks (%s vs %s interruptions/s)",
			label, base, b.Rounds, Alpha, minRounds(Alpha, k), sig3(t.valu.PerSecond), sig3(t.base.PerSecond))
	}
	r := t.rate
	rates := fmt.Sprintf("%s vs %s interruptions/s, %.3f%% vs %.3f%% available", sig3(t.valu.PerSecond), sig3(t.base.PerSecond),
		t.valu.AvailablePct, t.base.AvailablePct)
	ratio := fmt.Sprintf("rate ratio %s [%s, %s], %s CI, exact Poisson test %s%s", sig3(float64(r.Ratio)), sig3(r.Lo), sig3(float64(r.Hi)),
		stats.FormatLevel(level), stats.FormatP(t.pHolm), holm)
	rounds := fmt.Sprintf("blocks: rate lower in %d of %d rounds, %s%s", b.Lower, b.Rounds, stats.FormatP(b.PHolm), holm)
	switch t.outcome {
	case Better:
		return fmt.Sprintf("%s is better than %s: fewer interruptions (%s; %s; %s)", label, base, rates, ratio, rounds)
	case Worse:
		rounds = fmt.Sprintf("blocks: rate higher in %d of %d rounds, %s%s", b.Higher, b.Rounds, stats.FormatP(b.PHolm), holm)
		return fmt.Sprintf("%s is worse than %s: more interruptions (%s; %s; %s)", label, base, rates, ratio, rounds)
	}
	s := fmt.Sprintf("%s vs %s: no difference in the rate of interruptions (%s; %s; %s)", label, base, rates, ratio, rounds)
	if t.pHolm < Alpha && b.PHolm >= Alpha {
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
