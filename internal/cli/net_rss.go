package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/units"
)

// NetRSSOptions are the flags of `latlab net rss-experiment`.
type NetRSSOptions struct {
	IO       *IO
	Peer     string
	EchoPort int
	Duration time.Duration
	Share    float64
	Plot     string
	JSON     bool
	Out      string

	settings map[string]string
	// probe is what the flags ask of the experiment, set by validate.
	probe netload.RSSOptions
}

// newNetRSSCmd builds latlab net rss-experiment. runF, when set, is given
// the options the flags map to instead of running: the tests of the
// mapping.
func newNetRSSCmd(io *IO, runF func(*NetRSSOptions) error) *cobra.Command {
	o := &NetRSSOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "rss-experiment",
		Short: "game-like then bulk traffic while watching which CPUs and queues handle the network work",
		Long: `PC-Tuning's experiment "How many RSS Queues do you need?" (valleyofdoom,
https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md) in one
command: runs the game profile (128 Hz, ~300 kbit/s each way) and then the
bulk profile (1 Gbit/s of 1400 B datagrams) against a UDP echo server, reads
the per-CPU interrupt and softirq counters (Linux) or DPC counters (Windows)
around each phase, and reports which CPUs handled network work at each load
and how many of the NIC's queues had interrupts.

PC-Tuning's answer, with 2 RSS queues on an xperf trace: at ~300 kbit/s of
game traffic one CPU handled nearly all of the driver's DPCs and ISRs, at
1 Gbit/s both did; "during online matches, at most two RSS queues/CPUs are
being utilized", and more do no harm.

Without --peer it starts an echo server on 127.0.0.1 itself: loopback has no
NIC, no queues and no interrupts, and the report says so. For a real answer
run latlab net serve --listen ADDR on another machine and give --peer ADDR.`,
		Example: `  latlab net rss-experiment
  latlab net rss-experiment --peer 192.0.2.10 --echo-port 7 --duration 10s --plot rss.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNetRSS(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Peer, "peer", "", "host running latlab net serve (default: a local server on 127.0.0.1)")
	fs.IntVar(&o.EchoPort, "echo-port", 7, "UDP echo port on --peer")
	durationFlag(fs, &o.Duration, "duration", 5*time.Second, "how long each phase lasts")
	fs.Float64Var(&o.Share, "share", 0.05, "a CPU counts as handling network work with at least this share of it")
	fs.StringVar(&o.Plot, "plot", "", "per-CPU bar plot of both phases to FILE.svg or FILE.png")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind rss-experiment) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	return cmd
}

// validate checks the flags and maps them to the experiment's options
// (o.probe), before anything runs.
func (o *NetRSSOptions) validate() error {
	run := netload.RSSOptions{Peer: o.Peer, EchoPort: o.EchoPort, Duration: o.Duration, Share: o.Share, Root: o.IO.Root}
	if err := run.Validate(); err != nil {
		return err
	}
	if o.EchoPort < 1 || o.EchoPort > 65535 { // the flag always names a port
		return Usagef("invalid --echo-port %d: accepted 1-65535", o.EchoPort)
	}
	if _, err := report.PlotFormat(o.Plot); o.Plot != "" && err != nil {
		return Usagef("invalid --plot: %v", err)
	}
	o.probe = run
	return nil
}

func runNetRSS(ctx context.Context, o *NetRSSOptions) error {
	run := o.probe
	if err := checkOutputs("--plot", o.Plot, o.Out); err != nil {
		return err
	}
	run.TraceDPC, run.NoTraceDPC = netload.DefaultDPCTracer()
	if !o.JSON {
		run.OnPhase = func(p netload.Profile) {
			errProse(o.IO.Err, func(w io.Writer) {
				fmt.Fprintf(w, "phase %s: %s for %s ...\n", p.Name, p.About, units.Duration(o.Duration))
			})
		}
	}
	r, err := netload.RunRSS(ctx, run)
	if err != nil {
		return err
	}
	doc := r.Document(host.Collect())
	doc.Settings = o.settings
	data := r
	if o.Plot != "" && len(data.Phases) > 0 {
		var groups []report.BarGroup
		for _, ph := range data.Phases {
			groups = append(groups, report.BarGroup{Name: ph.Profile, Values: ph.WorkPerCPU})
		}
		title := "network work per CPU (" + data.Phases[0].WorkRole + ")"
		cpus := data.Phases[0].Interval.CPUs
		if err := writePlot(o.Plot, func(format string) ([]byte, error) {
			return report.CPUBarsPlot(title, "count", cpus, groups, format)
		}); err != nil {
			return err
		}
	}
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.NetRSS(w, data) }); err != nil {
		return err
	}
	return ctx.Err()
}
