package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/tcpflow"
)

func init() { pcapSubcommands = append(pcapSubcommands, newPcapTCPCmd) }

// PcapTCPOptions are the flags of `latlab pcap tcp`.
type PcapTCPOptions struct {
	IO          *IO
	File        string
	Stream      int
	Top         int
	Events      string
	Graph       string
	WindowGraph string
	pcapInput

	settings map[string]string
}

func newPcapTCPCmd(io *IO) *cobra.Command {
	o := &PcapTCPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "tcp FILE",
		Short: "TCP loss recovery per connection: retransmissions, reordering, D-SACK, RACK",
		Long: `Follows every TCP connection in the capture and reports, per direction:
packets, payload bytes, duration, goodput, handshake options, retransmissions
(fast, spurious), out-of-order segments, duplicate ACKs, SACK and D-SACK
blocks, zero windows, RTT samples (Karn's rule) and how much reordering was
seen, plus a replay of the RACK-TLP reordering window (RFC 8985 6.2) that says
how many of the observed retransmissions a RACK sender that honours D-SACK
would have waited out, compared with one that ignores D-SACK.

Per-frame flags have the meanings of Wireshark's tcp.analysis fields (the
same algorithm), so --events can be checked against Wireshark frame by frame.
Sequence numbers are relative, as Wireshark shows them.`,
		Example: `  latlab pcap tcp capture.pcapng
  latlab pcap tcp capture.pcap --stream 0 --events events.csv --graph tseq.svg --window-graph rack.svg
  latlab pcap tcp capture.pcap --filter "port 443" --json > tcp.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			return runPcapTCP(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&o.Stream, "stream", -1, "only this connection (Wireshark's tcp.stream number); graphs default to the one with most data")
	fs.IntVar(&o.Top, "top", 10, "connections shown in detail in the table (most payload bytes first); 0 = all")
	fs.StringVar(&o.Events, "events", "", "write per-frame events to this CSV file (time,flow,frame,event,seq,ack,detail)")
	fs.StringVar(&o.Graph, "graph", "", "tcptrace-style time-sequence graph of one connection's main data direction (.svg or .png)")
	fs.StringVar(&o.WindowGraph, "window-graph", "", "bytes in flight and the RACK reordering window over time (.svg or .png)")
	o.pcapInput.bind(cmd, "only connections with an endpoint matching: host|src|dst ADDR[/BITS], port|sport|dport N")
	return cmd
}

// tcpConnJSON is one connection in the result document.
type tcpConnJSON struct {
	Stream       int              `json:"stream"`
	A            string           `json:"a"`
	B            string           `json:"b"`
	FirstNs      int64            `json:"first_ns"`
	LastNs       int64            `json:"last_ns"`
	DurationNs   int64            `json:"duration_ns"`
	InitialRTTNs int64            `json:"initial_rtt_ns,omitempty"`
	AToB         tcpflow.DirStats `json:"a_to_b"`
	BToA         tcpflow.DirStats `json:"b_to_a"`
	Spurious     [2]uint64        `json:"spurious_retransmissions"`
}

type tcpData struct {
	Capture     *capture.Stats `json:"capture"`
	Connections []tcpConnJSON  `json:"connections"`
	// AfterClose counts the segments that came after their connection
	// had been closed and reported (tcpflow.Frame.AfterClose).
	AfterClose *tcpflow.DirStats `json:"after_close,omitempty"`
	Totals     tcpTotals         `json:"totals"`
	Filter     string            `json:"filter,omitempty"`
}

type tcpTotals struct {
	Connections         int    `json:"connections"`
	Segments            uint64 `json:"segments"`
	PayloadBytes        uint64 `json:"payload_bytes"`
	Retransmissions     uint64 `json:"retransmissions"` // frames with any Wireshark retransmission flag
	Resent              uint64 `json:"resent_segments"` // latlab: segments carrying bytes seen before
	FastRetransmissions uint64 `json:"fast_retransmissions"`
	Spurious            uint64 `json:"spurious_retransmissions"`
	OutOfOrder          uint64 `json:"out_of_order"`
	Reordered           uint64 `json:"reordered"`
	DuplicateAcks       uint64 `json:"duplicate_acks"`
	SACKBlocks          uint64 `json:"sack_blocks"`
	DSACKBlocks         uint64 `json:"dsack_blocks"`
	ZeroWindows         uint64 `json:"zero_windows"`
	RackAvoidHonour     uint64 `json:"rack_avoided_dsack_honouring"`
	RackAvoidIgnore     uint64 `json:"rack_avoided_dsack_ignoring"`
	NonTCP              int    `json:"non_tcp_packets"`
	TCPFragments        int    `json:"tcp_fragments_skipped,omitempty"`
	AfterClose          uint64 `json:"segments_after_close,omitempty"`
	MalformedOptions    uint64 `json:"malformed_options,omitempty"`
}

func (t *tcpTotals) add(d *tcpflow.DirStats) {
	t.Segments += d.Packets
	t.PayloadBytes += d.PayloadBytes
	t.Retransmissions += d.AnyRetransmissions
	t.Resent += d.ResentSegments
	t.FastRetransmissions += d.FastRetransmissions
	t.Spurious += d.Spurious()
	t.OutOfOrder += d.OutOfOrder
	t.Reordered += d.Reordered
	t.DuplicateAcks += d.DuplicateAcks
	t.SACKBlocks += d.SACKBlocks
	t.DSACKBlocks += d.DSACKBlocks
	t.ZeroWindows += d.ZeroWindows
	t.RackAvoidHonour += d.Rack.AvoidedHonouring
	t.RackAvoidIgnore += d.Rack.AvoidedIgnoring
	t.MalformedOptions += d.MalformedOptions
}

func endpoint(e tcpflow.Endpoint) string {
	s := e.Addr.String()
	if e.Addr.Is6() && !e.Addr.Is4In6() {
		s = "[" + s + "]"
	}
	return s + ":" + strconv.Itoa(int(e.Port))
}

func connMatches(f *capture.Filter, c *tcpflow.Conn) bool {
	if f == nil {
		return true
	}
	k := capture.FlowKey{Src: c.A.Addr, Dst: c.B.Addr, SrcPort: c.A.Port, DstPort: c.B.Port, Proto: 6}
	r := capture.FlowKey{Src: c.B.Addr, Dst: c.A.Addr, SrcPort: c.B.Port, DstPort: c.A.Port, Proto: 6}
	return f.Match(k) || f.Match(r)
}

func runPcapTCP(ctx context.Context, o *PcapTCPOptions) error {
	opt, err := o.options(ctx)
	if err != nil {
		return err
	}
	for _, g := range []struct{ flag, path string }{{"--graph", o.Graph}, {"--window-graph", o.WindowGraph}} {
		if _, err := report.PlotFormat(g.path); g.path != "" && err != nil {
			return Usagef("invalid %s: %v", g.flag, err) // before the scan, not after it
		}
	}
	if o.Top < 0 {
		return Usagef("invalid --top %d: want 0 (all) or a positive count", o.Top)
	}
	var ev *eventWriter
	if o.Events != "" {
		f, err := os.Create(o.Events)
		if err != nil {
			return Usagef("cannot write --events file: %v", err)
		}
		defer f.Close()
		ev = newEventWriter(f)
	}

	wantGraph := o.Graph != "" || o.WindowGraph != ""
	var conns []tcpConnJSON
	var tot tcpTotals
	var after tcpflow.DirStats
	var t0 int64
	nonTCP, frags := 0, 0
	a := tcpflow.NewAnalyzer()
	if wantGraph && o.Stream >= 0 {
		a.KeepTimeline = func(s int) bool { return s == o.Stream }
	}
	var gr *graphCollector
	if wantGraph && o.Stream >= 0 {
		gr = &graphCollector{stream: o.Stream}
	}
	a.OnFrame = func(fr *tcpflow.Frame) {
		if !connMatches(o.filter, fr.Conn) || o.Stream >= 0 && fr.Conn.Stream != o.Stream {
			return
		}
		if fr.AfterClose {
			after.CountFrame(fr)
		}
		if ev != nil {
			ev.frame(fr, t0)
		}
		if gr != nil {
			gr.add(fr, t0)
		}
	}
	a.OnClose = func(c *tcpflow.Conn) {
		if !connMatches(o.filter, c) || o.Stream >= 0 && c.Stream != o.Stream {
			return
		}
		j := tcpConnJSON{Stream: c.Stream, A: endpoint(c.A), B: endpoint(c.B), FirstNs: c.FirstNs, LastNs: c.LastNs,
			DurationNs: c.LastNs - c.FirstNs, InitialRTTNs: c.InitialRTT(), AToB: c.Dir(0).Stats, BToA: c.Dir(1).Stats}
		j.Spurious = [2]uint64{j.AToB.Spurious(), j.BToA.Spurious()}
		if gr != nil {
			gr.closed(c)
		}
		conns = append(conns, j)
		tot.add(&j.AToB)
		tot.add(&j.BToA)
	}
	var seg tcpflow.Segment
	handler := func(rec *capture.Record, p *capture.Packet) {
		t0 = rec.StartNs // --events and graph times count from the first frame, as Wireshark's do
		if !tcpflow.FromCapture(rec, p, &seg) {
			if p.Proto == 6 && p.Fragment {
				frags++
			} else {
				nonTCP++
			}
			return
		}
		a.Add(&seg)
	}
	st, err := scanFile(o.File, opt, handler)
	if err != nil {
		return err
	}
	a.Finish()
	if ev != nil {
		if err := ev.flush(); err != nil {
			return fmt.Errorf("write %s: %w", o.Events, err)
		}
	}
	tot.Connections, tot.NonTCP, tot.TCPFragments, tot.AfterClose = len(conns), nonTCP, frags, after.Packets
	tot.add(&after)
	var afterClose *tcpflow.DirStats
	if after.Packets > 0 {
		afterClose = &after
	}
	sort.Slice(conns, func(i, j int) bool { return conns[i].Stream < conns[j].Stream })

	if wantGraph {
		if o.Stream < 0 { // second pass for the connection with most data
			best := -1
			var bestBytes uint64
			for _, c := range conns {
				if b := c.AToB.PayloadBytes + c.BToA.PayloadBytes; best < 0 || b > bestBytes {
					best, bestBytes = c.Stream, b
				}
			}
			if best < 0 {
				return Usagef("no TCP connection to graph in %s", o.File)
			}
			gr = &graphCollector{stream: best}
			a2 := tcpflow.NewAnalyzer()
			a2.KeepTimeline = func(s int) bool { return s == best }
			a2.OnFrame = func(fr *tcpflow.Frame) {
				if fr.Conn.Stream == best {
					gr.add(fr, t0)
				}
			}
			a2.OnClose = gr.closed
			if _, err := scanFile(o.File, opt, func(rec *capture.Record, p *capture.Packet) {
				if tcpflow.FromCapture(rec, p, &seg) {
					a2.Add(&seg)
				}
			}); err != nil {
				return err
			}
			a2.Finish()
		}
		if !gr.found {
			return Usagef("--stream %d: no such TCP connection in %s (streams are numbered from 0)", o.Stream, o.File)
		}
		if err := gr.write(o.Graph, o.WindowGraph); err != nil {
			return err
		}
	}

	data := tcpData{Capture: st, Connections: conns, AfterClose: afterClose, Totals: tot, Filter: o.Filter}
	notes := append(st.Notes(), tcpNotes(&tot)...)
	if err := o.emit(o.IO, KindPcapTCP, o.settings, data, notes, func(w io.Writer) { printPcapTCP(w, o, st, conns, &tot, notes) }, nil); err != nil {
		return err
	}
	return readErrorExit(o.File, st)
}

func tcpNotes(t *tcpTotals) []string {
	var n []string
	if t.TCPFragments > 0 {
		n = append(n, fmt.Sprintf("%d TCP packets in IP fragments were not analysed (no reassembly)", t.TCPFragments))
	}
	if t.MalformedOptions > 0 {
		n = append(n, fmt.Sprintf("%d segments carry malformed TCP options (a length that overruns the header or does not fit the option): the options before the bad one were used", t.MalformedOptions))
	}
	if t.AfterClose > 0 {
		n = append(n, fmt.Sprintf("%d segments came more than a second (or three RTTs) after their connection had ended (both FINs acknowledged, or a RST): "+
			"they are in the totals, in after_close and in --events with Wireshark's flags, but in no connection's counts", t.AfterClose))
	}
	return n
}

func printPcapTCP(w io.Writer, o *PcapTCPOptions, st *capture.Stats, conns []tcpConnJSON, t *tcpTotals, notes []string) {
	fmt.Fprintf(w, "%s: %s, %d frames, %d TCP segments in %d connection(s), %s\n", o.File, st.Format, st.Frames, t.Segments, t.Connections, spanLabel(st))
	fmt.Fprintf(w, "retransmissions %d (fast %d), segments resent %d, spurious %d, out-of-order %d, reordered %d, duplicate ACKs %d, SACK blocks %d, D-SACK blocks %d, zero windows %d\n",
		t.Retransmissions, t.FastRetransmissions, t.Resent, t.Spurious, t.OutOfOrder, t.Reordered, t.DuplicateAcks, t.SACKBlocks, t.DSACKBlocks, t.ZeroWindows)
	show := append([]tcpConnJSON(nil), conns...)
	sort.SliceStable(show, func(i, j int) bool {
		return show[i].AToB.PayloadBytes+show[i].BToA.PayloadBytes > show[j].AToB.PayloadBytes+show[j].BToA.PayloadBytes
	})
	if o.Top > 0 && len(show) > o.Top {
		fmt.Fprintf(w, "showing the %d connections with most payload (of %d; --top 0 shows all)\n", o.Top, len(show))
		show = show[:o.Top]
	}
	for _, c := range show {
		fmt.Fprintf(w, "\ntcp.stream %d: %s <-> %s, %s", c.Stream, c.A, c.B, report.Duration(time.Duration(c.DurationNs)))
		if c.InitialRTTNs > 0 {
			fmt.Fprintf(w, ", handshake RTT %s", report.Duration(time.Duration(c.InitialRTTNs)))
		}
		fmt.Fprintln(w)
		report.Table(w, []string{"", "A -> B", "B -> A"}, connRows(&c))
	}
	fmt.Fprintln(w, "\nA is the endpoint that sent the first packet seen. Counts of flags follow Wireshark's tcp.analysis; \"reordered\" is latlab's:")
	fmt.Fprintln(w, "new data arriving below the highest sequence number seen. SACK/D-SACK columns are blocks that side sent about the other's data.")
	fmt.Fprintln(w, "RTT is measured at the capture point (Karn's rule). RACK: retransmissions shown unnecessary, and how many a RACK sender would")
	fmt.Fprintln(w, "have waited out with a D-SACK-adapted reordering window / with a window that ignores D-SACK.")
	printNotes(w, notes)
}

func connRows(c *tcpConnJSON) [][]string {
	d := [2]*tcpflow.DirStats{&c.AToB, &c.BToA}
	row := func(name string, f func(s *tcpflow.DirStats) string) []string {
		return []string{name, f(d[0]), f(d[1])}
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	ns := func(v int64) string {
		if v <= 0 {
			return "-"
		}
		return report.Duration(time.Duration(v))
	}
	return [][]string{
		row("handshake", func(s *tcpflow.DirStats) string { return handshakeLabel(s.Handshake) }),
		row("packets", func(s *tcpflow.DirStats) string { return u(s.Packets) }),
		row("payload bytes", func(s *tcpflow.DirStats) string { return u(s.PayloadBytes) }),
		row("duration (data)", func(s *tcpflow.DirStats) string { return ns(s.LastDataNs - s.FirstDataNs) }),
		row("goodput", func(s *tcpflow.DirStats) string { return bitrate(s.GoodputBps) }),
		row("retransmissions (Wireshark)", func(s *tcpflow.DirStats) string { return u(s.AnyRetransmissions) }),
		row("  fast", func(s *tcpflow.DirStats) string { return u(s.FastRetransmissions) }),
		row("  spurious (acked / D-SACKed)", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%d (%d / %d)", s.Spurious(), s.SpuriousRetransmissions, s.DSACKSpurious)
		}),
		row("segments resent (bytes seen before)", func(s *tcpflow.DirStats) string { return u(s.ResentSegments) }),
		row("out-of-order (Wireshark)", func(s *tcpflow.DirStats) string { return u(s.OutOfOrder) }),
		row("reordered: segments, max extent", func(s *tcpflow.DirStats) string {
			if s.Reordered == 0 {
				return "0"
			}
			return fmt.Sprintf("%d, %d segs / %s", s.Reordered, s.ReorderMaxSegs, ns(s.ReorderMaxNs))
		}),
		row("duplicate ACKs", func(s *tcpflow.DirStats) string { return u(s.DuplicateAcks) }),
		row("SACK blocks / D-SACK blocks", func(s *tcpflow.DirStats) string { return fmt.Sprintf("%d / %d", s.SACKBlocks, s.DSACKBlocks) }),
		row("zero windows", func(s *tcpflow.DirStats) string { return u(s.ZeroWindows) }),
		row("RTT min / smoothed (n)", func(s *tcpflow.DirStats) string {
			if s.RTT.Samples == 0 {
				return "-"
			}
			return fmt.Sprintf("%s / %s (%d)", ns(s.RTT.MinNs), ns(int64(s.RTT.SRTTNs)), s.RTT.Samples)
		}),
		row("RACK reo_wnd max (mult)", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%s (x%d)", ns(s.Rack.MaxReoWndNs), max(1, s.Rack.MaxReoWndMult))
		}),
		row("RACK would wait out", func(s *tcpflow.DirStats) string {
			return fmt.Sprintf("%d / %d of %d", s.Rack.AvoidedHonouring, s.Rack.AvoidedIgnoring, s.Rack.Spurious)
		}),
	}
}

func handshakeLabel(h *tcpflow.HandshakeOptions) string {
	if h == nil {
		return "(not seen)"
	}
	var p []string
	if h.MSS > 0 {
		p = append(p, fmt.Sprintf("MSS %d", h.MSS))
	}
	if h.WindowScale >= 0 {
		p = append(p, fmt.Sprintf("WS %d", h.WindowScale))
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

func bitrate(bps float64) string {
	switch {
	case bps <= 0:
		return "-"
	case bps >= 1e9:
		return fmt.Sprintf("%.2f Gbit/s", bps/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%.2f Mbit/s", bps/1e6)
	case bps >= 1e3:
		return fmt.Sprintf("%.1f kbit/s", bps/1e3)
	}
	return fmt.Sprintf("%.0f bit/s", bps)
}

// eventWriter streams --events rows.
type eventWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newEventWriter(f io.Writer) *eventWriter {
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString("time,flow,frame,event,seq,ack,detail\n")
	return &eventWriter{w: w}
}

func (e *eventWriter) row(fr *tcpflow.Frame, t0 int64, event, detail string) {
	b := e.buf[:0]
	b = strconv.AppendFloat(b, float64(fr.Seg.TimeNs-t0)/1e9, 'f', 9, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(fr.Conn.Stream), 10)
	b = append(b, ' ')
	b = append(b, endpoint(tcpflow.Endpoint{Addr: fr.Seg.Src, Port: fr.Seg.SrcPort})...)
	b = append(b, '>')
	b = append(b, endpoint(tcpflow.Endpoint{Addr: fr.Seg.Dst, Port: fr.Seg.DstPort})...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(fr.Seg.Frame), 10)
	b = append(b, ',')
	b = append(b, event...)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(fr.RelSeq), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(fr.RelAck), 10)
	b = append(b, ',')
	if strings.ContainsAny(detail, ",\"") {
		detail = strconv.Quote(detail)
	}
	b = append(b, detail...)
	b = append(b, '\n')
	e.buf = b
	e.w.Write(b)
}

func (e *eventWriter) frame(fr *tcpflow.Frame, t0 int64) {
	if fr.Flags != 0 {
		for _, fi := range tcpflow.AllFlags {
			if fr.Flags&fi.Flag == 0 {
				continue
			}
			detail := ""
			switch fi.Flag {
			case tcpflow.FlagDuplicateAck:
				detail = fmt.Sprintf("#%d of frame %d", fr.DupAckNum, fr.DupAckOf)
			case tcpflow.FlagRetransmission, tcpflow.FlagFastRetransmission, tcpflow.FlagSpuriousRetransmission, tcpflow.FlagOutOfOrder:
				detail = fmt.Sprintf("len %d", fr.Seg.Len)
			}
			e.row(fr, t0, fi.Event, detail)
		}
	}
	if fr.DSACK {
		e.row(fr, t0, "dsack", fmt.Sprintf("%d-%d", fr.DSACKLeft, fr.DSACKRight))
		for _, f := range fr.SpuriousByDSACK {
			e.row(fr, t0, "dsack_spurious", fmt.Sprintf("frame %d was received twice", f))
		}
		for _, f := range fr.RackAvoided {
			e.row(fr, t0, "rack_avoidable", fmt.Sprintf("frame %d: a D-SACK-honouring RACK sender would have waited", f))
		}
	}
	if fr.Reordered {
		e.row(fr, t0, "reordered", fmt.Sprintf("overtaken by %d segments, %s", fr.ReorderSegs, report.Duration(time.Duration(fr.ReorderNs))))
	}
	if fr.RTTNs > 0 {
		e.row(fr, t0, "rtt_sample", report.Duration(time.Duration(fr.RTTNs)))
	}
}

func (e *eventWriter) flush() error { return e.w.Flush() }

// graphCollector gathers the points of one connection for the graphs.
type graphCollector struct {
	stream   int
	found    bool
	title    string
	ends     [2]string
	payload  [2]uint64
	data     [2][]report.VSeg
	rtx      [2][]report.VSeg
	acks     [2][]report.XY // acks sent by dir i: about dir 1-i's data
	win      [2][]report.XY
	sacks    [2][]report.VSeg
	dsacks   [2][]report.VSeg
	rtxT     [2][]report.XY
	timeline [2][]tcpflow.TimelinePoint
	wscale   [2]int
	t0       int64
}

const maxGraphPoints = 2_000_000

// closed takes the end state of the graphed connection (OnClose).
func (g *graphCollector) closed(c *tcpflow.Conn) {
	if c.Stream != g.stream {
		return
	}
	g.timeline = [2][]tcpflow.TimelinePoint{c.Dir(0).Timeline(), c.Dir(1).Timeline()}
	g.payload = [2]uint64{c.Dir(0).Stats.PayloadBytes, c.Dir(1).Stats.PayloadBytes}
	g.title = fmt.Sprintf("tcp.stream %d", c.Stream)
	g.ends = [2]string{endpoint(c.A), endpoint(c.B)}
	g.found = true
}

func (g *graphCollector) add(fr *tcpflow.Frame, t0 int64) {
	d := fr.Dir
	g.t0 = t0
	t := float64(fr.Seg.TimeNs-t0) / 1e9
	if len(g.data[d])+len(g.acks[d]) > maxGraphPoints {
		return
	}
	if fr.Opts != nil && fr.Opts.HasWScale && fr.Seg.Flags&tcpflow.SYN != 0 {
		g.wscale[d] = min(int(fr.Opts.WScale), 14)
	}
	if fr.Seg.Len > 0 {
		v := report.VSeg{T: t, Lo: float64(fr.RelSeq), Hi: float64(fr.RelSeq) + float64(fr.Seg.Len)}
		if fr.Retransmitted || fr.Flags&(tcpflow.FlagRetransmission|tcpflow.FlagFastRetransmission|tcpflow.FlagSpuriousRetransmission) != 0 {
			g.rtx[d] = append(g.rtx[d], v)
			g.rtxT[d] = append(g.rtxT[d], report.XY{X: t})
		} else {
			g.data[d] = append(g.data[d], v)
		}
	}
	if fr.Seg.Flags&tcpflow.ACK != 0 {
		ack := float64(fr.RelAck)
		g.acks[d] = append(g.acks[d], report.XY{X: t, Y: ack})
		win := float64(fr.Seg.Window)
		if fr.Seg.Flags&tcpflow.SYN == 0 {
			win *= float64(int(1) << g.wscale[d])
		}
		g.win[d] = append(g.win[d], report.XY{X: t, Y: ack + win})
		if fr.Opts != nil {
			base := fr.Seg.Ack - fr.RelAck
			for i := 0; i < fr.Opts.NSACK; i++ {
				b := fr.Opts.SACK[i]
				v := report.VSeg{T: t, Lo: float64(b.Left - base), Hi: float64(b.Right - base)}
				if i == 0 && fr.DSACK {
					g.dsacks[d] = append(g.dsacks[d], v)
				} else {
					g.sacks[d] = append(g.sacks[d], v)
				}
			}
		}
	}
}

func (g *graphCollector) write(seqPath, winPath string) error {
	d := 0 // the main data direction
	if g.payload[1] > g.payload[0] {
		d = 1
	}
	r := 1 - d
	title := fmt.Sprintf("%s: %s -> %s", g.title, g.ends[d], g.ends[r])
	if seqPath != "" {
		ts := report.TimeSeqGraph{Title: title, Segments: g.data[d], Rtx: g.rtx[d], Acks: g.acks[r], Window: g.win[r], SACKs: g.sacks[r], DSACKs: g.dsacks[r]}
		if err := writePlot(seqPath, ts.Render); err != nil {
			return err
		}
	}
	if winPath != "" {
		wg := report.WindowGraph{Title: title + " (sender view; RACK replay)", Retransmit: g.rtxT[d]}
		for _, p := range g.timeline[d] {
			x := float64(p.TimeNs-g.t0) / 1e9
			wg.InFlight = append(wg.InFlight, report.XY{X: x, Y: float64(p.InFlight)})
			wg.ReoWnd = append(wg.ReoWnd, report.XY{X: x, Y: float64(p.ReoWndNs) / 1e6})
			wg.ReoWndIgn = append(wg.ReoWndIgn, report.XY{X: x, Y: float64(p.ReoWndIgnNs) / 1e6})
		}
		if err := writePlot(winPath, wg.Render); err != nil {
			return err
		}
	}
	return nil
}
