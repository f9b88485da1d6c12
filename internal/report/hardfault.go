package report

import (
	"fmt"
	"io"
	"math"

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

// faultName is the row's name cut to fit a terminal's table.
func faultName(p dpcisr.ProcessFaults) string {
	n := []rune(p.Name())
	if len(n) > maxFaultNameLen {
		return string(n[:maxFaultNameLen-1]) + "…"
	}
	return string(n)
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
