package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(func(io *IO) *cobra.Command { return newWakeCmd(io, nil) }) }

// WakeOptions are the flags of `latlab wake`.
type WakeOptions struct {
	IO         *IO
	Interval   time.Duration
	Duration   time.Duration
	Loops      int
	Threads    int
	CPUs       string
	Priority   string
	RTPrio     int
	Mlock      bool
	DMALatency int
	Resolution time.Duration
	HistFile   string
	HistMaxUs  int
	JSON       bool
	Out        string
	Explain    bool
	ExplainAbv time.Duration
	StopAbove  time.Duration

	settings   map[string]string
	changed    func(flag string) bool
	threadsSet bool
	// probe is what the flags ask of the probe, set by validate.
	probe probe.WakeOptions
}

// newWakeCmd builds latlab wake. runF, when set, is given the options the
// flags map to instead of running the probe: the tests of the mapping.
func newWakeCmd(io *IO, runF func(*WakeOptions) error) *cobra.Command {
	o := &WakeOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "wake",
		Short: "periodic wake-up latency (the cyclictest method, without coordinated omission)",
		Long: `Each thread sleeps until an absolute deadline, wakes, records how late it woke
(wake time - deadline), and advances the deadline by --interval. Linux uses
clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME); Windows a high-resolution
waitable timer, set before each wait with the time left to the deadline (a
relative due time; set again should it fire early); timestamps come from the
same clock.

A wake so late that later deadlines already passed is an overrun: those periods
are counted, and a second distribution corrected for them (HdrHistogram's
coordinated-omission correction) is reported beside the raw one. By default the
system is left alone (like cyclictest --default-system); --dma-latency 0 holds
/dev/cpu_dma_latency as plain cyclictest does.

--explain (Linux, root) traces the measured CPUs through tracefs (sched_switch,
sched_wakeup, hrtimer expiry, hard and soft interrupts; a private instance,
removed at the end) and says for the worst 10 wake-ups (--explain-above: every
one above a latency) what happened between the deadline and the time stamp:
the timer interrupt's delay, the interrupt handlers that ran, the threads that
held the CPU (pid, policy, priority) and the wake-up-to-running delay; then the
totals by cause and the knob that addresses the main one. Without --cpus the
thread is pinned to the last CPU. The tracing costs a little latency itself:
compare runs with and without it. The trace's reader gives way to a woken
measuring thread; threads of latlab's own that held a CPU are marked so, never
the cause.`,
		Example: `  latlab wake
  latlab wake --interval 1ms --duration 60s --rtprio 80 --mlock
  latlab wake --cpus 0-1 --rtprio 80 --mlock --dma-latency 0 --histfile hist.txt
  latlab wake --loops 2000 --json > wake.json
  latlab wake --cpus 1 --explain
  latlab wake --cpus 1 --rtprio 80 --explain-above 50us`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			o.threadsSet = cmd.Flags().Changed("threads")
			o.changed = cmd.Flags().Changed
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runWake(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.Interval, "interval", time.Millisecond, "wake-up period")
	durationFlag(fs, &o.Duration, "duration", 10*time.Second, "how long to run (ignored with --loops)")
	fs.IntVar(&o.Loops, "loops", 0, "number of wake-ups per thread instead of --duration")
	fs.IntVar(&o.Threads, "threads", 1, "number of measuring threads (unpinned)")
	cpusFlag(fs, &o.CPUs, "one thread pinned to each listed CPU, e.g. 0,2-3")
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the measuring threads (Windows: realtime is the realtime class)")
	fs.BoolVar(&o.Mlock, "mlock", false, "lock memory (mlockall) so page faults cannot add latency (Linux; noted and ignored on Windows)")
	fs.IntVar(&o.DMALatency, "dma-latency", -1, "hold /dev/cpu_dma_latency at this many µs while running (Linux); -1 = leave the system alone")
	durationFlagZero(fs, &o.Resolution, "resolution", 0, resolutionHelp)
	fs.StringVar(&o.HistFile, "histfile", "", "write a histogram in cyclictest -h format to this file")
	fs.IntVar(&o.HistMaxUs, "hist-max", 1000, "largest bucket of --histfile in µs (cyclictest -h N)")
	fs.BoolVar(&o.JSON, "json", false, "write the result document to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.BoolVar(&o.Explain, "explain", false, "Linux, root: trace the measured CPU and say what delayed the worst 10 wake-ups")
	durationFlagZero(fs, &o.ExplainAbv, "explain-above", 0, "with --explain: explain every wake-up later than this (e.g. 100us) instead of the worst 10")
	durationFlag(fs, &o.StopAbove, "stop-above", 0, "end the run at the first wake-up later than this past its deadline (cyclictest -b), e.g. 500us, below the run's length; with --explain the trace stops there")
	return cmd
}

// validate checks the flags and maps them to the probe's options
// (o.probe), before anything runs.
func (o *WakeOptions) validate() error {
	cpus := []int{}
	switch {
	case o.CPUs != "":
		var err error
		if cpus, err = sched.ParseCPUList(o.CPUs, sched.NumCPU()); err != nil {
			return Usagef("invalid --cpus: %v", err)
		}
		if o.threadsSet && o.Threads != len(cpus) {
			return Usagef("--threads %d does not match --cpus %s (%d CPUs): give one of them", o.Threads, o.CPUs, len(cpus))
		}
	case o.Threads < 1 || o.Threads > 1024:
		return Usagef("invalid --threads %d: accepted 1-1024", o.Threads)
	default:
		for i := 0; i < o.Threads; i++ {
			cpus = append(cpus, -1)
		}
	}
	if o.ExplainAbv > 0 {
		o.Explain = true
	}
	if o.ExplainAbv < 0 {
		return Usagef("invalid --explain-above %s: want a positive duration", o.ExplainAbv)
	}
	if o.Explain && explainRefusal != "" {
		return Usagef("%s", explainRefusal)
	}
	if o.Explain && o.CPUs == "" {
		if o.threadsSet && o.Threads != 1 {
			return Usagef("--explain traces the measured CPUs: give --cpus for --threads %d", o.Threads)
		}
		cpus = []int{sched.NumCPU() - 1}
	}
	prio, rtprio, err := priorityOf(o.changed, o.Priority, o.RTPrio)
	if err != nil {
		return err
	}
	// The probe's Validate holds the rules every caller shares
	// (--dma-latency, --loops, --rtprio, --resolution, --duration).
	o.probe = wakeOptions(o, cpus, prio, rtprio)
	if err := o.probe.Validate(); err != nil {
		return err
	}
	return checkHistMax(o.changed, o.HistMaxUs, o.HistFile)
}

// checkHistMax checks --hist-max and that it comes with --histfile (wake,
// noise).
func checkHistMax(changed func(string) bool, maxUs int, file string) error {
	if maxUs < 1 || maxUs > 1_000_000 {
		return Usagef("invalid --hist-max %d: accepted 1-1000000 µs", maxUs)
	}
	if changed != nil && changed("hist-max") && file == "" {
		// cyclictest's -h N both sizes and asks for the histogram; here
		// the size alone would be dropped without a word.
		return Usagef("--hist-max sizes the histogram of --histfile: give --histfile FILE too")
	}
	return nil
}

func runWake(ctx context.Context, o *WakeOptions) error {
	wo := o.probe
	if o.Explain && o.CPUs == "" && !o.JSON {
		fmt.Fprintf(o.IO.Err, "--explain: the measuring thread is pinned to CPU %d (--cpus chooses)\n", wo.CPUs[0])
	}
	for _, p := range []string{o.HistFile, o.Out} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	length := o.Duration
	if o.Loops > 0 {
		length = time.Duration(o.Loops) * o.Interval
	}
	stop := func() {}
	if length >= 2*time.Second {
		wo.OnStart = func() {
			if !o.JSON {
				fmt.Fprintf(o.IO.Err, "measuring for %s (Ctrl-C stops early) ...\n", units.Duration(length))
			}
			stop = progressLine(o.IO, "wake", length)
		}
	}
	r, doc, err := probe.RunWake(ctx, wo)
	stop()
	if err != nil {
		return probeFailure(err)
	}
	doc.Settings = o.settings
	// The document carries the band and verdict the text prints.
	d := doc.Data.(*probe.WakeData)
	d.Band, d.Verdict = report.WakeVerdict(d)
	if o.HistFile != "" {
		if err := writeFileWith(o.HistFile, func(w io.Writer) error { return r.WriteCyclictestHist(w, o.HistMaxUs, o.DMALatency) }); err != nil {
			return err
		}
		wrote(o.IO, o.HistFile)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Wake(w, doc) })
}

// wakeOptions maps the flags to the probe's options.
func wakeOptions(o *WakeOptions, cpus []int, prio sched.Priority, rtprio int) probe.WakeOptions {
	wo := probe.WakeOptions{
		Interval: o.Interval, Duration: o.Duration, Loops: o.Loops, CPUs: cpus,
		Priority: prio, RTPrio: rtprio, Resolution: o.Resolution, Mlock: o.Mlock, StopAbove: o.StopAbove,
	}
	if o.DMALatency != -1 { // -1 leaves the system alone; Validate refuses other negatives
		wo.DMALatency = &o.DMALatency
	}
	if o.Explain {
		wo.Explain = &probe.ExplainOptions{Worst: 10, Above: o.ExplainAbv}
	}
	return wo
}

// probeFailure is the error of a wake or noise run that failed: a setup
// the OS does not support (a scheduling class, --explain's tracing) is
// bad input, exit 2; another setup failure is reported without the
// probe's wrapping.
func probeFailure(err error) error {
	var setup *probe.SetupError
	switch {
	case errors.As(err, &setup) && errors.Is(err, sched.ErrUnsupported):
		return Usage(setup.Err)
	case errors.As(err, &setup):
		return setup.Err
	}
	return err
}
