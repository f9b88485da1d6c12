package report

import (
	"fmt"
	"io"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/units"
)

// maxModuleRows bounds the per-section tables; the document has them all.
const maxModuleRows = 10

// DPCWatch prints `dpc watch`: the counts, each section's handlers by
// longest execution, the verdict and notes, and the command that shows
// the histograms of the document written to file (none: no document).
func DPCWatch(w io.Writer, r *dpcwatch.Result, file string) {
	s := r.Summary
	secs := s.Sections()
	var n [2]int64
	for i, sec := range secs {
		for _, m := range sec.Stats {
			n[i] += m.Count
		}
	}
	if s.SoftIRQ != nil || s.HardIRQ != nil {
		fmt.Fprintf(w, "latlab dpc watch: %s, %d softirqs and %d hard interrupts\n", units.Seconds(s.Seconds, 1), n[0], n[1])
		fmt.Fprintf(w, "tracefs instance %q; %d handlers seen\n", r.Session, s.Modules)
	} else {
		fmt.Fprintf(w, "latlab dpc watch: %s, %d DPCs and %d ISRs\n", units.Seconds(s.Seconds, 1), n[0], n[1])
		fmt.Fprintf(w, "session %q; %d modules known\n", r.Session, s.Modules)
	}
	for _, secn := range secs {
		sec := struct {
			name string
			ms   []dpcwatch.ModuleStat
		}{secn.Name, secn.Stats}
		if len(sec.ms) == 0 {
			fmt.Fprintf(w, "\nno %ss\n", sec.name)
			continue
		}
		fmt.Fprintf(w, "\n%s by longest execution:\n", sec.name)
		rows := [][]string{}
		for i, m := range sec.ms {
			if i == maxModuleRows {
				rows = append(rows, []string{fmt.Sprintf("(%d more in the document)", len(sec.ms)-i), "", "", "", "", ""})
				break
			}
			rows = append(rows, []string{safeText(m.Module), fmt.Sprint(m.Count), units.Us(m.TotalUs), units.Us(m.MaxUs),
				units.Seconds(m.MaxAtS, 3), fmt.Sprint(m.MaxCPU)})
		}
		Table(w, []string{HandlerColumn(sec.name), "count", "total", "longest", "at", "CPU"}, rows)
	}
	fmt.Fprintln(w)
	// Module names come from the drivers loaded: escaped (safeText), as
	// dpcisr escapes a trace's, before they are laid out.
	writeHanging(w, "verdict: "+safeText(s.Verdict.Text), 2)
	if r.Report != nil && r.Report.HardFaults != nil {
		hardFaultText(w, r.Report.HardFaults)
		fmt.Fprintln(w)
	}
	for _, n := range s.Notes {
		writeHanging(w, "note: "+safeText(n), 2)
	}
	if file != "" {
		fmt.Fprintf(w, "histograms in xperf's buckets: latlab dpcisr %s\n", file)
	}
}

// DPCWatchLine is the live line of one interval, at most width terminal
// columns: module names, escaped, are shortened first, then the ISR part
// goes.
func DPCWatchLine(iv dpcwatch.Interval, width int) string {
	part := func(name string, s dpcwatch.SectionInterval, n int, most bool) string {
		if s.Count == 0 || s.ByMax == nil {
			return fmt.Sprintf("%s 0", name)
		}
		p := fmt.Sprintf("%s %d, max %s %s", name, s.Count, units.Us(s.ByMax.MaxUs), Clip(safeText(s.ByMax.Module), n))
		if most && s.ByTime != nil && s.ByTime.Module != s.ByMax.Module {
			p += fmt.Sprintf(", most time %s", Clip(safeText(s.ByTime.Module), n))
		}
		return p
	}
	fits := func(l string) bool { return text.StringWidthWithoutEscSequences(l) <= width }
	// Shorter names first, then without the module of most time, then
	// without the ISRs.
	names := iv.Names
	if names[0] == "" {
		names = [2]string{"DPC", "ISR"}
	}
	for _, v := range []struct {
		n    int
		most bool
	}{{40, true}, {16, true}, {16, false}, {12, false}} {
		l := fmt.Sprintf("[%5.0fs] %s | %s", iv.ToS, part(names[0], iv.DPC, v.n, v.most), part(names[1], iv.ISR, v.n, v.most))
		if fits(l) {
			return l
		}
	}
	l := fmt.Sprintf("[%5.0fs] %s", iv.ToS, part(names[0], iv.DPC, 12, false))
	if !fits(l) {
		l = text.Trim(l, width)
	}
	return l
}
