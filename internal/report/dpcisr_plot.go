package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
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

// CDFPlot writes panels side by side to path; the extension (.svg or
// .png) chooses the format. The x axis is logarithmic in base 2, as the
// buckets are; points are the exact cumulative shares at bucket bounds,
// joined by lines only to guide the eye.
func CDFPlot(path string, panels []CDFPanel) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("plot file %q: want a name ending in .svg or .png", path)
	}
	if len(panels) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	var row []*plot.Plot
	for _, pn := range panels {
		p, err := cdfPanel(pn)
		if err != nil {
			return err
		}
		row = append(row, p)
	}
	w := vg.Length(len(panels)) * 11 * vg.Centimeter
	h := 9 * vg.Centimeter
	var c interface {
		vg.CanvasSizer
	}
	var write func(f *os.File) error
	if ext == ".svg" {
		s := vgsvg.New(w, h)
		c = s
		write = func(f *os.File) error { _, err := s.WriteTo(f); return err }
	} else {
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144))
		c = img
		write = func(f *os.File) error { _, err := vgimg.PngCanvas{Canvas: img}.WriteTo(f); return err }
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for j, p := range row {
		p.Draw(canvases[0][j])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
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
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = lo, hi
	if lo == hi {
		p.X.Min, p.X.Max = lo/2, hi*2
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Millimeter * 2
	p.Legend.YOffs = vg.Millimeter * 2
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
