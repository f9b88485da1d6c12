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
		p.X.Label.Text += fmt.Sprintf("; %d samples above the largest p99 not shown", clipped)
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
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, top*1.08
	return renderReportPlot(p, format)
}

// DistCDFPlot draws each series' empirical cumulative distribution: the share
// of samples at or below each value (nearest-rank percentiles read off it).
func DistCDFPlot(title, quantity string, ss []Dist, format string) ([]byte, error) {
	lo, hi, clipped := plotRange(ss, 99.9)
	if math.IsInf(lo, 0) {
		return nil, fmt.Errorf("no samples to plot")
	}
	unit, div := nsUnit(hi)
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("%s (%s)", quantity, unit)
	p.Y.Label.Text = "samples at or below (%)"
	if clipped > 0 {
		p.X.Label.Text += fmt.Sprintf("; %d samples above the largest p99.9 not shown", clipped)
	}
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		n := len(s.Sorted)
		if n == 0 {
			continue
		}
		// At most ~2000 steps: enough for the eye, small enough for the file.
		stride := max(1, n/2000)
		var xy plotter.XYs
		for j := 0; j < n; j += stride {
			if float64(s.Sorted[j]) > hi {
				break
			}
			x := float64(s.Sorted[j]) / div
			if j > 0 {
				xy = append(xy, plotter.XY{X: x, Y: 100 * float64(j) / float64(n)})
			}
			xy = append(xy, plotter.XY{X: x, Y: 100 * float64(min(j+stride, n)) / float64(n)})
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
	p.Legend.Top = false
	p.Legend.XOffs = 0
	p.Y.Min, p.Y.Max = 0, 100
	return renderReportPlot(p, format)
}
