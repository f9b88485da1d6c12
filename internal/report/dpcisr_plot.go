package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CDFSeries is one run's cumulative share (0-100) at bucket upper bounds.
type CDFSeries struct {
	Label string
	X     []float64 // upper bounds, µs, ascending, > 0
	Y     []float64 // share at or below X, %
}

// CDFPanel is one panel of a CDF comparison (e.g. DPC or ISR).
type CDFPanel struct {
	Title  string
	Series []CDFSeries
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// RenderCDF draws panels side by side as SVG or PNG. The x axis is
// logarithmic in base 2, as the buckets are; points are the exact
// cumulative shares at bucket bounds, joined by lines only to guide the
// eye.
func RenderCDF(panels []CDFPanel, format string) ([]byte, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	var row []*plot.Plot
	for _, pn := range panels {
		p, err := cdfPanel(pn)
		if err != nil {
			return nil, err
		}
		row = append(row, p)
	}
	return RenderGrid([][]*plot.Plot{row}, vg.Length(len(panels))*11*vg.Centimeter, 9*vg.Centimeter, format)
}

func cdfPanel(pn CDFPanel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.X.Label.Text = "execution time at most (µs)"
	p.Y.Label.Text = "share of executions (%)"
	p.X.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = 0, 100
	lo, hi := math.Inf(1), 0.0
	for _, s := range pn.Series {
		for _, x := range s.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if hi <= 0 {
		return nil, fmt.Errorf("panel %q has no points", pn.Title)
	}
	var ticks []plot.Tick
	for v := 1.0; v <= hi*1.01; v *= 2 {
		if v >= lo/1.01 {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
		}
	}
	// Past about ten powers of two the labels run into each other
	// (2048 and 4096 did); every other one keeps its tick mark.
	if len(ticks) > 10 {
		for i := range ticks {
			if i%2 != (len(ticks)-1)%2 {
				ticks[i].Label = ""
			}
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = lo, hi
	if lo == hi {
		p.X.Min, p.X.Max = lo/2, hi*2
	}
	p.Add(plotter.NewGrid())
	for i, s := range pn.Series {
		xy := make(plotter.XYs, 0, len(s.X))
		for k := range s.X {
			if s.X[k] > 0 && !math.IsInf(s.X[k], 0) {
				xy = append(xy, plotter.XY{X: s.X[k], Y: s.Y[k]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		col := palette[i%len(palette)]
		l.Color = col
		l.Width = vg.Points(1.5)
		l.Dashes = dashes[i%len(dashes)]
		pts.Color = col
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(s.Label, l, pts)
	}
	return p, nil
}
