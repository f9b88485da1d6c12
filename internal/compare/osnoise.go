package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/rtla"
	"github.com/latlab/latlab/internal/stats"
)

// OsnoiseKind is the kind of a side read from `rtla osnoise hist` output:
// not a result document, but lengths of noise as a noise result's.
const OsnoiseKind = "rtla-osnoise-histogram"

// Osnoise is the payload of a side read from rtla osnoise hist output.
//
// One of its samples is one osnoise:sample_threshold event: the osnoise
// tracer's thread (kernel/trace/trace_osnoise.c, run_osnoise) reads the
// time in a loop and, when the step between two reads is at least its
// threshold, adds it to the noise and emits the event with that step as
// its duration; rtla osnoise hist counts the events per CPU in buckets of
// their duration (osnoise_hist.c: a kernel histogram of
// osnoise:sample_threshold keyed on "duration.buckets" and "cpu"). That
// is one gap, not a period's sum: latlab noise's interruption, a step of
// at least --threshold between two reads of the clock. So the lengths are
// compared, each at its 1 µs bucket's middle. The rate is not: the file
// records the run's wall-clock duration, not how long each thread ran
// (the tracer's runtime of each period, -r of -p, is not written, nor
// whether it was the default), so its occurrences have no exposure.
type Osnoise struct {
	File *rtla.Histogram
}

// isOsnoise reports whether x was read from rtla osnoise hist output.
func isOsnoise(x Input) bool { return x.Doc.Kind == OsnoiseKind }

// OsnoiseNoRate says why an osnoise hist side has no rate: in a pair
// (osnoiseRateNote), and on its own (latlab report's section of it).
const OsnoiseNoRate = "rtla osnoise hist records no thread's runtime (its -r of each -p period is not in the file), so its occurrences have no rate"

// osnoiseRateNote says why a pair with an osnoise hist side has no rate.
const osnoiseRateNote = "not compared: " + OsnoiseNoRate

// Notes are what a comparison says of an osnoise hist side (its notes
// over its own CPUs): latlab report shows the side with them.
func (o *Osnoise) Notes(label string) []string {
	return osnoiseNotes(label, o.File, o.File.CPUs(rtla.Noise))
}

// Alone is the column of cpu on its own, or with cpu < 0 every column
// pooled, as Cyclictest.Alone is a histogram side's: its summary from its
// 1 µs buckets (each length at its bucket's middle, the statistics its
// "over:" occurrences reach -1 and named in Unknown), never expanded, and
// the column as a histogram (to plot); ok is false when the file has no
// such column.
func (o *Osnoise) Alone(label string, cpu int) (r RunSummary, h *cyclictest.Histogram, ok bool, err error) {
	if cpu < 0 {
		if o.File.Samples(rtla.Noise) == 0 {
			return r, nil, false, nil
		}
		h, err = o.File.Cyclictest(rtla.Noise)
	} else {
		h, ok, err = o.File.CPU(rtla.Noise, cpu)
		if !ok {
			return r, nil, false, nil
		}
	}
	if err != nil {
		return r, nil, true, fmt.Errorf("%s: %v", label, err)
	}
	r, _, err = (&Cyclictest{H: h}).Alone(label)
	r.Source = "rtla osnoise histogram"
	return r, h, true, err
}

// osnoiseRun is one CPU of an osnoise hist side as a NoiseRun: its
// occurrences, their lengths at their buckets' middles (charged to the
// comparison's budget), the runtime and the noise unknown (0).
func osnoiseRun(label string, f *rtla.Histogram, cpu int, b *result.Budget) (NoiseRun, error) {
	r := NoiseRun{Label: label, RTLA: true}
	// Sparse (rtla.Buckets): a comparison converts every CPU it covers,
	// and a dense conversion costs the file's whole range for each.
	h, ok, err := f.CPUBuckets(rtla.Noise, cpu)
	if err != nil {
		return r, fmt.Errorf("%s: CPU-%03d: %v", label, cpu, err)
	}
	if !ok {
		r.Absent = true
		r.Lengths = &stats.Summary{}
		return r, nil
	}
	s, err := bucketValues(h, b)
	if err != nil {
		return r, fmt.Errorf("%s: %w", label, err)
	}
	r.Count = h.InRange + h.Overflows // cannot overflow: rtla checked the column's sum
	r.Kept = r.Count
	if h.Overflows > 0 {
		r.rangeNs = h.RangeUs * 1000
	}
	r.MaxNs = maxNs(f, cpu)
	sum := stats.SummarizeSorted(s) // Values are sorted
	unknownLengths(&sum)
	r.Lengths, r.samples, r.Reconstructed = &sum, s, true
	return r, nil
}

// bucketValues are Cyclictest.Values of a sparse column: each bucket's
// count at its middle, then the overflows at overflowNs, sorted, charged
// to b first.
func bucketValues(h rtla.Buckets, b *result.Budget) ([]int64, error) {
	if b == nil {
		b = result.NewBudget()
	}
	n := h.InRange + h.Overflows
	if err := b.Charge(n); err != nil {
		return nil, err
	}
	out := make([]int64, 0, n)
	for i, u := range h.Us {
		v := u*1000 + 500
		for range h.Counts[i] {
			out = append(out, v)
		}
	}
	for range h.Overflows {
		out = append(out, overflowNs)
	}
	return out, nil
}

// osnoiseCPUs are the CPUs a comparison with osnoise hist sides covers:
// a noise result's (every noise result measured the same, noiseCompatible
// checks), or without one every CPU any file names.
func osnoiseCPUs(in []Input) []int {
	var cpus []int
	for _, x := range in {
		if d, ok := probe.KindNoise.Of(x.Doc); ok {
			return noiseCPUs(d)
		}
		if o, ok := x.Doc.Data.(*Osnoise); ok {
			cpus = append(cpus, o.File.CPUs(rtla.Noise)...)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus)
}

// osnoiseNotes say what an osnoise hist side is and what it cannot say.
func osnoiseNotes(label string, f *rtla.Histogram, cpus []int) []string {
	buckets := "1 µs buckets"
	if f.Nano {
		buckets = "its ns buckets summed into 1 µs buckets"
	}
	notes := []string{fmt.Sprintf("%s: an rtla osnoise histogram (a column per CPU of the osnoise tracer's noise occurrences, each a step of at least its threshold between two time reads, as latlab noise's interruptions; %s, each length at its bucket's middle) keeps no order: the lengths are compared as independent samples; their rate is not compared (no runtime in the file)", label, buckets),
		fmt.Sprintf("%s: rtla osnoise hist records neither its threshold (-T; the tracer's default is 5 µs, 1 µs from Linux 6.11) nor its runtime and period (-r, -p)%s: lengths of runs with different thresholds differ by that alone: check the command lines", label, duration(f))}
	var absent, outside []int
	named := f.CPUs(rtla.Noise)
	for _, c := range cpus {
		if !slices.Contains(named, c) {
			absent = append(absent, c)
		}
	}
	for _, c := range named {
		if !slices.Contains(cpus, c) {
			outside = append(outside, c)
		}
	}
	if len(absent) > 0 {
		notes = append(notes, fmt.Sprintf("%s: no column for CPU %s: rtla osnoise hist names only CPUs with a noise occurrence, so it had none there or did not measure it (-c); their lengths are not compared", label, cpuset.FormatList(absent)))
	}
	if len(outside) > 0 {
		notes = append(notes, fmt.Sprintf("%s: CPU %s not compared: the noise results did not measure it", label, cpuset.FormatList(outside)))
	}
	var over []string
	for j, col := range f.Columns {
		if f.Over[j] > 0 && slices.Contains(cpus, col.CPU) {
			over = append(over, fmt.Sprintf("CPU %d: %d", col.CPU, f.Over[j]))
		}
	}
	if len(over) > 0 {
		notes = append(notes, fmt.Sprintf("%s: occurrences in rtla's \"over:\" row, at or above the histogram's range (%s): their lengths are not known, and no statistic they could reach is given", label, strings.Join(over, ", ")))
	}
	return append(notes, rtlaEnd(label, f, "noise occurrences", "-a, -s or -S", "occurrence")...)
}

func duration(f *rtla.Histogram) string {
	if f.Duration == "" {
		return ""
	}
	return fmt.Sprintf(" (it records the run's duration: %s)", f.Duration)
}

// osnoiseVerdict is a CPU's verdict when a side is rtla osnoise hist's:
// the counts side by side, their rate not compared, then the lengths.
func osnoiseVerdict(cpu int, a, b NoiseRun, p NoisePair, level float64) string {
	count := func(r NoiseRun) string {
		if r.Absent {
			return "no column (no noise occurrence, or not measured)"
		}
		return fmt.Sprintf("%d interruptions", r.Count)
	}
	return fmt.Sprintf("CPU %d: %s vs %s: %s and %s, their rate not compared (an rtla osnoise histogram records no runtime); %s",
		cpu, b.Label, a.Label, count(b), count(a), lengthsVerdict(p, stats.FormatLevel(level)))
}

// notRated is a pair's rate test when a side has no runtime: the counts,
// no ratio, no interval, p 1.
func notRated(a, b NoiseRun, level float64) stats.RateTest {
	return stats.RateTest{NA: a.Count, NB: b.Count, Ratio: stats.Extended(math.NaN()), Hi: stats.Extended(math.NaN()), Level: level, P: 1}
}

// maxNs is rtla's max: of cpu's column in ns, 0 without a summary: the
// lower bound of the longest occurrence's bucket (osnoise hist reads the
// kernel's histogram back, bucket by bucket).
func maxNs(f *rtla.Histogram, cpu int) int64 {
	j := slices.Index(f.Columns, rtla.Column{Context: rtla.Noise, CPU: cpu})
	if f.Max == nil || j < 0 || f.Max[j] < 0 {
		return 0
	}
	if f.Nano {
		return f.Max[j]
	}
	return f.Max[j] * 1000
}

// unknownLengths marks the statistics of an osnoise column that its
// "over:" occurrences (at overflowNs) reach: -1.
func unknownLengths(s *stats.Summary) {
	for _, v := range []*int64{&s.P50, &s.P90, &s.P99, &s.P999, &s.Max} {
		if *v >= overflowNs {
			*v = -1
		}
	}
	if s.Max < 0 {
		s.Mean, s.Stdev = -1, -1
	}
}

// onBuckets puts a CPU's runs on the grid of its rtla osnoise columns,
// when it has one: a noise result's lengths at their 1 µs bucket's middle
// (as the kernel's histogram buckets them, by whole µs), so that no run
// differs from another by its resolution alone; and every run's lengths
// at or above the smallest range of a column with "over:" occurrences at
// overflowNs, not known, as those are (censor's rule). A run whose order
// is known and that has such lengths loses its order, with a note.
func onBuckets(c *NoiseCPU) []string {
	if !slices.ContainsFunc(c.Runs, func(r NoiseRun) bool { return r.RTLA }) {
		return nil
	}
	var cut int64
	for _, r := range c.Runs {
		if r.rangeNs > 0 && (cut == 0 || r.rangeNs < cut) {
			cut = r.rangeNs
		}
	}
	c.CensoredAtNs = cut
	var notes []string
	middle := func(v []int64) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = x/1000*1000 + 500
		}
		return out
	}
	for i := range c.Runs {
		r := &c.Runs[i]
		if !r.RTLA {
			r.samples = middle(r.samples) // sorted still
			if r.ordered != nil {
				r.ordered = middle(r.ordered)
			}
		}
		if cut == 0 {
			continue
		}
		r.Censored = censorSorted(r.samples, cut)
		if r.ordered != nil && r.Censored > 0 {
			r.ordered = nil
			notes = append(notes, fmt.Sprintf("%s, CPU %d: %d of its lengths are at or above %d µs and compared as not known, so its serial-dependence analysis cannot run on them: it is compared as independent samples", r.Label, c.CPU, r.Censored, cut/1000))
		}
	}
	return notes
}
