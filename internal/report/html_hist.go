package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/units"
)

// histogramSection is a cyclictest or rtla timerlat histogram side: what
// latlab compare says of it alone (compare.Cyclictest.Alone): its source,
// its summary from its 1 µs buckets, with the statistics its overflows
// reach not known, and its notes; and its distribution plotted from the
// buckets, never expanded (a cyclictest file can count 500 million
// wake-ups). A histogram keeps no order, so it has no time series.
func histogramSection(s htmlSection, x ReportInput, c *compare.Cyclictest, stem string) (htmlSection, error) {
	r, notes, err := c.Alone(x.Label)
	if err != nil {
		return s, err
	}
	if r.Summary.Count == 0 {
		return s, fmt.Errorf("the histogram holds no wake-ups")
	}
	q := compare.Quantity(probe.KindWake.Name())
	s.Subtitle = r.Source + "; " + q + " in 1 µs buckets"
	h := c.H
	if h.Overflows > 0 {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("%s, %s at or above the histogram's range of %d µs (values not known)",
			count(h.Samples(), "wake-up"), count(h.Overflows, "overflow"), h.RangeUs))
	} else {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("%s, all within the histogram's range of %d µs (no overflow)",
			count(h.Samples(), "wake-up"), h.RangeUs))
	}
	s.Verdicts = append(s.Verdicts, "order not known: a histogram keeps no order of its wake-ups, so it has no time series and no serial-dependence plot")
	s.Tables = append(s.Tables, histSummaryTable(r, h.InRange == 0))
	if len(r.Unknown) > 0 {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("not known: %s: %d of its %d wake-ups overflowed the histogram's range of %d µs, and these statistics reach them",
			strings.Join(unknownRowNames(r.Unknown, h.InRange == 0), ", "), h.Overflows, h.Samples(), h.RangeUs))
	}
	s.Notes = append(s.Notes, notes...)
	if h.InRange == 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: every wake-up overflowed: no value is known, and nothing is plotted", x.Label))
		return s, nil
	}
	ser := []Dist{histDist(x.Label, c)}
	s.Figures = append(s.Figures,
		&Figure{Name: stem + "-histogram", Title: "histogram of the " + q + " (from its 1 µs buckets)",
			render: func(f string) ([]byte, error) { return HistogramPlot("Histogram: "+q, q, ser, f) }},
		&Figure{Name: stem + "-cdf", Title: "cumulative distribution of the " + q + " (from its 1 µs buckets)",
			render: func(f string) ([]byte, error) { return DistCDFPlot("Cumulative distribution: "+q, q, ser, f) }})
	return s, nil
}

// histDist is a histogram side as a plot's series: each bucket b at
// b µs + 500 ns, its middle, where compare puts its values, and its
// overflows apart.
func histDist(label string, c *compare.Cyclictest) Dist {
	return bucketsDist(label, c.H.Counts, c.H.Overflows, c.H.RangeUs)
}

// bucketsDist is 1 µs buckets (counts[b] at b µs) as a plot's series:
// each at its middle, and over, at or above rangeUs, apart.
func bucketsDist(name string, counts []int64, over, rangeUs int64) Dist {
	b := &Buckets{Over: over, RangeNs: rangeUs * 1000}
	for i, k := range counts {
		if k > 0 {
			b.Values = append(b.Values, int64(i)*1000+500)
			b.Counts = append(b.Counts, k)
		}
	}
	return Dist{Name: name, Buckets: b}
}

// histSummaryTable is the page's statistics table of a histogram side,
// "not known" where its overflows reach the statistic (with all, every
// one of its wake-ups).
func histSummaryTable(r compare.RunSummary, all bool) htmlTable {
	unknown := map[string]bool{}
	for _, u := range unknownRowNames(r.Unknown, all) {
		unknown[u] = true
	}
	t := htmlTable{Caption: "statistics (nearest-rank percentiles of the buckets' middles, as latlab compare takes them)", Header: []string{"", "wake-up latency"}}
	for _, row := range SummaryRows {
		switch {
		case row == "count":
			t.Rows = append(t.Rows, []string{row, fmt.Sprint(r.Summary.Count)})
		case unknown[row]:
			t.Rows = append(t.Rows, []string{row, "not known"})
		default:
			t.Rows = append(t.Rows, []string{row, units.Duration(time.Duration(value(r.Summary, row)))})
		}
	}
	return t
}

// unknownRowNames are the page's names of compare's unknown summary
// fields (p999_ns is p99.9); with all, every wake-up overflowed and the
// minimum is not known either.
func unknownRowNames(fields []string, all bool) []string {
	var out []string
	if all {
		out = append(out, "min")
	}
	for _, f := range fields {
		n := strings.TrimSuffix(f, "_ns")
		if n == "p999" {
			n = "p99.9"
		}
		out = append(out, n)
	}
	return out
}
