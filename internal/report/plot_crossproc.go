package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/units"
)

// maxDotsPerRow bounds the sleeps drawn per requested period: enough to
// show the shape of the distribution, few enough for a small SVG.
const maxDotsPerRow = 1500

// CrossprocPlot draws every sleep this process measured (dots, spread a
// little sideways) against the interval another process requested, with
// the median, the two expected curves (the mean of what the isolated rule
// of Windows 10 2004 and later and the global rule predict; the rule this
// build should follow drawn solid) and the no-request baseline. The dots
// show what a mean hides: the research's 8 or 16 ms split at 8 ms.
func CrossprocPlot(r *crossproc.Result, format string) ([]byte, error) {
	if len(r.Rows) < 2 {
		return nil, fmt.Errorf("crossproc result has no requests")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s delay in a process that asked for nothing vs the interval another process requested", callName(r))
	p.X.Label.Text = "interval requested by the other process (ms; 0: no request)"
	p.Add(plotter.NewGrid())

	rows := r.Rows[1:]
	spacing := 1.0
	for i := 1; i < len(rows); i++ {
		spacing = math.Min(spacing, float64(rows[i].RequestedNs-rows[i-1].RequestedNs)/1e6)
	}
	// The y range ends at the largest p99 or expectation: one sleep
	// preempted for 100 ms would squash every other dot.
	top := float64(r.Rows[0].Slept.P99)
	for _, row := range rows {
		top = math.Max(top, float64(row.Slept.P99))
		for _, e := range []*crossproc.Expectation{row.ExpectedIsolated, row.ExpectedGlobal} {
			if e != nil && len(e.Outcomes) > 0 {
				top = math.Max(top, float64(e.Outcomes[len(e.Outcomes)-1].SleepNs))
			}
		}
	}
	top = top * 1.08 / 1e6
	var dots, p50, iso, glob plotter.XYs
	hidden, drawn, total := 0, 0, 0
	for k, row := range r.Rows {
		x := float64(row.RequestedNs) / 1e6
		stride := max(1, (len(row.Samples)+maxDotsPerRow-1)/maxDotsPerRow)
		for i := 0; i < len(row.Samples); i += stride {
			y := float64(row.Samples[i]) / 1e6
			if y > top {
				hidden++
				continue
			}
			// Golden-ratio steps spread the dots evenly and the same way on
			// every run.
			jit := (math.Mod(float64(i/stride)*0.6180339887, 1) - 0.5) * 0.5 * spacing
			dots = append(dots, plotter.XY{X: x + jit, Y: y})
		}
		drawn += (len(row.Samples) + stride - 1) / stride
		total += len(row.Samples) + row.Dropped
		if k == 0 {
			continue // the baseline: its dots at 0, its median as a line
		}
		p50 = append(p50, plotter.XY{X: x, Y: float64(row.Slept.P50) / 1e6})
		if e := row.ExpectedIsolated; e != nil {
			iso = append(iso, plotter.XY{X: x, Y: e.MeanNs / 1e6})
		}
		if e := row.ExpectedGlobal; e != nil {
			glob = append(glob, plotter.XY{X: x, Y: e.MeanNs / 1e6})
		}
	}
	p.Y.Label.Text = "slept (ms)"
	if hidden > 0 {
		p.Y.Label.Text += fmt.Sprintf("; %s above the largest p99 not shown", count(hidden, "sleep"))
	}
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		c := paletteColor(0)
		sc.GlyphStyle = draw.GlyphStyle{Shape: draw.CircleGlyph{}, Radius: vg.Points(1.2), Color: color.RGBA{R: c.R, G: c.G, B: c.B, A: 70}}
		p.Add(sc)
		name := "every sleep"
		if drawn < total {
			name = fmt.Sprintf("sleeps (%d of %d drawn)", drawn, total)
		}
		p.Legend.Add(name, sc)
	}
	line := func(xy plotter.XYs, name string, c int, dash bool) error {
		if len(xy) == 0 {
			return nil
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = paletteColor(c), paletteColor(c)
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2)
		l.Width = vg.Points(1.5)
		if dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			pts.Radius = 0
		}
		p.Add(l, pts)
		p.Legend.Add(name, l, pts)
		return nil
	}
	isoName, globName := "expected if isolated (Windows 10 2004+), mean", "expected if global, mean"
	if r.Rule == crossproc.PerThread {
		isoName, globName = "expected: the baseline (slack is per thread)", "expected if the other's slack applied here"
	}
	for _, s := range []struct {
		xy   plotter.XYs
		name string
		c    int
		rule crossproc.Rule
	}{{p50, "measured p50", 1, ""}, {iso, isoName, 2, crossproc.Isolated2004}, {glob, globName, 3, crossproc.GlobalRule}} {
		dash := s.rule != "" && !sameRule(r.Rule, s.rule)
		name := s.name
		if s.rule != "" && !dash && r.Rule != "" {
			name += " (this build)"
		}
		if err := line(s.xy, name, s.c, dash); err != nil {
			return nil, err
		}
	}
	base := float64(r.Rows[0].Slept.P50) / 1e6
	xs := []float64{0, p50[len(p50)-1].X}
	bl, err := plotter.NewLine(plotter.XYs{{X: xs[0], Y: base}, {X: xs[1], Y: base}})
	if err != nil {
		return nil, err
	}
	bl.Color = paletteColor(4)
	bl.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(bl)
	p.Legend.Add("p50 with no request anywhere", bl)
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Y.Min, p.Y.Max = 0, top
	return renderReportPlot(p, format)
}

// sameRule reports whether a curve's rule is the one this build follows
// (on Linux the isolated curve is the per-thread one).
func sameRule(build, curve crossproc.Rule) bool {
	if build == crossproc.PerThread {
		return curve == crossproc.Isolated2004
	}
	return build == curve
}

func callName(r *crossproc.Result) string {
	if r.Method == "sleep" {
		return fmt.Sprintf("Sleep(%d)", r.DurationNs/1e6)
	}
	return fmt.Sprintf("%s(%s)", r.Method, units.Request(r.DurationNs))
}
