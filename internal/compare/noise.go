package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// A noise result holds, per CPU, a count of interruptions over the
// thread's runtime and the lengths of the interruptions kept: two
// questions, compared each its own way. The counts are events over an
// exposure, compared as Poisson rates (stats.PoissonRates, exact); the
// lengths are a distribution, compared as every other kind's samples
// are (bootstrap interval of --by, Mann-Whitney, Kolmogorov-Smirnov,
// stats.MinSamples). The share available is one number per run, shown
// side by side and not tested.

// NoiseCPU is the comparison of one CPU across the noise results.
type NoiseCPU struct {
	CPU   int         `json:"cpu"`
	Runs  []NoiseRun  `json:"runs"`  // one per input, in the order given
	Pairs []NoisePair `json:"pairs"` // each later run against the first
	// CensoredAtNs is, when an rtla osnoise histogram's column of the CPU
	// has occurrences in its "over:" row, the smallest such range: every
	// run's lengths at or above it are compared as not known.
	CensoredAtNs int64 `json:"censored_at_ns,omitempty"`
}

// NoiseRun is one result's figures for a CPU (probe.NoiseCPU's).
type NoiseRun struct {
	Label        string  `json:"label"`
	RuntimeNs    int64   `json:"runtime_ns"`
	NoiseNs      int64   `json:"noise_ns"`
	AvailablePct float64 `json:"available_pct"`
	Count        int64   `json:"interruptions"`
	PerSecond    float64 `json:"interruptions_per_s"`
	MaxNs        int64   `json:"max_single_ns"`
	// Lengths summarises the lengths compared: the kept interruptions
	// (Kept of Count), rebuilt from the histogram when Reconstructed;
	// absent when the document stores neither (LengthsMissing).
	Kept           int64          `json:"kept"`
	Lengths        *stats.Summary `json:"lengths,omitempty"`
	Reconstructed  bool           `json:"reconstructed_from_histogram,omitempty"`
	LengthsMissing bool           `json:"lengths_missing,omitempty"`
	// RTLA says the run was read from rtla osnoise hist output: its
	// runtime, noise and share available are not known (0), MaxNs is
	// rtla's max: (its bucket's lower bound), and its lengths are at
	// their 1 µs buckets' middles (Reconstructed). Absent says the file
	// names no column for the CPU: rtla names only CPUs with a noise
	// occurrence.
	RTLA   bool `json:"rtla_osnoise_hist,omitempty"`
	Absent bool `json:"absent,omitempty"`
	// Serial is the dependence of the lengths in measurement order;
	// absent when they have none (stats.Serial, RunSummary.Serial).
	Serial *stats.Serial `json:"serial,omitempty"`
	// Censored is how many of its lengths are at or above the CPU's
	// CensoredAtNs.
	Censored int64 `json:"censored,omitempty"`
	samples  []int64
	ordered  []int64
	rangeNs  int64 // an rtla column's range when it has overflows
}

// NoisePair compares run B of a CPU with run A, the first.
type NoisePair struct {
	A      int    `json:"-"`
	B      int    `json:"-"`
	ALabel string `json:"a"`
	BLabel string `json:"b"`
	// Rate is the exact test of equal rates of interruptions over the
	// runtimes and the interval of B's rate over A's, at Result.Level;
	// RatePHolm its p Holm-adjusted over every CPU and pair.
	Rate      stats.RateTest `json:"rate"`
	RatePHolm float64        `json:"rate_p_holm"`
	// RateOutcome is fewer or more (the interval excludes 1), no
	// detectable difference, or not compared when a run has no runtime
	// (an rtla osnoise histogram's): RateNote then says why, Rate holds
	// only the counts (its ratio and upper bound NaN, its p and RatePHolm
	// 1), and the Holm adjustment is over the rates compared.
	RateOutcome string `json:"rate_outcome"`
	RateNote    string `json:"rate_note,omitempty"`
	// Lengths compares the lengths of the interruptions by Result.By;
	// absent when a run has none to compare (LengthsNote says why).
	Lengths     *Pair  `json:"lengths,omitempty"`
	LengthsNote string `json:"lengths_note,omitempty"`
	Verdict     string `json:"verdict"`
}

// Rate outcomes.
const (
	Fewer       = "fewer"
	More        = "more"
	NotCompared = "not compared"
)

// maxNoiseRuntime bounds the runtime of a CPU in a noise document: twice
// the longest run latlab noise makes, room for its elapsed time.
const maxNoiseRuntime = 2 * int64(probe.MaxNoiseDuration)

// maxNoiseArmRuntime bounds it in an arm of a try, its blocks pooled:
// twice the longest arm latlab try runs, 1000 blocks of an hour
// (try.MaxBlocks and try.MaxBlockDuration; try imports compare).
const maxNoiseArmRuntime = 2 * 1000 * int64(time.Hour)

func isNoise(kind string) bool { return kind == probe.KindNoise.Name() || kind == OsnoiseKind }

// noiseCompatible refuses noise results measured differently: another
// threshold counts other interruptions, and other CPUs are other
// questions.
func noiseCompatible(in []Input) error {
	for _, x := range in {
		if len(x.More) > 0 {
			return fmt.Errorf("%w: %s groups %d results, but noise results are compared one file per side", ErrIncompatible, x.Label, len(x.More)+1)
		}
	}
	// rtla osnoise histograms name the CPUs with noise, not those
	// measured, and record no threshold: the noise results are checked
	// among themselves, the histograms matched to them by CPU number.
	var docs []Input
	for _, x := range in {
		if !isOsnoise(x) {
			docs = append(docs, x)
		}
	}
	if len(docs) == 0 {
		if len(osnoiseCPUs(in)) == 0 {
			return fmt.Errorf("%w: no CPU had a noise occurrence in any of the rtla osnoise histograms: nothing to compare", ErrIncompatible)
		}
		return nil
	}
	in = docs
	a, ok := probe.KindNoise.Of(in[0].Doc)
	if !ok {
		return fmt.Errorf("%w: %s: a noise result without its data", ErrIncompatible, in[0].Label)
	}
	for _, x := range in {
		d, ok := probe.KindNoise.Of(x.Doc)
		if !ok {
			return fmt.Errorf("%w: %s: a noise result without its data", ErrIncompatible, x.Label)
		}
		c := noiseCPUs(d)
		for i := 1; i < len(c); i++ {
			if c[i] == c[i-1] {
				return fmt.Errorf("%w: %s lists CPU %d twice: a noise result has one entry per CPU measured", ErrIncompatible, x.Label, c[i])
			}
		}
	}
	for _, x := range in[1:] {
		b, ok := probe.KindNoise.Of(x.Doc)
		if !ok {
			return fmt.Errorf("%w: %s: a noise result without its data", ErrIncompatible, x.Label)
		}
		if ta, tb := a.Measurement.ThresholdNs, b.Measurement.ThresholdNs; ta != tb {
			return fmt.Errorf("%w: %s counted interruptions of at least %s and %s of at least %s: compare runs with the same --threshold",
				ErrIncompatible, in[0].Label, units.Ns(ta), x.Label, units.Ns(tb))
		}
		if ca, cb := noiseCPUs(a), noiseCPUs(b); !slices.Equal(ca, cb) || len(ca) == 0 {
			return fmt.Errorf("%w: %s measured CPUs %s and %s CPUs %s: compare runs of the same --cpus",
				ErrIncompatible, in[0].Label, cpuList(ca), x.Label, cpuList(cb))
		}
	}
	return nil
}

// noiseCPUs lists the CPUs a document measured, ascending.
func noiseCPUs(d *probe.NoiseData) []int {
	out := make([]int, 0, len(d.CPUs))
	for _, c := range d.CPUs {
		out = append(out, c.CPU)
	}
	slices.Sort(out)
	return out
}

func cpuList(c []int) string {
	if len(c) == 0 {
		return "(none)"
	}
	s := ""
	for i, x := range c {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(x)
	}
	return s
}

// compareNoise compares noise results CPU by CPU. The family is every
// CPU of every pair: the intervals are at 1 - alpha/family (Bonferroni),
// the p-values Holm-adjusted over it.
func compareNoise(in []Input, o Options) (*Result, error) {
	cpus := osnoiseCPUs(in)
	k := len(in) - 1
	family := k * len(cpus)
	if family == 0 {
		return nil, fmt.Errorf("%w: %s measured no CPU", ErrIncompatible, in[0].Label)
	}
	level := 1 - o.Alpha/float64(family)
	reps := o.Replicates
	if reps <= 0 {
		reps = stats.ReplicatesFor(level, 2000)
	}
	res := &Result{Kind: in[0].Doc.Kind, Quantity: Quantity(in[0].Doc.Kind), By: o.By.String(), Level: level, Seed: o.Seed,
		Quantile: result.PercentileDefinition, Pairs: []Pair{}, Ranking: []int{}}
	for _, x := range in {
		if d, ok := probe.KindNoise.Of(x.Doc); ok {
			res.NoiseThresholdNs = d.Measurement.ThresholdNs
			break
		}
	}
	if slices.ContainsFunc(in, isOsnoise) {
		// every side has a run of each CPU, an absent one included
		for _, c := range cpus {
			res.Noise = append(res.Noise, NoiseCPU{CPU: c})
		}
	}
	missing := map[string]bool{}
	for _, x := range in {
		res.Runs = append(res.Runs, RunSummary{Label: x.Label, Settings: distinguishing(x.Doc, in[0].Doc)})
		if on, ok := x.Doc.Data.(*Osnoise); ok {
			for ci, c := range cpus {
				r, err := osnoiseRun(x.Label, on.File, c, o.Budget)
				var be *result.BudgetError
				switch {
				case errors.As(err, &be):
					return nil, badinput.Errorf("%s: %w", x.Label, err)
				case err != nil:
					return nil, fmt.Errorf("%w: %v", ErrIncompatible, err)
				}
				res.Noise[ci].Runs = append(res.Noise[ci].Runs, r)
			}
			res.Notes = append(res.Notes, osnoiseNotes(x.Label, on.File, cpus)...)
			continue
		}
		d, _ := probe.KindNoise.Of(x.Doc)
		if d.Interrupted {
			res.Notes = append(res.Notes, fmt.Sprintf("%s was interrupted: its figures cover the time measured until then", x.Label))
		}
		if st := d.StoppedAbove; st != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s was stopped by --stop-above %s at %s (CPU %d): its figures cover the time measured until then",
				x.Label, units.FlagDuration(time.Duration(st.ThresholdNs)), units.NsShort(float64(st.Sample.AtNs)), st.Sample.CPU))
		}
		for _, c := range d.CPUs {
			limit, what := maxNoiseRuntime, "a noise run's runtime"
			if x.Arm {
				limit, what = maxNoiseArmRuntime, "the runtime of a try's arm"
			}
			if c.RuntimeNs <= 0 || c.RuntimeNs > limit {
				return nil, fmt.Errorf("%w: %s: CPU %d spun %d ns: %s is above 0 and at most %d hours", ErrIncompatible, x.Label, c.CPU, c.RuntimeNs, what, limit/int64(time.Hour))
			}
			// Every interruption lasts at least 1 ns, so there are no more
			// of them than nanoseconds of runtime.
			if c.Count < 0 || c.Kept < 0 || c.Kept > c.Count || c.Count > c.RuntimeNs || c.NoiseNs < 0 {
				return nil, fmt.Errorf("%w: %s: CPU %d counts %d interruptions, %d kept, in %d ns: a count is at least 0 and at most the runtime in ns, kept at most the count",
					ErrIncompatible, x.Label, c.CPU, c.Count, c.Kept, c.RuntimeNs)
			}
			ci := slices.IndexFunc(res.Noise, func(n NoiseCPU) bool { return n.CPU == c.CPU })
			if ci < 0 {
				ci = len(res.Noise)
				res.Noise = append(res.Noise, NoiseCPU{CPU: c.CPU})
			}
			r := NoiseRun{Label: x.Label, RuntimeNs: c.RuntimeNs, NoiseNs: c.NoiseNs, AvailablePct: c.AvailablePct, Count: c.Count,
				PerSecond: c.PerSecond, MaxNs: c.MaxNs, Kept: c.Kept}
			s, raw, err := c.Lengths(o.Budget)
			var be *result.BudgetError
			switch {
			case errors.As(err, &be):
				return nil, badinput.Errorf("%s: %w", x.Label, err)
			case errors.Is(err, result.ErrNoDistribution) && c.Kept == 0:
				// No interruption kept: nothing to store.
				sum := stats.Summary{}
				r.Lengths = &sum
			case errors.Is(err, result.ErrNoDistribution):
				r.LengthsMissing = true
				missing[x.Label] = true
			case err != nil:
				return nil, fmt.Errorf("%w: %s: %v", ErrIncompatible, x.Label, err)
			default:
				if raw && !x.Arm && c.SamplesInOrder() {
					r.ordered = s // the document's, never changed
				}
				s = slices.Clone(s)
				slices.Sort(s)
				sum := stats.SummarizeSorted(s)
				r.Lengths, r.samples, r.Reconstructed = &sum, s, !raw
			}
			res.Noise[ci].Runs = append(res.Noise[ci].Runs, r)
		}
	}
	for _, x := range in {
		why := x.NoLengths
		if why == "" {
			why = "a noise result written before they were kept"
		}
		if missing[x.Label] {
			res.Notes = append(res.Notes, fmt.Sprintf("%s stores no lengths of its interruptions (%s): their rates are compared, their lengths are not", x.Label, why))
		}
	}
	for ci := range res.Noise {
		res.Notes = append(res.Notes, onBuckets(&res.Noise[ci])...)
	}
	boot := stats.Bootstrap{Seed: o.Seed, Replicates: reps, Level: level}
	co := stats.CompareOptions{By: o.By, Alpha: o.Alpha, Family: family, Seed: o.Seed, Replicates: reps, Rule: stats.IntervalAlone}
	var rateP []float64
	var cs []stats.Comparison
	var at [][2]int // the CPU and pair of each of cs
	// lengths compares the lengths of run j of CPU ci with the first's,
	// or says in p why not.
	lengths := func(p *NoisePair, ci, j int) {
		c := &res.Noise[ci]
		a, b := c.Runs[0], c.Runs[j]
		switch {
		case a.LengthsMissing || b.LengthsMissing:
			p.LengthsNote = "not compared: " + pickLabel(a, b) + " stores no lengths"
		case a.Absent || b.Absent:
			p.LengthsNote = "not compared: " + absentLabel(a, b) + " no column for CPU " + strconv.Itoa(c.CPU) + " (no noise occurrence there, or not measured)"
		case len(a.samples) == 0 || len(b.samples) == 0:
			p.LengthsNote = "not compared: " + noneLabel(a, b) + " no interruption"
		default:
			co.OrderedA, co.OrderedB = a.ordered, b.ordered
			cs = append(cs, stats.Compare(a.samples, b.samples, co))
			at = append(at, [2]int{ci, j - 1})
			c.Runs[0].Serial, c.Runs[j].Serial = cs[len(cs)-1].SerialA, cs[len(cs)-1].SerialB
		}
	}
	for ci := range res.Noise {
		c := &res.Noise[ci]
		a := c.Runs[0]
		for j := 1; j < len(c.Runs); j++ {
			b := c.Runs[j]
			if a.RTLA || b.RTLA {
				p := NoisePair{A: 0, B: j, ALabel: a.Label, BLabel: b.Label, Rate: notRated(a, b, level), RatePHolm: 1,
					RateOutcome: NotCompared, RateNote: osnoiseRateNote}
				lengths(&p, ci, j)
				c.Pairs = append(c.Pairs, p)
				continue
			}
			rt, err := stats.PoissonRates(a.Count, float64(a.RuntimeNs)/1e9, b.Count, float64(b.RuntimeNs)/1e9, level)
			if err != nil {
				return nil, fmt.Errorf("%w: CPU %d: %v", ErrIncompatible, c.CPU, err)
			}
			p := NoisePair{A: 0, B: j, ALabel: a.Label, BLabel: b.Label, Rate: rt, RateOutcome: string(NoDifference)}
			switch {
			case rt.Lo > 1:
				p.RateOutcome = More
			case rt.Hi < 1:
				p.RateOutcome = Fewer
			}
			rateP = append(rateP, rt.P)
			lengths(&p, ci, j)
			c.Pairs = append(c.Pairs, p)
		}
	}
	holm := stats.Holm(rateP)
	stats.AdjustFamily(cs)
	for i, x := range at {
		c := &res.Noise[x[0]]
		a, b := c.Runs[0], c.Runs[x[1]+1]
		ra := RunSummary{Label: a.Label, samples: a.samples, ordered: a.ordered, By: o.By.Of(a.samples), Censored: a.Censored}
		rb := RunSummary{Label: b.Label, samples: b.samples, ordered: b.ordered, By: o.By.Of(b.samples), Censored: b.Censored}
		lp := comparePair(ra, rb, cs[i], boot, o)
		unknownRows(&lp, ra, rb, c.CensoredAtNs, o.By)
		lp.A, lp.B = 0, x[1]+1
		c.Pairs[x[1]].Lengths = &lp
	}
	i := 0
	for ci := range res.Noise {
		c := &res.Noise[ci]
		for j := range c.Pairs {
			if c.Pairs[j].RateOutcome == NotCompared {
				c.Pairs[j].Verdict = osnoiseVerdict(c.CPU, c.Runs[0], c.Runs[j+1], c.Pairs[j], level)
				continue
			}
			c.Pairs[j].RatePHolm = holm[i]
			i++
			c.Pairs[j].Verdict = noiseVerdict(c.CPU, c.Runs[0], c.Runs[j+1], c.Pairs[j], level)
		}
	}
	for _, c := range res.Noise {
		for _, r := range c.Runs {
			if r.Serial != nil && r.Serial.Dependent {
				res.Notes = append(res.Notes, serialNote(fmt.Sprintf("%s, CPU %d", r.Label, c.CPU), "interruptions", int64(len(r.samples)), r.Serial))
			}
		}
	}
	for _, x := range in {
		d, ok := probe.KindNoise.Of(x.Doc)
		if !ok {
			continue // an rtla osnoise histogram: osnoiseNotes
		}
		for _, c := range d.CPUs {
			if c.Kept < c.Count {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: CPU %d kept %d of its %d interruptions: their lengths are compared on those; the rate counts all", x.Label, c.CPU, c.Kept, c.Count))
			}
		}
	}
	for _, x := range in {
		for _, r := range res.Noise[0].Runs {
			if r.Label == x.Label && r.Reconstructed && !r.RTLA {
				res.Notes = append(res.Notes, fmt.Sprintf("%s stores no raw lengths: they are reconstructed from its histograms (0.1%% precision), which keep no order, so they are compared as independent samples", x.Label))
			}
		}
	}
	if len(rateP) > 0 {
		res.Notes = append(res.Notes, "interruptions are compared as Poisson counts over each thread's runtime (exact conditional test, Clopper-Pearson interval of the rate ratio): events independent at a constant rate; a periodic tick is not Poisson, so there the test is approximate")
	}
	if family > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d comparisons (CPUs x runs against %s): each interval is at the %s level (Bonferroni) so that all hold together at 95%%; p-values are Holm-adjusted", family, res.Runs[0].Label, stats.FormatLevel(level)))
	}
	return res, nil
}

func pickLabel(a, b NoiseRun) string {
	if a.LengthsMissing {
		return a.Label
	}
	return b.Label
}

func absentLabel(a, b NoiseRun) string {
	switch {
	case a.Absent && b.Absent:
		return "neither run has"
	case a.Absent:
		return a.Label + " has"
	}
	return b.Label + " has"
}

func noneLabel(a, b NoiseRun) string {
	switch {
	case len(a.samples) == 0 && len(b.samples) == 0:
		return "neither run had"
	case len(a.samples) == 0:
		return a.Label + " had"
	}
	return b.Label + " had"
}

// noiseVerdict says in one sentence what changed on a CPU from A to B:
// the rate of interruptions, then their lengths.
func noiseVerdict(cpu int, a, b NoiseRun, p NoisePair, level float64) string {
	lvl := stats.FormatLevel(level)
	r := p.Rate
	var s string
	rates := fmt.Sprintf("%s/s vs %s/s", Sig3(b.PerSecond), Sig3(a.PerSecond))
	switch {
	case a.Count == 0 && b.Count == 0:
		s = fmt.Sprintf("CPU %d: neither %s nor %s was interrupted", cpu, b.Label, a.Label)
		return s
	case p.RateOutcome == Fewer || p.RateOutcome == More:
		s = fmt.Sprintf("CPU %d: %s has %s interruptions (%s, rate ratio %s [%s, %s], %s CI, %s)", cpu, b.Label, p.RateOutcome,
			rates, Sig3(float64(r.Ratio)), Sig3(r.Lo), Sig3(float64(r.Hi)), lvl, stats.FormatP(p.RatePHolm))
	default:
		s = fmt.Sprintf("CPU %d: %s vs %s: no detectable difference in the rate of interruptions (%s, rate ratio %s [%s, %s], %s CI, %s)", cpu, b.Label, a.Label,
			rates, Sig3(float64(r.Ratio)), Sig3(r.Lo), Sig3(float64(r.Hi)), lvl, stats.FormatP(p.RatePHolm))
	}
	// The share available is one number per run, shown untested: with
	// fewer, shorter interruptions a run can still lose more time to
	// its longest ones, and the verdict must not read as if it did not.
	return s + "; " + lengthsVerdict(p, lvl) + fmt.Sprintf("; %s vs %s of the CPU available", availPct(b.AvailablePct), availPct(a.AvailablePct))
}

// availPct is a share with three decimals, rounded down so that a CPU
// that lost any time never reads 100% (as latlab noise writes it).
func availPct(p float64) string {
	return strconv.FormatFloat(math.Floor(p*1000)/1000, 'f', 3, 64) + "%"
}

// lengthsVerdict is the part of a CPU's verdict on the lengths of the
// interruptions.
func lengthsVerdict(p NoisePair, lvl string) string {
	l := p.Lengths
	if l == nil {
		return "their lengths are " + p.LengthsNote
	}
	switch l.Outcome {
	case Unknown:
		for _, row := range l.Rows {
			if row.Stat == l.ByName && row.Unknown != "" {
				return "their lengths at " + row.Unknown
			}
		}
		return fmt.Sprintf("their lengths at %s are not known", l.ByName)
	case TooFew:
		if l.MinSamples == math.MaxInt {
			return fmt.Sprintf("no verdict on their lengths at %s, an extreme that no number of interruptions pins down (%d and %d)", l.ByName, l.BCount, l.ACount)
		}
		return fmt.Sprintf("no verdict on their lengths at %s: too few interruptions (%d and %d; %s at %s needs %d per run)", l.ByName, l.BCount, l.ACount, l.ByName, lvl, l.MinSamples)
	case Faster, Slower:
		d := *l.ByDiff
		word := "shorter"
		if l.Outcome == Slower {
			word = "longer"
		}
		return fmt.Sprintf("they are %s at %s by %s [%s, %s] (Mann-Whitney %s)", word, l.ByName, units.NsFixed(math.Abs(d.Estimate)),
			units.NsFixed(math.Abs(pick(l.Outcome, d.Hi, d.Lo))), units.NsFixed(math.Abs(pick(l.Outcome, d.Lo, d.Hi))), stats.FormatP(l.PAdjusted))
	}
	d := *l.ByDiff
	return fmt.Sprintf("their lengths do not differ detectably at %s (%s [%s, %s], Mann-Whitney %s)", l.ByName,
		units.SignedNsFixed(d.Estimate), units.SignedNsFixed(d.Lo), units.SignedNsFixed(d.Hi), stats.FormatP(l.PAdjusted))
}

// Sig3 writes a rate or a ratio with three significant digits (at
// least: 1234 stays 1234), "-" when it is not a number and "inf" when
// it is unbounded.
func Sig3(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "inf"
	case v == 0:
		return "0"
	}
	d := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		d = 0
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}
