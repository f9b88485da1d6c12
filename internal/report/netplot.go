package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a plot; points where the quantity was not
// reported are simply not in X/Y.
type Series struct {
	Name string
	X, Y []float64
}

// TCPGraph is the data of `net tcp-discard --graph`: window sizes over
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
	p.Legend.Top = true
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

// WriteTCPGraph draws the graph to path (.svg or .png).
func WriteTCPGraph(path string, g TCPGraph) error {
	format, err := PlotFormat(path)
	if err != nil {
		return err
	}
	top, err := linePanel(g.Title, "KiB", g.Windows, g.Retrans)
	if err != nil {
		return err
	}
	bottom, err := linePanel("", "RTT (µs)", g.RTT, g.Retrans)
	if err != nil {
		return err
	}
	return writePanels(path, format, [][]*plot.Plot{{top}, {bottom}}, 22*vg.Centimeter, 16*vg.Centimeter)
}

// writePanels draws plots in a grid into one self-contained file.
func writePanels(path, format string, plots [][]*plot.Plot, w, h vg.Length) error {
	var c vg.CanvasSizer
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	default:
		c = vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				plots[i][j].Draw(canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	var wt io.WriterTo
	switch cc := c.(type) {
	case *vgsvg.Canvas:
		wt = cc
	case *vgimg.Canvas:
		wt = vgimg.PngCanvas{Canvas: cc}
	}
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("render %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
