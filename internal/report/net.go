package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/units"
)

// NetRSS prints `net rss-experiment`: per phase the packets, round
// trips and each CPU's share of the network work, then the verdict.
func NetRSS(w io.Writer, d *netload.RSSResult) {
	where := d.Interface
	if where == "" {
		where = "?"
	}
	fmt.Fprintf(w, "latlab net rss-experiment: echo server %s via %s\n\n", d.Peer, where)
	if len(d.Phases) == 0 {
		fmt.Fprintln(w, "no phase completed")
		return
	}
	cpus := d.Phases[0].Interval.CPUs
	hdr := []string{"phase", "sent", "lost", "rate/s", "rtt p50", "rtt p99"}
	for _, c := range cpus {
		hdr = append(hdr, fmt.Sprintf("cpu%d", c))
	}
	hdr = append(hdr, "busy CPUs", "queues")
	var rows [][]string
	for _, ph := range d.Phases {
		row := []string{ph.Profile, strconv.FormatInt(ph.Sent, 10), strconv.FormatInt(ph.Lost, 10),
			strconv.FormatFloat(ph.AchievedPPS, 'f', 0, 64), units.Ns(ph.RTT.P50), units.Ns(ph.RTT.P99)}
		total := 0.0
		for _, v := range ph.WorkPerCPU {
			total += v
		}
		for _, v := range ph.WorkPerCPU {
			share := "0%"
			if total > 0 {
				share = strconv.FormatFloat(100*v/total, 'f', 0, 64) + "%"
			}
			row = append(row, share)
		}
		row = append(row, irq.FormatCPUList(ph.BusyCPUs), strconv.Itoa(len(ph.QueuesUsed)))
		rows = append(rows, row)
	}
	Table(w, hdr, rows)
	fmt.Fprintf(w, "cpuN: share of the network work (%s)\n\n", d.Phases[0].WorkRole)
	for _, s := range d.Verdict {
		fmt.Fprintln(w, "- "+s)
	}
}

// NetTCPDiscard prints `net tcp-discard`: the transfer, then the TCP
// state sampled during it.
func NetTCPDiscard(w io.Writer, d *netload.TCPData) {
	fmt.Fprintf(w, "latlab net tcp-discard: %s (%d bytes)\n", units.Bytes(d.Written), d.Written)
	fmt.Fprintf(w, "from %s\n  to %s\n", d.Local, d.Peer)
	fmt.Fprintf(w, "connect %s; written in %s\n", units.Ns(d.ConnectNs), units.Ns(d.WriteNs))
	fmt.Fprintf(w, "delivered (peer closed) after %s: goodput %s\n", units.Ns(d.WallNs), units.Bitrate(d.GoodputBps))
	if d.SinkBytes >= 0 {
		fmt.Fprintf(w, "the sink confirmed %d bytes received (first to last byte %s)\n", d.SinkBytes, units.Ns(d.SinkTransferNs))
	} else {
		fmt.Fprintln(w, "the peer is a plain discard server: it confirms nothing (a latlab sink does)")
	}
	if d.SampleEveryNs == 0 {
		return
	}
	if d.SampleError != "" {
		fmt.Fprintf(w, "TCP state sampling failed: %s\n", d.SampleError)
	}
	if len(d.Samples) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTCP state, %s every %s: %d samples\n", d.SampleMethod, units.Ns(d.SampleEveryNs), len(d.Samples))
	var rows [][]string
	var absent []string
	prefixes := map[byte]bool{} // the SI prefixes of the values written shortened
	for _, f := range netload.Fields() {
		st, ok := d.FieldStats[f.String()]
		if !ok {
			absent = append(absent, f.String())
			continue
		}
		row := []string{f.String()}
		for _, v := range []int64{st.First, st.Min, st.P50, st.Max, st.Last} {
			c := units.Compact(v)
			if c != strconv.FormatInt(v, 10) {
				prefixes[c[len(c)-1]] = true
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	// Delivery rates and byte counts reach 11 digits: written whole, five
	// columns of them do not fit 80 columns.
	Table(w, []string{"field", "first", "min", "p50", "max", "last"}, rows)
	if len(prefixes) > 0 {
		var used []string
		for i, p := range units.SIPrefixes {
			if prefixes[byte(p)] {
				used = append(used, fmt.Sprintf("%c = 10^%d", p, 3*(i+1)))
			}
		}
		fmt.Fprintf(w, "shortened: %s (--csv and --json hold every value whole)\n", strings.Join(used, ", "))
	}
	fmt.Fprintf(w, "\nsamples where a retransmission counter grew: %d\n", d.RetransSamples)
	if len(absent) > 0 {
		fmt.Fprintf(w, "not reported by this kernel (absent, not zero): %s\n", strings.Join(absent, ", "))
	}
}

// TCPEvents prints the --etw part of tcp-discard: the TCP/IP
// provider's events of the connection (nothing without --etw).
func TCPEvents(w io.Writer, t *netload.TCPEvents) {
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
		writeHanging(w, "  verdict: "+d.Verdict, 4)
	}
	for _, n := range t.Notes {
		writeHanging(w, "  note: "+strings.TrimSpace(n), 4)
	}
}

// NetUDP prints `net udp`: a run from the document's payload.
func NetUDP(w io.Writer, d *netload.UDPData) {
	shape := fmt.Sprintf("%.0f packets/s of %d B", d.RatePPS, d.Size)
	if d.Profile != "" {
		shape = d.Profile + " profile: " + d.ProfileAbout
	}
	fmt.Fprintf(w, "latlab net udp: %s -> %s, %s\n", d.Local, d.Peer, shape)
	fmt.Fprintf(w, "sent %d of %d planned (%.1f/s achieved, %.1f/s intended), echoed %d, lost %d (%.2f%%), duplicates %d, reordered %d",
		d.Sent, d.Planned, d.AchievedPPS, d.RatePPS, d.Received, d.Lost, 100*d.LossRatio, d.Dups, d.Reorder)
	if d.SendErrors > 0 {
		fmt.Fprintf(w, ", send errors %d", d.SendErrors)
	}
	if d.Foreign > 0 {
		fmt.Fprintf(w, ", %d foreign datagrams ignored", d.Foreign)
	}
	fmt.Fprintln(w)
	if d.Summary == nil {
		fmt.Fprintln(w, "no echo came back")
		return
	}
	fmt.Fprintf(w, "jitter (RFC 3550): %s\n\n", units.Ns(int64(d.JitterNs)))
	SummaryTable(w,
		Column{Title: "round trip", Summary: *d.Summary, Unit: Us},
		Column{Title: "from schedule", Summary: *d.CorrectedSummary, Unit: Us},
		Column{Title: "send lag", Summary: d.SendLag, Unit: Us},
	)
	fmt.Fprintf(w, "\nround trip = echo arrival - actual send; from schedule = echo arrival - intended send; send lag = actual - intended send\n")
	if rw := d.ReceiverWake; rw != nil {
		fmt.Fprintf(w, "echo arrival: the kernel's receive stamp; the receiving goroutine read the echoes %s later at p50, %s at p99, %s at most (not in the round trip)",
			units.Ns(rw.P50), units.Ns(rw.P99), units.Ns(rw.Max))
		if d.ReceiveStampsMissing > 0 {
			fmt.Fprintf(w, "; %d echoes without a usable stamp timed at the read", d.ReceiveStampsMissing)
		}
		fmt.Fprintln(w)
	} else if d.ReceiveTimes != "" {
		fmt.Fprintf(w, "echo arrival: %s", d.ReceiveTimes)
		if d.ReceiveStampsUnavailable != "" {
			fmt.Fprintf(w, "; no receive stamps: %s", d.ReceiveStampsUnavailable)
		}
		fmt.Fprintln(w)
	}
	verdict := d.ScheduleVerdict
	if verdict == "" { // a document written before it was kept
		verdict = netload.ScheduleVerdict(d.SendLag, d.BurstEveryNs)
	}
	fmt.Fprintf(w, "send schedule: p99 error %s, max %s: %s\n", units.Ns(d.SendLag.P99), units.Ns(d.SendLag.Max), verdict)
	fmt.Fprintf(w, "pacing thread: %s\n", threadDesc(d.Thread))
	if d.DSCP != nil {
		state := "not applied"
		if d.DSCP.Applied {
			state = "applied"
		}
		fmt.Fprintf(w, "dscp %d %s: %s\n", d.DSCP.Requested, state, d.DSCP.Note)
	}
	if d.Interrupted {
		fmt.Fprintln(w, "interrupted: the counts cover the packets sent until then")
	}
}

// threadDesc describes what a pacing thread got.
func threadDesc(t probe.ThreadSetup) string {
	s := "priority " + t.Priority
	if t.RTPrio > 0 {
		s += fmt.Sprintf(" (rtprio %d)", t.RTPrio)
	}
	if t.CPU >= 0 {
		s += fmt.Sprintf(", pinned to CPU %d", t.CPU)
	} else {
		s += ", not pinned"
	}
	if t.SliceNs > 0 {
		s += ", time slice " + units.Duration(time.Duration(t.SliceNs))
	}
	if t.SliceNote != "" {
		s += " (" + t.SliceNote + ")"
	}
	return s
}

// NetServeConn is the line `net serve` prints as a connection ends: the
// service, the peer, the bytes, the transfer's time and rate, the error.
func NetServeConn(w io.Writer, c netload.ConnStats) {
	line := fmt.Sprintf("%s %s: %s", c.Service, c.Remote, units.Bytes(c.Bytes))
	if c.TransferNs > 0 {
		line += fmt.Sprintf(" in %s (%s)", units.Duration(time.Duration(c.TransferNs)), units.Bitrate(float64(c.Bytes)*8/(float64(c.TransferNs)/1e9)))
	}
	if c.Error != "" {
		line += "; " + c.Error
	}
	fmt.Fprintln(w, line)
}

// NetServeReady is the line `net serve` prints once it listens: each
// service's address ("": not served).
func NetServeReady(w io.Writer, echo, discard, sink string) {
	var parts []string
	for _, p := range [][2]string{{"UDP echo", echo}, {"TCP discard", discard}, {"TCP sink", sink}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	fmt.Fprintf(w, "latlab net serve: %s\n", strings.Join(parts, ", "))
}

// NetServeTotals prints what `net serve` served, and what it would not.
func NetServeTotals(w io.Writer, st *netload.ServeStats) {
	fmt.Fprintf(w, "totals: UDP echo %d datagrams (%s), TCP discard %d connections (%s), TCP sink %d connections (%s)\n",
		st.EchoPackets, units.Bytes(st.EchoBytes), st.DiscardConns, units.Bytes(st.DiscardBytes),
		st.SinkConns, units.Bytes(st.SinkBytes))
	if st.EchoLoops+st.EchoOverRate > 0 {
		fmt.Fprintf(w, "not echoed: %d datagrams that would loop, %d over --echo-rate\n", st.EchoLoops, st.EchoOverRate)
	}
	if st.EchoFlowsMuted > 0 {
		fmt.Fprintf(w, "note: %d times a peer (address and port) answered every echo, over %d a second, and was muted as a loop\n", st.EchoFlowsMuted, netload.MaxForeignReplies)
	}
	if st.TCPRefused+st.TCPEvicted+st.TCPIdle > 0 {
		fmt.Fprintf(w, "TCP: %d connections refused, %d closed for a less busy peer, %d closed idle\n", st.TCPRefused, st.TCPEvicted, st.TCPIdle)
	}
}
