package report

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotFormat returns "svg" or "png" from a file name, or an error naming
// what is accepted.
func PlotFormat(path string) (string, error) {
	l := strings.ToLower(path)
	switch {
	case strings.HasSuffix(l, ".svg"):
		return "svg", nil
	case strings.HasSuffix(l, ".png"):
		return "png", nil
	}
	return "", fmt.Errorf("plot file %q: accepted names end in .svg or .png", path)
}

// Plot size used for every latlab plot: wide enough for a sweep's many
// steps, and scaled down by the HTML report on narrow screens.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// Colours of the plots (colour-blind-safe Okabe-Ito palette).
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // green
	{204, 121, 167, 255}, // purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{240, 228, 66, 255},  // yellow
	{0, 0, 0, 255},
}

func paletteColor(i int) color.RGBA { return palette[i%len(palette)] }

// renderReportPlot renders p as SVG or PNG bytes.
func renderReportPlot(p *plot.Plot, format string) ([]byte, error) {
	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	return b.Bytes(), nil
}

// nsUnit picks ms or µs for values up to maxNs.
func nsUnit(maxNs float64) (name string, div float64) {
	switch {
	case maxNs >= 1e6:
		return "ms", 1e6
	case maxNs >= 1e3:
		return "µs", 1e3
	}
	return "ns", 1
}

// RenderGrid draws plots in a grid (rows of columns; nil cells stay empty)
// on one w x h canvas and returns it as SVG or PNG bytes, for panels that
// belong in one file (a TCP graph's windows and RTT, DPC and ISR CDFs).
func RenderGrid(plots [][]*plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	if len(plots) == 0 || len(plots[0]) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
	default:
		return nil, fmt.Errorf("plot format %q: accepted svg, png", format)
	}
	pad := vg.Millimeter * 3
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: pad, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(plots, tiles, draw.New(c))
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				plots[i][j].Draw(canvases[i][j])
			}
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	return b.Bytes(), nil
}
