package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/latlab/latlab/internal/stats"
)

// Dist is one named distribution (sorted ascending, ns) in a histogram or
// CDF; several series overlay.
type Dist struct {
	Name   string
	Sorted []int64
	// Buckets stands for Sorted for a histogram side (a cyclictest or
	// rtla file): it is plotted from its buckets, never expanded into one
	// value per sample (a cyclictest file can count 500 million).
	Buckets *Buckets
}

// Buckets are a histogram's counts: Counts[i] samples at Values[i] ns
// (ascending), and Over samples beyond its range whose values are not
// known (its overflows). The overflows count in every share, but are
// never drawn as values: a CDF marks them at the range's end.
type Buckets struct {
	Values, Counts []int64
	Over           int64
	RangeNs        int64 // where the overflows begin
}

// n is how many samples the series holds, overflows included.
func (s Dist) n() int64 {
	if b := s.Buckets; b != nil {
		n := b.Over
		for _, c := range b.Counts {
			n += c
		}
		return n
	}
	return int64(len(s.Sorted))
}

// known are the series' values and how many times each occurs, ascending,
// without a histogram's overflows.
func (s Dist) known(yield func(v, c int64) bool) {
	if b := s.Buckets; b != nil {
		for i, v := range b.Values {
			if b.Counts[i] > 0 && !yield(v, b.Counts[i]) {
				return
			}
		}
		return
	}
	for i := 0; i < len(s.Sorted); {
		j := i + 1
		for j < len(s.Sorted) && s.Sorted[j] == s.Sorted[i] {
			j++
		}
		if !yield(s.Sorted[i], int64(j-i)) {
			return
		}
		i = j
	}
}

// quantileKnown is the nearest-rank p-th percentile of a histogram
// series, or its largest known value when that rank falls among the
// overflows; ok is false when it holds no known value.
func (b *Buckets) quantileKnown(n int64, p float64) (v int64, ok bool) {
	rank := int64(math.Ceil(p / 100 * float64(n)))
	var cum int64
	for i, x := range b.Values {
		if b.Counts[i] == 0 {
			continue
		}
		v, ok = x, true
		if cum += b.Counts[i]; cum >= rank {
			return v, true
		}
	}
	return v, ok
}

// overflows counts the histogram series' samples whose values are not
// known.
func overflows(ss []Dist) int64 {
	var n int64
	for _, s := range ss {
		if s.Buckets != nil {
			n += s.Buckets.Over
		}
	}
	return n
}

// hasBuckets reports whether a series is a histogram's.
func hasBuckets(ss []Dist) bool {
	return slices.ContainsFunc(ss, func(s Dist) bool { return s.Buckets != nil })
}

// plotRange is the x range shown: from the smallest value to the largest
// p-th percentile of the series, so one far outlier does not squash the
// plot. The axis label says how much was left out.
func plotRange(ss []Dist, p float64) (lo, hi float64, clipped int64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		if b := s.Buckets; b != nil {
			if q, ok := b.quantileKnown(s.n(), p); ok {
				first, _ := b.quantileKnown(s.n(), 0)
				lo, hi = math.Min(lo, float64(first)), math.Max(hi, float64(q))
			}
			continue
		}
		if len(s.Sorted) == 0 {
			continue
		}
		lo = math.Min(lo, float64(s.Sorted[0]))
		hi = math.Max(hi, float64(stats.QuantileSorted(s.Sorted, p)))
	}
	for _, s := range ss {
		if s.Buckets != nil {
			for v, c := range s.known {
				if float64(v) > hi {
					clipped += c
				}
			}
			continue
		}
		for i := len(s.Sorted) - 1; i >= 0 && float64(s.Sorted[i]) > hi; i-- {
			clipped++
		}
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi, clipped
}

// HistogramPlot draws the share of samples per bin for each series (step
// lines, so several overlay), over the range up to the largest p99: 60
// bins stretched to a rare far outlier would put the bulk in one or two.
func HistogramPlot(title, quantity string, ss []Dist, format string) ([]byte, error) {
	lo, hi, clipped := plotRange(ss, 99)
	if math.IsInf(lo, 0) {
		return nil, fmt.Errorf("no samples to plot")
	}
	unit, div := nsUnit(hi)
	bins := 60
	w := (hi - lo) / float64(bins)
	if hasBuckets(ss) {
		// A histogram's values sit at its 1 µs buckets' middles: bins
		// of whole µs from a bucket's start, so that none is empty
		// between two that are not.
		w = math.Max(1000, math.Ceil(w/1000)*1000)
		lo = math.Floor(lo/1000) * 1000
		bins = max(1, int(math.Ceil((hi-lo)/w)))
		if lo+float64(bins)*w <= hi {
			bins++
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("%s (%s)", quantity, unit)
	p.Y.Label.Text = "share of samples (%)"
	o := overflows(ss)
	switch {
	case clipped > 0 && o > 0:
		p.X.Label.Text += fmt.Sprintf("; not shown: %s above the largest p99, %s (values not known)", count(clipped, "sample"), count(o, "overflow"))
	case clipped > 0:
		p.X.Label.Text += fmt.Sprintf("; %s above the largest p99 not shown", count(clipped, "sample"))
	case o > 0:
		p.X.Label.Text += fmt.Sprintf("; %s (values not known) not shown", count(o, "overflow"))
	}
	p.Add(plotter.NewGrid())
	top := 0.0
	for i, s := range ss {
		n := s.n()
		if n == 0 {
			continue
		}
		counts := make([]float64, bins)
		for v, k := range s.known {
			b := int((float64(v) - lo) / w)
			if b == bins && float64(v) <= hi {
				b = bins - 1
			}
			if b >= 0 && b < bins {
				counts[b] += float64(k)
			}
		}
		var xy plotter.XYs
		for b, c := range counts {
			y := 100 * c / float64(n)
			top = math.Max(top, y)
			x0, x1 := (lo+float64(b)*w)/div, (lo+float64(b+1)*w)/div
			xy = append(xy, plotter.XY{X: x0, Y: y}, plotter.XY{X: x1, Y: y})
		}
		if err := addSeriesLine(p, xy, i, s.Name); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, top*1.08
	return renderReportPlot(p, format)
}

// DistCDFPlot draws each series' empirical cumulative distribution: the share
// of samples at or below each value (nearest-rank percentiles read off it).
// The latency axis is logarithmic and holds every sample, from the 1-2-5
// step below the smallest to the one above the largest: on a linear axis a
// tail reaching 37 ms squashed a bulk of tens of microseconds into a
// vertical line at 0. Samples at or below 0 (a sleep that ended early) have
// no place on it and are drawn at its left edge.
func DistCDFPlot(title, quantity string, ss []Dist, format string) ([]byte, error) {
	p, err := distCDF(title, quantity, ss)
	if err != nil {
		return nil, err
	}
	return renderReportPlot(p, format)
}

func distCDF(title, quantity string, ss []Dist) (*plot.Plot, error) {
	lo, hi, least := math.Inf(1), math.Inf(-1), math.Inf(1)
	var nonPositive int64
	for _, s := range ss {
		if b := s.Buckets; b != nil {
			for v, c := range s.known {
				least = math.Min(least, float64(v))
				hi = math.Max(hi, float64(v))
				if v > 0 {
					lo = math.Min(lo, float64(v))
				} else {
					nonPositive += c
				}
			}
			if b.Over > 0 {
				// The overflows' marker stands at the range's end.
				hi = math.Max(hi, float64(b.RangeNs))
			}
			continue
		}
		if len(s.Sorted) > 0 {
			least = math.Min(least, float64(s.Sorted[0]))
		}
		for _, v := range s.Sorted {
			if v > 0 {
				lo = math.Min(lo, float64(v))
				break
			}
			nonPositive++
		}
		if n := len(s.Sorted); n > 0 {
			hi = math.Max(hi, float64(s.Sorted[n-1]))
		}
	}
	if math.IsInf(hi, 0) {
		return nil, fmt.Errorf("no samples to plot")
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "samples at or below (%)"
	p.Add(plotter.NewGrid())
	var x func(int64) float64
	if math.IsInf(lo, 0) {
		// No positive sample: a linear axis, which a log one cannot be.
		unit, div := nsUnit(math.Max(math.Abs(least), math.Abs(hi)))
		p.X.Label.Text = fmt.Sprintf("%s (%s)", quantity, unit)
		x = func(v int64) float64 { return float64(v) / div }
	} else {
		lo, hi = step125(lo, false), step125(hi, true)
		if hi <= lo {
			lo, hi = lo/2, hi*2
		}
		p.X.Label.Text = quantity + " (log scale)"
		if nonPositive > 0 {
			p.X.Label.Text += fmt.Sprintf("; %s at or below 0 drawn at the left edge", count(nonPositive, "sample"))
		}
		if o := overflows(ss); o > 0 {
			p.X.Label.Text += fmt.Sprintf("; %s (values not known): dashed, at the range's end", count(o, "overflow"))
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logDurationTicks{}
		p.X.Min, p.X.Max = lo, hi
		x = func(v int64) float64 { return math.Max(float64(v), lo) }
	}
	if err := addCDFLines(p, ss, x); err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = 0, 100
	return p, nil
}

// addCDFLines adds each series' CDF as steps, its values placed by x.
func addCDFLines(p *plot.Plot, ss []Dist, x func(int64) float64) error {
	for i, s := range ss {
		if s.Buckets != nil {
			if err := addBucketCDF(p, i, s, x); err != nil {
				return err
			}
			continue
		}
		n := len(s.Sorted)
		if n == 0 {
			continue
		}
		// At most ~2000 steps: enough for the eye, small enough for the
		// file. The largest sample ends the last step.
		stride := max(1, n/2000)
		var xy plotter.XYs
		for j := 0; j < n; j += stride {
			xj := x(s.Sorted[j])
			if j > 0 {
				xy = append(xy, plotter.XY{X: xj, Y: 100 * float64(j) / float64(n)})
			}
			xy = append(xy, plotter.XY{X: xj, Y: 100 * float64(min(j+stride, n)) / float64(n)})
		}
		if last := x(s.Sorted[n-1]); xy[len(xy)-1].X < last {
			xy = append(xy, plotter.XY{X: last, Y: 100})
		}
		if err := addSeriesLine(p, xy, i, s.Name); err != nil {
			return err
		}
	}
	return nil
}

// addSeriesLine adds series i's line, in its palette colour, to the plot
// and its legend.
func addSeriesLine(p *plot.Plot, xy plotter.XYs, i int, name string) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = paletteColor(i)
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// addBucketCDF adds a histogram series' CDF as steps at its buckets (at
// most ~2000 of them), and its overflows as a dashed rise at the end of
// its range, where they begin: their values are not known, so no step
// stands at one.
func addBucketCDF(p *plot.Plot, i int, s Dist, x func(int64) float64) error {
	n := s.n()
	if n == 0 {
		return nil
	}
	b := s.Buckets
	stride := max(1, n/2000)
	var xy plotter.XYs
	var cum, drawn int64
	prev := 0.0
	for v, c := range s.known {
		cum += c
		if cum-drawn < stride && cum < n-b.Over {
			continue
		}
		xv := x(v)
		xy = append(xy, plotter.XY{X: xv, Y: prev}, plotter.XY{X: xv, Y: 100 * float64(cum) / float64(n)})
		prev, drawn = 100*float64(cum)/float64(n), cum
	}
	if len(xy) > 0 {
		if err := addSeriesLine(p, xy, i, s.Name); err != nil {
			return err
		}
	}
	if b.Over == 0 {
		return nil
	}
	edge := x(b.RangeNs)
	var over plotter.XYs
	if len(xy) > 0 {
		over = append(over, plotter.XY{X: xy[len(xy)-1].X, Y: prev})
	}
	over = append(over, plotter.XY{X: edge, Y: prev}, plotter.XY{X: edge, Y: 100})
	l, err := plotter.NewLine(over)
	if err != nil {
		return err
	}
	l.Color = paletteColor(i)
	l.Width = vg.Points(1.5)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("%s: %s at or above %s, values not known", s.Name, count(b.Over, "overflow"), tickDuration(float64(b.RangeNs))), l)
	return nil
}

// logDurationTicks marks a log axis of nanoseconds at each power of ten
// and the steps between (2x ... 9x), labelled as durations (10 µs, 1 ms).
// Over three decades or less, the 2x and 5x steps are labelled too, and
// an axis that holds fewer than two labels labels every step; the ends
// are labelled where no label crowds them.
type logDurationTicks struct{}

func (logDurationTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	labelled := map[int]bool{1: true, 2: true, 5: true}
	if math.Log10(hi/lo) > 3 {
		labelled = map[int]bool{1: true}
	}
	var ts []plot.Tick
	labels := 0
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = tickDuration(v)
				labels++
			}
			ts = append(ts, t)
		}
	}
	if labels < 2 {
		for i := range ts {
			ts[i].Label = tickDuration(ts[i].Value)
		}
		return ts
	}
	// The axis ends too, unless a label sits close enough to crowd them.
	for _, i := range []int{0, len(ts) - 1} {
		crowded := false
		for _, t := range ts {
			if t.Label != "" && math.Abs(math.Log10(t.Value/ts[i].Value)) < 0.45 {
				crowded = true
			}
		}
		if !crowded {
			ts[i].Label = tickDuration(ts[i].Value)
		}
	}
	return ts
}

// step125 rounds v (> 0) down, or up, to 1, 2 or 5 times a power of ten,
// so that both ends of a log axis are labelled.
func step125(v float64, up bool) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	steps := []float64{1, 2, 5, 10}
	if up {
		for _, m := range steps {
			if m*e >= v {
				return m * e
			}
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i]*e <= v {
			return steps[i] * e
		}
	}
	return v
}

// tickDuration labels a tick of ns: 200 ns, 5 µs, 1 ms, 2 s.
func tickDuration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.4g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.4g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.4g µs", ns/1e3)
	}
	return fmt.Sprintf("%.4g ns", ns)
}

// count is n and noun, plural unless n is 1: "1 sample", "3 samples".
func count[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
