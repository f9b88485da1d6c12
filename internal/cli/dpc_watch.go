package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/sched"
)

func init() { register(newDPCCmd) }

func newDPCCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dpc",
		Short: "live DPC/ISR (Linux: softirq and hard IRQ) time per driver from a kernel trace",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newDPCWatchCmd(io, nil))
	return cmd
}

// DPCWatchOptions are the flags of `latlab dpc watch`.
type DPCWatchOptions struct {
	IO      *IO
	Seconds int
	Quiet   bool
	JSON    bool
	Out     string
	HTML    string
	CPUs    string

	settings map[string]string
	cpus     []int // --cpus, parsed by validate
}

// newDPCWatchCmd builds latlab dpc watch. runF, when set, is given the
// options the flags map to instead of tracing: the tests of the mapping.
func newDPCWatchCmd(io *IO, runF func(*DPCWatchOptions) error) *cobra.Command {
	o := &DPCWatchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "watch [--duration D]",
		Short: "trace every DPC and ISR (Linux: softirq, hard IRQ) per driver (elevated/root)",
		Long: `Windows, from an elevated (Administrator) prompt. No Windows Performance
Toolkit is needed: latlab starts a kernel trace session itself (Event Tracing
for Windows, flags
` + dpcwatch.FlagNames + `), reads every DPC, timer DPC,
threaded DPC and ISR with its routine address, and attributes the routine to
the driver module that holds it (the loaded-module list, and the trace's image
events). It also sums the hard page faults per process (the time each thread
waited for its page to be read from disk), as 'latlab dpcisr TRACE.etl' does.

A line per second names the module with the longest DPC and ISR of that second.
It counts events by their own time stamps, and comes 1.5 s after its second
ends: the trace delivers each CPU's events late and out of order.
At the end (--duration, or Ctrl-C) it prints per module the count, the total
time and the longest execution with when and on which CPU it ran, and a
verdict in LatencyMon's terms: the highest DPC and ISR routine execution times,
whose, and how far above 1 ms and 2 ms.

The result document (kind dpcisr, source "etw") holds the histograms in the
buckets of 'xperf -a dpcisr': 'latlab dpcisr FILE' prints them and 'latlab
dpcisr compare' sets them against an xperf report or another watch.
--html writes one self-contained page of it: the verdict, a table per
section and the modules' distributions plotted.

Linux, as root: the same from tracefs events in a private instance (tracefs
is mounted for the run if it is not mounted; nothing is left behind, Ctrl-C
included). Section "hardirq" holds each interrupt line's handler, named by
its device as /proc/interrupts names it ("virtio0-input.0 (IRQ 24)"), and
the system vectors ("LOC (local_timer)", "RES (reschedule)", "CAL
(call_function)", ...); section "softirq" each softirq vector (NET_RX,
TIMER, RCU, SCHED, ...). Source "tracefs"; the same buckets and verdict.
--cpus restricts the trace to some CPUs. Hard page faults are each process's
major faults (majflt of /proc/PID/stat) at the start and end: counts only.`,
		Example: `  latlab dpc watch --duration 30s
  latlab dpc watch -o idle.json --html idle.html
  latlab dpcisr compare idle.json game.json --module ndis.sys`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runDPCWatch(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	secondsDurationFlag(fs, io.Err, &o.Seconds, 0, "stop after this long, e.g. 30s (0 = until Ctrl-C)")
	fs.BoolVar(&o.Quiet, "quiet", false, "no line per second")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind dpcisr) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.StringVar(&o.HTML, "html", "", "also write a self-contained HTML page of the result to this file")
	cpusFlag(fs, &o.CPUs, "Linux: trace only these CPUs, e.g. 1 or 0,2-3 (default all)")
	return cmd
}

// validate checks the flags before anything runs.
func (o *DPCWatchOptions) validate() error {
	if o.Seconds < 0 || o.Seconds > 24*3600 {
		return Usagef("invalid --duration %ds: want 0 (until Ctrl-C) to 24h", o.Seconds)
	}
	if o.CPUs != "" {
		cpus, err := sched.ParseCPUList(o.CPUs, sched.NumCPU())
		if err != nil {
			return Usagef("invalid --cpus: %v", err)
		}
		o.cpus = cpus
	}
	return nil
}

func runDPCWatch(ctx context.Context, o *DPCWatchOptions) error {
	if err := checkOutputs("", "", o.Out, o.HTML); err != nil {
		return err
	}
	live := o.IO.Out
	if o.JSON {
		live = o.IO.Err
	}
	opts := dpcwatch.Options{Duration: time.Duration(o.Seconds) * time.Second, CPUs: o.cpus}
	if !o.Quiet {
		opts.OnInterval = func(iv dpcwatch.Interval) { fmt.Fprintln(live, report.DPCWatchLine(iv, 80)) }
	}
	stop := func() {}
	opts.OnStart = func(session string) {
		until := "until Ctrl-C"
		if o.Seconds > 0 {
			until = fmt.Sprintf("for %ds; Ctrl-C ends early", o.Seconds)
		}
		fmt.Fprintf(o.IO.Err, "%s %s ...\n", dpcWatchWhat(session), until)
		if o.Quiet {
			// Without its line per second the watch shows its progress.
			stop = progressLine(o.IO, "dpc watch", time.Duration(o.Seconds)*time.Second)
		}
	}
	r, err := dpcwatch.Run(ctx, opts)
	stop()
	if err != nil {
		return dpcWatchErr(err)
	}
	view := r.Report.View(o.Out, "")
	view.Watch = &r.Summary
	doc := dpcisr.Kind.New(host.Collect(), &view)
	doc.Settings = o.settings
	if r.Method != "" {
		doc.Notes = append(doc.Notes, fmt.Sprintf("method: %s (instance %q)", r.Method, r.Session))
	} else {
		doc.Notes = append(doc.Notes, fmt.Sprintf("method: ETW kernel session %q, flags %s; execution time = event time stamp - InitialTime, QueryPerformanceCounter ticks", r.Session, dpcwatch.FlagNames))
	}
	doc.Notes = append(doc.Notes, r.Summary.Notes...)
	// The document first: a page that cannot be written must not cost
	// the trace.
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.DPCWatch(w, r, o.Out) }); err != nil {
		return err
	}
	if o.HTML == "" {
		return nil
	}
	label := o.Out
	if label == "" {
		label = "dpc watch"
	}
	if err := writeFileWith(o.HTML, func(w io.Writer) error { return report.DPCISRPage(w, "latlab dpc watch", label, doc) }); err != nil {
		return err
	}
	wrote(o.IO, o.HTML)
	return nil
}

// dpcWatchErr maps the watch's failures to one line each: an OS with no
// watch is bad input (exit 2); no elevation (root), a kernel logger held
// by another tool and Wine are work that could not be done (exit 3).
func dpcWatchErr(err error) error {
	var ae *etw.AccessError
	switch {
	case errors.Is(err, etw.ErrUnsupported):
		return Usagef("dpc watch runs on Windows (Event Tracing for Windows) and Linux (tracefs) only; elsewhere see 'latlab irq watch'")
	case errors.As(err, &ae):
		return errors.New(dpcWatchPrivilege)
	}
	return err
}
