package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/units"
)

// Bounds of the hard fault table on a page or terminal (the document has
// every row): rows, and the characters of a process's name.
const (
	maxFaultRows    = 20
	maxFaultNameLen = 32
)

// hardFaultVerdict is the section's first line: how many faults, how much
// they read, how long their threads waited and who waited longest.
func hardFaultVerdict(h *dpcisr.HardFaults) string {
	if h.Missing != "" {
		return h.Missing
	}
	if h.Events == 0 {
		return "no hard page faults decoded"
	}
	longest := ""
	for _, p := range h.Processes {
		if p.LongestUs == h.LongestUs {
			longest = " in " + faultName(p)
			break
		}
	}
	procs := "processes"
	if len(h.Processes) == 1 {
		procs = "process"
	}
	if h.CountsOnly {
		return fmt.Sprintf("%d major page faults in %d %s during the watch (counts only)", h.Events, len(h.Processes), procs)
	}
	return fmt.Sprintf("%d hard page faults in %d %s read %s; their threads waited %s in all, the longest %s%s",
		h.Events, len(h.Processes), procs, units.Bytes(clampBytes(h.Bytes)), units.Us(h.TotalUs), units.Us(h.LongestUs), longest)
}

// hardFaultRows is the table: per process the faults, the bytes read, the
// time waited in all and the longest fault, the longest total first.
func hardFaultRows(h *dpcisr.HardFaults) (header []string, rows [][]string) {
	header = []string{"process", "faults", "read", "waited", "longest"}
	if h.CountsOnly {
		header = header[:2]
	}
	for i, p := range h.Processes {
		if i == maxFaultRows {
			more := []string{fmt.Sprintf("(%d more in the JSON document)", len(h.Processes)-i), "", "", "", ""}
			rows = append(rows, more[:len(header)])
			break
		}
		row := []string{faultName(p), fmt.Sprint(p.Faults), units.Bytes(clampBytes(p.Bytes)), units.Us(p.TotalUs), units.Us(p.LongestUs)}
		rows = append(rows, row[:len(header)])
	}
	return header, rows
}

// faultName is the row's name, its image escaped (safeText) and cut to
// fit a terminal's table, in the table and the verdict of the terminal and
// the page alike.
func faultName(p dpcisr.ProcessFaults) string {
	return Clip(safeText(p.Name()), maxFaultNameLen)
}

func clampBytes(b uint64) int64 {
	if b > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// hardFaultText prints the section of `latlab dpcisr TRACE.etl`.
func hardFaultText(w io.Writer, h *dpcisr.HardFaults) {
	fmt.Fprintf(w, "\n== hard page faults\n")
	wrapTo(w, hardFaultVerdict(h), "", "")
	if len(h.Processes) == 0 {
		return
	}
	if !h.CountsOnly {
		wrapTo(w, "waited: from each fault (InitialTime) to its read's end (the event's time)", "", "")
	}
	header, rows := hardFaultRows(h)
	Table(w, header, rows)
}

// hardFaultTable is the section's table on an HTML page.
func hardFaultTable(h *dpcisr.HardFaults) htmlTable {
	header, rows := hardFaultRows(h)
	caption := "hard page faults per process, the longest total wait first: waited is from the fault (the event's InitialTime) to the completion of the read (its time stamp)"
	if h.CountsOnly {
		caption = "major page faults per process during the watch, most first (majflt of /proc/PID/stat at its start and end)"
	}
	return htmlTable{
		Caption: caption,
		Header:  header,
		Rows:    rows,
	}
}

// hardFaultCompareText prints the hard fault section of `latlab dpcisr
// compare`: what each report counted and summed first, then per image a
// row per report. Nothing is tested: a trace's totals depend on its
// length and on what ran.
func hardFaultCompareText(w io.Writer, hc *dpcisr.HardFaultComparison) {
	if len(hc.Missing) > 0 {
		var have []string
		missing := map[string]bool{}
		for _, l := range hc.Missing {
			missing[l] = true
		}
		for _, l := range hc.Labels {
			if !missing[l] {
				have = append(have, l)
			}
		}
		fmt.Fprintln(w)
		wrapTo(w, safeText(fmt.Sprintf("hard page faults: not compared, only in %s (not in %s)", strings.Join(have, ", "), strings.Join(hc.Missing, ", "))), "", "  ")
		return
	}
	fmt.Fprintf(w, "\n== hard page faults\n")
	var parts []string
	countsOnly := true
	for i, t := range hc.Totals {
		countsOnly = countsOnly && t.CountsOnly
		if t.CountsOnly {
			parts = append(parts, fmt.Sprintf("%s %d major faults", hc.Labels[i], t.Faults))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d faults, %s read, %s waited", hc.Labels[i], t.Faults, units.Bytes(clampBytes(t.Bytes)), units.Us(t.TotalUs)))
	}
	wrapTo(w, "verdict: "+safeText(strings.Join(parts, "; "))+": counts and sums per trace, no test of a difference", "", "  ")
	if len(hc.Images) == 0 {
		return
	}
	wrapTo(w, "processes are matched by image name: a pid is another process in another trace", "", "  ")
	header := []string{"image / report", "pid", "faults", "read", "waited", "longest"}
	if countsOnly {
		header = header[:3]
	}
	var rows [][]string
	for i, im := range hc.Images {
		if i == maxFaultRows {
			more := []string{fmt.Sprintf("(%d more in the JSON document)", len(hc.Images)-i), "", "", "", "", ""}
			rows = append(rows, more[:len(header)])
			break
		}
		name := Clip(safeText(im.Image), maxFaultNameLen)
		if im.Image == "" {
			name = "(image unknown)"
		}
		rows = append(rows, append([]string{name}, make([]string, len(header)-1)...))
		for j, r := range im.Runs {
			row := []string{"  " + safeText(hc.Labels[j]), faultPIDs(r), fmt.Sprint(r.Faults), "-", "-", "-"}
			if !r.CountsOnly && r.Faults > 0 { // no fault: nothing read, no wait
				row[3], row[4], row[5] = units.Bytes(clampBytes(r.Bytes)), units.Us(r.TotalUs), units.Us(r.LongestUs)
			}
			rows = append(rows, row[:len(header)])
		}
	}
	Table(w, header, rows)
}

// faultPIDs is a row's processes: "2000", "3 pids", "5000 +1 tid" (a
// thread whose process the trace does not name), "-".
func faultPIDs(r dpcisr.ImageRun) string {
	var s string
	switch len(r.PIDs) {
	case 0:
	case 1:
		s = fmt.Sprint(r.PIDs[0])
	default:
		s = fmt.Sprintf("%d pids", len(r.PIDs))
	}
	if r.Threads > 0 {
		s = strings.TrimSpace(fmt.Sprintf("%s +%d tid", s, r.Threads))
	}
	if s == "" {
		return "-"
	}
	return s
}
