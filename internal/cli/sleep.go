package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
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
		Long: `Repeatedly asks the OS to sleep for --sleep-length and measures how long it really
slept with ` + clockName() + `. Reports the slept time and the overshoot
(slept - requested) with exact percentiles, plus the timer state.

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
	if o.Raw != "" {
		if err := writeFileWith(o.Raw, r.WriteCSV); err != nil {
			return err
		}
		wrote(o.IO, o.Raw)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { printSleep(w, doc, r) })
}

func printSleep(w io.Writer, doc *result.Document, r *probe.SleepResult) {
	d := doc.Data.(*probe.SleepData)
	m := d.Measurement
	fmt.Fprintf(w, "latlab sleep: %s(%s) x %d, gap %s, priority %s, %s\n",
		m.Method, units.Duration(r.Requested), d.Summary.Count, doc.Settings["gap"], describePriority(m.Thread), describeCPU(m.Thread.CPU))
	if m.Thread.RequestedNs > 0 {
		fmt.Fprintf(w, "timer request: %s -> granted %s (%s)\n", units.MsPrecise(time.Duration(m.Thread.RequestedNs)), units.MsPrecise(time.Duration(m.Thread.GrantedNs)), m.Thread.ResolutionNote)
	}
	if d.Timer != nil {
		fmt.Fprintf(w, "timer: %s\n", timerLine(d.Timer))
	}
	// The answer first, in the check-up's words and units.
	o := d.Overshoot
	fmt.Fprintf(w, "overshoot (slept - requested): p50 %s, p99 %s, max %s\n", units.Ns(o.P50), units.Ns(o.P99), units.Ns(o.Max))
	if d.Timer != nil {
		fmt.Fprintf(w, "verdict: %s\n", doctor.SleepVerdict(o, *d.Timer))
	}
	fmt.Fprintf(w, "warm-up: first sample (%s) discarded\n\n", units.Duration(time.Duration(m.WarmupNs)))
	report.SummaryTable(w,
		report.Column{Title: "slept", Summary: d.Summary, Unit: report.WithUnit},
		report.Column{Title: "overshoot", Summary: d.Overshoot, Unit: report.WithUnit})
	fmt.Fprintf(w, "\ntool overhead: clock read %s, zero-length %s %s (p50); interrupted waits %d\n",
		units.Duration(time.Duration(d.Overhead.ClockReadP50Ns)), d.Overhead.ZeroWaitMethod,
		units.Duration(time.Duration(d.Overhead.ZeroWaitP50Ns)), m.Interrupted)
	if l := interruptedLine(d.Counts, "samples"); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, n := range doc.Notes {
		if !strings.HasPrefix(n, "first sample") {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
}

// interruptedLine says what an interrupted sleep or wake run measured, or
// "" when it was not interrupted; unit names its samples.
func interruptedLine(c probe.Counts, unit string) string {
	if !c.Interrupted {
		return ""
	}
	return fmt.Sprintf("interrupted: %d of %d planned %s measured before the run was stopped;\n  the statistics cover those", c.MeasuredCount, c.RequestedCount, unit)
}

func describePriority(t *probe.ThreadSetup) string {
	if t.Priority == "realtime" && t.RTPrio > 0 {
		return fmt.Sprintf("realtime (%d)", t.RTPrio)
	}
	return t.Priority
}

func describeCPU(cpu int) string {
	if cpu < 0 {
		return "not pinned"
	}
	return fmt.Sprintf("pinned to CPU %d", cpu)
}

// printLive writes one line per sample as samples arrive, in
// MeasureSleep's format.
func printLive(w io.Writer, ch <-chan int64, o *SleepOptions) {
	bw := bufio.NewWriter(w)
	call := liveCall(o.Method, o.Duration)
	req := o.Duration.Nanoseconds()
	label := liveLabel(o)
	var line []byte
	for v := range ch {
		line = appendLiveLine(label(line[:0]), call, v, req)
		bw.Write(line)
		if len(ch) == 0 {
			bw.Flush()
		}
	}
	bw.Flush()
}

// appendMsLabel appends the first field of a --live line, "Resolution:
// 0.499200ms": a negative ms (the value could not be read) prints as "?".
func appendMsLabel(dst []byte, name string, ms float64) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	if ms < 0 {
		return append(dst, '?')
	}
	dst = strconv.AppendFloat(dst, ms, 'f', 6, 64)
	return append(dst, "ms"...)
}

// appendLiveLine appends the rest of a --live line after the label. The
// format is MeasureSleep's, printf("Resolution: %lfms, Sleep(1) slept
// %lfms (delta: %lf)\n"): six decimals, so that scripts written for
// MeasureSleep read latlab's lines. It runs while the probe measures with
// the garbage collector off, so it only appends.
func appendLiveLine(dst []byte, call string, sleptNs, requestedNs int64) []byte {
	dst = append(dst, ", "...)
	dst = append(dst, call...)
	dst = append(dst, " slept "...)
	dst = strconv.AppendFloat(dst, float64(sleptNs)/1e6, 'f', 6, 64)
	dst = append(dst, "ms (delta: "...)
	dst = strconv.AppendFloat(dst, float64(sleptNs-requestedNs)/1e6, 'f', 6, 64)
	return append(dst, ")\n"...)
}
