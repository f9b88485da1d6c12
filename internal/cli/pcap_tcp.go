package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/tcpflow"
)

func init() {
	pcapSubcommands = append(pcapSubcommands, func(io *IO) *cobra.Command { return newPcapTCPCmd(io, nil) })
}

// PcapTCPOptions are the flags of `latlab pcap tcp`.
type PcapTCPOptions struct {
	IO         *IO
	File       string
	Stream     int
	Top        int
	Events     string
	Plot       string
	WindowPlot string
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
  latlab pcap tcp capture.pcap --stream 0 --events events.csv --plot tseq.svg --window-plot rack.svg
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
	fs.StringVar(&o.Plot, "plot", "", "tcptrace-style time-sequence graph of one connection's main data direction (.svg or .png)")
	fs.StringVar(&o.WindowPlot, "window-plot", "", "bytes in flight and the RACK reordering window over time (.svg or .png)")
	fs.StringVar(&o.ETWResult, "etw-result", "", "compare the D-SACKs TcpReceiveSack counted in this `RUN.json` of net tcp-discard --etw with those the peer sent on the same connection here (matched by ports)")
	o.pcapInput.bind(cmd, "only connections with an endpoint matching: host|src|dst ADDR[/BITS], port|sport|dport N")
	oldSpelling(fs, io.Err, "graph", "plot", "")
	oldSpelling(fs, io.Err, "window-graph", "window-plot", "")
	return cmd
}

// validate checks the flags before anything runs.
func (o *PcapTCPOptions) validate() error {
	if err := o.pcapInput.validate(); err != nil {
		return err
	}
	for _, g := range []struct{ flag, path string }{{"--plot", o.Plot}, {"--window-plot", o.WindowPlot}} {
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
			return o.scan(o.File, opt, h)
		},
		Filter: o.filter, FilterText: o.Filter, Stream: o.Stream,
		Top:   o.Top,
		Graph: o.Plot != "" || o.WindowPlot != "",
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
		run.OnConn, run.ConnSlot = doc.add, doc.slot
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
		if err := writeTCPGraphs(g, o.Plot, o.WindowPlot); err != nil {
			return err
		}
	}
	if !o.JSON {
		humanOut(o.IO.Out, func(w io.Writer) { report.PcapTCP(w, o.File, o.Top, res, notes) })
	}
	if dsack != nil {
		// After the tables, or on stderr with --json (the document is
		// the capture's).
		w := o.IO.Out
		if o.JSON {
			w = o.IO.Err
		}
		var err error
		if dsackConn != nil {
			err = dsack.CompareCapture(dsackConn)
		}
		report.DSackWire(w, dsack, dsackConn, err)
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

	batch   []tcpflow.Connection // being filled
	scratch tcpflow.Connection   // slot's answer before the document has begun
	full    chan []tcpflow.Connection
	free    chan []tcpflow.Connection
	done    chan struct{}         // closed when the encoder has returned
	err     atomic.Pointer[error] // the encoder's first error
	panic   any                   // the encoder's panic (read after done)
}

// A batch holds 1,024 connections (4 MB in all): with 256 the
// hand-offs between the goroutines cost the short capture's --json run
// 9% of its wall time and of its CPU (0.298 against 0.271 s, 0.54 against
// 0.49 s, medians of 11 alternating rounds on a slow day; on a fast day
// 0.187 s both); 512 measured the same, 2,048 and 4,096 slower (more
// fresh pages to fault in) and 64 slower still.
const (
	docBatch   = 1024 // connections a batch
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

// slot is where the analysis writes the next connection
// (tcpflow.Options.ConnSlot): the batch's next element once the document
// has begun, so that add finds it there, or a connection of its own that
// add copies.
func (d *pcapTCPDocument) slot() *tcpflow.Connection {
	if n := len(d.batch); d.s != nil && n < cap(d.batch) {
		return &d.batch[:n+1][n]
	}
	return &d.scratch
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
	if n := len(d.batch); n < cap(d.batch) && c == &d.batch[:n+1][n] {
		d.batch = d.batch[:n+1] // written in place (slot)
	} else {
		d.batch = append(d.batch, *c) // c is reused for the next connection
	}
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
