package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/sweep"
)

// CrossprocPlot draws this process's sleep (p50 and p99) against the
// interval another process requested, with the no-request baseline and
// what a global timer would give.
func CrossprocPlot(r *crossproc.Result, format string) ([]byte, error) {
	if len(r.Rows) < 2 {
		return nil, fmt.Errorf("crossproc result has no requests")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s delay in a process that asked for nothing vs the interval another process requested", callName(r))
	p.X.Label.Text = "interval requested by the other process (ms)"
	p.Y.Label.Text = "slept (ms)"
	p.Add(plotter.NewGrid())
	var p50, p99, exp plotter.XYs
	for _, row := range r.Rows[1:] {
		x := float64(row.RequestedNs) / 1e6
		p50 = append(p50, plotter.XY{X: x, Y: float64(row.Slept.P50) / 1e6})
		p99 = append(p99, plotter.XY{X: x, Y: float64(row.Slept.P99) / 1e6})
		exp = append(exp, plotter.XY{X: x, Y: float64(row.ExpectedNs) / 1e6})
	}
	series := []struct {
		name string
		xy   plotter.XYs
		c    int
		dash bool
	}{{"p50", p50, 0, false}, {"p99", p99, 1, false}, {"p50 if the timer were global", exp, 3, true}}
	for _, s := range series {
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = paletteColor(s.c), paletteColor(s.c)
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2)
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			pts.Radius = 0
		}
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	base := float64(r.Rows[0].Slept.P50) / 1e6
	bl, err := plotter.NewLine(plotter.XYs{{X: p50[0].X, Y: base}, {X: p50[len(p50)-1].X, Y: base}})
	if err != nil {
		return nil, err
	}
	bl.Color = paletteColor(2)
	bl.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(bl)
	p.Legend.Add("p50 with no request anywhere", bl)
	p.Legend.Top, p.Legend.Left = true, true
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Y.Min = 0
	return renderReportPlot(p, format)
}

func callName(r *crossproc.Result) string {
	if r.Method == "sleep" {
		return fmt.Sprintf("Sleep(%d)", r.DurationNs/1e6)
	}
	return fmt.Sprintf("%s(%s)", r.Method, sweep.FormatRequest(r.DurationNs))
}
