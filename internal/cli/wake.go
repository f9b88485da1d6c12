package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
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
compare runs with and without it.`,
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
	if o.HistMaxUs < 1 || o.HistMaxUs > 1_000_000 {
		return Usagef("invalid --hist-max %d: accepted 1-1000000 µs", o.HistMaxUs)
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
	var setup *probe.SetupError
	switch {
	case errors.As(err, &setup) && errors.Is(err, sched.ErrUnsupported):
		return Usage(setup.Err)
	case errors.As(err, &setup):
		return setup.Err
	case err != nil:
		return err
	}
	doc.Settings = o.settings
	if o.HistFile != "" {
		if err := writeFileWith(o.HistFile, func(w io.Writer) error { return r.WriteCyclictestHist(w, o.HistMaxUs, o.DMALatency) }); err != nil {
			return err
		}
		wrote(o.IO, o.HistFile)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { printWake(w, doc) })
}

// wakeOptions maps the flags to the probe's options.
func wakeOptions(o *WakeOptions, cpus []int, prio sched.Priority, rtprio int) probe.WakeOptions {
	wo := probe.WakeOptions{
		Interval: o.Interval, Duration: o.Duration, Loops: o.Loops, CPUs: cpus,
		Priority: prio, RTPrio: rtprio, Resolution: o.Resolution, Mlock: o.Mlock,
	}
	if o.DMALatency != -1 { // -1 leaves the system alone; Validate refuses other negatives
		wo.DMALatency = &o.DMALatency
	}
	if o.Explain {
		wo.Explain = &probe.ExplainOptions{Worst: 10, Above: o.ExplainAbv}
	}
	return wo
}

func printWake(w io.Writer, doc *result.Document) {
	d := doc.Data.(*probe.WakeData)
	m := d.Measurement
	prio := "normal scheduling"
	if len(d.Threads) > 0 {
		switch t := d.Threads[0]; t.Priority {
		case "realtime":
			prio = fmt.Sprintf("realtime priority %d", t.RTPrio)
		case "high": // a realtime request that Windows lowered
			prio = "high priority"
		}
	}
	fmt.Fprintf(w, "latlab wake: %d thread(s), interval %s, %s, %s\n", len(d.Threads), units.Duration(time.Duration(m.IntervalNs)), prio, m.Method)
	if d.Timer != nil {
		fmt.Fprintf(w, "timer: %s\n", timerLine(d.Timer))
	}
	// The answer first, in the check-up's words and units.
	s := d.Summary
	fmt.Fprintf(w, "lateness (wake time - deadline): p50 %s, p99 %s, max %s; %d missed period%s\n",
		units.Ns(s.P50), units.Ns(s.P99), units.Ns(s.Max), d.Overruns, plural(int(d.Overruns)))
	_, verdict := doctor.WakeVerdict(s, d.Overruns, time.Duration(m.IntervalNs))
	fmt.Fprintf(w, "verdict: %s\n\n", verdict)
	// p90 and p99.9 are in the document: with a unit in each cell the
	// table fits 80 columns with these.
	hdr := []string{"thread", "cpu", "count", "min", "p50", "p99", "max", "mean", "missed"}
	var rows [][]string
	row := func(name, cpu string, s stats.Summary, over int64) []string {
		u := report.WithUnit
		return []string{name, cpu, strconv.FormatInt(s.Count, 10), u.Format(float64(s.Min)), u.Format(float64(s.P50)),
			u.Format(float64(s.P99)), u.Format(float64(s.Max)), u.Format(s.Mean), strconv.FormatInt(over, 10)}
	}
	for i, t := range d.Threads {
		cpu := "-"
		if t.CPU >= 0 {
			cpu = strconv.Itoa(t.CPU)
		}
		rows = append(rows, row(fmt.Sprintf("T%d", i), cpu, t.Summary, t.Overruns))
	}
	if len(d.Threads) > 1 {
		rows = append(rows, row("all", "", d.Summary, d.Overruns))
	}
	report.Table(w, hdr, rows)
	if d.Overruns > 0 {
		c := d.CorrectedSummary
		fmt.Fprintf(w, "\n%d missed periods. Corrected for them (coordinated omission): p99 %s, p99.9 %s, max %s over %d wake-ups that should have happened\n",
			d.Overruns, units.Ns(c.P99), units.Ns(c.P999), units.Ns(c.Max), c.Count)
	} else {
		fmt.Fprintln(w, "\nno missed periods")
	}
	fmt.Fprintf(w, "tool overhead: clock read %s, %s %s (p50); interrupted waits %d\n",
		units.Ns(d.Overhead.ClockReadP50Ns), d.Overhead.ZeroWaitMethod, units.Ns(d.Overhead.ZeroWaitP50Ns), m.Interrupted)
	if l := interruptedLine(d.Counts, "wake-ups"); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, n := range doc.Notes {
		if n != probe.WakeWarmupNote && !strings.HasPrefix(n, "explain: tracefs") {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	if len(d.Explain) > 0 {
		printExplain(w, d)
	}
}

// printExplain prints each explained wake-up in the manner of rtla
// timerlat's auto-analysis, then the totals by cause and the next step.
func printExplain(w io.Writer, d *probe.WakeData) {
	us := func(ns int64) string {
		if ns < 0 {
			return "?"
		}
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	}
	pct := func(ns, of int64) string {
		if of <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%4.1f %%)", 100*float64(ns)/float64(of))
	}
	fmt.Fprintf(w, "\nwhy the worst %d wake-ups were late (what ran on the measured CPU between\nthe deadline and the thread's time stamp):\n", len(d.Explain))
	for i, x := range d.Explain {
		fmt.Fprintf(w, "\n#%d CPU %d at %.3f s: latency %s\n", i+1, x.CPU, x.AtS, us(x.LatencyNs))
		fmt.Fprintf(w, "  %-44s %12s\n", "timer interrupt latency (to hrtimer expiry):", us(x.TimerLatencyNs))
		fmt.Fprintf(w, "  %-44s %12s\n", "wake-up to running (sched_wakeup to switch):", us(x.WakeToRunNs))
		if x.WakeToRunNs >= 0 {
			fmt.Fprintf(w, "  %-44s %12s\n", "switch to time stamp:", us(x.SwitchToStampNs))
		}
		if len(x.Ran) > 0 {
			fmt.Fprintln(w, "  held the CPU:")
		}
		for j, r := range x.Ran {
			if j == 6 {
				fmt.Fprintf(w, "    (%d more in the document)\n", len(x.Ran)-j)
				break
			}
			fmt.Fprintf(w, "    %-42s %12s%s\n", report.Clip(ranName(r), 42), us(r.DurationNs), pct(r.DurationNs, x.LatencyNs))
		}
		if x.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", x.Note)
		}
		fmt.Fprintf(w, "  main cause: %s\n", x.Cause)
	}
	if len(d.ExplainTotals) > 0 {
		fmt.Fprintln(w, "\ntotals by cause over the explained wake-ups:")
		rows := [][]string{}
		for i, c := range d.ExplainTotals {
			if i == 10 {
				break
			}
			rows = append(rows, []string{c.Kind, report.Clip(c.Name, 34), strconv.Itoa(c.Wakeups), us(c.DurationNs)})
		}
		report.Table(w, []string{"kind", "name", "wake-ups", "total"}, rows)
	}
	if d.ExplainNext != "" {
		fmt.Fprintln(w)
		printWrapped(w, "next step: "+d.ExplainNext)
	}
}

// ranName is one line's subject: "thread stress:7016 (SCHED_OTHER, nice 0)".
func ranName(r explain.Ran) string {
	switch r.Kind {
	case explain.KindThread:
		p := ""
		switch {
		case r.Prio < 100:
			p = fmt.Sprintf("rt %d", 99-r.Prio)
		default:
			p = fmt.Sprintf("nice %d", r.Prio-120)
		}
		if r.Policy != "" {
			p = r.Policy + ", " + p
		}
		return fmt.Sprintf("thread %s:%d (%s)", r.Name, r.PID, p)
	case explain.KindIdle:
		return "idle"
	}
	s := r.Kind + " " + r.Name
	if r.Count > 1 {
		s += fmt.Sprintf(" x%d", r.Count)
	}
	return s
}
