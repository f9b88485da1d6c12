package report

import (
	"fmt"
	"image/color"
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

// TimeSeqGraph is the data of a tcptrace-style time-sequence graph of one
// direction of a TCP connection. Times are seconds from the start of the
// capture, sequence numbers relative to the sender's ISN.
type TimeSeqGraph struct {
	Title    string
	Segments []VSeg // data segments: a vertical bar from seq to seq+len
	Rtx      []VSeg // retransmissions (drawn red)
	Acks     []XY   // cumulative ACK of the receiver
	Window   []XY   // ACK + advertised receive window
	SACKs    []VSeg // SACK blocks, at the time of the ACK that carries them
	DSACKs   []VSeg // D-SACK blocks
}

// VSeg is a vertical segment at time T from Lo to Hi.
type VSeg struct{ T, Lo, Hi float64 }

// XY is a point.
type XY struct{ X, Y float64 }

// WindowGraph is bytes in flight and the RACK reordering window over time.
type WindowGraph struct {
	Title      string
	InFlight   []XY // bytes
	ReoWnd     []XY // ms, D-SACK-honouring RACK sender
	ReoWndIgn  []XY // ms, sender ignoring D-SACK
	Retransmit []XY // times of retransmissions (Y ignored)
}

var (
	colData  = color.RGBA{0, 0, 0, 255}
	colRtx   = color.RGBA{220, 0, 0, 255}
	colAck   = color.RGBA{0, 140, 0, 255}
	colWin   = color.RGBA{200, 170, 0, 255}
	colSACK  = color.RGBA{0, 90, 220, 255}
	colDSACK = color.RGBA{200, 0, 200, 255}
)

// vsegs draws many vertical segments in one plotter.
type vsegs struct {
	segs  []VSeg
	style draw.LineStyle
}

func (v *vsegs) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range v.segs {
		x := trX(s.T)
		y1, y2 := trY(s.Lo), trY(s.Hi)
		if y2-y1 < 0.6 { // keep one-byte segments visible
			y2 = y1 + 0.6
		}
		c.StrokeLine2(v.style, x, y1, x, y2)
	}
}

func (v *vsegs) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(v.segs) == 0 {
		return 0, 1, 0, 1
	}
	xmin, xmax, ymin, ymax = v.segs[0].T, v.segs[0].T, v.segs[0].Lo, v.segs[0].Hi
	for _, s := range v.segs {
		xmin, xmax = min(xmin, s.T), max(xmax, s.T)
		ymin, ymax = min(ymin, s.Lo), max(ymax, s.Hi)
	}
	return
}

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i].X, out[i].Y = p.X, p.Y
	}
	return out
}

func lineStyle(c color.Color, w vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: w}
}

// Plot builds the time-sequence plot.
func (g *TimeSeqGraph) Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = g.Title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "relative sequence number"
	p.Legend.Top = true
	p.Legend.Left = true
	add := func(name string, segs []VSeg, c color.Color, w vg.Length) {
		if len(segs) == 0 {
			return
		}
		v := &vsegs{segs: segs, style: lineStyle(c, w)}
		p.Add(v)
		p.Legend.Add(name, legendLine{v.style})
	}
	for _, l := range []struct {
		name string
		pts  []XY
		c    color.Color
	}{{"receive window", g.Window, colWin}, {"cumulative ACK", g.Acks, colAck}} {
		if len(l.pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(xys(l.pts))
		if err != nil {
			return nil, err
		}
		ln.StepStyle = plotter.PostStep
		ln.LineStyle = lineStyle(l.c, 1)
		p.Add(ln)
		p.Legend.Add(l.name, ln)
	}
	add("data segments", g.Segments, colData, 1.2)
	add("SACK blocks", g.SACKs, colSACK, 2)
	add("D-SACK blocks", g.DSACKs, colDSACK, 3)
	add("retransmissions", g.Rtx, colRtx, 2.5) // on top: what the graph is for
	// markers, so that single segments stay visible on long transfers
	for _, m := range []struct {
		segs  []VSeg
		c     color.Color
		shape draw.GlyphDrawer
	}{{g.DSACKs, colDSACK, draw.TriangleGlyph{}}, {g.Rtx, colRtx, draw.CrossGlyph{}}} {
		if len(m.segs) == 0 {
			continue
		}
		pts := make([]XY, len(m.segs))
		for i, d := range m.segs {
			pts[i] = XY{d.T, d.Lo}
		}
		sc, err := plotter.NewScatter(xys(pts))
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: m.c, Radius: 4, Shape: m.shape}
		p.Add(sc)
	}
	return p, nil
}

type legendLine struct{ s draw.LineStyle }

func (l legendLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.s, c.Min.X, y, c.Max.X, y)
}

// Plots builds the two stacked window plots.
func (g *WindowGraph) Plots() ([]*plot.Plot, error) {
	top := plot.New()
	top.Title.Text = g.Title
	top.Y.Label.Text = "bytes in flight"
	if len(g.InFlight) > 0 {
		ln, err := plotter.NewLine(xys(g.InFlight))
		if err != nil {
			return nil, err
		}
		ln.StepStyle = plotter.PostStep
		ln.LineStyle = lineStyle(colData, 1)
		top.Add(ln)
	}
	bot := plot.New()
	bot.X.Label.Text = "time (s)"
	bot.Y.Label.Text = "RACK reo_wnd (ms)"
	bot.Legend.Top = true
	for _, l := range []struct {
		name string
		pts  []XY
		c    color.Color
	}{{"honours D-SACK (RFC 8985)", g.ReoWnd, colAck}, {"ignores D-SACK", g.ReoWndIgn, colRtx}} {
		if len(l.pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(xys(l.pts))
		if err != nil {
			return nil, err
		}
		ln.StepStyle = plotter.PostStep
		ln.LineStyle = lineStyle(l.c, 1.5)
		bot.Add(ln)
		bot.Legend.Add(l.name, ln)
	}
	if len(g.Retransmit) > 0 {
		segs := make([]VSeg, len(g.Retransmit))
		var ymax float64
		for _, p := range g.ReoWnd {
			ymax = max(ymax, p.Y)
		}
		for _, p := range g.ReoWndIgn {
			ymax = max(ymax, p.Y)
		}
		if ymax == 0 {
			ymax = 1
		}
		for i, r := range g.Retransmit {
			segs[i] = VSeg{r.X, 0, ymax}
		}
		v := &vsegs{segs: segs, style: draw.LineStyle{Color: color.NRGBA{220, 0, 0, 110}, Width: 0.8}}
		bot.Add(v)
		bot.Legend.Add("retransmission", legendLine{v.style})
	}
	// share the time axis
	xmin, xmax := min(top.X.Min, bot.X.Min), max(top.X.Max, bot.X.Max)
	top.X.Min, top.X.Max, bot.X.Min, bot.X.Max = xmin, xmax, xmin, xmax
	return []*plot.Plot{top, bot}, nil
}

// SavePlots writes plots stacked vertically to path; the extension (.svg
// or .png) picks the format.
func SavePlots(path string, w, h vg.Length, plots ...*plot.Plot) error {
	ext := strings.ToLower(filepath.Ext(path))
	var dc vg.CanvasWriterTo
	switch ext {
	case ".svg":
		dc = vgsvg.New(w, h)
	case ".png":
		dc = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	default:
		return fmt.Errorf("graph file %q: want a .svg or .png name", path)
	}
	canvas := draw.New(dc)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Millimeter * 2, PadX: vg.Millimeter * 2, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	cs := plot.Align(grid, tiles, canvas)
	for i, p := range plots {
		p.Draw(cs[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write graph: %w", err)
	}
	if _, err := dc.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write graph %s: %w", path, err)
	}
	return f.Close()
}
