package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/units"
)

func init() {
	pcapSubcommands = append(pcapSubcommands, func(io *IO) *cobra.Command { return newPcapTCPCmd(io, nil) })
}

// PcapTCPOptions are the flags of `latlab pcap tcp`.
type PcapTCPOptions struct {
	IO          *IO
	File        string
	Stream      int
	Top         int
	Events      string
	Graph       string
	WindowGraph string
	// ETWResult is a tcp-discard --etw document whose D-SACK count the
	// capture checks.
	ETWResult string
	pcapInput

	settings map[string]string
}

// newPcapTCPCmd builds latlab pcap tcp. runF, when set, is given the
// options the flags map to instead of reading the capture: the tests of
// the mapping.
func newPcapTCPCmd(io *IO, runF func(*PcapTCPOptions) error) *cobra.Command {
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
		Args: o.pcapInput.fileArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runPcapTCP(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&o.Stream, "stream", -1, "only this connection (Wireshark's tcp.stream number); graphs default to the one with most data")
	fs.IntVar(&o.Top, "top", 10, "connections shown in detail in the table (most payload bytes first); 0 = all")
	fs.StringVar(&o.Events, "events", "", "write per-frame events to this CSV file (time,flow,frame,event,seq,ack,detail)")
	fs.StringVar(&o.Graph, "graph", "", "tcptrace-style time-sequence graph of one connection's main data direction (.svg or .png)")
	fs.StringVar(&o.WindowGraph, "window-graph", "", "bytes in flight and the RACK reordering window over time (.svg or .png)")
	fs.StringVar(&o.ETWResult, "etw-result", "", "compare the D-SACKs TcpReceiveSack counted in this `RUN.json` of net tcp-discard --etw with those the peer sent on the same connection here (matched by ports)")
	o.pcapInput.bind(cmd, "only connections with an endpoint matching: host|src|dst ADDR[/BITS], port|sport|dport N")
	return cmd
}

// validate checks the flags before anything runs.
func (o *PcapTCPOptions) validate() error {
	if err := o.pcapInput.validate(); err != nil {
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
	return nil
}

func runPcapTCP(ctx context.Context, o *PcapTCPOptions) (err error) {
	opt := o.options(ctx)
	var dsack *netload.DSackRun
	var dsackConn *tcpflow.Connection
	if o.ETWResult != "" {
		d, err := result.ReadFile(o.ETWResult)
		if err != nil {
			return Usagef("--etw-result %s: %v", o.ETWResult, err)
		}
		if dsack, err = netload.DSackRunOf(d); err != nil {
			return Usagef("--etw-result %s: %v", o.ETWResult, err)
		}
	}
	run := tcpflow.Options{
		Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
			opt.Context = ctx
			return scanFile(o.File, opt, h)
		},
		Filter: o.filter, FilterText: o.Filter, Stream: o.Stream,
		Top:   o.Top,
		Graph: o.Graph != "" || o.WindowGraph != "",
	}
	if o.Top == 0 {
		run.Top = tcpflow.AllConnections
	}
	if o.JSON { // no table
		run.Top = 0
	}
	if o.Events != "" {
		f, err := outfile.Create(o.Events)
		if err != nil {
			return err
		}
		// Kept when the analysis ran, even if it stopped early: the
		// events up to there are what explains why.
		defer func() {
			if cerr := f.Commit(); err == nil && cerr != nil {
				err = cerr
			}
		}()
		run.Events = f
	}
	var doc *pcapTCPDocument
	if o.JSON || o.Out != "" {
		doc = &pcapTCPDocument{o: o}
		defer doc.abandon()
		run.OnConn = doc.add
	}
	if dsack != nil {
		next := run.OnConn
		run.OnConn = func(c *tcpflow.Connection) error {
			if _, ok := dsack.Match(c); ok && (dsackConn == nil || c.PayloadBytes() > dsackConn.PayloadBytes()) {
				cp := *c
				dsackConn = &cp
			}
			if next != nil {
				return next(c)
			}
			return nil
		}
	}
	res, err := tcpflow.Run(ctx, run)
	if err != nil {
		if doc != nil && doc.s != nil { // end the document that was begun
			doc.close(res, append(res.Notes(), fmt.Sprintf("the analysis stopped early: %v", err)))
		}
		if errors.Is(err, tcpflow.ErrNoConnection) {
			if o.Stream >= 0 {
				return Usagef("--stream %d: no such TCP connection in %s (streams are numbered from 0)", o.Stream, o.File)
			}
			return Usagef("no TCP connection to graph in %s", o.File)
		}
		return err
	}
	notes := res.Notes()
	if doc != nil { // before the graphs: the document is under way
		if err := doc.close(res, notes); err != nil {
			return err
		}
	}
	if g := res.Graph; g != nil {
		if err := writeTCPGraphs(g, o.Graph, o.WindowGraph); err != nil {
			return err
		}
	}
	if !o.JSON {
		humanOut(o.IO.Out, func(w io.Writer) { printPcapTCP(w, o, res, notes) })
	}
	if dsack != nil {
		printDSackWire(o.IO.Out, o.IO.Err, o.JSON, dsack, dsackConn)
	}
	return readErrorExit(o.File, res.Capture)
}

// pcapTCPDocument streams the result document of `pcap tcp` to --json's
// stdout and -o's file: each connection as it closes, the totals at the
// end. It begins with the first connection, so that a capture that
// cannot be read leaves no partial document behind.
//
// The connections are encoded and written in a goroutine of their own:
// with 100,000 short connections the document (374 MB) is larger than
// the capture (305 MB), and encoding and writing it took the analysis'
// goroutine, the slower of the two stages, time it could not analyse in.
// They cross in batches of copies, in order, so the document is the same
// byte for byte; the batches go round between two channels, which bounds
// the memory. A panic in the encoder is raised again in the caller's
// goroutine (drain), where the command's recovery sees it.
type pcapTCPDocument struct {
	o    *PcapTCPOptions
	s    *result.Stream
	file *outfile.File

	batch []tcpflow.Connection // being filled
	full  chan []tcpflow.Connection
	free  chan []tcpflow.Connection
	done  chan struct{}         // closed when the encoder has returned
	err   atomic.Pointer[error] // the encoder's first error
	panic any                   // the encoder's panic (read after done)
}

const (
	docBatch   = 256 // connections a batch
	docBatches = 4
)

func (d *pcapTCPDocument) begin() error {
	var w []io.Writer
	if d.o.Out != "" {
		f, err := outfile.Create(d.o.Out)
		if err != nil {
			return err
		}
		d.file = f
		w = append(w, f)
	}
	if d.o.JSON && d.o.Out == "" { // -o: the document goes to the file only
		w = append(w, d.o.IO.Out)
	}
	doc, err := result.StreamDocument(host.Collect(), KindPcapTCP.Name())
	if err != nil {
		return err
	}
	doc.Settings = d.o.settings
	s, err := result.NewStream(io.MultiWriter(w...), doc, "connections")
	if err != nil {
		return err
	}
	d.s = s
	d.full = make(chan []tcpflow.Connection, docBatches)
	d.free = make(chan []tcpflow.Connection, docBatches)
	for range docBatches - 1 {
		d.free <- make([]tcpflow.Connection, 0, docBatch)
	}
	d.batch = make([]tcpflow.Connection, 0, docBatch)
	d.done = make(chan struct{})
	go d.encode()
	return nil
}

// encode adds the connections of each batch to the document, until the
// batches end or one fails (the rest are then dropped).
func (d *pcapTCPDocument) encode() {
	defer close(d.done)
	for b := range d.full {
		if d.err.Load() == nil {
			d.encodeBatch(b)
		}
		d.free <- b[:0]
	}
}

func (d *pcapTCPDocument) encodeBatch(b []tcpflow.Connection) {
	defer func() {
		if p := recover(); p != nil {
			d.panic = p
			err := fmt.Errorf("encoding the document: %v", p)
			d.err.Store(&err)
		}
	}()
	for i := range b {
		if err := d.s.Add(&b[i]); err != nil {
			d.err.Store(&err)
			return
		}
	}
}

func (d *pcapTCPDocument) add(c *tcpflow.Connection) error {
	if d.s == nil {
		if err := d.begin(); err != nil {
			return err
		}
	}
	if e := d.err.Load(); e != nil {
		return *e // stops the analysis: the document cannot be written
	}
	d.batch = append(d.batch, *c) // c is reused for the next connection
	if len(d.batch) == cap(d.batch) {
		d.full <- d.batch
		d.batch = <-d.free
	}
	return nil
}

// drain hands the encoder the last batch and waits for it to finish,
// returning its error.
func (d *pcapTCPDocument) drain() error {
	if d.full == nil {
		return nil
	}
	if len(d.batch) > 0 {
		d.full <- d.batch
	}
	close(d.full)
	<-d.done
	d.full, d.batch = nil, nil
	if d.panic != nil {
		panic(d.panic)
	}
	if e := d.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (d *pcapTCPDocument) close(res *tcpflow.Result, notes []string) error {
	if d.s == nil {
		if err := d.begin(); err != nil {
			return err
		}
	}
	err := d.drain()
	if err == nil {
		err = d.s.Close(&res.Summary, notes)
	}
	if d.file != nil {
		if cerr := d.file.Commit(); err == nil && cerr != nil {
			err = cerr
		} else if cerr == nil {
			wrote(d.o.IO, d.o.Out)
		}
		d.file = nil
	}
	return err
}

// abandon drops the -o file if the document was never ended: the path
// keeps what it held.
func (d *pcapTCPDocument) abandon() {
	_ = d.drain()
	if d.file != nil {
		d.file.Abort()
	}
}

func writeTCPGraphs(g *tcpflow.Graph, seqPath, winPath string) error {
	d := g.MainDir()
	r := 1 - d
	ends := [2]tcpflow.Endpoint{g.A, g.B}
	title := fmt.Sprintf("tcp.stream %d: %s -> %s", g.Stream, ends[d], ends[r])
	bars := func(v []tcpflow.SeqBar) []report.VSeg {
		out := make([]report.VSeg, len(v))
		for i, b := range v {
			out[i] = report.VSeg{T: b.T, Lo: b.Lo, Hi: b.Hi}
		}
		return out
	}
	points := func(v []tcpflow.Point) []report.XY {
		out := make([]report.XY, len(v))
		for i, p := range v {
			out[i] = report.XY{X: p.T, Y: p.V}
		}
		return out
	}
	if seqPath != "" {
		ts := report.TimeSeqGraph{Title: title, Segments: bars(g.Data[d]), Rtx: bars(g.Rtx[d]), Acks: points(g.Acks[r]),
			Window: points(g.Window[r]), SACKs: bars(g.SACKs[r]), DSACKs: bars(g.DSACKs[r])}
		if err := writePlot(seqPath, ts.Render); err != nil {
			return err
		}
	}
	if winPath != "" {
		wg := report.WindowGraph{Title: title + " (sender view; RACK replay)"}
		for _, t := range g.RtxAt[d] {
			wg.Retransmit = append(wg.Retransmit, report.XY{X: t})
		}
		for _, p := range g.Timeline[d] {
			x := float64(p.TimeNs-g.T0) / 1e9
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

func printPcapTCP(w io.Writer, o *PcapTCPOptions, res *tcpflow.Result, notes []string) {
	st, t := res.Capture, &res.Totals
	fmt.Fprintf(w, "%s: %s, %d frames, %d TCP segments in %d connection(s), %s\n", o.File, st.Format, st.Frames, t.Segments, t.Connections, spanLabel(st))
	fmt.Fprintf(w, "retransmissions %d (fast %d), segments resent %d, spurious %d, out-of-order %d, reordered %d, duplicate ACKs %d, SACK blocks %d, D-SACK blocks %d, zero windows %d\n",
		t.Retransmissions, t.FastRetransmissions, t.Resent, t.Spurious, t.OutOfOrder, t.Reordered, t.DuplicateAcks, t.SACKBlocks, t.DSACKBlocks, t.ZeroWindows)
	if t.LostSegments > 0 || t.AckedUnseen > 0 {
		// A capture that dropped packets (tcpdump's "dropped by kernel")
		// hides retransmissions too: what is counted is what was seen.
		fmt.Fprintf(w, "the capture missed segments: at least %d not seen (%d gap%s in the sequence numbers, Wireshark's \"previous segment not captured\"; %d ACK%s of data never seen): retransmission and loss figures are lower bounds\n",
			t.LostSegments, t.LostSegments, plural(int(t.LostSegments)), t.AckedUnseen, plural(int(t.AckedUnseen)))
	}
	if o.Top > 0 && t.Connections > o.Top {
		fmt.Fprintf(w, "showing the %d connections with most payload (of %d; --top 0 shows all)\n", o.Top, t.Connections)
	}
	for _, c := range res.Top {
		fmt.Fprintf(w, "\ntcp.stream %d: %s <-> %s, %s", c.Stream, c.A, c.B, units.Duration(time.Duration(c.DurationNs)))
		if c.InitialRTTNs > 0 {
			fmt.Fprintf(w, ", handshake RTT %s", units.Duration(time.Duration(c.InitialRTTNs)))
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

// printDSackWire prints what --etw-result's comparison found: after the
// tables, or on stderr with --json (the document is the capture's).
func printDSackWire(out, errw io.Writer, json bool, r *netload.DSackRun, c *tcpflow.Connection) {
	w := out
	if json {
		w = errw
	}
	fmt.Fprintf(w, "\nD-SACKs of the --etw-result connection (%s -> %s):\n", r.Local, r.Peer)
	if c == nil {
		fmt.Fprintln(w, "  not in this capture (no connection with both its ports)")
		return
	}
	if err := r.CompareCapture(c); err != nil {
		fmt.Fprintf(w, "  %v\n", err)
		return
	}
	fmt.Fprintf(w, "  tcp.stream %d: TcpReceiveSack counted %d, the capture shows %d from the peer\n", c.Stream, r.DSack.DSacks, *r.DSack.WireDSacks)
	for _, l := range report.WrapHanging("  "+r.DSack.Wire, 4, 80) {
		fmt.Fprintln(w, l)
	}
}
