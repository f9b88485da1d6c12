package report

import (
	"fmt"
	"math"

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
}

// plotRange is the x range shown: from the smallest value to the largest
// p-th percentile of the series, so one far outlier does not squash the
// plot. The axis label says how much was left out.
func plotRange(ss []Dist, p float64) (lo, hi float64, clipped int64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		if len(s.Sorted) == 0 {
			continue
		}
		lo = math.Min(lo, float64(s.Sorted[0]))
		hi = math.Max(hi, float64(stats.QuantileSorted(s.Sorted, p)))
	}
	for _, s := range ss {
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
	const bins = 60
	w := (hi - lo) / bins
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("%s (%s)", quantity, unit)
	p.Y.Label.Text = "share of samples (%)"
	if clipped > 0 {
		p.X.Label.Text += fmt.Sprintf("; %s above the largest p99 not shown", count(clipped, "sample"))
	}
	p.Add(plotter.NewGrid())
	top := 0.0
	for i, s := range ss {
		if len(s.Sorted) == 0 {
			continue
		}
		counts := make([]float64, bins)
		for _, v := range s.Sorted {
			b := int((float64(v) - lo) / w)
			if b == bins && float64(v) <= hi {
				b = bins - 1
			}
			if b >= 0 && b < bins {
				counts[b]++
			}
		}
		var xy plotter.XYs
		for b, c := range counts {
			y := 100 * c / float64(len(s.Sorted))
			top = math.Max(top, y)
			x0, x1 := (lo+float64(b)*w)/div, (lo+float64(b+1)*w)/div
			xy = append(xy, plotter.XY{X: x0, Y: y}, plotter.XY{X: x1, Y: y})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = paletteColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
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
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = paletteColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
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
