package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	add := func(name string, segs []VSeg, c color.Color, w vg.Length) {
		if len(segs) == 0 {
			return
		}
		v := &vsegs{segs: segs, style: lineStyle(c, w)}
		p.Add(v)
		p.Legend.Add(name, legendLine{v.style})
	}
	if err := addSteps(p, "receive window", g.Window, colWin, 1); err != nil {
		return nil, err
	}
	if err := addSteps(p, "cumulative ACK", g.Acks, colAck, 1); err != nil {
		return nil, err
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

// addSteps adds pts to p as a line of steps (the value holds until the
// next point), with a legend entry when name is set; nothing when pts is
// empty.
func addSteps(p *plot.Plot, name string, pts []XY, c color.Color, w vg.Length) error {
	if len(pts) == 0 {
		return nil
	}
	ln, err := plotter.NewLine(xys(pts))
	if err != nil {
		return err
	}
	ln.StepStyle = plotter.PostStep
	ln.LineStyle = lineStyle(c, w)
	p.Add(ln)
	if name != "" {
		p.Legend.Add(name, ln)
	}
	return nil
}

// Render draws the graph as SVG or PNG.
func (g *TimeSeqGraph) Render(format string) ([]byte, error) {
	p, err := g.Plot()
	if err != nil {
		return nil, err
	}
	return RenderGrid([][]*plot.Plot{{p}}, 24*vg.Centimeter, 15*vg.Centimeter, format)
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
	if err := addSteps(top, "", g.InFlight, colData, 1); err != nil {
		return nil, err
	}
	bot := plot.New()
	bot.X.Label.Text = "time (s)"
	bot.Y.Label.Text = "RACK reo_wnd (ms)"
	if err := addSteps(bot, "honours D-SACK (RFC 8985)", g.ReoWnd, colAck, 1.5); err != nil {
		return nil, err
	}
	if err := addSteps(bot, "ignores D-SACK", g.ReoWndIgn, colRtx, 1.5); err != nil {
		return nil, err
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

// Render draws the two plots stacked, as SVG or PNG.
func (g *WindowGraph) Render(format string) ([]byte, error) {
	ps, err := g.Plots()
	if err != nil {
		return nil, err
	}
	return RenderGrid([][]*plot.Plot{{ps[0]}, {ps[1]}}, 24*vg.Centimeter, 18*vg.Centimeter, format)
}
