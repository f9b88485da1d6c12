package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
)

// speedGap is how far the measured CPU speed may stand from the reported
// one before the text says the execution times are scaled by it: 10%.
const speedGap = 0.10

// lmNum writes a value as the report printed it, with a decimal point.
func lmNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// latencyMonText prints a LatencyMon report: the verdict and what it
// rests on first, then the histograms, the drivers, the latencies, the
// hard page faults and the CPUs.
func latencyMonText(w io.Writer, res *dpcisr.Result, what string) {
	r := res.Report
	lm := r.LatencyMon
	if lm == nil {
		lm = &dpcisr.LatencyMon{}
	}
	wrapTo(w, fmt.Sprintf("latlab dpcisr: %s (a LatencyMon report, %s)", safeText(res.File), what), "", "  ")
	// The verdict is the view's, the one the JSON document holds.
	view := res.View()
	judged := view.Verdict != nil
	if judged {
		wrapTo(w, "verdict: "+safeText(view.Verdict.Text), "", "  ") // it quotes the report's driver names
	} else {
		wrapTo(w, "no verdict: the report has no 'Highest DPC routine execution time' or 'Highest ISR routine execution time' line", "", "  ")
	}
	for _, s := range []struct {
		name string
		r    *dpcisr.LMRoutines
	}{{dpcisr.DPC, lm.DPC}, {dpcisr.ISR, lm.ISR}} {
		if s.r != nil && s.r.HighestUs != nil {
			wrapTo(w, fmt.Sprintf("highest %s routine execution time %s µs: %s", s.name, lmNum(*s.r.HighestUs), safeText(orDash(s.r.HighestDriver))), "  ", "    ")
		} else if judged {
			wrapTo(w, fmt.Sprintf("no 'Highest %s routine execution time' line: the %ss are not judged", s.name, s.name), "  ", "    ")
		}
	}
	if lm.Conclusion != "" {
		wrapTo(w, fmt.Sprintf("LatencyMon's conclusion: %q", safeText(lm.Conclusion)), "", "  ")
	}
	if lm.Duration != "" {
		d := "run: " + lm.Duration + " (h:mm:ss)"
		if lm.DurationS != nil {
			d += fmt.Sprintf(", %s s", lmNum(*lm.DurationS))
		}
		wrapTo(w, d+", from 'LatencyMon has been analyzing your system for "+lm.Duration+"'", "", "  ")
	}
	if s := speedText(lm); s != "" {
		wrapTo(w, s, "", "  ")
	}
	if len(r.Sections) == 0 {
		fmt.Fprintln(w)
		msg := "no histogram: the report has none of its 'DPC count (execution time ...)' or 'ISR count (execution time ...)' lines"
		if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "histogram is built from them") }) {
			msg = "no histogram: the report's 'DPC count (execution time ...)' and 'ISR count (execution time ...)' lines leave buckets out (see the notes)"
		}
		wrapTo(w, msg, "", "  ")
	} else {
		fmt.Fprintln(w)
		wrapTo(w, "execution times in LatencyMon's buckets (from the lower bound, below the upper); a percentile is the bucket that holds it", "", "  ")
	}
	for _, s := range view.Sections {
		fmt.Fprintln(w)
		wrapTo(w, fmt.Sprintf("== %s (%q, line %d)", s.Name, safeText(s.Heading), s.Line), "", "   ")
		unit := "DPCs"
		if s.Name == dpcisr.ISR {
			unit = "ISRs"
		}
		if s.Overall != nil {
			lmHistogram(w, *s.Overall, unit)
		}
		rt := lm.DPC
		if s.Name == dpcisr.ISR {
			rt = lm.ISR
		}
		lmRoutines(w, s.Name, rt)
	}
	for _, name := range []string{dpcisr.DPC, dpcisr.ISR} {
		if hasSection(r, name) {
			continue
		}
		rt := lm.DPC
		if name == dpcisr.ISR {
			rt = lm.ISR
		}
		if rt != nil && (rt.TopTotalDriver != "" || rt.TopTotalPct != nil || rt.TotalPct != nil) {
			fmt.Fprintln(w)
			wrapTo(w, fmt.Sprintf("== %s (no count lines)", name), "", "   ")
			lmRoutines(w, name, rt)
		}
	}
	lmLatencies(w, lm)
	lmHardFaults(w, lm.HardFaults)
	lmCPUs(w, lm.CPUs, lm.LogicalProcessors)
	for _, n := range r.Notes {
		wrapTo(w, "note: "+safeText(n), "", "  ")
	}
}

func hasSection(r *dpcisr.Report, name string) bool {
	for _, s := range r.Sections {
		if s.Name == name {
			return true
		}
	}
	return false
}

// speedText says how the execution times depend on the CPU speed, only
// as far as the report's numbers show it.
func speedText(lm *dpcisr.LatencyMon) string {
	rep, meas := lm.ReportedMHz, lm.MeasuredMHz
	switch {
	case rep != nil && meas != nil && *meas > 0 && (*rep-*meas)/(*meas) > speedGap || rep != nil && meas != nil && *meas > 0 && (*meas-*rep)/(*rep) > speedGap:
		f := *rep / *meas
		return fmt.Sprintf("CPU speed: LatencyMon converts cycles to time at the reported %s MHz but measured %s MHz: had the CPU run at the measured speed, each execution time and latency would be %.2f× the one printed",
			lmNum(*rep), lmNum(*meas), f)
	case rep != nil && lm.FixedSpeedNote:
		return fmt.Sprintf("CPU speed: execution times are cycles at the reported %s MHz; the report notes they \"may be calculated based on a fixed reported CPU speed\": a CPU that ran slower (speed stepping) took longer than printed and one that ran faster (turbo) less, by how much the report does not show", lmNum(*rep))
	case rep != nil && meas != nil:
		return fmt.Sprintf("CPU speed: reported %s MHz, measured %s MHz", lmNum(*rep), lmNum(*meas))
	case rep != nil:
		return fmt.Sprintf("CPU speed: reported %s MHz, the speed cycles are converted to time at", lmNum(*rep))
	}
	return ""
}

// LMRange is a LatencyMon bucket as its report names it: "<250 µs",
// "250-500 µs", ">=4000 µs".
func LMRange(b dpcisr.Bucket) string {
	switch {
	case b.LeUs == nil:
		return fmt.Sprintf(">=%d µs", b.GtUs)
	case b.GtUs == 0:
		return fmt.Sprintf("<%d µs", *b.LeUs)
	}
	return fmt.Sprintf("%d-%d µs", b.GtUs, *b.LeUs)
}

func lmHistogram(w io.Writer, h dpcisr.HistogramView, unit string) {
	s := h.Summary
	if s.Count == 0 {
		fmt.Fprintf(w, "  no %s counted (every bucket 0)\n", unit)
		return
	}
	var q []string
	for _, x := range s.Quantiles {
		if x.P == 50 || x.P == 99 {
			q = append(q, fmt.Sprintf("p%s in %s", dpcisrP(x.P), LMRange(x.Bucket)))
		}
	}
	wrapTo(w, fmt.Sprintf("%d %s; %s; longest in %s", s.Count, unit, strings.Join(q, ", "), LMRange(*s.Max)), "  ", "    ")
	rows := [][]string{}
	for _, r := range s.Rows {
		rows = append(rows, []string{"  " + LMRange(r.Bucket), fmt.Sprint(r.Count), fmt.Sprintf("%.3f", r.Pct), fmt.Sprintf("%.3f", r.CumPct)})
	}
	Table(w, []string{"  bucket", "count", "%", "cum %"}, rows)
}

func lmRoutines(w io.Writer, name string, r *dpcisr.LMRoutines) {
	if r == nil {
		return
	}
	if r.TopTotalDriver != "" || r.TopTotalPct != nil {
		pct := "-"
		if r.TopTotalPct != nil {
			pct = lmNum(*r.TopTotalPct) + " %"
		}
		wrapTo(w, fmt.Sprintf("most %s time: %s of the run, %s", name, pct, safeText(orDash(r.TopTotalDriver))), "  ", "    ")
	}
	if r.TotalPct != nil {
		wrapTo(w, fmt.Sprintf("time in all %ss: %s %%", name, lmNum(*r.TotalPct)), "  ", "    ")
	}
}

func lmLatencies(w io.Writer, lm *dpcisr.LatencyMon) {
	pair := func(hi, avg *float64) string {
		f := func(v *float64) string {
			if v == nil {
				return "-"
			}
			return lmNum(*v) + " µs"
		}
		return fmt.Sprintf("highest %s, average %s", f(hi), f(avg))
	}
	if lm.ProcessHighestUs == nil && lm.ProcessAverageUs == nil && lm.DPCLatHighestUs == nil && lm.DPCLatAverageUs == nil {
		return
	}
	fmt.Fprintln(w)
	wrapTo(w, "interrupt to process latency: "+pair(lm.ProcessHighestUs, lm.ProcessAverageUs), "", "  ")
	wrapTo(w, "interrupt to DPC latency: "+pair(lm.DPCLatHighestUs, lm.DPCLatAverageUs), "", "  ")
}

func lmHardFaults(w io.Writer, h *dpcisr.LMHardFaults) {
	if h == nil {
		return
	}
	n := func(v *int64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	var parts []string
	if h.Total != nil || h.Processes != nil {
		parts = append(parts, fmt.Sprintf("%s in %s processes", n(h.Total), n(h.Processes)))
	}
	if h.Process != "" || h.HardestHit != nil {
		parts = append(parts, fmt.Sprintf("most in %s (%s)", safeText(orDash(h.Process)), n(h.HardestHit)))
	}
	if h.HighestResolutionUs != nil {
		parts = append(parts, fmt.Sprintf("longest resolved in %s µs", lmNum(*h.HighestResolutionUs)))
	}
	fmt.Fprintln(w)
	wrapTo(w, "hard page faults: "+strings.Join(parts, "; "), "", "  ")
}

// lmCPUs prints PER CPU DATA and, when it is whole (CPUs 0 to n-1, each
// with its total times, n the logical processors if the report says),
// which CPU carries most of the DPC and the ISR time.
func lmCPUs(w io.Writer, cpus []dpcisr.LMCPU, logical *int64) {
	if len(cpus) == 0 {
		return
	}
	f := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	n := func(v *int64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	fmt.Fprintln(w)
	wrapTo(w, "per CPU (PER CPU DATA; total times in s, highest in µs):", "", "  ")
	rows := [][]string{}
	var dpcT, isrT float64
	dpcTop, isrTop := -1, -1
	var dpcMax, isrMax float64
	for i, c := range cpus {
		rows = append(rows, []string{"  " + fmt.Sprint(c.CPU), n(c.DPCCount), f(c.DPCTotalS), f(c.DPCHighestUs), n(c.ISRCount), f(c.ISRTotalS), f(c.ISRHighestUs), f(c.InterruptCycleS)})
		if c.DPCTotalS != nil {
			dpcT += *c.DPCTotalS
			if dpcTop < 0 || *c.DPCTotalS > dpcMax {
				dpcTop, dpcMax = i, *c.DPCTotalS
			}
		}
		if c.ISRTotalS != nil {
			isrT += *c.ISRTotalS
			if isrTop < 0 || *c.ISRTotalS > isrMax {
				isrTop, isrMax = i, *c.ISRTotalS
			}
		}
	}
	Table(w, []string{"  CPU", "DPCs", "DPC s", "DPC max", "ISRs", "ISR s", "ISR max", "int. cycle s"}, rows)
	var most []string
	if dpcTop >= 0 && dpcT > 0 {
		most = append(most, fmt.Sprintf("most DPC time on CPU %d: %s s of %s s (%.1f%%)", cpus[dpcTop].CPU, lmNum(dpcMax), lmNum(round6(dpcT)), 100*dpcMax/dpcT))
	}
	if isrTop >= 0 && isrT > 0 {
		most = append(most, fmt.Sprintf("most ISR time on CPU %d: %s s of %s s (%.1f%%)", cpus[isrTop].CPU, lmNum(isrMax), lmNum(round6(isrT)), 100*isrMax/isrT))
	}
	whole := logical == nil || *logical == int64(len(cpus))
	for i, c := range cpus {
		whole = whole && c.CPU == i && c.DPCTotalS != nil && c.ISRTotalS != nil
	}
	switch {
	case !whole:
		wrapTo(w, fmt.Sprintf("part of PER CPU DATA only (%d CPUs, some values missing): no CPU is named as carrying most of the time", len(cpus)), "", "  ")
	case len(most) > 0:
		wrapTo(w, strings.Join(most, "; "), "", "  ")
	}
}

// round6 rounds a sum of LatencyMon's seconds (printed to the µs) back to
// the µs, so float sums print as the report's numbers do.
func round6(v float64) float64 {
	s := strconv.FormatFloat(v, 'f', 6, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}
