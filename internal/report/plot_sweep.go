package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/units"
)

// SweepPlot draws the ranked statistic of the overshoot against the
// requested value, with each step's bootstrap 95% interval as an error bar,
// dashed lines where the granted value changes (Windows snaps requests to
// hardware steps), each treatment of several requests (one granted value)
// as a bar at its pooled value, and the best and reference steps marked.
func SweepPlot(r *sweep.Result, format string) ([]byte, error) {
	if len(r.Steps) == 0 {
		return nil, fmt.Errorf("sweep has no steps")
	}
	maxX, maxY := 0.0, 0.0
	for _, s := range r.Steps {
		maxX = math.Max(maxX, float64(s.RequestedNs))
		hi := s.Summary.Value
		if ci := s.Summary.CI; ci != nil {
			hi = ci.Hi
		}
		if !math.IsNaN(hi) {
			maxY = math.Max(maxY, hi)
		}
	}
	xu, xd := nsUnit(maxX)
	yu, yd := nsUnit(maxY)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Sleep %s overshoot vs requested %s", r.RankBy, r.What)
	p.X.Label.Text = fmt.Sprintf("requested %s (%s)", r.What, xu)
	p.Y.Label.Text = fmt.Sprintf("%s overshoot of a %s sleep (%s), 95%% CI", r.RankBy, units.Request(r.DurationNs), yu)
	if r.LogSteps {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	type errPts struct {
		plotter.XYs
		plotter.YErrors
	}
	var e errPts
	for _, s := range r.Steps {
		e.XYs = append(e.XYs, plotter.XY{X: float64(s.RequestedNs) / xd, Y: s.Summary.Value / yd})
		var bar struct{ Low, High float64 } // none without an interval
		if ci := s.Summary.CI; ci != nil {
			bar.Low, bar.High = (s.Summary.Value-ci.Lo)/yd, (ci.Hi-s.Summary.Value)/yd
		}
		e.YErrors = append(e.YErrors, bar)
	}
	line, pts, err := plotter.NewLinePoints(e.XYs)
	if err != nil {
		return nil, err
	}
	line.Color, pts.Color = paletteColor(0), paletteColor(0)
	pts.Shape = draw.CircleGlyph{}
	pts.Radius = vg.Points(2)
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return nil, err
	}
	bars.Color = paletteColor(0)
	p.Add(bars, line, pts)
	p.Legend.Add(r.RankBy+" overshoot", line, pts)
	// Granted steps: a dashed line where the granted value changes.
	top := maxY / yd
	var first *plotter.Line
	for i := 1; i < len(r.Steps); i++ {
		if r.Steps[i].GrantedNs == r.Steps[i-1].GrantedNs || r.Steps[i].GrantedNs == r.Steps[i].RequestedNs {
			continue
		}
		x := float64(r.Steps[i].RequestedNs) / xd
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return nil, err
		}
		l.Color = paletteColor(3)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	if first != nil {
		p.Legend.Add("granted value changes", first)
	}
	// A treatment (requests granted one value) is drawn as a bar at its
	// pooled value across the requests it spans.
	var seg *plotter.Line
	for _, t := range r.Treatments {
		if len(t.Steps) < 2 {
			continue
		}
		y := t.Summary.Value / yd
		l, err := plotter.NewLine(plotter.XYs{{X: float64(t.FromNs) / xd, Y: y}, {X: float64(t.ToNs) / xd, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color = paletteColor(4)
		l.Width = vg.Points(3)
		p.Add(l)
		if seg == nil {
			seg = l
		}
	}
	if seg != nil {
		p.Legend.Add("one granted value (pooled)", seg)
	}
	mark := func(i int, label string, c int) error {
		s := r.Steps[i]
		sc, err := plotter.NewScatter(plotter.XYs{{X: float64(s.RequestedNs) / xd, Y: s.Summary.Value / yd}})
		if err != nil {
			return err
		}
		sc.Shape = draw.RingGlyph{}
		sc.Radius = vg.Points(6)
		sc.Color = paletteColor(c)
		p.Add(sc)
		p.Legend.Add(label, sc)
		return nil
	}
	if err := mark(r.Best, "best "+units.Request(r.Steps[r.Best].RequestedNs), 1); err != nil {
		return nil, err
	}
	if r.Reference != r.Best {
		if err := mark(r.Reference, "default "+units.Request(r.Steps[r.Reference].RequestedNs), 2); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	return renderReportPlot(p, format)
}
