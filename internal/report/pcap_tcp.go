package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/units"
)

// PcapTCP prints `pcap tcp` on file: the totals, the top connections
// (top: how many the command kept; 0, all) each as a table of both
// directions, the legend, then the notes, within 80 columns: a value too
// wide for its column takes two lines.
func PcapTCP(w io.Writer, file string, top int, res *tcpflow.Result, notes []string) {
	st, t := res.Capture, &res.Totals
	captureLine(w, fmt.Sprintf("%s: %s, %d frames, %d TCP segments in %d connection(s)", safeText(file), st.Format, st.Frames, t.Segments, t.Connections), st)
	// each count stays with its name
	writeHanging(w, gluedList(fmt.Sprintf("retransmissions %d (fast %d), segments resent %d, spurious %d, out-of-order %d, reordered %d, duplicate ACKs %d, SACK blocks %d, D-SACK blocks %d, zero windows %d",
		t.Retransmissions, t.FastRetransmissions, t.Resent, t.Spurious, t.OutOfOrder, t.Reordered, t.DuplicateAcks, t.SACKBlocks, t.DSACKBlocks, t.ZeroWindows)), 2)
	if t.LostSegments > 0 || t.AckedUnseen > 0 {
		// A capture that dropped packets (tcpdump's "dropped by kernel")
		// hides retransmissions too: what is counted is what was seen.
		writeHanging(w, fmt.Sprintf("the capture missed segments: at least %d not seen (%d gap%s in the sequence numbers, Wireshark's \"previous segment not captured\"; %d ACK%s of data never seen): retransmission and loss figures are lower bounds",
			t.LostSegments, t.LostSegments, plural(int(t.LostSegments)), t.AckedUnseen, plural(int(t.AckedUnseen))), 2)
	}
	if top > 0 && t.Connections > top {
		writeHanging(w, fmt.Sprintf("showing the %d connections with most payload (of %d; --top 0 shows all)", top, t.Connections), 2)
	}
	for _, c := range res.Top {
		l := fmt.Sprintf("tcp.stream %d: %s <-> %s, %s", c.Stream, c.A, c.B, units.Duration(time.Duration(c.DurationNs)))
		if c.InitialRTTNs > 0 {
			l += ", " + wholeItem("handshake RTT "+units.Duration(time.Duration(c.InitialRTTNs)))
		}
		fmt.Fprintln(w)
		writeHanging(w, l, 2)
		tableSpec{header: []string{"", "A -> B", "B -> A"}, rows: connRows(&c),
			right: []bool{false, true, true}, fold: []bool{false, true, true}}.write(WithWidth(w, pageCols(w)))
	}
	fmt.Fprintln(w)
	writeHanging(w, "A is the endpoint that sent the first packet seen. Counts of flags follow Wireshark's tcp.analysis; \"reordered\" is latlab's: new data arriving below the highest sequence number seen. SACK/D-SACK columns are blocks that side sent about the other's data.", 2)
	writeHanging(w, "RTT is measured at the capture point (Karn's rule). RACK: retransmissions shown unnecessary, and how many a RACK sender would have waited out with a D-SACK-adapted reordering window / with a window that ignores D-SACK.", 2)
	for _, n := range notes {
		writeNote(w, n)
	}
}

// connRows are the rows of a connection's table, A -> B beside B -> A.
func connRows(c *tcpflow.Connection) [][]string {
	d := [2]*tcpflow.DirStats{&c.AToB, &c.BToA}
	row := func(name string, f func(s *tcpflow.DirStats) string) []string {
		return []string{name, f(d[0]), f(d[1])}
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	ns := func(v int64) string {
		if v <= 0 {
			return "-"
		}
		return units.Duration(time.Duration(v))
	}
	return [][]string{
		row("handshake", func(s *tcpflow.DirStats) string { return handshakeLabel(s.Handshake) }),
		row("packets", func(s *tcpflow.DirStats) string { return u(s.Packets) }),
		row("payload bytes", func(s *tcpflow.DirStats) string { return u(s.PayloadBytes) }),
		row("duration (data)", func(s *tcpflow.DirStats) string { return ns(s.LastDataNs - s.FirstDataNs) }),
		row("goodput", func(s *tcpflow.DirStats) string { return units.BitrateShort(s.GoodputBps) }),
		row("retransmissions (Wireshark)", func(s *tcpflow.DirStats) string { return u(s.AnyRetransmissions) }),
		row("  fast", func(s *tcpflow.DirStats) string { return u(s.FastRetransmissions) }),
		row("  spurious (acked / D-SACKed)", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%d (%d / %d)", s.Spurious(), s.SpuriousRetransmissions, s.DSACKSpurious)
		}),
		row("segments resent (seen before)", func(s *tcpflow.DirStats) string { return u(s.ResentSegments) }),
		row("out-of-order (Wireshark)", func(s *tcpflow.DirStats) string { return u(s.OutOfOrder) }),
		row("reordered: segs, max extent", func(s *tcpflow.DirStats) string {
			if s.Reordered == 0 {
				return "0"
			}
			return fmt.Sprintf("%d, %s / %s", s.Reordered, wholeItem(fmt.Sprintf("%d segs", s.ReorderMaxSegs)), ns(s.ReorderMaxNs))
		}),
		row("duplicate ACKs", func(s *tcpflow.DirStats) string { return u(s.DuplicateAcks) }),
		row("SACK blocks / D-SACK blocks", func(s *tcpflow.DirStats) string { return fmt.Sprintf("%d / %d", s.SACKBlocks, s.DSACKBlocks) }),
		row("zero windows", func(s *tcpflow.DirStats) string { return u(s.ZeroWindows) }),
		row("RTT min / smoothed (n)", func(s *tcpflow.DirStats) string {
			if s.RTT.Samples == 0 {
				return "-"
			}
			return fmt.Sprintf("%s / %s", ns(s.RTT.MinNs), wholeItem(fmt.Sprintf("%s (%d)", ns(int64(s.RTT.SRTTNs)), s.RTT.Samples)))
		}),
		row("RACK reo_wnd max (mult)", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%s (x%d)", ns(s.Rack.MaxReoWndNs), max(1, s.Rack.MaxReoWndMult))
		}),
		row("RACK would wait out", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%d / %d of %d", s.Rack.AvoidedHonouring, s.Rack.AvoidedIgnoring, s.Rack.Spurious)
		}),
	}
}

// handshakeLabel is the options of a SYN: MSS, window scale, SACK,
// time stamps and ECN.
func handshakeLabel(h *tcpflow.HandshakeOptions) string {
	if h == nil {
		return "(not seen)"
	}
	var p []string
	if h.MSS > 0 {
		p = append(p, wholeItem(fmt.Sprintf("MSS %d", h.MSS)))
	}
	if h.WindowScale >= 0 {
		p = append(p, wholeItem(fmt.Sprintf("WS %d", h.WindowScale)))
	}
	if h.SACKPermitted {
		p = append(p, "SACK")
	}
	if h.Timestamps {
		p = append(p, "TS")
	}
	if h.ECN {
		p = append(p, "ECN")
	}
	if len(p) == 0 {
		return "no options"
	}
	return strings.Join(p, " ")
}

// DSackWire prints what --etw-result's comparison with the capture
// found: c is the connection of the ETW run in the capture (nil: none),
// err what kept the comparison from being made.
func DSackWire(w io.Writer, r *netload.DSackRun, c *tcpflow.Connection, err error) {
	fmt.Fprintln(w)
	writeHanging(w, fmt.Sprintf("D-SACKs of the --etw-result connection (%s -> %s):", r.Local, r.Peer), 2)
	if c == nil {
		fmt.Fprintln(w, "  not in this capture (no connection with both its ports)")
		return
	}
	if err != nil {
		writeHanging(w, fmt.Sprintf("  %v", err), 4)
		return
	}
	writeHanging(w, fmt.Sprintf("  tcp.stream %d: TcpReceiveSack counted %d, the capture shows %d from the peer", c.Stream, r.DSack.DSacks, *r.DSack.WireDSacks), 4)
	writeHanging(w, "  "+r.DSack.Wire, 4)
}
