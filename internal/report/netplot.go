package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a plot; points where the quantity was not
// reported are simply not in X/Y.
type Series struct {
	Name string
	X, Y []float64
}

// TCPGraph is the data of `net tcp-discard --plot`: window sizes over
// time in one panel, RTT in another, retransmissions marked in both.
type TCPGraph struct {
	Title   string
	Windows []Series  // KiB over ms
	RTT     []Series  // µs over ms
	Retrans []float64 // ms at which a retransmission counter grew
}

// netPalette leaves out red, which marks retransmission events.
var netPalette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

var eventColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}

func linePanel(title, ylabel string, series []Series, events []float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since first write (ms)"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	ymax := 0.0
	for i, s := range series {
		if len(s.X) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k].X, xys[k].Y = s.X[k], s.Y[k]
			if s.Y[k] > ymax {
				ymax = s.Y[k]
			}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.Name, err)
		}
		l.Color = netPalette[i%len(netPalette)]
		l.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	if ymax == 0 {
		ymax = 1
	}
	for i, x := range events {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.Color = eventColor
		l.Width = vg.Points(0.6)
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		if i == 0 {
			p.Legend.Add("retransmission", l)
		}
	}
	p.Y.Min = 0
	return p, nil
}

// TCPGraphPlot draws the graph as SVG or PNG bytes (format "svg" or
// "png"): windows above RTT, retransmissions marked in both.
func TCPGraphPlot(g TCPGraph, format string) ([]byte, error) {
	top, err := linePanel(g.Title, "KiB", g.Windows, g.Retrans)
	if err != nil {
		return nil, err
	}
	bottom, err := linePanel("", "RTT (µs)", g.RTT, g.Retrans)
	if err != nil {
		return nil, err
	}
	return RenderGrid([][]*plot.Plot{{top}, {bottom}}, 22*vg.Centimeter, 16*vg.Centimeter, format)
}
