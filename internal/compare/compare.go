// Package compare says with statistics whether two or more latency results
// differ: per-statistic differences with bootstrap confidence intervals, a
// Mann-Whitney U test, the Kolmogorov-Smirnov distance, and a one-line
// verdict. It reads result documents and never prints.
package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// Kind is the document `latlab compare --json` writes; its payload is the
// Result.
var Kind = result.Register[Result]("compare", "two or more results compared with statistics (latlab compare)")

// measured is a payload that says how its samples were taken.
type measured interface{ Measured() *probe.Measurement }

// Input is one result to compare, or one side of repeated runs.
type Input struct {
	Label string // how the result is named in output (its file name)
	Doc   *result.Document
	// More are further runs of the same side, for kinds compared run by
	// run (tcp-discard): each document is one run. Other kinds take one
	// document per side.
	More []*result.Document
	// Arm says the input is one arm of a result that holds several (a
	// try), not a result given as itself: compare takes the arms of a
	// dpcisr try, whose reports it does not take alone (latlab dpcisr
	// compare does).
	Arm bool
	// Notes are what the comparison says of this input beyond what its
	// document says (a try's arms: how they were pooled, and the try's
	// own verdicts); the comparison's notes list each once.
	Notes []string
	// NoLengths says why a noise input stores no lengths of its
	// interruptions when its document cannot say it (an arm of a try
	// over several CPUs whose blocks kept one histogram for all of
	// them); empty for a document written before noise kept them.
	NoLengths string
}

// Options configure a comparison.
type Options struct {
	By         stats.Statistic // the statistic the verdict and ranking use
	Seed       uint64
	Replicates int     // bootstrap replicates per interval (0 = enough for the level)
	Alpha      float64 // family-wise significance level, default 0.05
	Detect     float64 // relative change the sample-size advice is for, default 0.05
	// DetectAsked says the user chose Detect (--detect): only then is it
	// "the change you asked about".
	DetectAsked bool
	// Budget is charged with the samples rebuilt from the inputs'
	// histograms; nil: a budget of this comparison's own. A command that
	// reads its inputs before comparing them passes the one it used.
	Budget *result.Budget
}

// Result is the outcome; it is also the Data of a compare document.
type Result struct {
	Kind     string `json:"compared_kind"`
	Quantity string `json:"quantity"` // what the values are (slept time, wake latency)
	// PerRun is set when each value is one run (a tcp-discard transfer's
	// duration) rather than one sample of a run.
	PerRun bool `json:"per_run,omitempty"`
	// By is the statistic of the verdicts (of the interruptions' lengths
	// for noise results); empty for DPC/ISR reports, whose test takes
	// the whole histograms.
	By       string       `json:"by"`
	Level    float64      `json:"level"` // confidence level of each interval (Bonferroni-adjusted for several pairs)
	Seed     uint64       `json:"seed"`
	Runs     []RunSummary `json:"runs"`
	Pairs    []Pair       `json:"pairs"`   // each later run against the first
	Ranking  []int        `json:"ranking"` // indices into Runs, best (lowest By) first
	Notes    []string     `json:"notes,omitempty"`
	Quantile string       `json:"percentile_definition"`
	// Noise is the comparison of noise results, CPU by CPU (their rates
	// of interruptions and the interruptions' lengths); Runs then name
	// the results only, and Pairs and Ranking are empty.
	Noise []NoiseCPU `json:"noise,omitempty"`
	// NoiseThresholdNs is the threshold the noise results counted
	// interruptions over (the same in every one).
	NoiseThresholdNs int64 `json:"noise_threshold_ns,omitempty"`
	// DPCISR is the comparison of the arms of a dpcisr try, as latlab
	// dpcisr compare compares reports (section by section, chi-squared
	// over the buckets); Runs then name the arms only, Pairs and Ranking
	// are empty and By is empty (the test takes whole histograms).
	DPCISR *dpcisr.Comparison `json:"dpcisr,omitempty"`
	// CensoredAtNs is, when a cyclictest histogram overflowed, the
	// smallest such histogram's range: values at or above it are not
	// known, in every run (see RunSummary.Censored).
	CensoredAtNs int64 `json:"censored_at_ns,omitempty"`
	// expect is the index into Runs of the run --expect-better named (0
	// when none: the first run is the baseline and cannot be named).
	expect int
}

// RunSummary is one input's summary.
type RunSummary struct {
	Label         string        `json:"label"`
	Runs          int           `json:"runs,omitempty"` // documents on this side (per-run kinds)
	Summary       stats.Summary `json:"summary"`
	By            float64       `json:"by_value"`
	Reconstructed bool          `json:"reconstructed_from_histogram,omitempty"`
	Settings      string        `json:"settings,omitempty"` // what distinguishes this run (e.g. --resolution)
	// GoodputP50 is the median goodput of the side's runs (tcp-discard).
	GoodputP50 float64 `json:"goodput_p50_bits_per_s,omitempty"`
	// Serial is the dependence of the run's samples in measurement
	// order; absent when they have no order (rebuilt from a histogram,
	// an arm of a try, a kind that does not keep one) or are fewer than
	// stats.MinPerSide.
	Serial *stats.Serial `json:"serial,omitempty"`
	// Source says what the run was read from when it is not a result
	// document: a cyclictest histogram, and its threads.
	Source string `json:"source,omitempty"`
	// OrderUnknown says the samples' order was never recorded (a
	// cyclictest histogram): no serial-dependence analysis was run, and
	// the intervals and tests assume independent samples.
	OrderUnknown bool `json:"order_unknown,omitempty"`
	// Censored is how many values are at or above Result.CensoredAtNs:
	// unknown (a histogram's overflows), or compared as unknown (another
	// run's, whose order against them is not known).
	Censored int64 `json:"censored,omitempty"`
	// Unknown names the Summary fields its overflows make unknown; they
	// hold -1.
	Unknown []string `json:"unknown_summary,omitempty"`
	samples []int64
	// bins hold the run's values instead of samples for a cyclictest
	// histogram, and for a wake result without raw samples compared with
	// one: compared from its buckets, never expanded (binnedRuns).
	bins *stats.Binned
	// ordered are the samples in measurement order, nil without one.
	ordered []int64
	goodput []int64
	// bucketNs is the width of the buckets the values are in, when a
	// histogram is among the inputs (bucket); 0: their own resolution.
	bucketNs int64
}

// Samples returns the run's values, sorted ascending. They are the
// comparison's own: do not modify them. They are nil for a run compared
// from its bins (a cyclictest histogram, and a wake result without raw
// samples compared with one), which are never expanded.
func (r RunSummary) Samples() []int64 { return r.samples }

// n is how many values the run compares.
func (r RunSummary) n() int {
	if r.bins != nil {
		return int(r.bins.N())
	}
	return len(r.samples)
}

// side is the run as the statistics take it: its bins, or its values
// with their order.
func (r RunSummary) side() stats.Side {
	if r.bins != nil {
		return stats.Side{Bins: r.bins}
	}
	return stats.Side{Sorted: r.samples, Ordered: r.ordered}
}

// of is st of the run's values.
func (r RunSummary) of(st stats.Statistic) float64 {
	if r.bins != nil {
		return st.OfBinned(*r.bins)
	}
	return st.Of(r.samples)
}

// Row is one statistic compared between the first run (A) and another (B).
type Row struct {
	Stat string  `json:"stat"`
	Unit string  `json:"unit"` // ns, or bit/s for goodput (where higher is better)
	A    float64 `json:"a"`
	B    float64 `json:"b"`
	// Diff is B - A with its interval; absent when a run has fewer samples
	// than NeedsSamples, the fewest that judge this statistic.
	Diff         *stats.CI `json:"diff,omitempty"`
	RelChange    float64   `json:"rel_change"`
	NeedsSamples int       `json:"needs_samples_per_run,omitempty"`
	// Unknown says why a value (-1) or the interval is not known: they
	// rest on values at or above a cyclictest histogram's range.
	Unknown string `json:"unknown,omitempty"`
}

// Pair is the comparison of run B against run A (the first).
type Pair struct {
	A, B   int    `json:"-"`
	ALabel string `json:"a"`
	BLabel string `json:"b"`
	Rows   []Row  `json:"rows"`
	// Test names the rank test MWU is the result of: the i.i.d.
	// Mann-Whitney test, or its form for serially dependent samples.
	Test          string    `json:"test,omitempty"`
	MWU           stats.MWU `json:"mann_whitney"`
	PAdjusted     float64   `json:"mann_whitney_p_holm"`
	KS            stats.KS  `json:"kolmogorov_smirnov"`
	Outcome       Outcome   `json:"outcome"`
	Verdict       string    `json:"verdict"`
	SamplesNeeded int       `json:"samples_needed,omitempty"` // per run, to detect a Detect change
	// MinSamples is the fewest samples per run that judge By at this level
	// (stats.MinSamples); with fewer on either side the outcome is TooFew.
	MinSamples int       `json:"min_samples_per_run"`
	ByDiff     *stats.CI `json:"by_diff,omitempty"` // absent when TooFew
	ByName     string    `json:"-"`
	ACount     int       `json:"-"`
	BCount     int       `json:"-"`
	perRun     bool
	// why is the reason of an Unknown outcome.
	why string
}

// Outcome classifies a pair.
type Outcome string

// Outcomes: B lower (faster), higher (slower), no detectable difference,
// or no verdict because a run has too few samples to judge (see
// stats.MinSamples for the rule and why).
const (
	Faster       Outcome = "faster"
	Slower       Outcome = "slower"
	NoDifference Outcome = "no detectable difference"
	TooFew       Outcome = "too few samples"
	// Unknown: the verdict's statistic rests on the overflows of a
	// cyclictest histogram, whose values are not known.
	Unknown Outcome = "not known"
)

// outcomeWords says the engine's verdict (stats.Compare, interval alone)
// in compare's words.
var outcomeWords = map[stats.Verdict]Outcome{
	stats.Better:       Faster,
	stats.Worse:        Slower,
	stats.NoDifference: NoDifference,
	stats.TooFew:       TooFew,
}

// ErrIncompatible marks inputs that cannot be compared; its message says
// why. It is bad input (badinput.Is), the user's to fix.
var ErrIncompatible = badinput.Wrap(errors.New("cannot compare"))

// Compare compares every input against the first.
func Compare(in []Input, o Options) (*Result, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("%w: need at least two results, got %d", ErrIncompatible, len(in))
	}
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	if o.Detect <= 0 {
		o.Detect = 0.05
	}
	if err := Compatible(in); err != nil {
		return nil, err
	}
	if o.Budget == nil {
		o.Budget = result.NewBudget()
	}
	res, err := compareKind(in, o)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, inputNotes(in)...)
	return res, nil
}

// expandHistograms makes a comparison with cyclictest histograms rebuild
// their samples (and a wake result's without raw samples), as it did
// before they were compared from their bins: tests set it to check that
// both give the same result.
var expandHistograms = false

// compareKind compares the inputs as their kind is compared.
func compareKind(in []Input, o Options) (*Result, error) {
	switch {
	case isNoise(in[0].Doc.Kind):
		return compareNoise(in, o)
	case isDPCISR(in[0].Doc.Kind):
		return compareDPCISR(in)
	}
	k := len(in) - 1
	level := 1 - o.Alpha/float64(k) // Bonferroni: every pair's interval holds together at 1-alpha
	reps := o.Replicates
	if reps <= 0 {
		reps = stats.ReplicatesFor(level, 2000)
	}
	res := &Result{Kind: in[0].Doc.Kind, Quantity: Quantity(in[0].Doc.Kind), By: o.By.String(), Level: level, Seed: o.Seed,
		Quantile: result.PercentileDefinition, PerRun: perRunKind(in[0].Doc.Kind)}
	if !res.PerRun && slices.ContainsFunc(in, isCyclictest) && !expandHistograms {
		if err := binnedRuns(res, in, o); err != nil {
			return nil, err
		}
	} else if err := sampledRuns(res, in, o); err != nil {
		return nil, err
	}
	if res.CensoredAtNs > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("values at or above %d µs are not known in every run: a histogram's overflows lie somewhere above, and which of two such values is larger is not known; the rank tests count them as ties at the top, and the Kolmogorov-Smirnov distance is the largest below %d µs", res.CensoredAtNs/1000, res.CensoredAtNs/1000))
	}
	boot := stats.Bootstrap{Seed: o.Seed, Replicates: reps, Level: level}
	co := stats.CompareOptions{By: o.By, Alpha: o.Alpha, Family: k, Seed: o.Seed, Replicates: reps, Rule: stats.IntervalAlone}
	var cs []stats.Comparison
	for j := 1; j < len(res.Runs); j++ {
		cs = append(cs, stats.CompareSides(res.Runs[0].side(), res.Runs[j].side(), co))
		res.Runs[0].Serial, res.Runs[j].Serial = cs[j-1].SerialA, cs[j-1].SerialB
	}
	stats.AdjustFamily(cs)
	res.Notes = append(res.Notes, serialNotes(res.Runs)...)
	for j := 1; j < len(res.Runs); j++ {
		p := comparePair(res.Runs[0], res.Runs[j], cs[j-1], boot, o)
		p.A, p.B = 0, j
		unknownRows(&p, res.Runs[0], res.Runs[j], res.CensoredAtNs, o.By)
		p.Verdict = verdict(p, res.Runs[0], k, level, o)
		res.Pairs = append(res.Pairs, p)
	}
	res.Ranking = make([]int, len(res.Runs))
	for i := range res.Ranking {
		res.Ranking[i] = i
	}
	// A run with fewer samples than judging By needs ranks after every
	// run that has them: its point estimate decides nothing (a 1-sample
	// run ranked first by its one sleep while its outcome said too few).
	// So does a run whose By is not known (-1: a histogram's overflows).
	need := int64(stats.MinSamples(o.By, level))
	slices.SortStableFunc(res.Ranking, func(a, b int) int {
		ra, rb := res.Runs[a], res.Runs[b]
		if ea, eb := ra.Summary.Count >= need && ra.By >= 0, rb.Summary.Count >= need && rb.By >= 0; ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		if ra.By != rb.By {
			return cmp.Compare(ra.By, rb.By)
		}
		return cmp.Compare(ra.Summary.Stdev, rb.Summary.Stdev)
	})
	if res.PerRun {
		res.Notes = append(res.Notes, "tcp-discard results are compared run by run: each transfer's duration (first write until the peer closed) and goodput; the RTT samples inside a transfer are readings of one connection, not repeated runs, and are not pooled")
	}
	if k > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d comparisons against %s: each interval is at the %s level (Bonferroni) so that all hold together at 95%%; Mann-Whitney p-values are Holm-adjusted", k, res.Runs[0].Label, stats.FormatLevel(level)))
	}
	return res, nil
}

// sampledRuns adds a run per input from its values (every comparison
// without a cyclictest histogram: one with, binnedRuns), each its notes,
// and puts them in the buckets of and censors them as the histograms
// among the inputs ask (only when tests expand histograms).
func sampledRuns(res *Result, in []Input, o Options) error {
	var size int64
	var sizeFrom string
	for _, x := range in {
		if res.PerRun {
			d, g, err := perRunValues(x, &size, &sizeFrom)
			if err != nil {
				return err
			}
			res.Runs = append(res.Runs, RunSummary{Label: x.Label, Runs: len(d), Summary: stats.SummarizeSorted(d), By: o.By.Of(d), samples: d,
				goodput: g, GoodputP50: stats.Quantile(50).Of(g), Settings: distinguishing(x.Doc, in[0].Doc)})
			continue
		}
		r, err := documentRun(res, x, in[0].Doc, o, false)
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, r)
	}
	if n := settingsNote(in); n != "" {
		res.Notes = append(res.Notes, n)
	}
	hist := bucket(res.Runs, in, &res.Notes)
	if res.CensoredAtNs = censor(res.Runs, in, &res.Notes); hist {
		for i := range res.Runs {
			r := &res.Runs[i]
			if r.By = o.By.Of(r.samples); r.By >= float64(overflowNs)/2 || (o.By == stats.Mean && r.Censored > 0) {
				r.By = -1
			}
		}
	}
	return nil
}

// documentRun is the run of one input read from its values (a result
// document's, or a cyclictest histogram's rebuilt), with its notes; with
// binHDR, a wake result without raw samples is its histogram's bins
// instead, never rebuilt (a comparison with cyclictest histograms,
// binnedRuns).
func documentRun(res *Result, x Input, first *result.Document, o Options, binHDR bool) (RunSummary, error) {
	if len(x.More) > 0 {
		return RunSummary{}, fmt.Errorf("%w: %s groups %d results, but %s results are compared one file per side (groups of runs are for tcp-discard)",
			ErrIncompatible, x.Label, len(x.More)+1, x.Doc.Kind)
	}
	sp, ok := x.Doc.Data.(result.Sampled)
	if !ok {
		return RunSummary{}, fmt.Errorf("%w: %s is a %s result, which holds no single distribution", ErrIncompatible, x.Label, x.Doc.Kind)
	}
	r := RunSummary{Label: x.Label, Settings: distinguishing(x.Doc, first)}
	if w, ok := x.Doc.Data.(*probe.WakeData); ok && binHDR && len(w.Samples) == 0 {
		// Its histogram's buckets at the values Values would rebuild,
		// counted instead of rebuilt: nothing is charged to o.Budget.
		b, err := result.Binned(&w.Histogram)
		if err != nil {
			return RunSummary{}, fmt.Errorf("%w: %s: a %s result with %v", ErrIncompatible, x.Label, x.Doc.Kind, err)
		}
		if b.N() == 0 {
			return RunSummary{}, fmt.Errorf("%w: %s has no samples", ErrIncompatible, x.Label)
		}
		r.Summary, r.By, r.bins, r.Reconstructed = stats.SummarizeBinned(b), o.By.OfBinned(b), &b, true
	} else {
		s, raw, err := sp.Values(o.Budget)
		var be *result.BudgetError
		switch {
		case errors.As(err, &be):
			return RunSummary{}, badinput.Errorf("%s: %w", x.Label, err)
		case err != nil:
			return RunSummary{}, fmt.Errorf("%w: %s: a %s result with %v", ErrIncompatible, x.Label, x.Doc.Kind, err)
		}
		if len(s) == 0 {
			return RunSummary{}, fmt.Errorf("%w: %s has no samples", ErrIncompatible, x.Label)
		}
		// The document's own slice, never changed: the order of the
		// samples where the document keeps it.
		r.ordered = inOrder(x, s, raw)
		s = slices.Clone(s)
		slices.Sort(s)
		r.Summary, r.By, r.samples, r.Reconstructed = stats.SummarizeSorted(s), o.By.Of(s), s, !raw
	}
	if c, ok := x.Doc.Data.(*Cyclictest); ok {
		r.Source = c.source()
		r.OrderUnknown = true
		unknownSummary(&r)
		res.Notes = append(res.Notes, c.notes(x.Label)...)
	} else if r.Reconstructed {
		res.Notes = append(res.Notes, fmt.Sprintf("%s stores no raw samples: its values are reconstructed from the histogram (0.1%% precision), which keeps no order, so they are compared as independent samples", x.Label))
	}
	// A run stopped by Ctrl-C is compared on what it measured, and
	// said to be one, as sleep and wake say it.
	if c, ok := x.Doc.Data.(interface{ RunCounts() probe.Counts }); ok && c.RunCounts().Interrupted {
		n := c.RunCounts()
		res.Notes = append(res.Notes, fmt.Sprintf("%s was interrupted: %d of %d planned measured; its statistics cover those", x.Label, n.MeasuredCount, n.RequestedCount))
	}
	// A run stopped by --stop-above is a shorter run as well, and
	// said to be one: its last sample is the one above the limit.
	if st, ok := x.Doc.Data.(interface{ StopAbove() *probe.StoppedAbove }); ok && st.StopAbove() != nil {
		sa := st.StopAbove()
		note := fmt.Sprintf("%s was stopped by --stop-above %s at %s", x.Label, units.FlagDuration(time.Duration(sa.ThresholdNs)), units.NsShort(float64(sa.Sample.AtNs)))
		if c, ok := x.Doc.Data.(interface{ RunCounts() probe.Counts }); ok && c.RunCounts().RequestedCount > 0 {
			note += fmt.Sprintf(": %d of %d planned measured", c.RunCounts().MeasuredCount, c.RunCounts().RequestedCount)
		}
		res.Notes = append(res.Notes, note+"; its statistics cover those, up to the sample above the limit")
	}
	return r, nil
}

// kindName names what a side is, for messages.
func kindName(x Input) string {
	if isCyclictest(x) {
		return histName(x)
	}
	return "a " + x.Doc.Kind + " result"
}

// severalDistributions says where a kind keeps its distributions, for the
// kinds that have several; other kinds (irq, doctor, ...) hold counts or
// facts, and "one per step" would be wrong of them.
var severalDistributions = map[string]string{
	"sweep":     " (a sweep has one per step)",
	"crossproc": " (a crossproc has one per period the other process requested)",
}

// Compatible checks that the inputs measure the same quantity.
func Compatible(in []Input) error {
	a := in[0]
	for _, b := range in[1:] {
		if (isOsnoise(a) || isOsnoise(b)) && sideKind(a) != sideKind(b) {
			h, other := a, b
			if isOsnoise(b) {
				h, other = b, a
			}
			return fmt.Errorf("%w: %s is an rtla osnoise histogram, of operating-system noise, and %s %s; compare it with noise results (latlab noise) or other rtla osnoise histograms", ErrIncompatible, h.Label, other.Label, kindName(other))
		}
		if (isCyclictest(a) || isCyclictest(b)) && sideKind(a) != sideKind(b) {
			h, other := a, b
			if isCyclictest(b) {
				h, other = b, a
			}
			return fmt.Errorf("%w: %s is %s, of wake-up latency, and %s a %s result; compare a histogram with wake results (latlab wake) or other histograms", ErrIncompatible, h.Label, histName(h), other.Label, other.Doc.Kind)
		}
		if sideKind(b) != sideKind(a) {
			return fmt.Errorf("%w: %s is a %s result and %s a %s result; compare results of the same kind", ErrIncompatible, a.Label, a.Doc.Kind, b.Label, b.Doc.Kind)
		}
	}
	if isNoise(a.Doc.Kind) {
		return noiseCompatible(in)
	}
	if isDPCISR(a.Doc.Kind) {
		return dpcisrCompatible(in)
	}
	if _, ok := a.Doc.Data.(result.Sampled); !ok && !perRunKind(a.Doc.Kind) {
		return fmt.Errorf("%w: %s results hold no single distribution%s; compare takes results with samples, such as sleep, wake or noise", ErrIncompatible, a.Doc.Kind, severalDistributions[a.Doc.Kind])
	}
	for _, b := range in[1:] {
		ua, oka := a.Doc.Data.(*netload.UDPData)
		ub, okb := b.Doc.Data.(*netload.UDPData)
		if oka && okb && ua.ReceiveTimes != ub.ReceiveTimes {
			return fmt.Errorf("%w: %s timed echo arrivals by %s and %s by %s: their round trips are not comparable (one holds the receiving thread's wake-up); compare runs timed alike (data.receive_times)", ErrIncompatible,
				a.Label, arrival(ua.ReceiveTimes), b.Label, arrival(ub.ReceiveTimes))
		}
	}
	for _, b := range in[1:] {
		ka, oka := a.Doc.Data.(measured)
		kb, okb := b.Doc.Data.(measured)
		if !oka || !okb {
			continue
		}
		ma, mb := ka.Measured(), kb.Measured()
		if ma.RequestedNs != mb.RequestedNs {
			return fmt.Errorf("%w: %s slept %s and %s %s: the slept times are not comparable; compare runs with the same --sleep-length", ErrIncompatible,
				a.Label, dur(ma.RequestedNs), b.Label, dur(mb.RequestedNs))
		}
		if ma.IntervalNs != mb.IntervalNs {
			return fmt.Errorf("%w: %s woke every %s and %s every %s: compare runs with the same --interval", ErrIncompatible,
				a.Label, dur(ma.IntervalNs), b.Label, dur(mb.IntervalNs))
		}
	}
	return nil
}

func dur(ns int64) string { return time.Duration(ns).String() }

// arrival names a udp document's receive_times, which documents written
// before it was recorded lack (they timed arrivals at the read).
func arrival(how string) string {
	if how == "" {
		return "an unrecorded method (a document from before latlab recorded it)"
	}
	return how
}

// Quantity names what a kind's values are, for headings and axis labels.
func Quantity(kind string) string {
	switch kind {
	case probe.KindSleep.Name():
		return "slept time"
	case probe.KindWake.Name(), CyclictestKind, TimerlatKind:
		return "wake-up latency"
	case netload.KindTCPDiscard.Name():
		return "transfer time per run"
	case dpcisr.Kind.Name():
		return "DPC/ISR execution time"
	}
	return kind
}

// notMeasured are the flags that choose where results go, how inputs are
// read, or what is printed, never what was measured: two runs that differ
// only in them are the same experiment (a run written with --force once
// showed "--force false" as what distinguished it).
var notMeasured = map[string]bool{
	"json": true, "output": true, "raw": true, "histfile": true, "hist-max": true, "live": true,
	"seed": true, "root": true, "force": true, "allow-special-files": true, "max-input-size": true,
	"csv": true, "html": true, "plot": true, "window-plot": true, "dry-run": true,
	"graph": true, "window-graph": true, // the names of --plot and --window-plot in older documents
}

// distinguishing lists the settings in which d differs from the first run,
// so a ranked table shows what each candidate was. A cyclictest histogram
// has no settings to differ in: against one, nothing is listed (a note
// says what its file does not record).
func distinguishing(d, first *result.Document) string {
	if WakeHistogram(d.Kind) || WakeHistogram(first.Kind) {
		return ""
	}
	var diff []string
	keys := make([]string, 0, len(d.Settings))
	for k := range d.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if notMeasured[k] {
			continue
		}
		if first.Settings[k] != d.Settings[k] {
			diff = append(diff, "--"+k+" "+d.Settings[k])
		}
	}
	s := ""
	for i, x := range diff {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}

// Statistics shown for every pair, in order.
func rowStats(na, nb int) []stats.Statistic {
	st := []stats.Statistic{stats.Quantile(50), stats.Quantile(90), stats.Quantile(99)}
	if na >= 1000 && nb >= 1000 {
		st = append(st, stats.Quantile(99.9))
	}
	return append(st, stats.Mean)
}

// comparePair fills in the pair of a and b from c, the engine's comparison
// of their samples by o.By, and compares the other statistics of the table
// with the same bootstrap.
func comparePair(a, b RunSummary, c stats.Comparison, boot stats.Bootstrap, o Options) Pair {
	p := Pair{ALabel: a.Label, BLabel: b.Label, ByName: o.By.String(), ACount: a.n(), BCount: b.n(), perRun: a.goodput != nil}
	sts := rowStats(a.n(), b.n())
	if !slices.Contains(sts, o.By) {
		sts = append(sts, o.By)
	}
	n := min(a.n(), b.n())
	// The intervals of the other statistics, drawn together: a block
	// bootstrap then resamples once per replicate for all of them.
	var more []stats.Statistic
	for _, st := range sts {
		if st != o.By && n >= stats.MinSamples(st, boot.Level) {
			more = append(more, st)
		}
	}
	// A dependent run's ECDF varies more than one of independent
	// samples: the p-value then comes from the multiplier bootstrap
	// with the runs' blocks, as the intervals resample them. The two
	// are independent (each from streams of its own seed): with a
	// million dependent samples a side each takes seconds, and side by
	// side they take the time of the longer.
	// A histogram's side is its bins, never expanded (it has no order).
	var ks stats.KS
	sa, sb := c.ResampledA(a.side()), c.ResampledB(b.side())
	var wg sync.WaitGroup
	wg.Go(func() { ks = stats.KolmogorovSmirnovSerial(sa, sb, o.Seed, 0) })
	cis := boot.DiffCIsSerial(sa, sb, more)
	wg.Wait()
	p.KS = ks
	for _, st := range sts {
		av, bv := a.of(st), b.of(st)
		row := Row{Stat: st.String(), Unit: "ns", A: av, B: bv, RelChange: rel(bv-av, av)}
		need := stats.MinSamples(st, boot.Level)
		switch {
		case st == o.By:
			row.Diff = c.Interval
			p.ByDiff = c.Interval
		case n >= need:
			ci := cis[slices.Index(more, st)]
			row.Diff = &ci
		}
		if row.Diff == nil {
			row.NeedsSamples = need
		}
		p.Rows = append(p.Rows, row)
	}
	if p.perRun {
		// Goodput is size/duration, so with equal sizes its tests repeat the
		// duration's; its median and interval are shown for the reader.
		st := stats.Quantile(50)
		av, bv := st.Of(a.goodput), st.Of(b.goodput)
		row := Row{Stat: "p50 goodput", Unit: "bit/s", A: av, B: bv, RelChange: rel(bv-av, av)}
		if need := stats.MinSamples(st, boot.Level); n < need {
			row.NeedsSamples = need
		} else {
			ci := boot.DiffCI(a.goodput, b.goodput, st)
			row.Diff = &ci
		}
		p.Rows = append(p.Rows, row)
	}
	p.MinSamples = c.MinSamples
	p.Test, p.MWU, p.PAdjusted = c.Test, c.MWU, c.PAdjusted
	p.Outcome = outcomeWords[c.Verdict]
	if c.Verdict == stats.NoDifference && !belowBucket(a, o) {
		need := stats.SamplesToDetect(n, stats.SEFromCI(*p.ByDiff), o.Detect*math.Abs(a.By), 1-boot.Level, 0.8)
		if need > 0 {
			need = max(need, p.MinSamples) // the advice never goes below what a verdict needs
		}
		p.SamplesNeeded = need
	}
	return p
}

// belowBucket reports whether the change o.Detect asks about is smaller
// than the buckets a's percentile moves in (the values of a comparison
// with a histogram are whole 1 µs buckets): more samples narrow its
// interval, but it still moves by whole buckets.
func belowBucket(a RunSummary, o Options) bool {
	return a.bucketNs > 0 && o.By.IsQuantile() && o.Detect*math.Abs(a.By) < float64(a.bucketNs)
}

func rel(d, base float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return d / math.Abs(base)
}

func verdict(p Pair, a RunSummary, k int, level float64, o Options) string {
	lvl := stats.FormatLevel(1 - o.Alpha)
	if k > 1 {
		lvl = stats.FormatLevel(level)
	}
	if p.Outcome == TooFew {
		return tooFewVerdict(p, lvl)
	}
	if p.Outcome == Unknown {
		return fmt.Sprintf("%s vs %s: no verdict, %s", p.BLabel, p.ALabel, p.why)
	}
	mw := "Mann-Whitney " + stats.FormatP(p.PAdjusted)
	if k > 1 {
		mw += " (Holm)"
	}
	d := *p.ByDiff
	switch p.Outcome {
	case Faster, Slower:
		small := ""
		if r := math.Abs(rel(d.Estimate, a.By)); r < o.Detect {
			small = fmt.Sprintf("; detectable, but smaller than %.0f%%, the change --detect sets by default", o.Detect*100)
			if o.DetectAsked {
				small = fmt.Sprintf("; detectable, but smaller than the %.0f%% change you asked about", o.Detect*100)
			}
		}
		return fmt.Sprintf("%s is %s at %s by %s [%s, %s] (%+.1f%%, %s CI), %s", p.BLabel, p.Outcome, p.ByName,
			units.NsFixed(math.Abs(d.Estimate)), units.NsFixed(math.Abs(pick(p.Outcome, d.Hi, d.Lo))), units.NsFixed(math.Abs(pick(p.Outcome, d.Lo, d.Hi))),
			rel(d.Estimate, a.By)*100, lvl, mw) + small
	}
	at := "at this sample size"
	if belowBucket(a, o) {
		at = "at the histograms' resolution"
	}
	s := fmt.Sprintf("%s vs %s: no detectable difference %s (%s %s [%s, %s], %s CI, %s); ", p.BLabel, p.ALabel, at, p.ByName,
		units.SignedNsFixed(d.Estimate), units.SignedNsFixed(d.Lo), units.SignedNsFixed(d.Hi), lvl, mw)
	n := min(p.ACount, p.BCount)
	delta := o.Detect * math.Abs(a.By)
	pc := o.Detect * 100
	switch {
	case delta > 0 && d.Lo > -delta && d.Hi < delta:
		s += fmt.Sprintf("the interval rules out a %.0f%% change either way", pc)
	case belowBucket(a, o):
		s += fmt.Sprintf("a %.0f%% change (%s) is less than the histograms' %s buckets, in which %s moves: no number of %s detects it", pc,
			units.NsFixed(delta), units.NsFixed(float64(a.bucketNs)), p.ByName, p.nouns().what)
	case p.SamplesNeeded == 0:
		s += fmt.Sprintf("no sample-size estimate (%s of %s is 0 or its interval has no width)", p.ByName, a.Label)
	case p.SamplesNeeded <= n:
		s += fmt.Sprintf("this sample size detects a %.0f%% change 4 times in 5, but the interval does not rule one out", pc)
	default:
		s += fmt.Sprintf("%d more %s would detect a %.0f%% change (80%% power)", p.SamplesNeeded-n, p.nouns().per, pc)
	}
	return s
}

// tooFewVerdict says that there is no verdict and why: which run is short
// of samples, and the rule.
func tooFewVerdict(p Pair, lvl string) string {
	nn := p.nouns()
	s := fmt.Sprintf("%s vs %s: no verdict, too few %s (%d and %d)", p.BLabel, p.ALabel, nn.what, p.BCount, p.ACount)
	if p.MinSamples == math.MaxInt {
		return s + fmt.Sprintf(": %s is an extreme of the sample, which no number of %s pins down; compare p99.9 or lower", p.ByName, nn.what)
	}
	s += fmt.Sprintf(": judging %s at %s needs at least %d %s", p.ByName, lvl, p.MinSamples, nn.unit)
	if p.MinSamples > stats.MinPerSide {
		s += fmt.Sprintf(" (fewer, and a %s interval of %s reaches past the most extreme sample)", lvl, p.ByName)
	} else {
		s += " (fewer, and the tests cannot tell even a large shift 4 times in 5)"
	}
	return s
}

type nouns struct{ what, unit, per string }

// nouns names what a pair's values are: samples of a run, or runs of a side.
func (p Pair) nouns() nouns {
	if p.perRun {
		return nouns{"runs", "runs per side", "runs per side"}
	}
	return nouns{"samples", "per run", "samples per run"}
}

func pick(o Outcome, a, b float64) float64 {
	if o == Faster {
		return a
	}
	return b
}
