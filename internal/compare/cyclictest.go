package compare

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// CyclictestKind is the kind of a side read from a cyclictest histogram
// file (cyclictest -h, -H, --histfile, or latlab wake --histfile): not a
// result document, but wake-up latency as a wake result's.
const CyclictestKind = "cyclictest-histogram"

// Cyclictest is the payload of a side read from a cyclictest histogram.
type Cyclictest struct {
	H *cyclictest.Histogram
	// Timerlat is set when the file was rtla timerlat hist output, H its
	// Thr columns (rtla.go).
	Timerlat *Timerlat
}

// overflowNs is where a value whose size is not known stands among the
// values (an overflow of a cyclictest histogram, and in the other runs
// any value at or above its range): above every latency (2^50 ns is 13
// days), so that ranks stay right and any statistic or interval that
// reaches one is far out of reach of a real value, and found.
const overflowNs int64 = 1 << 50

// Values returns the histogram's wake-ups in ns, sorted: each bucket b's
// count at b µs + 500 ns (the middle of [b, b+1) µs, the latencies
// cyclictest truncates to b), then the overflows at overflowNs. They are
// charged to b first, as samples rebuilt from a document's histogram are.
func (c *Cyclictest) Values(b *result.Budget) ([]int64, bool, error) {
	if b == nil {
		b = result.NewBudget()
	}
	n := c.H.Samples()
	if err := b.Charge(n); err != nil {
		return nil, false, err
	}
	out := make([]int64, 0, n)
	for bucket, k := range c.H.Counts {
		v := int64(bucket)*1000 + 500
		for range k {
			out = append(out, v)
		}
	}
	for range c.H.Overflows {
		out = append(out, overflowNs)
	}
	return out, false, nil
}

// isCyclictest reports whether x is a histogram of wake-up latency: read
// from a cyclictest histogram or, as one, from rtla timerlat hist output.
func isCyclictest(x Input) bool { return WakeHistogram(x.Doc.Kind) }

// WakeHistogram reports whether kind is that of a side read from a
// histogram of wake-up latency (a cyclictest histogram, rtla timerlat hist
// output's Thr columns), which is compared as wake results are.
func WakeHistogram(kind string) bool { return kind == CyclictestKind || kind == TimerlatKind }

// sideKind is the kind a side is compared as: a cyclictest histogram
// measures what a wake result does, an rtla osnoise histogram what a
// noise result does.
func sideKind(x Input) string {
	if isCyclictest(x) {
		return probe.KindWake.Name()
	}
	if isOsnoise(x) {
		return probe.KindNoise.Name()
	}
	return x.Doc.Kind
}

// looksJSON reports whether the file at path starts, after white space,
// with "{": a result document; anything else is read as a cyclictest
// histogram. An empty file is left to the document's reader, whose
// "empty input" says what it is. Reading is bounded as every input is.
func looksJSON(path string) (bool, error) {
	f, err := infile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	for {
		c, err := br.ReadByte()
		if err != nil {
			return true, nil // empty, or only white space
		}
		if !strings.ContainsRune(" \t\r\n\ufeff\xbb\xbf\xef", rune(c)) {
			return c == '{', nil
		}
	}
}

// readHistogram reads path as a cyclictest histogram side.
func readHistogram(path string) (*result.Document, error) {
	h, err := cyclictest.ReadFile(path)
	if errors.Is(err, cyclictest.ErrNotHistogram) {
		return nil, badinput.Errorf("%s is not a latlab result document (JSON), rtla timerlat or osnoise hist output or %s", path, cyclictest.Accepted)
	}
	if err != nil {
		if errors.Is(err, infile.ErrLimit) {
			return nil, badinput.Errorf("cannot read %s: %v", path, err)
		}
		return nil, badinput.Errorf("%v (accepted: %s)", err, cyclictest.Accepted)
	}
	return &result.Document{Kind: CyclictestKind, Data: &Cyclictest{H: h}}, nil
}

// cyclictestNotes say what a histogram side is and what it cannot say:
// the order of its wake-ups, the values of its overflows.
func cyclictestNotes(label string, h *cyclictest.Histogram) []string {
	threads := "its one thread column"
	if h.Threads > 1 {
		threads = fmt.Sprintf("its %d thread columns pooled", h.Threads)
	}
	notes := []string{fmt.Sprintf("%s: a cyclictest histogram (%s, 1 µs buckets, each value at its bucket's middle) keeps no order of its %d wake-ups: the serial-dependence analysis is not run, and the intervals and tests assume independent wake-ups; a cyclictest run's wake-ups are often serially dependent, and the intervals may then be too narrow",
		label, threads, h.Samples())}
	if h.Overflows > 0 {
		n := fmt.Sprintf("%s: %d of its %d wake-ups (%s) overflowed the histogram's range of %d µs (its rows end at %d µs): their values are not known, and no statistic they could reach is given",
			label, h.Overflows, h.Samples(), pct(float64(h.Overflows)/float64(h.Samples())), h.RangeUs, h.RangeUs-1)
		if h.MaxUs != nil {
			n += fmt.Sprintf(" (the footer's largest latency: %d µs)", slices.Max(h.MaxUs))
		}
		notes = append(notes, n)
	}
	return notes
}

// settingsNote says what a histogram file does not record, against the
// first wake document's interval when there is one.
func settingsNote(in []Input) string {
	var hist []string
	var wake string
	for _, x := range in {
		if isCyclictest(x) && !isTimerlat(x) {
			hist = append(hist, x.Label)
		} else if m, ok := x.Doc.Data.(measured); ok && wake == "" {
			wake = fmt.Sprintf("%s woke every %s", x.Label, dur(m.Measured().IntervalNs))
		}
	}
	if len(hist) == 0 {
		return ""
	}
	s := fmt.Sprintf("a cyclictest histogram records neither cyclictest's interval (-i), priority, policy, clock nor CPUs (%s): ", strings.Join(hist, ", "))
	if wake != "" {
		return s + wake + ", and whether the histogram's run woke at the same interval is not known from the files: check the command lines"
	}
	return s + "whether the runs measured alike is not known from the files: check the command lines"
}

// bucket puts the values of every run that is not a histogram in the
// histograms' 1 µs buckets, each at its middle, as cyclictest counts a
// wake-up (truncated to whole µs; latlab wake --histfile counts a
// negative lateness in bucket 0): compared with a histogram, the ns of a
// wake result would otherwise differ from its buckets' middles by up to
// half a bucket, which the Kolmogorov-Smirnov test finds (a wake result
// against the histogram it wrote itself: D = 0.032, p = 0.005). A run
// of bins (a wake result without raw samples, binnedRuns) has its bins
// put in them. It reports whether there is a histogram among the inputs.
func bucket(runs []RunSummary, in []Input, notes *[]string) bool {
	if !slices.ContainsFunc(in, isCyclictest) {
		return false
	}
	mid := func(v int64) int64 { return max(v, 0)/1000*1000 + 500 }
	for i := range runs {
		runs[i].bucketNs = 1000
		if isCyclictest(in[i]) {
			continue
		}
		r := &runs[i]
		if r.bins != nil {
			b := mapBins(*r.bins, mid)
			r.bins = &b
		}
		for j, v := range r.samples {
			r.samples[j] = mid(v) // monotone: still sorted
		}
		if r.ordered != nil {
			o := make([]int64, len(r.ordered))
			for j, v := range r.ordered {
				o[j] = mid(v)
			}
			r.ordered = o
		}
		*notes = append(*notes, fmt.Sprintf("%s: its values are compared in the histograms' 1 µs buckets, each at its bucket's middle (truncated to whole µs, as cyclictest counts a wake-up), so that the bucket width is not counted as a difference; its summary keeps its own values", r.Label))
	}
	return true
}

// censor makes every run's values at or above the smallest range of a
// histogram with overflows unknown (overflowNs), as the overflows are:
// whether a value of one run at 500 µs is above an overflow of another
// at "400 µs or more" is not known. It returns that range in ns, 0 when
// no histogram overflowed. A run whose order is known and that has such
// values loses its order, with a note. A run of bins has them counted at
// overflowNs; a histogram's own run, which binnedRuns cut already, is
// left alone.
func censor(runs []RunSummary, in []Input, notes *[]string) int64 {
	var cut int64
	for _, x := range in {
		if c, ok := x.Doc.Data.(*Cyclictest); ok && c.H.Overflows > 0 {
			if r := c.H.RangeUs * 1000; cut == 0 || r < cut {
				cut = r
			}
		}
	}
	if cut == 0 {
		return 0
	}
	for i := range runs {
		r := &runs[i]
		if isCyclictest(in[i]) && r.bins != nil {
			continue // binnedRuns cut it
		}
		if r.bins != nil {
			b := mapBins(*r.bins, func(v int64) int64 {
				if v >= cut {
					return overflowNs
				}
				return v
			})
			r.bins, r.Censored = &b, b.N()-below(b, cut)
			continue
		}
		r.Censored = censorSorted(r.samples, cut)
		if r.ordered != nil && r.Censored > 0 {
			// Its dependence would be measured on a series of stand-in
			// values 2^50 ns high, and its blocks resampled from them:
			// neither says anything. It is compared as the histograms
			// are, and said to be.
			r.ordered = nil
			*notes = append(*notes, fmt.Sprintf("%s: %d of its values are at or above %d µs and compared as not known, so its serial-dependence analysis cannot run on them: it is compared as independent samples too, and its intervals may be too narrow", r.Label, r.Censored, cut/1000))
		}
	}
	return cut
}

// censorSorted puts the sorted values at or above cut at overflowNs, not
// known, and says how many there are.
func censorSorted(v []int64, cut int64) int64 {
	k, _ := slices.BinarySearch(v, cut)
	for j := k; j < len(v); j++ {
		v[j] = overflowNs
	}
	return int64(len(v) - k)
}

// unknownSummary marks the summary statistics of a histogram's run that
// its overflows reach: -1, named in Unknown.
func unknownSummary(r *RunSummary) {
	s := &r.Summary
	fields := []struct {
		name string
		v    *int64
	}{{"p50_ns", &s.P50}, {"p90_ns", &s.P90}, {"p99_ns", &s.P99}, {"p999_ns", &s.P999}, {"max_ns", &s.Max}}
	for _, f := range fields {
		if *f.v >= overflowNs {
			*f.v = -1
			r.Unknown = append(r.Unknown, f.name)
		}
	}
	if s.Max < 0 {
		s.Mean, s.Stdev = -1, -1
		r.Unknown = append(r.Unknown, "mean_ns", "stdev_ns")
	}
}

// unknownRows blanks the rows of p whose values or intervals reach the
// values at or above cut (ns), -1 for a value, with one line each of
// why; when the verdict's statistic is one of them, the outcome is
// Unknown.
func unknownRows(p *Pair, a, b RunSummary, cut int64, by stats.Statistic) {
	if cut == 0 {
		return
	}
	reach := func(v float64) bool { return math.Abs(v) >= float64(overflowNs)/2 }
	for i := range p.Rows {
		row := &p.Rows[i]
		if row.Unit != "ns" {
			continue
		}
		mean := row.Stat == stats.Mean.String()
		aUnk := reach(row.A) || (mean && a.Censored > 0)
		bUnk := reach(row.B) || (mean && b.Censored > 0)
		switch {
		case aUnk || bUnk:
			row.Unknown = valueUnknown(row.Stat, a, b, cut)
			if aUnk {
				row.A = -1
			}
			if bUnk {
				row.B = -1
			}
			row.RelChange, row.Diff, row.NeedsSamples = 0, nil, 0
		case row.Diff != nil && (reach(row.Diff.Lo) || reach(row.Diff.Hi) || reach(row.Diff.Estimate)):
			row.Unknown = fmt.Sprintf("%s: its interval is not known: resamples reach the values not known (%s)", row.Stat, censoredOf(a, b, cut))
			row.Diff = nil
		default:
			continue
		}
		if row.Stat == by.String() {
			p.Outcome, p.ByDiff, p.SamplesNeeded = Unknown, nil, 0
			p.why = row.Unknown
		}
	}
}

// valueUnknown says why a statistic's value is not known.
func valueUnknown(stat string, a, b RunSummary, cut int64) string {
	if stat == stats.Mean.String() {
		return fmt.Sprintf("mean: not known: %s, whose values are not known", censoredOf(a, b, cut))
	}
	return fmt.Sprintf("%s: not known: %s, and %s (nearest rank) falls among them", stat, censoredOf(a, b, cut), stat)
}

// censoredOf names the runs with values at or above the cut and how many.
func censoredOf(a, b RunSummary, cut int64) string {
	var s []string
	for _, r := range []RunSummary{a, b} {
		if r.Censored > 0 {
			s = append(s, fmt.Sprintf("%s has %d of %d values (%s) at or above %d µs", r.Label, r.Censored, r.n(), pct(float64(r.Censored)/float64(r.n())), cut/1000))
		}
	}
	return strings.Join(s, " and ")
}

func pct(f float64) string {
	p := f * 100
	if p < 10 {
		// Two significant digits: 2.5%, 0.013%, 2.5e-5%.
		s := fmt.Sprintf("%.2g%%", p)
		return strings.Replace(s, "e-0", "e-", 1)
	}
	// Whole percents, with as many decimals as keep a share short of
	// all from reading as 100% (%.2g wrote 99.98% as 1e+02%).
	prec := 0
	for ; prec < 6 && p < 100 && strconv.FormatFloat(p, 'f', prec, 64) == "100"+zeros(prec); prec++ {
	}
	return strconv.FormatFloat(p, 'f', prec, 64) + "%"
}

// zeros is the decimals of a whole number written with prec of them.
func zeros(prec int) string {
	if prec == 0 {
		return ""
	}
	return "." + strings.Repeat("0", prec)
}

// binnedRuns adds a run per input of a comparison with cyclictest
// histograms, with its notes. A histogram is compared from its buckets
// as stats.Binned: the statistics, intervals and tests that its samples,
// rebuilt one by one (Values), would give, in O(buckets) memory and time
// (O(buckets x replicates) for the mean and stdev beyond the bootstrap's
// budget) however many wake-ups it counts; nothing is rebuilt, so
// nothing is charged to o.Budget. A latlab wake result among them keeps
// its raw samples and their order (its serial-dependence analysis runs
// on them; the histograms' sides are taken as independent), in the
// histograms' buckets (bucket); one without raw samples is its
// histogram's bins, in the same buckets, never rebuilt either.
//
// Always, not only beyond the budget: a histogram compared with a wake
// result gives the same numbers whatever its size (rebuilt, it gave the
// same ones to 1e-9 below the budget, TestMixedBinnedAsExpanded, and
// none above it). Values at or above the smallest range of a histogram
// that overflowed are counted with the overflows (censor's rule) in the
// runs' bins and samples, not in their summaries.
func binnedRuns(res *Result, in []Input, o Options) error {
	var total int64
	// The rank test counts the values of two runs together: all of them
	// must fit in an int64, as each histogram's do (a wake result's raw
	// samples are bounded by its file; its HdrHistogram's counts, which
	// a few bytes can make 2^62, are counted with the histograms').
	count := func(label string, n int64) error {
		if n > math.MaxInt {
			// A run's count is an int in its comparison (Pair.ACount,
			// stats.MWU.N1): 2^31 - 1 on a 32-bit build.
			return badinput.Errorf("%s: a histogram of %d wake-ups, more than this build of latlab counts in a run (%d)", label, n, math.MaxInt)
		}
		if n > math.MaxInt64-total {
			return badinput.Errorf("%s: the histograms hold more than %d wake-ups together, beyond a 64-bit count", label, int64(math.MaxInt64))
		}
		total += n
		return nil
	}
	for _, x := range in {
		c, ok := x.Doc.Data.(*Cyclictest)
		if !ok {
			continue
		}
		if err := count(x.Label, c.H.Samples()); err != nil {
			return err
		}
		if len(x.More) > 0 {
			return fmt.Errorf("%w: %s groups %d results, but %s results are compared one file per side (groups of runs are for tcp-discard)",
				ErrIncompatible, x.Label, len(x.More)+1, x.Doc.Kind)
		}
		if c.H.Overflows > 0 {
			if r := c.H.RangeUs * 1000; res.CensoredAtNs == 0 || r < res.CensoredAtNs {
				res.CensoredAtNs = r
			}
		}
	}
	for _, x := range in {
		c, ok := x.Doc.Data.(*Cyclictest)
		if !ok {
			r, err := documentRun(res, x, in[0].Doc, o, true)
			if err != nil {
				return err
			}
			if r.bins != nil {
				if err := count(x.Label, r.bins.N()); err != nil {
					return err
				}
			}
			res.Runs = append(res.Runs, r)
			continue
		}
		all, err := c.binned(0)
		if err != nil {
			return badinput.Errorf("%s: %v", x.Label, err)
		}
		if all.N() == 0 {
			return fmt.Errorf("%w: %s has no samples", ErrIncompatible, x.Label)
		}
		r := RunSummary{Label: x.Label, Summary: stats.SummarizeBinned(all), Reconstructed: true, OrderUnknown: true, Source: c.source()}
		unknownSummary(&r)
		res.Notes = append(res.Notes, c.notes(x.Label)...)
		cut, err := c.binned(res.CensoredAtNs)
		if err != nil {
			return badinput.Errorf("%s: %v", x.Label, err)
		}
		r.bins = &cut
		if res.CensoredAtNs > 0 {
			r.Censored = cut.N() - below(cut, res.CensoredAtNs)
		}
		res.Runs = append(res.Runs, r)
	}
	if n := settingsNote(in); n != "" {
		res.Notes = append(res.Notes, n)
	}
	bucket(res.Runs, in, &res.Notes)
	censor(res.Runs, in, &res.Notes)
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.By = r.of(o.By); r.By >= float64(overflowNs)/2 || (o.By == stats.Mean && r.Censored > 0) {
			r.By = -1
		}
	}
	return nil
}

// mapBins is b with each value v at f(v), f not decreasing: bins that
// come to the same value are merged.
func mapBins(b stats.Binned, f func(int64) int64) stats.Binned {
	vs, cs := b.Bins()
	var nv, nc []int64
	for i, v := range vs {
		w := f(v)
		if k := len(nv) - 1; k >= 0 && nv[k] == w {
			nc[k] += cs[i] // within b's count
			continue
		}
		nv, nc = append(nv, w), append(nc, cs[i])
	}
	out, _ := stats.NewBinned(nv, nc) // increasing, and summing as b's did
	return out
}

// below counts b's values below v.
func below(b stats.Binned, v int64) int64 {
	var n int64
	vs, cs := b.Bins()
	for i := 0; i < len(vs) && vs[i] < v; i++ {
		n += cs[i]
	}
	return n
}

// binned is the histogram as stats.Binned: each bucket b's count at
// b µs + 500 ns, as Values puts them, and the overflows at overflowNs;
// with cut > 0 (ns) the buckets at or above it counted with them.
func (c *Cyclictest) binned(cut int64) (stats.Binned, error) {
	vs := make([]int64, 0, len(c.H.Counts)+1)
	cs := make([]int64, 0, len(c.H.Counts)+1)
	over := c.H.Overflows
	for bucket, k := range c.H.Counts {
		v := int64(bucket)*1000 + 500
		if cut > 0 && v >= cut {
			over += k // cannot overflow: the reader checked the sum
			continue
		}
		vs, cs = append(vs, v), append(cs, k)
	}
	vs, cs = append(vs, overflowNs), append(cs, over)
	return stats.NewBinned(vs, cs)
}
