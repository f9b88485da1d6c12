package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

// IRQWatchOptions are the flags of `latlab irq watch`.
type IRQWatchOptions struct {
	IO       *IO
	Interval time.Duration
	Duration time.Duration
	During   bool
	Command  []string
	All      bool
	Quiet    bool
	Plot     string
	JSON     bool
	Out      string

	settings map[string]string
}

// newIRQWatchCmd builds latlab irq watch. runF, when set, is given the
// options the flags map to instead of watching: the tests of the mapping.
func newIRQWatchCmd(io *IO, runF func(*IRQWatchOptions) error) *cobra.Command {
	o := &IRQWatchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "watch [--interval 1s] [--during -- COMMAND ARGS...]",
		Short: "watch which CPUs handle interrupts, softirqs (Linux) or DPCs (Windows)",
		Long: `Reads the per-CPU counters every --interval and reports what each CPU handled:

Linux    /proc/interrupts (network queues grouped by device and queue, e.g.
         eth0-TxRx-3, virtio2-input.0) and /proc/softirqs (NET_RX, NET_TX,
         TIMER, ...), plus each network device's queues, their interrupts'
         allowed and effective CPUs (/proc/irq/N), RPS/XPS masks, and the
         RSS indirection table, channels and coalescing (ethtool ioctls)
         where the driver supports them.
Windows  PDH \Processor Information(*)\Interrupts/sec, DPCs Queued/sec,
         % DPC Time and % Interrupt Time, and the adapters' RSS settings
         from the registry (what Get-NetAdapterRss shows). PDH names a
         processor "node,index" (NUMA node, place in it); the CPU numbers
         shown are latlab's, as --cpus takes them: each processor group's
         active processors counted in turn.

With --during, runs COMMAND and reports the distribution while it ran (e.g.
a latlab net udp profile); otherwise prints a line per interval until
--duration or Ctrl-C, then the totals.`,
		Example: `  latlab irq watch
  latlab irq watch --interval 500ms --duration 10s --plot irq.svg
  latlab irq watch --during -- latlab net udp --to 127.0.0.1:7 --profile bulk --duration 5s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash == -1 && len(args) > 0:
				return Usagef("unexpected argument %q: put a command after --during --, e.g. latlab irq watch --during -- sleep 5", args[0])
			case dash > 0:
				return Usagef("unexpected argument %q before --", args[0])
			case dash == 0:
				o.Command = args
			}
			if o.During && len(o.Command) == 0 {
				return Usagef("--during needs a command after --, e.g. latlab irq watch --during -- sleep 5")
			}
			if !o.During && len(o.Command) > 0 {
				return Usagef("a command after -- needs --during")
			}
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runIRQWatch(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.Interval, "interval", time.Second, "time between readings")
	durationFlagZero(fs, &o.Duration, "duration", 0, "stop after this long (0 = until Ctrl-C, or until the --during command ends)")
	fs.BoolVar(&o.During, "during", false, "run the command after -- and report the distribution while it ran")
	fs.BoolVar(&o.All, "all", false, "show every interrupt and softirq row, not only network rows and the main counters")
	fs.BoolVar(&o.Quiet, "quiet", false, "no line per interval")
	fs.StringVar(&o.Plot, "plot", "", "per-CPU bar plot of the totals to FILE.svg or FILE.png")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind irq) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	return cmd
}

// maxStoredIntervals bounds the intervals a document holds (10 minutes at
// the default 1 s); a longer watch stores only the total. A variable so a
// test can exceed it quickly.
var maxStoredIntervals = 600

// minIRQInterval is the shortest --interval: --interval 1us read the
// counters back to back, 5,500 lines a second and half a CPU, measuring
// the reader more than the interrupts.
const minIRQInterval = 10 * time.Millisecond

// validate checks the flags before anything runs: irq.Options.Validate
// holds the rules of --interval, --duration and the command.
func (o *IRQWatchOptions) validate() error {
	if err := (irq.Options{Interval: o.Interval, Duration: o.Duration, Command: o.Command}).Validate(); err != nil {
		return err
	}
	if o.Interval < minIRQInterval {
		return Usagef("invalid --interval %s: accepted %s or more (each reading parses /proc/interrupts and /proc/softirqs)",
			units.Duration(o.Interval), units.Duration(minIRQInterval))
	}
	if _, err := report.PlotFormat(o.Plot); o.Plot != "" && err != nil {
		return Usagef("invalid --plot: %v", err)
	}
	return nil
}

func runIRQWatch(ctx context.Context, o *IRQWatchOptions) error {
	if err := checkOutputs("--plot", o.Plot, o.Out); err != nil {
		return err
	}
	human := o.IO.Out
	if o.JSON {
		human = o.IO.Err
	}
	run := irq.Options{Root: o.IO.Root, Interval: o.Interval, Duration: o.Duration, MaxStored: maxStoredIntervals}
	if o.During {
		run.Command = o.Command
		run.Stdin, run.Stdout, run.Stderr = o.IO.In, o.IO.Err, o.IO.Err
	} else if !o.Quiet {
		run.OnInterval = func(at time.Duration, iv *irq.Interval) { report.IRQLine(human, at, iv) }
	}
	if err := run.Validate(); err != nil {
		return err
	}
	res, err := irq.Run(ctx, run)
	if err != nil {
		return err
	}
	total := res.Total
	data := &irq.WatchData{Method: irq.Method(), IntervalNs: o.Interval.Nanoseconds(), Command: o.Command, Total: total, Network: res.Network, Intervals: res.Intervals,
		ExitStatus: res.ExitStatus}
	doc := irq.KindWatch.New(host.Collect(), data)
	doc.Settings = o.settings
	data.Measurement = probe.Measurement{Method: irq.Method(), IntervalNs: o.Interval.Nanoseconds(),
		ElapsedNs: total.EndNs - total.StartNs, ClockSource: doc.Host.ClockSource, PercentileNote: result.PercentileDefinition}
	if res.Count > maxStoredIntervals {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d intervals: only the total is stored", res.Count))
	}
	if o.Plot != "" {
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.IRQPlot(total, format) }); err != nil {
			return err
		}
	}
	var during []string // the command the watch ran for, with --during
	if o.During {
		during = o.Command
	}
	err = emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.IRQWatch(w, res, during, o.All) })
	if err != nil {
		return err
	}
	if data.ExitStatus != nil && *data.ExitStatus != 0 {
		return &ExitStatusError{Code: *data.ExitStatus}
	}
	return nil
}
