package report

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// legendPlot is a plot whose data fill the whole data area, so that a
// legend drawn inside it would cover them.
func legendPlot(t *testing.T, names ...string) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = "title"
	p.X.Label.Text = "x label"
	for _, n := range names {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 2, Y: 0}})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add(n, l)
	}
	return p
}

// textAt is where each string was drawn on rec.
func textAt(rec *recorder.Canvas) map[string]vg.Point {
	at := map[string]vg.Point{}
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			at[fs.String] = fs.Point
		}
	}
	return at
}

func TestLegendOutsideTheData(t *testing.T) {
	for _, names := range [][]string{{"one run"}, {"first run", "second run", "third run"}} {
		p := legendPlot(t, names...)
		rec := &recorder.Canvas{}
		c := draw.NewCanvas(rec, plotWidth, plotHeight)
		band := legendBand(p, c)
		if band <= 0 {
			t.Fatalf("%v: no band for the legend", names)
		}
		drawPlot(p, c, band)
		data := p.DataCanvas(draw.Crop(c, 0, 0, band, 0))
		at := textAt(rec)
		xl, ok := at["x label"]
		if !ok {
			t.Fatal("no x label drawn")
		}
		prev := xl.Y
		for _, n := range names {
			pt, ok := at[n]
			if !ok {
				t.Fatalf("legend entry %q not drawn", n)
			}
			// Below the x axis label (and so the data), in order, inside
			// the canvas, from the data area's left edge.
			if pt.Y >= prev || pt.Y < c.Min.Y || pt.X < data.Min.X || pt.X > data.Min.X+vg.Points(40) {
				t.Errorf("%q at %v; x label at %v, data area %v", n, pt, xl, data.Rectangle)
			}
			prev = pt.Y
		}
		// The plot keeps its legend for another rendering.
		if p.Legend.Rectangle(c).Size().Y <= 0 {
			t.Error("drawPlot dropped the plot's legend")
		}
	}
	// No entries, no band.
	if b := legendBand(legendPlot(t), draw.NewCanvas(&recorder.Canvas{}, plotWidth, plotHeight)); b != 0 {
		t.Errorf("band %v for an empty legend", b)
	}
}
