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
	c, err := draw.NewFormattedCanvas(plotWidth, plotHeight, format)
	if err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	dc := draw.New(c)
	drawPlot(p, dc, legendBand(p, dc))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	return b.Bytes(), nil
}

// legendGap separates the legend from the x axis label above it.
const legendGap = 2 * vg.Millimeter

// legendBand is the height p's legend needs below the plot: 0 when it has
// no entries.
func legendBand(p *plot.Plot, c draw.Canvas) vg.Length {
	l := outside(p.Legend)
	h := l.Rectangle(c).Size().Y
	if h <= 0 {
		return 0
	}
	// Rectangle leaves out the descent of the last entry's text.
	return h + l.TextStyle.FontExtents().Descent + legendGap
}

// outside is l laid out for the band under the plot: entries top down,
// left-aligned, a little apart.
func outside(l plot.Legend) plot.Legend {
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, 0
	l.Padding = vg.Points(2)
	return l
}

// drawPlot draws p on c with its legend outside the data, in a band of the
// given height under the x axis, aligned with the data area: gonum draws
// a legend inside the data area, where it hid curves (a CDF's tail, a
// sweep's error bars, a retransmission mark).
func drawPlot(p *plot.Plot, c draw.Canvas, band vg.Length) {
	if band <= 0 {
		p.Draw(c)
		return
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	above := draw.Crop(c, 0, 0, band, 0)
	p.Draw(above)
	area := draw.Crop(c, p.DataCanvas(above).Min.X-c.Min.X, 0, 0, band-c.Size().Y-legendGap)
	out := outside(leg)
	out.Draw(area)
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
		// The plots of a row keep their data areas level: each gets the
		// tallest legend band of the row.
		var band vg.Length
		for j, p := range plots[i] {
			if p != nil {
				band = max(band, legendBand(p, canvases[i][j]))
			}
		}
		for j, p := range plots[i] {
			if p != nil {
				drawPlot(p, canvases[i][j], band)
			}
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	return b.Bytes(), nil
}
