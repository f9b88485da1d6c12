package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/dscp"
	"github.com/latlab/latlab/internal/units"
)

// DSCP prints the result of `pcap dscp` on file: a line about the
// capture, a table of the flow directions (offending ones marked "!"),
// and the notes.
func DSCP(w io.Writer, file string, r *dscp.Result) {
	st := r.Capture
	fmt.Fprintf(w, "%s: %s, %d frames, %d IP packets, %s\n", file, st.Format, st.Frames, st.IPPackets, CaptureSpan(st))
	if r.Filter != "" {
		more := ""
		if r.Untracked != nil {
			more = ", and more not tracked"
		}
		fmt.Fprintf(w, "filter: %s (%d flow directions match%s)\n", r.Filter, len(r.Stats), more)
	}
	fmt.Fprintln(w)
	hasPID := false
	for _, f := range r.Stats {
		if len(f.PIDs) > 0 {
			hasPID = true
		}
	}
	hdr := []string{"flow", "packets", "bytes", "DSCP", "ECN", "first (s)", "last (s)"}
	if hasPID {
		hdr = append(hdr, "PID")
	}
	var rows [][]string
	for i, f := range r.Stats {
		name := dscp.FlowLabel(f.Key)
		if r.Flows[i].Offending {
			name = "! " + name
		}
		row := []string{name, strconv.FormatUint(f.Packets, 10), strconv.FormatUint(f.Bytes, 10), dscp.DSCPSummary(f), dscp.ECNSummary(f),
			fmt.Sprintf("%.6f", float64(f.FirstNs-st.FirstNs)/1e9), fmt.Sprintf("%.6f", float64(f.LastNs-st.FirstNs)/1e9)}
		if hasPID {
			var ps []string
			for _, p := range f.SortedPIDs() {
				ps = append(ps, fmt.Sprintf("%d x%d", p, f.PIDs[p]))
			}
			if f.OtherPIDs > 0 {
				ps = append(ps, fmt.Sprintf("others x%d", f.OtherPIDs))
			}
			row = append(row, strings.Join(ps, ", "))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no IP flows match")
	} else {
		Table(w, hdr, rows)
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
		fmt.Fprintln(w, "\n! = carries packets not marked as --expect requires")
	}
	if hasPID {
		fmt.Fprintln(w, "PID: the process id in the etl2pcapng packet comment: the thread that logged the packet, often the sender for outbound packets and the System process (4) or another for inbound ones")
		for _, f := range r.Stats {
			if f.OtherPIDs > 0 {
				fmt.Fprintf(w, "others: packets of process ids beyond the %d a flow keeps\n", capture.MaxFlowPIDs)
				break
			}
		}
	}
	for _, n := range st.Notes() {
		writeNote(w, n)
	}
}

// CaptureSpan says how long a capture lasted and when it began, or that
// it holds no frame.
func CaptureSpan(st *capture.Stats) string {
	if st.Frames == 0 {
		return "empty"
	}
	return fmt.Sprintf("%s from %s", units.Duration(time.Duration(st.LastNs-st.FirstNs)), time.Unix(0, st.FirstNs).UTC().Format("2006-01-02 15:04:05.000000 UTC"))
}
