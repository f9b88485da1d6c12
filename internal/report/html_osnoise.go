package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/rtla"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// An rtla osnoise histogram names up to cyclictest.MaxThreads CPUs in a
// few hundred KB: the section's table and plots are bounded, not its
// file's CPUs.
const (
	// maxOsnoiseRows bounds the CPUs the table has a row for: past it,
	// those with the most occurrences, every CPU counted in the pooled
	// row.
	maxOsnoiseRows = 64
	// maxOsnoiseSeries bounds the CPUs plotted one by one: the palette's
	// colours, which a ninth series would repeat. Past it, the plots
	// show every CPU pooled.
	maxOsnoiseSeries = 8
)

// osnoiseQuantity is what an osnoise side's values are.
const osnoiseQuantity = "noise occurrence length"

// osnoiseSection is an rtla osnoise histogram side: what latlab compare
// says of it alone (compare.Osnoise.Alone, Notes). One of its samples is
// one osnoise:sample_threshold event, a step of at least the tracer's
// threshold between two reads of the time, counted per CPU in 1 µs
// buckets: a row per CPU (and every CPU pooled) of the count, the
// occurrences over the range (rtla's "over:" row), the statistics of the
// buckets, "not known" where those reach one, and rtla's own min:, avg:
// and max:; their distributions plotted from the buckets, never
// expanded. The file keeps no order, so no time series, and records no
// runtime, so no rate.
func osnoiseSection(s htmlSection, x ReportInput, o *compare.Osnoise, stem string) (htmlSection, error) {
	f := o.File
	buckets := "1 µs buckets"
	if f.Nano {
		buckets = "its ns buckets summed into 1 µs buckets"
	}
	s.Subtitle = "rtla osnoise histogram, a column per CPU with a noise occurrence; " + osnoiseQuantity + " in " + buckets
	noRate := "no rate: " + compare.OsnoiseNoRate
	cpus := f.CPUs(rtla.Noise)
	pooled, ph, ok, err := o.Alone(x.Label, -1)
	if err != nil {
		return s, err
	}
	if !ok {
		s.Verdicts = append(s.Verdicts, "no noise occurrence: the file counts none on any CPU (rtla osnoise hist names only the CPUs that had one): no statistic is known, and nothing is plotted", noRate)
		s.Notes = append(s.Notes, o.Notes(x.Label)...)
		return s, nil
	}
	cpuWord := "CPU"
	if len(cpus) > 1 {
		cpuWord = "CPUs"
	}
	line := fmt.Sprintf("%s on %s %s, each an osnoise:sample_threshold event (a step of at least the tracer's threshold between two reads of the time); ",
		count(ph.Samples(), "noise occurrence"), cpuWord, cpuset.FormatList(cpus))
	if over := rtlaOver(f, -1); ph.Overflows > over {
		// In ns the range may end inside its last µs, whose occurrences
		// then count with the overflows (rtla.Histogram.Cyclictest).
		line += fmt.Sprintf("%s at or above %d µs (lengths not known): %d in rtla's \"over:\" row and %d in the last µs, inside which the file's range of ns buckets ends", count(ph.Overflows, "occurrence"), ph.RangeUs, over, ph.Overflows-over)
	} else if ph.Overflows > 0 {
		line += fmt.Sprintf("%s at or above the histogram's range of %d µs (lengths not known)", count(ph.Overflows, "occurrence"), ph.RangeUs)
	} else {
		line += fmt.Sprintf("all within the histogram's range of %d µs (no overflow)", ph.RangeUs)
	}
	s.Verdicts = append(s.Verdicts, line, noRate,
		"order not known: a histogram keeps no order of its occurrences, so it has no time series and no serial-dependence plot")

	shown := cpus
	if len(cpus) > maxOsnoiseRows {
		shown = slices.Clone(cpus)
		slices.SortStableFunc(shown, func(a, b int) int {
			return cmp.Compare(f.ColumnSamples(rtla.Column{Context: rtla.Noise, CPU: b}), f.ColumnSamples(rtla.Column{Context: rtla.Noise, CPU: a}))
		})
		shown = shown[:maxOsnoiseRows]
		slices.Sort(shown)
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("%d CPUs: the table has a row for the %d with the most noise occurrences (CPU %s); the other %d are counted in its row of every CPU pooled",
			len(cpus), maxOsnoiseRows, cpuset.FormatList(shown), len(cpus)-maxOsnoiseRows))
	}
	t := htmlTable{Caption: "per CPU, and every CPU pooled: the noise occurrences, those at or above the histogram's range (rtla's \"over:\" row), the statistics of their lengths (nearest-rank percentiles of the buckets' middles, as latlab compare takes them; not known where the occurrences over the range reach one), and rtla's own min:, avg: and max: as it wrote them (min: and max: are its buckets' lower bounds)",
		Header: []string{"CPU", "count", "over:"}}
	t.Header = append(t.Header, SummaryRows[1:]...)
	t.Header = append(t.Header, "rtla min:", "rtla avg:", "rtla max:")
	var ser []Dist
	unknown := false
	for _, c := range shown {
		r, h, ok, err := o.Alone(x.Label, c)
		if err != nil {
			return s, err
		}
		if !ok {
			continue // CPUs lists the file's columns
		}
		row := append([]string{fmt.Sprint(c)}, osnoiseCells(r, rtlaOver(f, c), h.InRange == 0)...)
		t.Rows = append(t.Rows, append(row, rtlaSummary(f, c)...))
		unknown = unknown || len(r.Unknown) > 0
		if len(cpus) <= maxOsnoiseSeries && h.InRange > 0 {
			ser = append(ser, bucketsDist(fmt.Sprintf("CPU %d", c), h.Counts, h.Overflows, h.RangeUs))
		}
	}
	if len(cpus) > 1 {
		row := append([]string{fmt.Sprintf("all %d pooled", len(cpus))}, osnoiseCells(pooled, rtlaOver(f, -1), ph.InRange == 0)...)
		t.Rows = append(t.Rows, append(row, "-", "-", "-"))
	}
	s.Tables = append(s.Tables, t)
	if unknown || len(pooled.Unknown) > 0 {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("not known: a statistic that a CPU's occurrences at or above the histogram's range of %d µs reach (their lengths are not known)", ph.RangeUs))
	}
	s.Notes = append(s.Notes, o.Notes(x.Label)...)
	what := "each CPU's"
	if len(cpus) > maxOsnoiseSeries {
		// More CPUs than colours: one series of them all.
		what = fmt.Sprintf("every CPU pooled (%d CPUs, more than a plot tells apart)", len(cpus))
		ser = nil
		if ph.InRange > 0 {
			ser = []Dist{bucketsDist(fmt.Sprintf("all %d CPUs", len(cpus)), ph.Counts, ph.Overflows, ph.RangeUs)}
		}
	}
	if len(ser) == 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: every occurrence is at or above the histogram's range: no length is known, and nothing is plotted", x.Label))
		return s, nil
	}
	q := osnoiseQuantity
	s.Figures = append(s.Figures,
		&Figure{Name: stem + "-histogram", Title: "histogram of the " + q + ", " + what + " (from its 1 µs buckets)",
			render: func(f string) ([]byte, error) { return HistogramPlot("Histogram: "+q, q, ser, f) }},
		&Figure{Name: stem + "-cdf", Title: "cumulative distribution of the " + q + ", " + what + " (from its 1 µs buckets)",
			render: func(f string) ([]byte, error) { return DistCDFPlot("Cumulative distribution: "+q, q, ser, f) }})
	return s, nil
}

// osnoiseCells are a row's count, occurrences over the range and
// statistics (SummaryRows after count), "not known" where the over-range
// occurrences reach one (with all, every one is over it).
func osnoiseCells(r compare.RunSummary, over int64, all bool) []string {
	unknown := map[string]bool{}
	for _, u := range unknownRowNames(r.Unknown, all) {
		unknown[u] = true
	}
	cells := []string{fmt.Sprint(r.Summary.Count), fmt.Sprint(over)}
	for _, row := range SummaryRows[1:] {
		if unknown[row] || r.Summary.Count == 0 {
			cells = append(cells, "not known")
			continue
		}
		cells = append(cells, units.Duration(time.Duration(value(r.Summary, row))))
	}
	return cells
}

// rtlaOver is cpu's "over:" as rtla wrote it, or with cpu < 0 the row's
// sum: the table's over: column is that row, not the converted
// overflows, which in ns also hold the µs the range ends inside.
func rtlaOver(f *rtla.Histogram, cpu int) int64 {
	var n int64
	for j, col := range f.Columns {
		if col.Context == rtla.Noise && (cpu < 0 || col.CPU == cpu) && j < len(f.Over) {
			n += f.Over[j] // cannot overflow: the reader summed them
		}
	}
	return n
}

// rtlaSummary are rtla's min:, avg: and max: of cpu's column as it wrote
// them (avg: with its two decimals), "-" without a summary or where rtla
// wrote "-".
func rtlaSummary(f *rtla.Histogram, cpu int) []string {
	j := slices.Index(f.Columns, rtla.Column{Context: rtla.Noise, CPU: cpu})
	perUnit := 1000.0 // ns in the file's unit
	if f.Nano {
		perUnit = 1
	}
	at := func(v []int64, scale float64) string {
		if j < 0 || j >= len(v) || v[j] < 0 {
			return "-"
		}
		ns := math.Round(float64(v[j]) * scale)
		if ns >= math.MaxInt64 {
			// A file's word: a count of ns no duration holds (292 years).
			return "beyond 292 years"
		}
		return units.Duration(time.Duration(ns))
	}
	avg := at(f.Avg, perUnit)
	// In hundredths when they fit (rtla.cents gives -1 past int64): a
	// value too large for them is still rtla's, not a "-".
	if j >= 0 && j < len(f.AvgCents) && f.AvgCents[j] >= 0 {
		avg = at(f.AvgCents, perUnit/100)
	}
	return []string{at(f.Min, perUnit), avg, at(f.Max, perUnit)}
}

// noiseComparisonSection is latlab compare's comparison of the noise
// results and rtla osnoise histograms of the report (compare.Compare, as
// `latlab compare` makes it): its verdicts, a table per CPU and its notes.
func noiseComparisonSection(g []ReportInput, stem string, b *result.Budget) htmlSection {
	s := htmlSection{ID: stem, Title: fmt.Sprintf("Comparison of %d runs of operating-system noise (noise results and rtla osnoise histograms)", len(g)),
		Subtitle: "each run against the first, as latlab compare (by p50, seed 1)"}
	var in []compare.Input
	for _, x := range g {
		in = append(in, compare.Input{Label: x.Label, Doc: x.Doc})
	}
	res, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1, Budget: b})
	if err != nil {
		s.Notes = append(s.Notes, "no statistical comparison: "+err.Error())
		return s
	}
	if n := len(res.Noise); n > maxOsnoiseRows {
		// A verdict and a table per CPU: bounded as the sections' rows
		// are, by the CPUs with the most occurrences over the runs.
		total := func(c compare.NoiseCPU) int64 {
			var k int64
			for _, r := range c.Runs {
				k += r.Count // bounded by the inputs' counts, each checked
			}
			return k
		}
		kept := slices.Clone(res.Noise)
		slices.SortStableFunc(kept, func(a, b compare.NoiseCPU) int { return cmp.Compare(total(b), total(a)) })
		kept = kept[:maxOsnoiseRows]
		slices.SortFunc(kept, func(a, b compare.NoiseCPU) int { return cmp.Compare(a.CPU, b.CPU) })
		var cpus []int
		for _, c := range kept {
			cpus = append(cpus, c.CPU)
		}
		cut := *res
		cut.Noise = kept
		res = &cut
		s.Notes = append(s.Notes, fmt.Sprintf("%d CPUs compared: the page shows the %d with the most occurrences over the runs (CPU %s); latlab compare on the same files gives every one", n, maxOsnoiseRows, cpuset.FormatList(cpus)))
	}
	s.Verdicts, s.Tables = compareNoiseHTML(res)
	for _, c := range res.Noise {
		for _, p := range c.Pairs {
			if p.Lengths == nil {
				continue
			}
			for _, row := range p.Lengths.Rows {
				if row.Unknown != "" {
					s.Notes = append(s.Notes, fmt.Sprintf("CPU %d, %s vs %s: %s", c.CPU, p.BLabel, p.ALabel, row.Unknown))
				}
			}
		}
	}
	s.Notes = append(s.Notes, res.Notes...)
	return s
}

// noiseGroup are the inputs a noise comparison takes: every noise result
// and rtla osnoise histogram, when there are two or more (before and after
// a change), as latlab compare takes them.
func noiseGroup(in []ReportInput) []ReportInput {
	var g []ReportInput
	for _, x := range in {
		if x.Doc.Kind == probe.KindNoise.Name() || x.Doc.Kind == compare.OsnoiseKind {
			g = append(g, x)
		}
	}
	if len(g) < 2 {
		return nil
	}
	return g
}
