package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/noisecount"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(func(io *IO) *cobra.Command { return newNoiseCmd(io, nil) }) }

// NoiseOptions are the flags of `latlab noise`.
type NoiseOptions struct {
	IO         *IO
	Duration   time.Duration
	Threshold  time.Duration
	CPUs       string
	Priority   string
	RTPrio     int
	Mlock      bool
	HistFile   string
	HistMaxUs  int
	JSON       bool
	Out        string
	Explain    bool
	ExplainAbv time.Duration
	StopAbove  time.Duration

	settings map[string]string
	changed  func(flag string) bool
	// probe is what the flags ask of the probe, set by validate.
	probe probe.NoiseOptions
}

// newNoiseCmd builds latlab noise. runF, when set, is given the options
// the flags map to instead of running the probe.
func newNoiseCmd(io *IO, runF func(*NoiseOptions) error) *cobra.Command {
	o := &NoiseOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "how much the OS interrupts a thread that never sleeps (the osnoise method)",
		Long: `One thread per measured CPU, pinned, reads the clock in a tight loop for
--duration (Linux: CLOCK_MONOTONIC through the vDSO; Windows:
QueryPerformanceCounter). Each step between two successive reads of at least
--threshold is one interruption: something ran instead of the thread (an
interrupt, a softirq or DPC, another thread, a page fault, SMI or NMI). This is
the method of the Linux osnoise tracer (Documentation/trace/osnoise-tracer.rst),
run as an ordinary thread, so it works on kernels without that tracer and on
Windows. The runtime ends at --duration exactly: an interruption still in
progress then counts up to that end only (osnoise instead runs on to its next
read, which lengthens runtime and noise alike).

Per CPU: the runtime, the total noise and the share of the runtime left to the
thread (osnoise's "% CPU Aval"), the number of interruptions and their rate,
the longest and the percentiles of their lengths, and the clock read's own
smallest step (the resolution); then what the OS counted on each CPU from just
before the threads started to just after they stopped: the hard interrupts and
softirqs by source and the thread's involuntary context switches (Linux:
/proc/interrupts, /proc/softirqs, getrusage), the interrupts and DPCs
(Windows: NtQuerySystemInformation's per-processor counts). The verdict names
the noisiest CPU's level: quiet (at least 99.99% available, no interruption
over 10µs: what an isolated CPU reaches), light (99.9%, 100µs), noisy (99%,
1ms) or heavy.

Where wake asks how late a sleeping thread is woken, noise asks how much of its
CPU a running thread keeps: use it on CPUs isolated for latency-critical work
(isolcpus, nohz_full; the isolation knob). Without --cpus the thread spins on
the last CPU. The thread holds a whole CPU for the run; at realtime priority it
holds it against everything below that priority (Linux leaves others 5% by
default: sched_rt_runtime_us), which then shows as noise.`,
		Example: `  latlab noise
  latlab noise --cpus 1 --duration 60s
  latlab noise --cpus 2-3 --threshold 5us --json > noise.json
  latlab noise --cpus 1 --rtprio 80 --mlock --histfile noise-hist.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			o.changed = cmd.Flags().Changed
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNoise(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.Duration, "duration", 10*time.Second, "how long each thread spins")
	durationFlag(fs, &o.Threshold, "threshold", probe.DefaultNoiseThreshold, "the shortest step between two clock reads counted as an interruption (osnoise's tracing_thresh)")
	cpusFlag(fs, &o.CPUs, "one spinning thread pinned to each listed CPU, e.g. 1 or 0,2-3 (default: the last CPU)")
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the spinning threads (Windows: realtime is the realtime class)")
	fs.BoolVar(&o.Mlock, "mlock", false, "lock memory (mlockall) so page faults cannot add noise (Linux; noted and ignored on Windows)")
	fs.StringVar(&o.HistFile, "histfile", "", "write the interruptions' lengths as a histogram in cyclictest -h format to this file")
	fs.IntVar(&o.HistMaxUs, "hist-max", 1000, "largest bucket of --histfile in µs (cyclictest -h N)")
	fs.BoolVar(&o.JSON, "json", false, "write the result document to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.BoolVar(&o.Explain, "explain", false, "Linux, root: trace the measured CPUs and say what ran in the 10 longest interruptions")
	durationFlagZero(fs, &o.ExplainAbv, "explain-above", 0, "with --explain: explain every interruption longer than this (e.g. 100us) instead of the 10 longest")
	durationFlag(fs, &o.StopAbove, "stop-above", 0, "end the run at the first interruption longer than this (rtla osnoise -s), e.g. 100us, below --duration; with --explain the trace stops there")
	return cmd
}

// validate checks the flags and maps them to the probe's options.
func (o *NoiseOptions) validate() error {
	cpus := []int{sched.NumCPU() - 1}
	if o.CPUs != "" {
		var err error
		if cpus, err = sched.ParseCPUList(o.CPUs, sched.NumCPU()); err != nil {
			return Usagef("invalid --cpus: %v", err)
		}
	}
	if o.ExplainAbv > 0 {
		o.Explain = true
	}
	if o.Explain && explainRefusal != "" {
		return Usagef("%s", explainRefusal)
	}
	prio, rtprio, err := priorityOf(o.changed, o.Priority, o.RTPrio)
	if err != nil {
		return err
	}
	o.probe = probe.NoiseOptions{Duration: o.Duration, Threshold: o.Threshold, CPUs: cpus, Priority: prio, RTPrio: rtprio, Mlock: o.Mlock, StopAbove: o.StopAbove}
	if o.Explain {
		o.probe.Explain = &probe.ExplainOptions{Worst: 10, Above: o.ExplainAbv}
	}
	if err := o.probe.Validate(); err != nil {
		return err
	}
	return checkHistMax(o.changed, o.HistMaxUs, o.HistFile)
}

func runNoise(ctx context.Context, o *NoiseOptions) error {
	no := o.probe
	no.Counters = noisecount.Reader("/")
	for _, p := range []string{o.HistFile, o.Out} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	stop := func() {}
	if o.Duration >= 2*time.Second {
		no.OnStart = func() {
			if !o.JSON {
				fmt.Fprintf(o.IO.Err, "measuring CPU noise for %s (Ctrl-C stops early) ...\n", units.Duration(o.Duration))
			}
			stop = progressLine(o.IO, "noise", o.Duration)
		}
	}
	r, doc, err := probe.RunNoise(ctx, no)
	stop()
	if err != nil {
		return probeFailure(err)
	}
	doc.Settings = o.settings
	d := doc.Data.(*probe.NoiseData)
	d.Level, d.Verdict = report.NoiseVerdict(d)
	if o.HistFile != "" {
		if err := writeFileWith(o.HistFile, func(w io.Writer) error { return r.WriteCyclictestHist(w, o.HistMaxUs) }); err != nil {
			return err
		}
		wrote(o.IO, o.HistFile)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Noise(w, doc) })
}
