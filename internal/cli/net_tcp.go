package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
)

// NetTCPOptions are the flags of `latlab net tcp-discard`.
type NetTCPOptions struct {
	IO          *IO
	To          string
	Size        string
	SampleEvery time.Duration
	Timeout     time.Duration
	CSV         string
	Plot        string
	JSON        bool
	Out         string
	ETW         bool

	settings map[string]string
	// probe is what the flags ask of the sender, set by validate.
	probe netload.TCPOptions
}

// newNetTCPCmd builds latlab net tcp-discard. runF, when set, is given the
// options the flags map to instead of sending: the tests of the mapping.
func newNetTCPCmd(io *IO, runF func(*NetTCPOptions) error) *cobra.Command {
	o := &NetTCPOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "tcp-discard --to HOST:PORT",
		Short: "send bytes to a TCP discard/sink server: wall time, goodput and the kernel's TCP state over time",
		Long: `Connects to a TCP discard server (RFC 863, port 9) or a latlab sink, sends
--size bytes, half-closes and waits until the peer closes: the wall time is from
the first write until every byte reached the peer application. A latlab sink
also reports how many bytes it received, which is checked against the size.

Meanwhile the socket's TCP state is read every --sample-every on a fixed
schedule: Linux getsockopt(TCP_INFO) (cwnd, ssthresh, rtt, rttvar, min_rtt,
retransmits, total_retrans, reordering, delivery_rate, bytes in flight, snd_wnd
on 6.2+), Windows WSAIoctl(SIO_TCP_INFO) TCP_INFO_v1 (Cwnd, SndWnd, RttUs,
MinRttUs, BytesReordered, DupAcksIn, FastRetrans, TimeoutEpisodes, SynRetrans,
BytesRetrans, and the SndLim* counts, times and bytes of sending limited by
the receive window, the congestion window or the sender; v0 before 1809 has
no SndLim*). Fields the kernel does not report are absent, never zero.
--csv writes every sample, --plot FILE.svg|png plots the windows and RTT with
retransmissions marked.`,
		Example: `  latlab net tcp-discard --to 127.0.0.1:9 --size 10MB
  latlab net tcp-discard --to 192.0.2.10:9009 --size 100MB --plot tcp.svg --csv tcp.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNetTCP(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.To, "to", "", "HOST:PORT of a TCP discard or sink server (required)")
	fs.StringVar(&o.Size, "size", "10MB", "bytes to send: 1500, 64KB, 10MB, 10MiB, 1GB")
	durationFlagZero(fs, &o.SampleEvery, "sample-every", time.Millisecond, "TCP state sampling period (0 = no sampling)")
	durationFlag(fs, &o.Timeout, "timeout", 2*time.Minute, "give up when the transfer takes longer")
	fs.StringVar(&o.CSV, "csv", "", "write every TCP state sample to this CSV file")
	fs.StringVar(&o.Plot, "plot", "", "plot cwnd / send window / RTT over time to FILE.svg or FILE.png")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind tcp-discard) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.BoolVar(&o.ETW, "etw", false, "Windows, elevated: also record the connection's TCP/IP events (ETW)")
	oldSpelling(fs, io.Err, "graph", "plot", "")
	return cmd
}

// validate checks the flags and maps them to the sender's options
// (o.probe), before anything runs.
func (o *NetTCPOptions) validate() error {
	size, err := netload.ParseSize(o.Size)
	if err != nil {
		return Usagef("invalid --size: %v", err)
	}
	to := netload.TCPOptions{To: o.To, Size: size, SampleEvery: o.SampleEvery, Timeout: o.Timeout, ETW: o.ETW}
	if err := to.Validate(); err != nil {
		return err
	}
	if _, err := report.PlotFormat(o.Plot); o.Plot != "" && err != nil {
		return Usagef("invalid --plot: %v", err)
	}
	o.probe = to
	return nil
}

func runNetTCP(ctx context.Context, o *NetTCPOptions) error {
	to := o.probe
	if err := checkOutputs("--plot", o.Plot, o.CSV, o.Out); err != nil {
		return err
	}
	r, err := netload.RunTCP(ctx, to)
	if err != nil {
		return err
	}
	data, notes := netload.NewTCPData(r)
	doc := netload.KindTCPDiscard.New(host.Collect(), data)
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, notes...)
	if o.CSV != "" {
		if err := writeFileWith(o.CSV, r.WriteCSV); err != nil {
			return err
		}
	}
	if o.Plot != "" {
		g := report.TCPDiscardGraph(r)
		g.Retrans = append(g.Retrans, r.Events.Retransmissions()...)
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.TCPGraphPlot(g, format) }); err != nil {
			return err
		}
	}
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.NetTCPDiscard(w, data); report.TCPEvents(w, r.Events) }); err != nil {
		return err
	}
	return r.Delivered()
}
