package report

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// BarGroup is one quantity shown as a bar per CPU.
type BarGroup struct {
	Name   string
	Values []float64 // per CPU; NaN = not reported
}

// CPUBarsPlot draws grouped bars, one group per CPU, as SVG or PNG bytes
// (format "svg" or "png").
func CPUBarsPlot(title, ylabel string, cpus []int, groups []BarGroup, format string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.X.Label.Text = "CPU"
	p.Add(plotter.NewGrid())
	n := len(groups)
	if n == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	w := vg.Points(math.Max(4, math.Min(24, 360/float64(len(cpus)*n))))
	for i, g := range groups {
		vals := make(plotter.Values, len(cpus))
		for k := range cpus {
			if k < len(g.Values) && !math.IsNaN(g.Values[k]) {
				vals[k] = g.Values[k]
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", g.Name, err)
		}
		b.LineStyle.Width = 0
		b.Color = netPalette[i%len(netPalette)]
		b.Offset = w * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(b)
		p.Legend.Add(g.Name, b)
	}
	names := make([]string, len(cpus))
	for i, c := range cpus {
		names[i] = strconv.Itoa(c)
	}
	p.NominalX(names...)
	width := 16 * vg.Centimeter
	if extra := vg.Length(len(cpus)) * vg.Millimeter * 6; extra > width {
		width = extra
	}
	return RenderGrid([][]*plot.Plot{{p}}, width, 10*vg.Centimeter, format)
}
