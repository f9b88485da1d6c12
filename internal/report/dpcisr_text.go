package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/units"
)

// DPCISRText prints a report as `latlab dpcisr` does: per section the
// usage table, the histograms with their percentile buckets, xperf's own
// check and the busiest interval.
func DPCISRText(w io.Writer, res *dpcisr.Result) {
	r := res.Report
	v := res.View()
	var what string
	switch {
	case r.Source == dpcisr.SourceETW && r.Encoding == dpcisr.EncodingETL:
		what = "an .etl trace"
	case r.Source == dpcisr.SourceETW:
		what = "an ETW trace of latlab dpc watch"
	case r.Source == dpcisr.SourceTracefs:
		what = "a tracefs trace of latlab dpc watch on Linux"
	default:
		what = fmt.Sprintf("%s, %d lines", r.Encoding, r.Lines)
	}
	if r.Source == dpcisr.SourceLatencyMon {
		latencyMonText(w, res, what)
		return
	}
	// What the file is stays whole: on the path's line if it fits, under
	// it if not.
	file := safeText(res.File)
	if head := fmt.Sprintf("latlab dpcisr: %s (%s)", file, what); text.StringWidthWithoutEscSequences(head) <= pageWidth {
		fmt.Fprintln(w, head)
	} else {
		wrapTo(w, "latlab dpcisr: "+file, "", "  ")
		wrapTo(w, "("+what+")", "  ", "  ")
	}
	// A dpc watch document's verdict, the one its --json holds.
	if v.Verdict != nil {
		wrapTo(w, "verdict: "+safeText(v.Verdict.Text), "", "  ")
	}
	if len(v.Sections) > 0 {
		wrapTo(w, "execution times in xperf's power-of-two buckets; a percentile is the bucket that holds it", "", "  ")
	}
	for _, s := range v.Sections {
		if s.Overall == nil && len(s.Modules) == 0 && len(s.Usage) == 0 {
			continue // emptied by the module filter
		}
		head := safeText(s.Name)
		if s.Heading != "" && !strings.EqualFold(s.Heading, s.Name) {
			head += fmt.Sprintf(" (%q, line %d)", s.Heading, s.Line)
		}
		unit := map[string]string{dpcisr.ISR: "ISRs", dpcisr.SoftIRQ: "softirqs", dpcisr.HardIRQ: "hard IRQs"}[s.Name]
		if unit == "" {
			unit = "DPCs"
		}
		fmt.Fprintln(w)
		wrapTo(w, "== "+head, "", "   ")
		if len(s.Usage) > 0 {
			dpcisrUsage(w, s.Section)
		}
		if s.Overall != nil {
			dpcisrHistogram(w, s.Name, *s.Overall, unit)
		}
		for _, m := range s.Modules {
			dpcisrHistogram(w, s.Name, m, unit)
		}
		if s.Check != nil {
			if all := histName(s.Name, dpcisr.Histogram{}); all != "(all modules)" {
				// A Linux trace's check is latlab's, in xperf's terms.
				fmt.Fprintln(w)
				wrapTo(w, fmt.Sprintf("check: %s %d, total %d: %s", strings.Trim(all, "()"), s.Check.AllModule, s.Check.Total, safeText(s.Check.Verdict)), "", "  ")
			} else {
				fmt.Fprintln(w)
				wrapTo(w, fmt.Sprintf("xperf's own check: all modules %d, total %d: %s", s.Check.AllModule, s.Check.Total, safeText(s.Check.Verdict)), "", "  ")
			}
		}
		if s.Intervals != nil {
			dpcisrIntervals(w, s.Name, s.Intervals)
		}
	}
	if r.HardFaults != nil && res.Module == "" {
		hardFaultText(w, r.HardFaults)
	}
	for _, n := range r.Notes {
		wrapTo(w, "note: "+safeText(n), "", "  ")
	}
}

func dpcisrHistogram(w io.Writer, section string, h dpcisr.HistogramView, unit string) {
	head := safeText(histName(section, h.Histogram))
	if h.Label != "" {
		head += " — " + safeText(h.Label)
	}
	if h.Line > 0 { // a report's line; latlab's own traces have none
		head += fmt.Sprintf(" (line %d)", h.Line)
	}
	fmt.Fprintln(w)
	wrapTo(w, head, "", "  ")
	s := h.Summary
	if s.Count == 0 {
		fmt.Fprintf(w, "  no %s\n", unit)
		return
	}
	var q []string
	for _, x := range s.Quantiles {
		q = append(q, fmt.Sprintf("p%s in %s", dpcisrP(x.P), x.Bucket.Range()))
	}
	wrapTo(w, fmt.Sprintf("%d %s; %s", s.Count, unit, strings.Join(q, ", ")), "  ", "    ")
	wrapTo(w, fmt.Sprintf("most common %s (%.2f%%); longest in %s", s.Mode.Range(), 100*float64(s.Mode.Count)/float64(s.Count), s.Max.Range()), "  ", "    ")
	if s.Count < 1000 {
		wrapTo(w, fmt.Sprintf("(%d %s: p99.9 is the longest one)", s.Count, unit), "  ", "    ")
	}
	rows := [][]string{}
	for _, r := range s.Rows {
		rows = append(rows, []string{"  " + r.Range(), fmt.Sprint(r.Count), fmt.Sprintf("%.2f", r.Pct), fmt.Sprintf("%.2f", r.CumPct)})
	}
	Table(w, []string{"  bucket", "count", "%", "cum %"}, rows)
}

func dpcisrUsage(w io.Writer, s dpcisr.Section) {
	span := ""
	var spanUs float64
	if s.Span != nil {
		spanUs = float64(s.Span.ToUs - s.Span.FromUs)
		span = fmt.Sprintf(" over %s", units.Duration(time.Duration(int64(spanUs*1000))))
	}
	fmt.Fprintln(w)
	wrapTo(w, fmt.Sprintf("CPU time by %s%s (xperf's usage table):", HandlerColumn(s.Name), span), "", "  ")
	rows := [][]string{}
	for _, u := range s.UsageByTotal() {
		busiest, bu := u.Busiest()
		share := "-"
		if spanUs > 0 && bu >= 0 {
			share = fmt.Sprintf("%.2f", 100*float64(bu)/spanUs)
		}
		cpu := "-"
		if len(u.CPUs) > busiest {
			cpu = fmt.Sprint(u.CPUs[busiest])
		}
		rows = append(rows, []string{"  " + safeText(u.Module), fmt.Sprint(u.TotalUsec()), cpu, fmt.Sprint(max(bu, 0)), share})
	}
	Table(w, []string{"  " + HandlerColumn(s.Name), "total µs", "busiest CPU", "µs there", "% of that CPU"}, rows)
}

func dpcisrIntervals(w io.Writer, section string, t *dpcisr.IntervalTable) {
	best, col, us, ok := t.Busiest()
	if !ok {
		return
	}
	wrapTo(w, fmt.Sprintf("busiest %gs interval %s: CPU %d at %d-%d ms, %d µs (%.2f%%), of %d intervals",
		t.IntervalSec, histName(section, dpcisr.Histogram{}), t.CPU(col), best.StartMs, best.EndMs, us, best.Percent[col], len(t.Rows)), "", "  ")
}

// dpcisrP writes a percentile as its name has it: 50, 99.9.
func dpcisrP(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return strings.TrimRight(fmt.Sprintf("%.3f", f), "0")
}

// HandlerColumn is what a section's rows are called, as the OS names
// them: on Windows the driver module a DPC or ISR routine lies in; on
// Linux a softirq vector (NET_RX, TIMER) or a hard interrupt's handler,
// an interrupt line named by its device or an architecture vector
// (LOC (local_timer)).
func HandlerColumn(section string) string {
	switch section {
	case dpcisr.SoftIRQ:
		return "softirq"
	case dpcisr.HardIRQ:
		return "handler"
	}
	return "module"
}

// histName is a histogram's name in a section: the module (handler), or
// the overall one named after the section's rows.
func histName(section string, h dpcisr.Histogram) string {
	if h.Module == "" {
		switch section {
		case dpcisr.SoftIRQ:
			return "(all softirqs)"
		case dpcisr.HardIRQ:
			return "(all handlers)"
		}
	}
	return h.Name()
}
