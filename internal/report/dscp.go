package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/dscp"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

// DSCP prints the result of `pcap dscp` on file: a line about the
// capture, the flow directions (offending ones marked "!") each on a line
// of its own above its counts, and the notes, within 80 columns.
func DSCP(w io.Writer, file string, r *dscp.Result) {
	st := r.Capture
	captureLine(w, fmt.Sprintf("%s: %s, %d frames, %d IP packets", safeText(file), st.Format, st.Frames, st.IPPackets), st)
	if r.Filter != "" {
		more := ""
		if r.Untracked != nil {
			more = ", and more not tracked"
		}
		writeHanging(w, fmt.Sprintf("filter: %s (%d flow directions match%s)", safeText(r.Filter), len(r.Stats), more), 2)
	}
	fmt.Fprintln(w)
	hasPID := false
	for _, f := range r.Stats {
		if len(f.PIDs) > 0 {
			hasPID = true
		}
	}
	if len(r.Stats) == 0 {
		fmt.Fprintln(w, "no IP flows match")
	} else {
		dscpFlows(w, r)
	}
	if u := r.UntrackedStats; u != nil {
		l := fmt.Sprintf("not tracked: %d packets (%d bytes) of flow directions first seen after latlab tracked %d; DSCP %s, ECN %s",
			u.Packets, u.Bytes, r.Untracked.MaxFlows, dscp.DSCPSummary(u), dscp.ECNSummary(u))
		if r.UntrackedOffending > 0 {
			l += fmt.Sprintf("; %d not marked as --expect requires", r.UntrackedOffending)
		}
		fmt.Fprintln(w)
		writeHanging(w, l, 2)
	}
	if len(r.Offending) > 0 {
		fmt.Fprintln(w)
		writeHanging(w, "! = carries packets not marked as --expect requires", 2)
	}
	if hasPID {
		writeHanging(w, "PID: the process id in the etl2pcapng packet comment: the thread that logged the packet, often the sender for outbound packets and the System process (4) or another for inbound ones", 2)
		for _, f := range r.Stats {
			if f.OtherPIDs > 0 {
				writeHanging(w, fmt.Sprintf("others: packets of process ids beyond the %d a flow keeps", capture.MaxFlowPIDs), 2)
				break
			}
		}
	}
	for _, n := range st.Notes() {
		writeNote(w, n)
	}
}

// DSCPShortfall writes how an --expect failed (dscp.Result.Shortfall)
// within 80 columns, or w's width when narrower, as the table above it.
func DSCPShortfall(w io.Writer, r *dscp.Result) {
	s := r.Shortfall()
	if s == "" {
		return
	}
	// the marks of a flow, "[CS0 (0) x21, CS1 (8) x9]", wrap between
	// marks, not within one
	parts := strings.Split(s, "[")
	for i := 1; i < len(parts); i++ {
		if marks, rest, ok := strings.Cut(parts[i], "]"); ok {
			parts[i] = gluedList(marks) + "]" + rest
		}
	}
	writeHanging(w, strings.Join(parts, "["), 2)
}

// dscpIndent is how far a flow's counts are indented under the flow.
const dscpIndent = 2

// dscpFlows writes the flow directions, each on a line of its own (its
// 5-tuple alone takes half the width) followed by its counts, the rows of
// a table fitted to what is left of pageCols (wrapped DSCP and ECN lists
// take more lines), then by its process ids when the capture has any.
func dscpFlows(w io.Writer, r *dscp.Result) {
	st, cols := r.Capture, pageCols(w)
	spec := tableSpec{
		header: []string{"packets", "bytes", "DSCP", "ECN", "first (s)", "last (s)"},
		right:  []bool{true, true, false, false, true, true},
	}
	var names []string
	var pids [][]string
	for i, f := range r.Stats {
		name := dscp.FlowLabel(f.Key)
		if r.Flows[i].Offending {
			name = "! " + name
		}
		names = append(names, name)
		spec.rows = append(spec.rows, []string{strconv.FormatUint(f.Packets, 10), strconv.FormatUint(f.Bytes, 10),
			gluedList(dscp.DSCPSummary(f)), gluedList(dscp.ECNSummary(f)),
			fmt.Sprintf("%.6f", float64(f.FirstNs-st.FirstNs)/1e9), fmt.Sprintf("%.6f", float64(f.LastNs-st.FirstNs)/1e9)})
		var ps []string
		for _, p := range f.SortedPIDs() {
			ps = append(ps, fmt.Sprintf("%d x%d", p, f.PIDs[p]))
		}
		if f.OtherPIDs > 0 {
			ps = append(ps, fmt.Sprintf("others x%d", f.OtherPIDs))
		}
		pids = append(pids, ps)
	}
	var b strings.Builder
	spec.write(WithWidth(&b, cols-dscpIndent))
	// The first column is the packet count, right-aligned after one
	// column of padding: a line with a digit at its end starts a row, the
	// lines after it (wrapped lists) continue that row. A line without
	// the padding is no row: the note of the columns a narrow terminal
	// left out, after the last row's process ids.
	first := len(spec.header[0])
	for _, row := range spec.rows {
		first = max(first, len(row[0]))
	}
	pad := strings.Repeat(" ", dscpIndent)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	row, body := -1, false
	endRow := func() {
		if row >= 0 && len(pids[row]) > 0 {
			for _, l := range textwrap.List(pad+" PID ", pids[row], cols) {
				fmt.Fprintln(w, l)
			}
		}
	}
	fmt.Fprintln(w, " flow")
	for _, l := range lines {
		switch {
		case !body && strings.HasPrefix(l, "─"):
			body = true
			fmt.Fprintln(w, strings.Repeat("─", dscpIndent)+l)
			continue
		case body && !strings.HasPrefix(l, " "):
			endRow()
			row = -1
			fmt.Fprintln(w, l)
			continue
		case body && row+1 < len(names) && len(l) > first && l[first] != ' ':
			endRow()
			row++
			for _, n := range textwrap.Hanging(" "+names[row], 3, cols) {
				fmt.Fprintln(w, n)
			}
		}
		fmt.Fprintln(w, pad+l)
	}
	endRow()
}

// gluedList is a list of "a, b, c" with each item kept whole where the
// table wraps it.
func gluedList(s string) string {
	items := strings.Split(s, ", ")
	for i, it := range items {
		items[i] = wholeItem(it)
	}
	return strings.Join(items, ", ")
}

// captureLine writes the line about a capture: head, then the capture's
// span (CaptureSpan), kept whole on a line of its own when the line wraps.
func captureLine(w io.Writer, head string, st *capture.Stats) {
	writeHanging(w, head+", "+wholeItem(CaptureSpan(st)), 2)
}

// CaptureSpan says how long a capture lasted and when it began, or that
// it holds no frame.
func CaptureSpan(st *capture.Stats) string {
	if st.Frames == 0 {
		return "empty"
	}
	return fmt.Sprintf("%s from %s", units.Duration(time.Duration(st.LastNs-st.FirstNs)), time.Unix(0, st.FirstNs).UTC().Format("2006-01-02 15:04:05.000000 UTC"))
}
