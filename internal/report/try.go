package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/try"
	"github.com/latlab/latlab/internal/units"
)

// trySection is the view of a try result: the verdicts, the arms'
// statistics, their distributions overlaid, and every block's statistic
// in the order run, where drift shows as a trend all arms share.
func trySection(s htmlSection, x ReportInput, stem string, b *result.Budget) (htmlSection, error) {
	r, err := try.Read(x.Doc)
	if err != nil {
		return s, err
	}
	head := fmt.Sprintf("%s: %d arms x %d blocks of %s (settle %s), %s probe, block order seed %d",
		r.Knob, len(r.Arms), r.Blocks, units.Duration(time.Duration(r.BlockDurationNs)), units.Duration(time.Duration(r.SettleNs)), r.Probe, r.Seed)
	if r.Target != "" {
		head = r.Knob + " (" + r.Target + ")" + head[len(r.Knob):]
	}
	s.Verdicts = append(s.Verdicts, head)
	for _, a := range r.Arms[1:] {
		if a.Verdict != nil {
			s.Verdicts = append(s.Verdicts, a.Verdict.Text)
		}
	}
	if r.Stopped != "" {
		s.Verdicts = append(s.Verdicts, "stopped: "+r.Stopped)
	}
	if r.Restore != nil {
		s.Verdicts = append(s.Verdicts, r.Restore.Text)
	}
	var cols []string
	var sums []stats.Summary
	var ser []Dist
	for i, a := range r.Arms {
		v, err := try.ArmSamples(r, i, b)
		if err != nil {
			return s, err
		}
		slices.Sort(v)
		name := a.Label
		if a.Baseline {
			name += " (" + a.Current + ")"
		}
		cols = append(cols, name)
		sums = append(sums, stats.SummarizeSorted(v))
		ser = append(ser, Dist{Name: name, Sorted: v})
	}
	s.Tables = append(s.Tables, summaryTable(r.Quantity+" of the complete blocks (nearest-rank percentiles)", cols, sums), tryVerdictTable(r), tryBlockTable(r))
	q := r.Quantity
	s.Figures = append(s.Figures,
		&Figure{Name: stem + "-blocks", Title: "each block's " + r.By + " in the order run",
			render: func(f string) ([]byte, error) { return TryBlocksPlot(r, f) }})
	if slices.ContainsFunc(ser, func(d Dist) bool { return len(d.Sorted) > 0 }) {
		s.Figures = append(s.Figures,
			&Figure{Name: stem + "-histograms", Title: "histograms of the arms",
				render: func(f string) ([]byte, error) { return HistogramPlot("Histograms: "+q, q, ser, f) }},
			&Figure{Name: stem + "-cdfs", Title: "cumulative distributions of the arms",
				render: func(f string) ([]byte, error) { return DistCDFPlot("Cumulative distributions: "+q, q, ser, f) }})
	}
	return s, nil
}

func tryVerdictTable(r *try.Result) htmlTable {
	t := htmlTable{Caption: "verdicts against the baseline (" + r.By + ")",
		Header: []string{"value", "outcome", "difference", "interval", "Mann-Whitney p (Holm)", "rounds lower", "block test p (Holm)"}}
	for _, a := range r.Arms[1:] {
		v := a.Verdict
		if v == nil {
			continue
		}
		if len(v.DPCISRSections) > 1 {
			// The dpcisr probe over a module's DPCs and ISRs: the value's
			// line sums up, a row per section holds the evidence.
			t.Rows = append(t.Rows, []string{a.Label, string(v.Outcome), "over " + strconv.Itoa(len(v.DPCISRSections)) + " sections", "-", "-", "-", "-"})
			for _, s := range v.DPCISRSections {
				diff := s.Section + " buckets: no test"
				if s.ChiSquaredPHolm != nil {
					diff = fmt.Sprintf("%s buckets: chi-squared %s, Holm", s.Section, stats.FormatP(*s.ChiSquaredPHolm))
				}
				t.Rows = append(t.Rows, []string{a.Label + ", " + s.Section, string(s.Outcome), diff, "-", "-",
					fmt.Sprintf("%d of %d", s.Blocks.Lower, s.Blocks.Rounds), stats.FormatP(s.Blocks.PHolm)})
			}
			continue
		}
		diff, ci := "-", "-"
		if v.Diff != nil {
			diff = units.SignedNs(v.Diff.Estimate)
			ci = fmt.Sprintf("[%s, %s] (%.1f%%)", units.SignedNs(v.Diff.Lo), units.SignedNs(v.Diff.Hi), v.Level*100)
		}
		if rt := v.Rate; rt != nil {
			// The noise probe by rate: the value's rate over the
			// baseline's, and the exact test's p.
			diff = fmt.Sprintf("rate ratio %.3g (exact test %s, Holm)", float64(rt.Ratio), stats.FormatP(v.RatePHolm))
			ci = fmt.Sprintf("[%.3g, %.3g] (%.1f%%)", rt.Lo, float64(rt.Hi), v.Level*100)
		}
		if p := v.ChiSquaredPHolm; p != nil {
			// The dpcisr probe: the module's pooled DPC buckets
			// compared, no samples and no Mann-Whitney test.
			diff = fmt.Sprintf("DPC buckets: chi-squared %s, Holm", stats.FormatP(*p))
		}
		mw := "-"
		if v.PHolm != nil {
			mw = stats.FormatP(*v.PHolm)
		}
		if v.Blocks != nil {
			t.Rows = append(t.Rows, []string{a.Label, string(v.Outcome), diff, ci, mw,
				fmt.Sprintf("%d of %d", v.Blocks.Lower, v.Blocks.Rounds), stats.FormatP(v.Blocks.PHolm)})
		}
		// The noise probe over several CPUs: the value's line sums up,
		// a row per CPU holds the evidence.
		if len(v.NoiseCPUs) > 0 {
			t.Rows = append(t.Rows, []string{a.Label, string(v.Outcome), "over " + strconv.Itoa(len(v.NoiseCPUs)) + " CPUs", "-", "-", "-", "-"})
		}
		for _, c := range v.NoiseCPUs {
			diff, ci := "-", "-"
			if rt := c.Rate; rt != nil {
				diff = fmt.Sprintf("rate ratio %.3g (exact test %s, Holm)", float64(rt.Ratio), stats.FormatP(c.RatePHolm))
				ci = fmt.Sprintf("[%.3g, %.3g] (%.1f%%)", rt.Lo, float64(rt.Hi), v.Level*100)
			}
			t.Rows = append(t.Rows, []string{fmt.Sprintf("%s on CPU %d", a.Label, c.CPU), string(c.Outcome), diff, ci, "-",
				fmt.Sprintf("%d of %d", c.Blocks.Lower, c.Blocks.Rounds), stats.FormatP(c.Blocks.PHolm)})
		}
	}
	return t
}

func tryBlockTable(r *try.Result) htmlTable {
	t := htmlTable{Caption: "blocks in the order run", Header: []string{"block", "round", "arm", "start", "samples", r.By, "note"}}
	for _, b := range r.Runs {
		stat := "-"
		if v, ok := blockRate(r, b); ok {
			stat = try.FormatRate(v)
		} else if b.Count > 0 {
			stat = units.Duration(time.Duration(math.Round(b.Stat)))
		}
		note := b.Note
		if !b.Complete && note == "" {
			note = "incomplete"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(b.Index + 1), strconv.Itoa(b.Round + 1), r.Arms[b.Arm].Label,
			units.Duration(time.Duration(b.StartNs).Round(time.Millisecond)), strconv.Itoa(b.Count), stat, note})
	}
	return t
}

// blockRate is a noise block's interruptions per second (over several
// CPUs, per CPU-second) when the verdict is by rate (try.ByRate).
func blockRate(r *try.Result, b try.Block) (float64, bool) {
	if r.Probe != try.ProbeNoise || r.By != try.ByRate {
		return 0, false
	}
	return b.NoiseRate()
}

// TryBlocksPlot draws the verdict's statistic of every block against the
// time it started, one colour per arm, with a grey line through all blocks
// in the order run: a drift moves every arm alike, an effect separates the
// arms within each round.
func TryBlocksPlot(r *try.Result, format string) ([]byte, error) {
	byRate := r.Probe == try.ProbeNoise && r.By == try.ByRate
	value := func(b try.Block) (float64, bool) {
		if byRate {
			return blockRate(r, b)
		}
		return b.Stat, b.Count > 0
	}
	maxY, any := 0.0, false
	for _, b := range r.Runs {
		if v, ok := value(b); ok {
			maxY, any = math.Max(maxY, v), true
		}
	}
	if !any {
		return nil, fmt.Errorf("no block was measured")
	}
	unit, div := nsUnit(maxY)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: each block's %s of the %s, in the order run", r.Knob, r.By, r.Quantity)
	p.X.Label.Text = "time since the experiment started (s)"
	p.Y.Label.Text = fmt.Sprintf("%s of the block's %s (%s)", r.By, r.Quantity, unit)
	if byRate {
		unit, div = "/s", 1
		p.Title.Text = fmt.Sprintf("%s: each block's interruptions per second on CPU %d, in the order run", r.Knob, r.OneNoiseCPU())
		p.Y.Label.Text = "interruptions per second"
		if cpus := r.NoiseCPUList(); len(cpus) > 1 {
			p.Title.Text = fmt.Sprintf("%s: each block's interruptions per second per CPU over CPUs %s, in the order run", r.Knob, try.CPUWords(cpus))
			p.Y.Label.Text = "interruptions per second per CPU"
		}
		if maxY == 0 {
			maxY = 1 // a quiet CPU: every block at 0
		}
	}
	p.Add(plotter.NewGrid())
	var all plotter.XYs
	per := make([]plotter.XYs, len(r.Arms))
	var open plotter.XYs
	for _, b := range r.Runs {
		v, ok := value(b)
		if !ok {
			continue
		}
		pt := plotter.XY{X: float64(b.StartNs+b.ElapsedNs/2) / 1e9, Y: v / div}
		all = append(all, pt)
		if !b.Complete {
			open = append(open, pt)
			continue
		}
		per[b.Arm] = append(per[b.Arm], pt)
	}
	if len(all) > 1 {
		l, err := plotter.NewLine(all)
		if err != nil {
			return nil, err
		}
		grey := paletteColor(7)
		grey.A = 80
		l.Color = grey
		p.Add(l)
	}
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}}
	for i, pts := range per {
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = paletteColor(i)
		sc.Shape = glyphs[i%len(glyphs)]
		sc.Radius = vg.Points(4)
		p.Add(sc)
		name := r.Arms[i].Label
		if r.Arms[i].Baseline {
			name += " (" + r.Arms[i].Current + ")"
		}
		p.Legend.Add(name, sc)
	}
	if len(open) > 0 {
		sc, err := plotter.NewScatter(open)
		if err != nil {
			return nil, err
		}
		sc.Shape = draw.RingGlyph{}
		sc.Radius = vg.Points(6)
		sc.Color = paletteColor(7)
		p.Add(sc)
		p.Legend.Add("incomplete (not in the statistics)", sc)
	}
	p.Legend.Top = true
	// Room above the highest block for the legend.
	p.Y.Min, p.Y.Max = 0, maxY/div*(1.15+0.07*float64(len(r.Arms)))
	return renderReportPlot(p, format)
}
