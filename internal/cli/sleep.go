package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

func init() { register(func(io *IO) *cobra.Command { return newSleepCmd(io, nil) }) }

// SleepOptions are the flags of `latlab sleep`.
type SleepOptions struct {
	IO         *IO
	Duration   time.Duration
	Samples    int
	Gap        time.Duration
	Method     string
	Resolution time.Duration
	Priority   string
	RTPrio     int
	CPUs       string
	Live       bool
	JSON       bool
	Out        string
	Raw        string

	settings map[string]string
	changed  func(flag string) bool
	// probe is what the flags ask of the probe, set by validate.
	probe probe.SleepOptions
}

// Defaults: 120 samples with a 5 ms gap finish in under 5 s even on
// Windows at the default 15.625 ms timer interval (120 x 2 ticks = 3.75 s).
const (
	defaultSleepSamples = 120
	defaultSleepGap     = 5 * time.Millisecond
)

// newSleepCmd builds latlab sleep. runF, when set, is given the options
// the flags map to instead of running the probe: the tests of the mapping.
func newSleepCmd(io *IO, runF func(*SleepOptions) error) *cobra.Command {
	o := &SleepOptions{IO: io}
	methods := probe.SleepMethods()
	cmd := &cobra.Command{
		Use:   "sleep",
		Short: "measure how long the OS really sleeps when asked to sleep (MeasureSleep done right)",
		Long: `Repeatedly asks the OS to sleep for --sleep-length and measures how long it
really slept with ` + clockName() + `. Reports the slept time and the
overshoot (slept - requested) with exact percentiles, plus the timer state.

The first sample is a warm-up and is discarded. Between samples latlab pauses
for --gap (default 5ms) without measuring: long enough that a sample never
starts in the same timer tick that ended the previous one, short enough that
the default 120 samples finish in under 5 s even at Windows' default
15.625 ms timer interval. (MeasureSleep, valleyofdoom/TimerResolution, pauses
Sleep(1000) between samples, as in the version PC-Tuning's research quotes;
only its later --samples mode pauses Sleep(100).)

--live prints each sample as it is taken and runs until Ctrl-C (or for
--samples, when given); the summary follows.`,
		Example: `  latlab sleep
  latlab sleep --sleep-length 0.5ms --method ` + methods[len(methods)-1] + ` --samples 1000
  latlab sleep --resolution 0.5ms --live
  latlab sleep --priority realtime --cpus 1 --json > sleep.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Live && !cmd.Flags().Changed("samples") {
				// Watching is open-ended: --live alone runs until Ctrl-C,
				// as the check-up's next step promises.
				_ = cmd.Flags().Set("samples", "0")
			}
			o.settings = settingsOf(cmd.Flags())
			o.changed = cmd.Flags().Changed
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runSleep(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.Duration, "sleep-length", time.Millisecond, "how long each sleep asks for (e.g. 1ms, 500us, 0.5ms, 2ms)")
	oldSpelling(fs, io.Err, "duration", "sleep-length", sleepLengthWhy)
	fs.IntVar(&o.Samples, "samples", defaultSleepSamples, "measured samples after the warm-up; 0 = until Ctrl-C (the default with --live)")
	durationFlagZero(fs, &o.Gap, "gap", defaultSleepGap, "unmeasured pause between samples")
	fs.StringVar(&o.Method, "method", methods[0], "sleep primitive: "+strings.Join(methods, ", "))
	durationFlagZero(fs, &o.Resolution, "resolution", 0, resolutionHelp)
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the measuring thread")
	cpusFlag(fs, &o.CPUs, pinHelp)
	oldSpelling(fs, io.Err, "cpu", "cpus", "")
	fs.BoolVar(&o.Live, "live", false, "print every sample as it is taken (MeasureSleep style), until Ctrl-C unless --samples is given")
	fs.BoolVar(&o.JSON, "json", false, "write the result document to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.StringVar(&o.Raw, "raw", "", "write every sample to this CSV file (index,slept_ns,overshoot_ns)")
	return cmd
}

// threadFromFlags validates the thread flags shared by the commands that
// measure with one thread: --priority, --rtprio, --cpus, --resolution.
// changed says which flags were given (nil: none).
func threadFromFlags(changed func(string) bool, priority string, rtprio int, cpus string, resolution time.Duration) (probe.Thread, error) {
	p, rtprio, err := priorityOf(changed, priority, rtprio)
	if err != nil {
		return probe.Thread{}, err
	}
	cpu, err := pinnedCPU(cpus)
	if err != nil {
		return probe.Thread{}, err
	}
	if resolution != 0 {
		if err := timer.Validate(resolution); err != nil {
			return probe.Thread{}, Usagef("invalid --resolution: %v", err)
		}
	}
	return probe.Thread{Priority: p, RTPrio: rtprio, CPU: cpu, Resolution: resolution}, nil
}

// validate checks the flags and maps them to the probe's options
// (o.probe), before anything runs.
func (o *SleepOptions) validate() error {
	th, err := threadFromFlags(o.changed, o.Priority, o.RTPrio, o.CPUs, o.Resolution)
	if err != nil {
		return err
	}
	if o.Samples < 0 {
		return Usagef("invalid --samples %d: want 0 (until Ctrl-C) or a positive count", o.Samples)
	}
	o.probe = probe.SleepOptions{Duration: o.Duration, Samples: o.Samples, Gap: o.Gap, Method: o.Method, Thread: th}
	return o.probe.Validate()
}

func runSleep(ctx context.Context, o *SleepOptions) error {
	po := o.probe
	for _, p := range []string{o.Raw, o.Out} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	human := o.IO.Out
	if o.JSON {
		human = o.IO.Err
	}
	var liveDone chan struct{}
	if o.Live {
		ch := make(chan int64, 4096)
		po.Live = ch
		liveDone = make(chan struct{})
		go func() {
			defer close(liveDone)
			printLive(human, ch, o)
		}()
	} else if o.Samples == 0 {
		fmt.Fprintln(o.IO.Err, "measuring until Ctrl-C ...")
	}
	r, doc, err := probe.RunSleep(ctx, po)
	if po.Live != nil {
		close(po.Live)
		<-liveDone
	}
	if err != nil {
		return err
	}
	doc.Settings = o.settings
	// The document carries the verdict the text prints.
	d := doc.Data.(*probe.SleepData)
	d.Verdict = report.SleepVerdict(d)
	if o.Raw != "" {
		if err := writeFileWith(o.Raw, r.WriteCSV); err != nil {
			return err
		}
		wrote(o.IO, o.Raw)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Sleep(w, doc, r) })
}

// printLive writes one line per sample as samples arrive, in
// MeasureSleep's format.
func printLive(w io.Writer, ch <-chan int64, o *SleepOptions) {
	bw := bufio.NewWriter(w)
	call := report.LiveCall(o.Method, o.Duration)
	req := o.Duration.Nanoseconds()
	label := liveLabel(o)
	var line []byte
	for v := range ch {
		line = report.AppendLiveLine(label(line[:0]), call, v, req)
		bw.Write(line)
		if len(ch) == 0 {
			bw.Flush()
		}
	}
	bw.Flush()
}
