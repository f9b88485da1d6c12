package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

// Bounds of the DPC/ISR view: a hand-edited report may hold many sections
// and thousands of modules; the document keeps them all.
const (
	maxDPCRows   = 40 // module rows per table
	maxDPCPanels = 4  // plot panels (sections)
	maxDPCSeries = 6  // curves per panel: the overall histogram and the longest modules
)

// LatencyMon's thresholds: an audio buffer of a few ms is at risk from a
// DPC or ISR above 1 ms and likely to drop out above 2 ms.
var dpcThresholdsUs = []float64{1000, 2000}

// DPCISRPage writes the self-contained HTML page of one dpcisr document
// (latlab dpc watch --html, latlab dpcisr FILE --html).
func DPCISRPage(w io.Writer, title, label string, doc *result.Document) error {
	r, err := BuildReport([]ReportInput{{Label: label, Doc: doc}}, title)
	if err != nil {
		return err
	}
	return r.WriteHTML(w)
}

// dpcisrRow is one histogram of a section with what the watch summary
// knows of its module (nil for xperf's reports).
type dpcisrRow struct {
	h    dpcisr.Histogram
	stat *dpcwatch.ModuleStat
}

// longest orders rows: the exact longest execution when the trace gave
// it, else the upper bound of the highest non-empty bucket.
func (r dpcisrRow) longest() float64 {
	if r.stat != nil {
		return r.stat.MaxUs
	}
	if m := dpcisr.Summarize(r.h).Max; m != nil {
		return m.Upper()
	}
	return -1
}

// dpcisrSection is the view of a DPC/ISR document: per section a table of
// the modules, the watch's verdict when the document holds one, and the
// cumulative distributions of the longest modules.
func dpcisrSection(s htmlSection, d *result.Document, v *dpcisr.ReportView, stem string) (htmlSection, error) {
	rep, err := checkedDPCISR(d)
	if err != nil {
		return s, err
	}
	w := watchSummary(v.Watch)
	// The verdict the text and the --json of 'latlab dpcisr' show: a
	// LatencyMon report's judged again, a dpc watch document's as the
	// watch wrote it, none with a module filter.
	verdict := rep.View(v.File, v.Module).Verdict
	if dpcisr.Live(rep.Source) {
		line := "an ETW trace of latlab dpc watch"
		switch {
		case rep.Encoding == dpcisr.EncodingETL:
			line = "an .etl trace"
		case rep.Source == dpcisr.SourceTracefs:
			line = "a tracefs trace of latlab dpc watch on Linux"
		}
		if w != nil {
			line += fmt.Sprintf(", %s, %d events, %d modules known", units.Seconds(w.Seconds, 1), w.Events, w.Modules)
		}
		s.Verdicts = append(s.Verdicts, line)
	} else if lm := rep.LatencyMon; rep.Source == dpcisr.SourceLatencyMon && lm != nil {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("a LatencyMon report (%s, %d lines)", rep.Encoding, rep.Lines))
		if verdict != nil {
			s.Verdicts = append(s.Verdicts, "verdict: "+verdict.Text)
		}
		if lm.Conclusion != "" {
			s.Verdicts = append(s.Verdicts, fmt.Sprintf("LatencyMon's conclusion: %q", lm.Conclusion))
		}
		if lm.Duration != "" {
			s.Verdicts = append(s.Verdicts, "run: "+lm.Duration+" (h:mm:ss)")
		}
		if t := speedText(lm); t != "" {
			s.Verdicts = append(s.Verdicts, t)
		}
	} else {
		s.Verdicts = append(s.Verdicts, fmt.Sprintf("an xperf DPC/ISR report (%s, %d lines)", rep.Encoding, rep.Lines))
	}
	if v.Module != "" {
		s.Verdicts = append(s.Verdicts, "only module "+v.Module)
	}
	// The verdict judges the whole trace: shown only when the page does.
	if dpcisr.Live(rep.Source) && verdict != nil {
		s.Verdicts = append(s.Verdicts, "verdict: "+verdict.Text)
	}
	if w != nil && v.Module == "" && w.Verdict.Text != "" {
		for _, sec := range w.Sections() {
			if len(sec.Stats) > 0 {
				m := sec.Stats[0]
				s.Verdicts = append(s.Verdicts, fmt.Sprintf("longest %s: %s, %s at %s on CPU %d (%s routine %s)",
					sec.Name, m.Module, units.Us(m.MaxUs), units.Seconds(m.MaxAtS, 3), m.MaxCPU, m.MaxKind, m.MaxRoutine))
			}
		}
	}
	var panels []CDFPanel
	executions := false
	for i, sec := range rep.Sections {
		var stats []dpcwatch.ModuleStat
		if w != nil {
			for _, ws := range w.Sections() {
				if ws.Name == sec.Name {
					stats = ws.Stats
				}
			}
		}
		name := sec.Name
		if sec.Heading != "" && !strings.EqualFold(sec.Heading, sec.Name) {
			name += fmt.Sprintf(" (%q, line %d)", sec.Heading, sec.Line)
		}
		rows := dpcisrRows(sec, stats)
		if len(rows) == 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: no histogram", name))
			continue
		}
		t := dpcisrTable(name, sec, rows, w != nil)
		if rep.Source == dpcisr.SourceLatencyMon {
			t.Caption = fmt.Sprintf("%s: LatencyMon's count per bucket (from the lower bound, below the upper): longest is the highest non-empty bucket, p99 the bucket that holds it", name)
			for _, r := range t.Rows {
				for i := range r {
					r[i] = strings.NewReplacer("0-250 µs", "<250 µs", "> 4000 µs", ">=4000 µs").Replace(r[i])
				}
			}
		}
		s.Tables = append(s.Tables, t)
		for _, r := range rows {
			executions = executions || r.h.Sum() > 0
		}
		if pn, ok := dpcisrPanel(sec.Name, rows); ok {
			if len(panels) == maxDPCPanels {
				s.Notes = append(s.Notes, fmt.Sprintf("plot: sections after the %d-th are left out (section %d of %d, %s)", maxDPCPanels, i+1, len(rep.Sections), name))
				continue
			}
			panels = append(panels, pn)
		}
	}
	if h := rep.HardFaults; h != nil && v.Module == "" {
		s.Verdicts = append(s.Verdicts, "hard page faults: "+hardFaultVerdict(h))
		if len(h.Processes) > 0 {
			s.Tables = append(s.Tables, hardFaultTable(h))
		}
	}
	if len(panels) > 0 {
		s.Figures = append(s.Figures, &Figure{Name: stem + "-dpcisr",
			Title:  cdfTitle(rep.Source),
			render: func(f string) ([]byte, error) { return RenderCDF(panels, f) }})
	} else if executions {
		s.Notes = append(s.Notes, "no plot: every execution is in the open last bucket, which has no upper bound to plot at")
	} else if len(rep.Sections) > 0 {
		s.Notes = append(s.Notes, "no plot: no DPC or ISR executions")
	}
	for _, n := range rep.Notes {
		if !slices.Contains(s.Notes, n) {
			s.Notes = append(s.Notes, n)
		}
	}
	return s, nil
}

// checkedDPCISR reads a document's report back through dpcisr.ReadDocument,
// the checks 'latlab dpcisr' applies (bucket bounds in order, counts in
// range), so a hand-made document cannot bend the table or the plot.
func checkedDPCISR(d *result.Document) (*dpcisr.Report, error) {
	var b bytes.Buffer
	if err := result.Write(&b, d); err != nil {
		return nil, err
	}
	return dpcisr.ReadDocument(&b)
}

// watchSummary is the dpc watch summary of a document: the type itself
// when the watch just ran, a JSON value when the document was read back.
func watchSummary(w any) *dpcwatch.Summary {
	switch x := w.(type) {
	case nil:
		return nil
	case *dpcwatch.Summary:
		return x
	case dpcwatch.Summary:
		return &x
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil
	}
	var s dpcwatch.Summary
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// dpcisrRows are the section's histograms, the overall one first, then the
// modules by longest execution. A module's watch statistics are attached
// only when it has a single block in the section.
func dpcisrRows(sec dpcisr.Section, stats []dpcwatch.ModuleStat) []dpcisrRow {
	blocks := map[string]int{}
	for _, m := range sec.Modules {
		blocks[strings.ToLower(m.Module)]++
	}
	var rows []dpcisrRow
	for _, m := range sec.Modules {
		r := dpcisrRow{h: m}
		if blocks[strings.ToLower(m.Module)] == 1 {
			for i := range stats {
				if strings.EqualFold(stats[i].Module, m.Module) {
					r.stat = &stats[i]
					break
				}
			}
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].longest(), rows[j].longest()
		if a != b {
			return a > b
		}
		return rows[i].h.Sum() > rows[j].h.Sum()
	})
	if sec.Overall != nil {
		rows = append([]dpcisrRow{{h: *sec.Overall}}, rows...)
	}
	return rows
}

func dpcisrTable(name string, sec dpcisr.Section, rows []dpcisrRow, watched bool) htmlTable {
	longest := "the highest non-empty bucket"
	if watched {
		longest = "the longest execution the trace timed, or the highest non-empty bucket"
	}
	t := htmlTable{
		Caption: fmt.Sprintf("%s: per %s, longest first. Execution times in xperf's power-of-two µs buckets: longest is %s, p99 the bucket that holds it; where 1 ms or 2 ms falls inside a bucket, the share above it is the range the buckets allow", name, HandlerColumn(sec.Name), longest),
		Header:  []string{HandlerColumn(sec.Name), "count", "total time", "longest", "p99", "> 1 ms", "> 2 ms"},
	}
	usage := map[string]int64{}
	for _, u := range sec.Usage {
		usage[strings.ToLower(u.Module)] += u.TotalUsec()
	}
	blocks := map[string]int{}
	for _, m := range sec.Modules {
		blocks[strings.ToLower(m.Module)]++
	}
	for i, r := range rows {
		if i == maxDPCRows {
			t.Rows = append(t.Rows, []string{fmt.Sprintf("(%d more in the document)", len(rows)-i), "", "", "", "", "", ""})
			break
		}
		h := r.h
		n := h.Sum()
		name := histName(sec.Name, h)
		if h.Label != "" {
			name += " — " + h.Label
		}
		total := "-"
		switch {
		case r.stat != nil:
			total = units.Us(r.stat.TotalUs)
		case h.Module != "" && blocks[strings.ToLower(h.Module)] == 1:
			if us, ok := usage[strings.ToLower(h.Module)]; ok {
				total = units.Us(float64(us))
			}
		}
		long, p99 := "-", "-"
		if r.stat != nil {
			long = units.Us(r.stat.MaxUs)
		} else if m := dpcisr.Summarize(h).Max; m != nil {
			long = "in " + m.Range()
		}
		if b, ok := dpcisr.QuantileBucket(h, 99); ok {
			p99 = b.Range()
		}
		maxUs := -1.0
		if r.stat != nil {
			maxUs = r.stat.MaxUs
		}
		row := []string{name, fmt.Sprint(n), total, long, p99}
		for _, us := range dpcThresholdsUs {
			row = append(row, shareText(shareAbove(h, us, maxUs)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// shareAbove bounds the share (%) of h's executions that took longer than
// us: lo counts the buckets wholly above us, hi adds the bucket that
// straddles it. A known longest execution at or below us makes both 0.
// ok is false for an empty histogram.
func shareAbove(h dpcisr.Histogram, us, maxUs float64) (lo, hi float64, ok bool) {
	n := h.Sum()
	if n <= 0 {
		return 0, 0, false
	}
	if maxUs >= 0 && maxUs <= us {
		return 0, 0, true
	}
	var above, maybe int64
	for _, b := range h.Buckets {
		switch {
		case float64(b.GtUs) >= us:
			above += b.Count
		case b.Upper() > us:
			maybe += b.Count
		}
	}
	return 100 * float64(above) / float64(n), 100 * float64(above+maybe) / float64(n), true
}

func shareText(lo, hi float64, ok bool) string {
	if !ok {
		return "-"
	}
	pct := func(v float64) string {
		switch {
		case v == 0:
			return "0"
		case v < 0.01:
			return "< 0.01"
		}
		return fmt.Sprintf("%.2f", v)
	}
	if pct(lo) == pct(hi) {
		return pct(lo) + "%"
	}
	return fmt.Sprintf("%s to %s%%", pct(lo), pct(hi))
}

// dpcisrPanel is one section's plot: the cumulative share of executions
// at each closed bucket's upper bound, for the overall histogram (the
// first row, when the section has one) and the longest modules.
func dpcisrPanel(name string, rows []dpcisrRow) (CDFPanel, bool) {
	pn := CDFPanel{Title: name}
	points := false
	for _, r := range rows {
		if len(pn.Series) == maxDPCSeries {
			break
		}
		n := r.h.Sum()
		if n <= 0 {
			continue
		}
		cs := CDFSeries{Label: histName(name, r.h)}
		var cum int64
		for _, b := range r.h.Buckets {
			cum += b.Count
			if b.Open() || math.IsInf(b.Upper(), 0) {
				continue
			}
			cs.X = append(cs.X, b.Upper())
			cs.Y = append(cs.Y, 100*float64(cum)/float64(n))
		}
		points = points || len(cs.X) > 0
		pn.Series = append(pn.Series, cs)
	}
	return pn, points
}

// cdfTitle is the title of a report's plot of cumulative shares.
func cdfTitle(source string) string {
	if source == dpcisr.SourceLatencyMon {
		return "cumulative share of executions at LatencyMon's bucket bounds (log2 µs)"
	}
	return "cumulative share of executions at xperf's bucket bounds (log2 µs), the overall histogram and the modules with the longest executions"
}
