package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/try"
	"github.com/latlab/latlab/internal/units"
)

// ReportInput is one result document to put in an HTML report.
type ReportInput struct {
	Label string // the file name, shown as the run's name
	Doc   *result.Document
}

// Figure is one plot of a report, rendered as inline SVG in the HTML and as
// PNG for --png.
type Figure struct {
	Name   string // file stem for PNG output
	Title  string
	render func(format string) ([]byte, error)
}

// Render renders the figure as "svg" or "png".
func (f *Figure) Render(format string) ([]byte, error) { return f.render(format) }

type htmlTable struct {
	Caption string
	Header  []string
	Rows    [][]string
}

type htmlSection struct {
	ID       string
	Title    string
	Subtitle string
	Verdicts []string
	Tables   []htmlTable
	Figures  []*Figure
	Facts    [][2]string
	Settings [][2]string
	Notes    []string
}

// Report is a built HTML report.
type Report struct {
	Title     string
	Generated time.Time
	Sections  []htmlSection
}

// Figures lists every figure in the report, in order.
func (r *Report) Figures() []*Figure {
	var out []*Figure
	for _, s := range r.Sections {
		out = append(out, s.Figures...)
	}
	return out
}

// BuildReport turns results into report sections: one per result, plus a
// comparison (overlaid distributions and compare's verdicts) for each group
// of two or more comparable sleep or wake results, cyclictest and rtla
// timerlat histograms counted with the wake results, as compare counts them;
// and for two or more noise results and rtla osnoise histograms, the
// comparison compare makes of them all.
func BuildReport(in []ReportInput, title string) (*Report, error) {
	r := &Report{Title: title, Generated: time.Now().UTC().Truncate(time.Second)}
	// One budget for the samples rebuilt from every input's histograms.
	budget := result.NewBudget()
	used := map[string]int{}
	stem := func(s string) string {
		s = strings.TrimSuffix(s, filepath.Ext(s))
		s = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(s, "_")
		used[s]++
		if used[s] > 1 {
			s = fmt.Sprintf("%s-%d", s, used[s])
		}
		return s
	}
	for i, x := range in {
		sec, err := section(x, stem(x.Label), budget)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.Label, err)
		}
		sec.ID = fmt.Sprintf("run-%d", i+1)
		r.Sections = append(r.Sections, sec)
	}
	groups := map[string][]ReportInput{}
	var kinds []string
	for _, x := range in {
		k := x.Doc.Kind
		if compare.WakeHistogram(k) {
			k = probe.KindWake.Name() // compared with wake results, as compare does
		}
		if k != probe.KindSleep.Name() && k != probe.KindWake.Name() {
			continue
		}
		if groups[k] == nil {
			kinds = append(kinds, k)
		}
		groups[k] = append(groups[k], x)
	}
	for _, k := range kinds {
		if g := groups[k]; len(g) >= 2 {
			r.Sections = append(r.Sections, comparisonSection(k, g, stem("compare-"+k), budget))
		}
	}
	if g := noiseGroup(in); g != nil {
		r.Sections = append(r.Sections, noiseComparisonSection(g, stem("compare-noise"), budget))
	}
	return r, nil
}

func section(x ReportInput, stem string, b *result.Budget) (htmlSection, error) {
	d := x.Doc
	if c, ok := d.Data.(*compare.Cyclictest); ok {
		// Not a document: no host, settings or tool to show, and its
		// values are never rebuilt (it is a result.Sampled too).
		return histogramSection(htmlSection{Title: x.Label}, x, c, stem)
	}
	if o, ok := d.Data.(*compare.Osnoise); ok {
		return osnoiseSection(htmlSection{Title: x.Label}, x, o, stem)
	}
	s := htmlSection{Title: x.Label, Subtitle: fmt.Sprintf("%s result, %s, latlab %s", d.Kind, d.Created.Format(time.RFC3339), d.Tool.Version)}
	s.Facts = factsOf(d)
	s.Settings = settingsRows(d.Settings)
	s.Notes = d.Notes
	switch data := d.Data.(type) {
	case *probe.SleepData, *probe.WakeData:
		return distributionSection(s, x, stem, b)
	case *sweep.Data:
		sr := &data.Result
		if len(sr.Steps) == 0 {
			return s, fmt.Errorf("sweep result without steps")
		}
		s.Verdicts = []string{sr.Verdict.Text}
		s.Tables = append(s.Tables, sweepTable(sr))
		s.Figures = append(s.Figures, &Figure{Name: stem + "-sweep", Title: "overshoot vs requested " + sr.What,
			render: func(f string) ([]byte, error) { return SweepPlot(sr, f) }})
	case *crossproc.Data:
		cr := &data.Result
		if len(cr.Rows) < 2 {
			return s, fmt.Errorf("crossproc result without rows")
		}
		s.Verdicts = []string{cr.Verdict.Text}
		s.Tables = append(s.Tables, crossprocTable(cr))
		s.Figures = append(s.Figures, &Figure{Name: stem + "-crossproc", Title: "sleep vs the other process's request",
			render: func(f string) ([]byte, error) { return CrossprocPlot(cr, f) }})
	case *compare.Result:
		if len(data.Runs) < 2 {
			return s, fmt.Errorf("compare result without runs")
		}
		if len(data.Noise) > 0 {
			s.Verdicts, s.Tables = compareNoiseHTML(data)
			break
		}
		if data.DPCISR != nil {
			s.Verdicts, s.Tables = compareDPCISRHTML(data)
			break
		}
		for _, p := range data.Pairs {
			s.Verdicts = append(s.Verdicts, p.Verdict)
		}
		s.Tables = append(s.Tables, compareTable(data))
	case *try.Data:
		return trySection(s, x, stem, b)
	case *dpcisr.ReportView:
		return dpcisrSection(s, d, data, stem)
	case *probe.NoiseData:
		if len(data.CPUs) == 0 {
			return s, fmt.Errorf("noise result without CPUs")
		}
		_, v := NoiseVerdict(data)
		s.Verdicts = []string{v}
		if l := htmlStopLine(data); l != "" {
			s.Verdicts = append([]string{l}, s.Verdicts...)
		}
		s.Tables = append(s.Tables, htmlTable{Caption: fmt.Sprintf("interruptions of a thread spinning on each CPU (threshold %s)", units.Duration(time.Duration(data.Measurement.ThresholdNs))),
			Header: noiseHeader, Rows: noiseRows(data)})
		if h, rows := noiseCountTable(data); h != nil {
			s.Tables = append(s.Tables, htmlTable{Caption: "what the OS counted on each CPU during the run", Header: h, Rows: rows})
		}
	case result.Sampled:
		return distributionSection(s, x, stem, b)
	default:
		s.Notes = append(s.Notes, fmt.Sprintf("latlab %s has no dedicated view of %q results; their settings and host are shown", result.Version(), d.Kind))
	}
	return s, nil
}

// measured is a payload that says how its samples were taken.
type measured interface{ Measured() *probe.Measurement }

// timed is a payload that carries the timer state of its run.
type timed interface{ TimerState() *timer.Status }

func distributionSection(s htmlSection, x ReportInput, stem string, b *result.Budget) (htmlSection, error) {
	d := x.Doc
	sorted, err := sortedDistribution(d, b)
	if err != nil {
		return s, err
	}
	q := compare.Quantity(d.Kind)
	cols := []string{q}
	sums := []stats.Summary{stats.SummarizeSorted(sorted)}
	var overhead *probe.Overhead
	// A run stopped by Ctrl-C is said as the text output says it: the
	// page once showed 105 of 100,000 planned samples as a whole run.
	stopped := ""
	switch data := d.Data.(type) {
	case *probe.SleepData:
		cols, sums = append(cols, "overshoot"), append(sums, data.Overshoot)
		overhead = &data.Overhead
		stopped = interruptedLine(data.Counts, "samples")
		// The verdict the text output gives, first.
		if v := SleepVerdict(data); v != "" {
			s.Verdicts = append(s.Verdicts, "verdict: "+v)
		}
	case *probe.WakeData:
		cols, sums = append(cols, "corrected for missed periods"), append(sums, data.CorrectedSummary)
		overhead = &data.Overhead
		stopped = interruptedLine(data.Counts, "wake-ups")
		if l := htmlStopLine(data); l != "" {
			s.Verdicts = append(s.Verdicts, l)
		}
		_, v := WakeVerdict(data)
		s.Verdicts = append(s.Verdicts, "verdict: "+v)
	case *netload.UDPData:
		if data.CorrectedSummary != nil {
			cols, sums = append(cols, "from the intended send time"), append(sums, *data.CorrectedSummary)
		}
	}
	s.Tables = append(s.Tables, summaryTable("statistics (nearest-rank percentiles)", cols, sums))
	if ms, ok := d.Data.(measured); ok {
		m := ms.Measured()
		line := fmt.Sprintf("method %s", m.Method)
		if m.RequestedNs > 0 {
			line += ", sleep of " + units.Duration(time.Duration(m.RequestedNs))
		}
		if m.IntervalNs > 0 {
			line += ", interval " + units.Duration(time.Duration(m.IntervalNs))
		}
		if overhead != nil {
			line += fmt.Sprintf("; tool overhead: clock read %s, zero-length wait %s (p50)",
				units.Duration(time.Duration(overhead.ClockReadP50Ns)), units.Duration(time.Duration(overhead.ZeroWaitP50Ns)))
		}
		s.Verdicts = append(s.Verdicts, line)
	}
	if stopped != "" {
		s.Verdicts = append(s.Verdicts, strings.ReplaceAll(stopped, "\n  ", " "))
	}
	ser := []Dist{{Name: x.Label, Sorted: sorted}}
	s.Figures = append(s.Figures,
		&Figure{Name: stem + "-histogram", Title: "histogram of the " + q,
			render: func(f string) ([]byte, error) { return HistogramPlot("Histogram: "+q, q, ser, f) }},
		&Figure{Name: stem + "-cdf", Title: "cumulative distribution of the " + q,
			render: func(f string) ([]byte, error) { return DistCDFPlot("Cumulative distribution: "+q, q, ser, f) }})
	return s, nil
}

func comparisonSection(kind string, g []ReportInput, stem string, b *result.Budget) htmlSection {
	q := compare.Quantity(kind)
	s := htmlSection{ID: "compare-" + kind, Title: fmt.Sprintf("Comparison of %d %s results", len(g), kind),
		Subtitle: "each run against the first, as latlab compare (by p50, seed 1)"}
	var in []compare.Input
	for _, x := range g {
		in = append(in, compare.Input{Label: x.Label, Doc: x.Doc})
	}
	var ser []Dist
	hist := slices.ContainsFunc(g, func(x ReportInput) bool { return compare.WakeHistogram(x.Doc.Kind) })
	if hist {
		s.Title = fmt.Sprintf("Comparison of %d runs of %s (wake results and histograms)", len(g), q)
	}
	// Each run's own distribution: a histogram's buckets (never
	// expanded), a result's values. A comparison with a histogram holds
	// the others' values in its buckets and at a stand-in above every
	// latency where they are not known: none of them is plotted.
	own := func() {
		for _, x := range g {
			if c, ok := x.Doc.Data.(*compare.Cyclictest); ok {
				if c.H.InRange > 0 {
					ser = append(ser, histDist(x.Label, c))
				}
			} else if sorted, err := sortedDistribution(x.Doc, b); err == nil {
				ser = append(ser, Dist{Name: x.Label, Sorted: sorted})
			}
		}
	}
	res, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1, Budget: b})
	if err != nil {
		// Incomparable runs (different sleeps, say) are still overlaid.
		s.Notes = append(s.Notes, "no statistical comparison: "+err.Error())
		own()
	} else {
		if hist {
			own()
		} else {
			for _, run := range res.Runs {
				ser = append(ser, Dist{Name: run.Label, Sorted: run.Samples()})
			}
		}
		for _, p := range res.Pairs {
			s.Verdicts = append(s.Verdicts, p.Verdict)
		}
		s.Tables = append(s.Tables, compareTable(res))
		s.Notes = append(s.Notes, unknownLines(res)...)
		s.Notes = append(s.Notes, res.Notes...)
	}
	s.Figures = append(s.Figures,
		&Figure{Name: stem + "-histograms", Title: "histograms overlaid",
			render: func(f string) ([]byte, error) { return HistogramPlot("Histograms overlaid: "+q, q, ser, f) }},
		&Figure{Name: stem + "-cdfs", Title: "cumulative distributions overlaid",
			render: func(f string) ([]byte, error) { return DistCDFPlot("Cumulative distributions overlaid: "+q, q, ser, f) }})
	return s
}

// sortedDistribution is a document's distribution, sorted, in a slice of
// its own; values rebuilt from a histogram are charged to b.
func sortedDistribution(d *result.Document, b *result.Budget) ([]int64, error) {
	sp, ok := d.Data.(result.Sampled)
	if !ok {
		return nil, fmt.Errorf("a %s result holds no single distribution", d.Kind)
	}
	v, _, err := sp.Values(b)
	if err != nil {
		return nil, fmt.Errorf("a %s result with %w", d.Kind, err)
	}
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	return sorted, nil
}

func summaryTable(caption string, cols []string, sums []stats.Summary) htmlTable {
	t := htmlTable{Caption: caption, Header: append([]string{""}, cols...)}
	for _, row := range SummaryRows {
		r := []string{row}
		for _, s := range sums {
			if row == "count" {
				r = append(r, fmt.Sprint(s.Count))
				continue
			}
			r = append(r, units.Duration(time.Duration(value(s, row))))
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

func sweepTable(r *sweep.Result) htmlTable {
	var counts []int64
	for _, s := range r.Steps {
		counts = append(counts, s.Summary.Overshoot.Count)
	}
	tail, tailOf := p99Column(counts...)
	t := htmlTable{Caption: fmt.Sprintf("steps ranked by %s overshoot (95%% bootstrap CI), %d pass(es), %s order, mode %s", r.RankBy, r.Repeat, r.Order, r.Mode),
		Header: []string{"rank", "requested", "granted", "n", "mean", "p50", tail, "stdev", r.RankBy + " [95% CI]", ""}}
	for _, i := range r.Ranking {
		s := r.Steps[i]
		o := s.Summary.Overshoot
		mark := ""
		if i == r.Best {
			mark = "best"
		}
		if s.Reference {
			mark = strings.TrimPrefix(mark+", default", ", ")
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(s.Rank), units.Request(s.RequestedNs), units.Request(s.GrantedNs), fmt.Sprint(o.Count),
			units.Duration(time.Duration(o.Mean)), units.Duration(time.Duration(o.P50)), units.Duration(time.Duration(tailOf(o))), units.Duration(time.Duration(o.Stdev)),
			sweepValueCI(s.Summary, func(v float64) string { return units.Duration(time.Duration(v)) }), mark})
		if sweepBlockCI(s.Summary) && !strings.Contains(t.Caption, sweepBlockNote) {
			t.Caption += "; " + sweepBlockNote
		}
	}
	return t
}

func crossprocTable(r *crossproc.Result) htmlTable {
	// current and timeGetTime step are Windows readings: shown only when
	// there are some, as the command's own table does.
	win := false
	for _, row := range r.Rows {
		win = win || row.CurrentNs > 0 || row.TimeGetTimeNs > 0
	}
	t := htmlTable{Caption: fmt.Sprintf("this process's %s while another process holds each request for %s (%s)", r.Method, units.Duration(time.Duration(r.HoldNs)), r.Requester),
		Header: []string{"other requests", "granted"}}
	if win {
		t.Header = append(t.Header, "current", "timeGetTime step")
	}
	var counts []int64
	for _, row := range r.Rows {
		counts = append(counts, row.Slept.Count)
	}
	tail, tailOf := p99Column(counts...)
	t.Header = append(t.Header, "n", "slept p50", tail, "if isolated", "if global", "followed")
	for _, row := range r.Rows {
		req, g, iso, exp, fol := "nothing", "-", "", "", ""
		if row.RequestedNs > 0 {
			req, g, exp = units.Duration(time.Duration(row.RequestedNs)), units.Duration(time.Duration(row.ChildGrantedNs)), units.Duration(time.Duration(row.ExpectedNs))
			iso = units.Duration(time.Duration(row.ExpectedIsolatedNs))
			fol = map[bool]string{true: "yes", false: "no"}[row.Tracked]
			if !row.Informative {
				fol = "(uninformative)"
			}
		}
		cells := []string{req, g}
		if win {
			cells = append(cells, units.Duration(time.Duration(row.CurrentNs)), units.Duration(time.Duration(row.TimeGetTimeNs)))
		}
		t.Rows = append(t.Rows, append(cells, fmt.Sprint(row.Slept.Count),
			units.Duration(time.Duration(row.Slept.P50)), units.Duration(time.Duration(tailOf(row.Slept))), iso, exp, fol))
	}
	return t
}

func compareTable(r *compare.Result) htmlTable {
	tail, tailOf := p99Column(runCounts(r)...)
	t := htmlTable{Caption: fmt.Sprintf("%s, ranked by %s; intervals at %.4g%%", r.Quantity, r.By, r.Level*100),
		Header: []string{"#", "run", "n", "p50", tail, "mean", r.By + " vs first [CI]", "Mann-Whitney", "KS D", "outcome"}}
	for rank, i := range r.Ranking {
		run := r.Runs[i]
		diff, p, ks, out := "baseline", "", "", ""
		if i > 0 && i-1 < len(r.Pairs) {
			pp := r.Pairs[i-1]
			diff = "-"
			if d := pp.ByDiff; d != nil {
				diff = fmt.Sprintf("%s [%s, %s]", units.SignedNs(d.Estimate), units.SignedNs(d.Lo), units.SignedNs(d.Hi))
			}
			p, ks, out = stats.FormatP(pp.PAdjusted), fmt.Sprintf("%.3f", pp.KS.D), string(pp.Outcome)
		}
		label := run.Label
		if run.Source != "" {
			label += " (" + run.Source + "; order unknown, taken as independent)"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(rank + 1), label, fmt.Sprint(run.Summary.Count), pageNs(float64(run.Summary.P50)),
			pageNs(float64(tailOf(run.Summary))), pageNs(run.Summary.Mean), diff, p, ks, out})
	}
	return t
}

// pageNs writes a statistic (ns) in a table of the page as every other
// table of it writes durations (units.Duration: "14.5µs", as the
// statistics tables of results and histograms do), "?" for one not known
// (-1). latlab compare's own text keeps its spelling (units.NsFixed:
// "14.50 µs"), and so do the verdicts it writes, quoted on the page.
func pageNs(v float64) string {
	if v < 0 {
		return "?"
	}
	return units.Duration(time.Duration(math.Round(v)))
}

// unknownLines say, as latlab compare's "?" lines do, why a pair's
// statistic or its interval is not known (a histogram's overflows).
func unknownLines(r *compare.Result) []string {
	var out []string
	for _, p := range r.Pairs {
		for _, row := range p.Rows {
			if row.Unknown != "" {
				l := row.Unknown
				if len(r.Pairs) > 1 {
					l = p.BLabel + " vs " + p.ALabel + ": " + l
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// factsOf lists the host and timer facts of a document as label/value
// rows, read through their JSON form so new fields appear without code.
func factsOf(d *result.Document) [][2]string {
	var rows [][2]string
	add := func(prefix string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			val := m[k]
			var s string
			switch x := val.(type) {
			case string:
				s = x
			default:
				b, _ := json.Marshal(x)
				s = string(b)
			}
			rows = append(rows, [2]string{prefix + k, s})
		}
	}
	add("host.", d.Host)
	if t, ok := d.Data.(timed); ok && t.TimerState() != nil {
		add("timer.", t.TimerState())
	}
	return rows
}

func settingsRows(m map[string]string) [][2]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rows [][2]string
	for _, k := range keys {
		rows = append(rows, [2]string{"--" + k, m[k]})
	}
	return rows
}

// WriteHTML writes the report as one self-contained HTML file: inline CSS,
// inline SVG, no script, and a Content-Security-Policy that forbids every
// load, so opening it makes no network request. Every string from the
// inputs is escaped by html/template; plot labels are escaped by the SVG
// writer.
func (r *Report) WriteHTML(w io.Writer) error {
	type fig struct {
		Title string
		SVG   template.HTML
	}
	type sec struct {
		htmlSection
		SVGs []fig
	}
	data := struct {
		Title     string
		Generated string
		Version   string
		Sections  []sec
	}{Title: r.Title, Generated: r.Generated.Format(time.RFC3339), Version: result.Version()}
	for _, s := range r.Sections {
		x := sec{htmlSection: s}
		for _, f := range s.Figures {
			b, err := f.Render("svg")
			if err != nil {
				return fmt.Errorf("%s: %w", f.Title, err)
			}
			x.SVGs = append(x.SVGs, fig{Title: f.Title, SVG: template.HTML(inlineSVG(b))}) //nolint:gosec // produced by gonum's SVG writer, which escapes text
		}
		data.Sections = append(data.Sections, x)
	}
	var b bytes.Buffer
	if err := reportTemplate().Execute(&b, data); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// CheckPNGs refuses, before anything is written, a DIR/NAME.png that
// WritePNGs could not write (a link, a FIFO, a directory on the way root
// must not trust), or that exists unless overwrite is set. A DIR that
// does not exist yet holds nothing to check but the directories above it.
func (r *Report) CheckPNGs(dir string, overwrite bool) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// Not there yet: the directories on its way are checked now
		// as they will be when it is created.
		return outfile.CheckDir(dir)
	}
	if err != nil {
		return nil // WritePNGs says what is wrong, after the page
	}
	if !st.IsDir() {
		// Found before any work, as for -o: it once wrote the page, then
		// failed with exit 3 on a --png that named the page itself.
		return badinput.Errorf("--png %s is not a directory: give a directory for the PNG plots (created when missing)", dir)
	}
	for _, f := range r.Figures() {
		p := filepath.Join(dir, f.Name+".png")
		if err := outfile.Check(p, overwrite); err != nil {
			if badinput.Is(err) && strings.HasSuffix(err.Error(), "add --force to overwrite it") {
				return badinput.Errorf("%s exists: add --force to overwrite it, or give --png another directory", p)
			}
			return err
		}
	}
	return nil
}

// WritePNGs writes every figure as DIR/NAME.png and returns the paths.
func (r *Report) WritePNGs(dir string) ([]string, error) {
	if err := outfile.MkdirAll(dir); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range r.Figures() {
		b, err := f.Render("png")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Title, err)
		}
		p := filepath.Join(dir, f.Name+".png")
		if err := outfile.WriteBytes(p, b); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// inlineSVG drops the XML prolog and comment before <svg and makes the
// element scale with the page.
func inlineSVG(b []byte) string {
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return strings.Replace(s, "<svg ", `<svg class="plot" role="img" preserveAspectRatio="xMidYMid meet" `, 1)
}

// Parsed on first use: parsing at start-up would cost every command.
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(pageHead + `h2 { font-size: 1.2rem; margin: 2rem 0 .2rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; overflow-wrap: anywhere; }
.sub { color: #555; font-size: .9rem; margin: 0 0 .6rem; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: #555; padding: .2rem 0; caption-side: top; }
th, td { padding: .2rem .5rem; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
td.k { text-align: left; font-family: ui-monospace, monospace; }
td.v { text-align: left; white-space: normal; overflow-wrap: anywhere; }
figcaption { color: #555; font-size: .85rem; }
details { margin: .6rem 0; }
summary { cursor: pointer; color: #0072b2; }
nav ol { padding-left: 1.2rem; }
nav a, summary { overflow-wrap: anywhere; }
.note { color: #555; font-size: .9rem; }
` + pageBody + `<header>
<h1>{{.Title}}</h1>
<p class="sub">generated {{.Generated}} by latlab {{.Version}}; percentiles are nearest-rank (values that occurred); lower is better</p>
<nav><ol>{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ol></nav>
</header>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
<p class="sub">{{.Subtitle}}</p>
{{range .Verdicts}}<p class="verdict">{{.}}</p>
{{end}}{{range .Tables}}<div class="scroll"><table>
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{range .SVGs}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}{{range .Notes}}<p class="note">note: {{.}}</p>
{{end}}{{if .Settings}}<details><summary>settings of this run</summary><div class="scroll"><table><tbody>{{range .Settings}}<tr><td class="k">{{index . 0}}</td><td class="v">{{index . 1}}</td></tr>{{end}}</tbody></table></div></details>
{{end}}{{if .Facts}}<details><summary>host and timer facts</summary><div class="scroll"><table><tbody>{{range .Facts}}<tr><td class="k">{{index . 0}}</td><td class="v">{{index . 1}}</td></tr>{{end}}</tbody></table></div></details>
{{end}}</section>
{{end}}</main>
<footer>latlab report: one self-contained file; it loads nothing from the network.</footer>
</body>
</html>
`))
})
