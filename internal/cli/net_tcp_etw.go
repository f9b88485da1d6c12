package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
)

// printTCPEvents prints the --etw part of tcp-discard: the TCP/IP
// provider's events of the connection (nothing without --etw).
func printTCPEvents(w io.Writer, t *netload.TCPEvents) {
	if t == nil {
		return
	}
	fmt.Fprintln(w, "\nTCP/IP events (ETW, Microsoft-Windows-TCPIP):")
	if t.Conn == nil || !t.Conn.Found {
		fmt.Fprintln(w, "  the connection was not found among the events")
	} else if t.Conn.Total == 0 {
		fmt.Fprintln(w, "  none for this connection: no retransmission, RACK, tail loss probe, loss recovery or window restart")
	} else {
		var names []string
		for n := range t.Conn.Counts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "  %-32s %d\n", n, t.Conn.Counts[n])
		}
		if wnd, ok := t.Conn.ReorderingWindow(); ok {
			fmt.Fprintf(w, "  last RACK reordering window (RackReoWind): %d\n", wnd)
		}
	}
	if d := t.DSack; d != nil {
		fmt.Fprintf(w, "  D-SACKs counted: %d in %d TcpReceiveSack events\n", d.DSacks, d.ReceiveSacks)
		fmt.Fprintf(w, "  reorder window: %d updates, %d changes, adapted %v\n", len(d.Updates), d.Changes, d.Adapted)
		for _, l := range report.WrapHanging("  verdict: "+d.Verdict, 4, 80) {
			fmt.Fprintln(w, l)
		}
	}
	for _, n := range t.Notes {
		for _, l := range report.WrapHanging("  note: "+strings.TrimSpace(n), 4, 80) {
			fmt.Fprintln(w, l)
		}
	}
}
