package cli

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

// NetServeOptions are the flags of `latlab net serve`.
type NetServeOptions struct {
	IO          *IO
	Listen      string
	EchoPort    int
	DiscardPort int
	SinkPort    int
	Duration    time.Duration
	JSON        bool
	Quiet       bool
	EchoRate    float64
	MaxConns    int
	MaxPerPeer  int
	MaxPerNet   int
	IdleTimeout time.Duration

	settings map[string]string
}

// newNetServeCmd builds latlab net serve. runF, when set, is given the
// options the flags map to instead of serving: the tests of the mapping.
func newNetServeCmd(io *IO, runF func(*NetServeOptions) error) *cobra.Command {
	o := &NetServeOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "serve UDP echo, TCP discard and a TCP sink for the other net commands",
		Long: `One process serving the peers of the other net commands:

  UDP echo (RFC 862)     returns each datagram unchanged: the peer of net udp
  TCP discard (RFC 863)  reads and drops everything: the peer of net tcp-discard
  TCP sink               like discard, then reports the byte count it received
                         to the sender, which checks it against what it sent

Binds 127.0.0.1 unless --listen names another address (0.0.0.0 or :: for
every interface: only on a network you trust). Ports below 1024 (echo 7,
discard 9) need root or CAP_NET_BIND_SERVICE on Linux; pick others with the
port flags, 0 for any free port, -1 to turn a server off. Runs for
--duration (0 = until Ctrl-C); Ctrl-C and SIGTERM stop it cleanly and print
the totals.

The servers cannot be turned against anyone. The echo does not answer a
datagram from its own address and port, from the port of a service that
answers everything (echo, discard, daytime, quote, chargen, time), or that
is its own reply coming back (a loop through another echo server), and
answers one source address at most --echo-rate times a second. The TCP
servers take --max-conns connections, at most --max-per-peer from one
address and --max-per-net from one network (a /24 or a /64), close one
silent for --idle-timeout, and when full give the slot of the longest-idle
connection of the busiest address to a newcomer from a less busy one.`,
		Example: `  sudo latlab net serve
  latlab net serve --echo-port 7007 --discard-port 9009 --sink-port 9010
  latlab net serve --listen 0.0.0.0 --duration 2h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNetServe(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Listen, "listen", "127.0.0.1", "address to bind (any other than loopback must be given explicitly)")
	fs.IntVar(&o.EchoPort, "echo-port", 7, "UDP echo port (RFC 862); 0 = any free port, -1 = off")
	fs.IntVar(&o.DiscardPort, "discard-port", 9, "TCP discard port (RFC 863); 0 = any free port, -1 = off")
	fs.IntVar(&o.SinkPort, "sink-port", 9009, "TCP sink port; 0 = any free port, -1 = off")
	durationFlagZero(fs, &o.Duration, "duration", time.Hour, "stop after this long (0 = until Ctrl-C)")
	fs.BoolVar(&o.JSON, "json", false, "print the bound addresses as one JSON line, and the totals as another at the end")
	fs.BoolVar(&o.Quiet, "quiet", false, "no line per finished TCP connection")
	fs.Float64Var(&o.EchoRate, "echo-rate", netload.DefaultEchoRate, "most echo replies per second to one source address")
	fs.IntVar(&o.MaxConns, "max-conns", netload.DefaultMaxConns, "most TCP connections at once, both servers together")
	fs.IntVar(&o.MaxPerPeer, "max-per-peer", netload.DefaultMaxPerPeer, "most TCP connections from one address")
	fs.IntVar(&o.MaxPerNet, "max-per-net", netload.DefaultMaxPerNet, "most TCP connections from one network (a /24 or a /64)")
	durationFlag(fs, &o.IdleTimeout, "idle-timeout", time.Duration(netload.DefaultIdleTimeout), "close a TCP connection that sends nothing this long")
	return cmd
}

// validate checks the flags before anything runs.
func (o *NetServeOptions) validate() error {
	switch {
	case !(o.EchoRate > 0):
		return Usagef("invalid --echo-rate %v: want replies per second above 0", o.EchoRate)
	case o.MaxConns <= 0:
		return Usagef("invalid --max-conns %d: want 1 or more", o.MaxConns)
	case o.MaxPerPeer <= 0:
		return Usagef("invalid --max-per-peer %d: want 1 or more", o.MaxPerPeer)
	case o.MaxPerNet <= 0:
		return Usagef("invalid --max-per-net %d: want 1 or more", o.MaxPerNet)
	case o.IdleTimeout <= 0:
		return Usagef("invalid --idle-timeout %s: want a duration above 0, e.g. 30s", o.IdleTimeout)
	}
	return nil
}

func runNetServe(ctx context.Context, o *NetServeOptions) error {
	so := netload.ServeOptions{Addr: o.Listen, EchoPort: o.EchoPort, DiscardPort: o.DiscardPort, SinkPort: o.SinkPort,
		EchoRate: o.EchoRate, MaxConns: o.MaxConns, MaxPerPeer: o.MaxPerPeer, MaxPerNet: o.MaxPerNet, IdleTimeout: o.IdleTimeout, Duration: o.Duration}
	// the human lines, wrapped to a terminal's width; each ends its line,
	// under mu: connections end on their own goroutines
	hw := report.WrapLines(o.IO.Out)
	var mu sync.Mutex
	if !o.Quiet && !o.JSON {
		w := hw
		so.OnConn = func(c netload.ConnStats) {
			mu.Lock()
			defer mu.Unlock()
			report.NetServeConn(w, c)
		}
	}
	so.OnReady = func(echo, discard, sink string) {
		if o.JSON {
			doc := netload.KindServeReady.New(host.Collect(), &netload.ServeReady{Echo: echo, Discard: discard, Sink: sink, PID: os.Getpid()})
			doc.Settings = o.settings
			_ = result.WriteLine(o.IO.Out, doc)
		} else {
			mu.Lock()
			report.NetServeReady(hw, echo, discard, sink)
			mu.Unlock()
			if o.Duration > 0 {
				fmt.Fprintf(o.IO.Err, "serving for %s (Ctrl-C stops)\n", units.Duration(o.Duration))
			} else {
				fmt.Fprintln(o.IO.Err, "serving until Ctrl-C")
			}
		}
		if f, ok := o.IO.Out.(*os.File); ok {
			_ = f.Sync()
		}
	}
	st, err := netload.RunServe(ctx, so)
	if err != nil {
		return err
	}
	if o.JSON {
		doc := netload.KindServe.New(host.Collect(), &st)
		doc.Settings = o.settings
		return result.WriteLine(o.IO.Out, doc)
	}
	report.NetServeTotals(hw, &st)
	return nil
}
