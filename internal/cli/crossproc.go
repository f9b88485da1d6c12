package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/lazy"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(func(io *IO) *cobra.Command { return newCrossprocCmd(io, nil) }) }

// CrossprocOptions are the flags of `latlab crossproc`.
type CrossprocOptions struct {
	IO       *IO
	Periods  string
	Hold     time.Duration
	Settle   time.Duration
	Duration time.Duration
	Method   string
	Plot     string
	JSON     bool
	Out      string
	Child    bool

	settings map[string]string
	periods  []time.Duration // --periods, parsed by validate
}

// newCrossprocCmd builds latlab crossproc. runF, when set, is given the
// options the flags map to instead of running: the tests of the mapping.
func newCrossprocCmd(io *IO, runF func(*CrossprocOptions) error) *cobra.Command {
	o := &CrossprocOptions{IO: io}
	methods := probe.SleepMethods()
	cmd := &cobra.Command{
		Use:   "crossproc",
		Short: "does another process's timer request change this one's sleeps? (Bruce Dawson's experiment)",
		Long: `Starts a child latlab that requests, in turn, each of --periods (whole ms:
timeBeginPeriod(i) on Windows, its own timer slack on Linux) and holds it for
--hold, reporting each change over a pipe. This process requests nothing and,
during each hold, measures its own sleep of --sleep-length (Sleep(1) on
Windows), and on Windows NtQueryTimerResolution's current interval and the
granularity of its own timeGetTime. A first hold with no request gives the
baseline.

Each hold's median is compared with two expected curves: global (the sleep
follows the other process's interval: before Windows 10 2004, or with
GlobalTimerResolutionRequests=1 on Windows 11 / Server 2022) and isolated
(Windows 10 2004 and later: a process that asked for nothing imitates the
default 15.625 ms with whole intervals of the faster clock, as measured: 12 ms
at 6 ms, 14 ms at 7 ms, 8 or 16 ms at 8 ms). On Linux timer slack is per
thread, so the expected answer is isolated. Every sleep is kept in the
document and drawn in the plot.`,
		Example: `  latlab crossproc
  latlab crossproc --periods 1,2,5,10,15 --hold 2s --plot crossproc.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if o.Child {
				return runCrossprocChild(o)
			}
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runCrossproc(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Periods, "periods", "1-15", "what the other process requests, in whole ms: a list such as 1-15 or 1,2,5,10 (requested in ascending order)")
	durationFlag(fs, &o.Hold, "hold", 4*time.Second, "how long each request is held and measured")
	durationFlagZero(fs, &o.Settle, "settle", 100*time.Millisecond, "wait after the other process reports its request, before measuring")
	durationFlag(fs, &o.Duration, "sleep-length", time.Millisecond, "how long each sleep measured in this process asks for")
	oldSpelling(fs, io.Err, "duration", "sleep-length", sleepLengthWhy)
	fs.StringVar(&o.Method, "method", methods[0], "sleep primitive: "+strings.Join(methods, ", "))
	fs.StringVar(&o.Plot, "plot", "", "write a plot of this process's sleep vs the other's request (FILE.svg or FILE.png)")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind crossproc) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.BoolVar(&o.Child, "child", false, "run as the requesting child (reads 'set NS' / 'release' lines on stdin)")
	_ = fs.MarkHidden("child")
	return cmd
}

// msSuffix matches the optional "ms" after a number in --periods.
var msSuffix = lazy.Regexp(`(\d)ms\b`)

// Bounds of --periods: whole milliseconds timeBeginPeriod accepts, and a
// count that keeps a run within a few minutes per second of --hold.
const (
	maxPeriodMs = 1000
	maxPeriods  = 200
)

// maxHold bounds --hold. A hold keeps every sleep it measured in memory
// (a sorted copy too, for its percentiles): 10 minutes of 1 ms sleeps
// are 600,000, of the shortest sleeps Linux gives (about 60 µs each) 10
// million, 160 MB. A timer request takes effect within a tick, so a
// longer hold measures nothing new; with 200 periods a run of 10-minute
// holds already takes 33 hours.
const maxHold = 10 * time.Minute

// parsePeriods reads "1-15" or "1,2,5,10" (whole milliseconds, each number
// optionally followed by ms): the list syntax of CPU lists. The periods
// come back ascending without duplicates, the order they are requested in.
func parsePeriods(s string) ([]time.Duration, error) {
	bad := func(what string) error {
		return Usagef("invalid --periods %q%s: want whole milliseconds 1-%d as a list or range, e.g. 1-15 or 1,2,5,10", s, what, maxPeriodMs)
	}
	ms, err := cpuset.ParseList(msSuffix().ReplaceAllString(s, "$1"))
	if err != nil || len(ms) == 0 {
		return nil, bad("")
	}
	if ms[0] < 1 {
		return nil, bad(fmt.Sprintf(" at %d", ms[0]))
	}
	if last := ms[len(ms)-1]; last > maxPeriodMs {
		return nil, bad(fmt.Sprintf(" at %d", last))
	}
	if len(ms) > maxPeriods {
		return nil, Usagef("invalid --periods %q: %d periods, at most %d are accepted", s, len(ms), maxPeriods)
	}
	out := make([]time.Duration, len(ms))
	for i, v := range ms {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out, nil
}

func runCrossprocChild(o *CrossprocOptions) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: on Linux the slack belongs to this thread
		errc <- crossproc.Serve(o.IO.In, o.IO.Out)
	}()
	return <-errc
}

// crossprocThread is the measuring thread: unpinned, normal priority.
var crossprocThread = probe.Thread{CPU: -1}

// validate checks the flags before anything runs.
func (o *CrossprocOptions) validate() error {
	periods, err := parsePeriods(o.Periods)
	if err != nil {
		return err
	}
	po := probe.SleepOptions{Duration: o.Duration, Method: o.Method, Thread: crossprocThread}
	if err := po.Validate(); err != nil {
		return Usage(err)
	}
	if o.Hold > maxHold {
		return Usagef("invalid --hold %s: accepted up to %s (each hold keeps its sleeps in memory)", units.FlagDuration(o.Hold), units.FlagDuration(maxHold))
	}
	if o.Settle >= o.Hold {
		return Usagef("--settle %s must be shorter than --hold %s", units.Duration(o.Settle), units.Duration(o.Hold))
	}
	if o.Plot != "" {
		if _, err := report.PlotFormat(o.Plot); err != nil {
			return Usage(err)
		}
	}
	o.periods = periods
	return nil
}

func runCrossproc(ctx context.Context, o *CrossprocOptions) error {
	periods := o.periods
	for _, p := range []string{o.Plot, o.Out} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	// The plan, wrapped to stderr's width as sweep's is: at --hold 300ms
	// it was 83 columns.
	errProse(o.IO.Err, func(w io.Writer) {
		fmt.Fprintf(w, "latlab crossproc: baseline + %d requests by another process, %s each: about %s\n",
			len(periods), units.Duration(o.Hold), units.Duration(time.Duration(len(periods)+1)*o.Hold))
	})
	cmd, err := latlabCommand(context.WithoutCancel(ctx), "crossproc", "--child")
	if err != nil {
		return err
	}
	copt := crossproc.Options{Requester: cmd, Periods: periods, Hold: o.Hold, Settle: o.Settle, Duration: o.Duration, Method: o.Method, Thread: crossprocThread}
	if isTerminal(o.IO.Err) {
		bar := progressbar.NewOptions(len(periods)+1, progressbar.OptionSetWriter(o.IO.Err), progressbar.OptionSetDescription("crossproc"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		copt.Progress = func(done, total int) { _ = bar.Set(done) }
		defer bar.Finish()
	}
	res, err := crossproc.Run(ctx, copt)
	if err != nil {
		if res != nil && ctx.Err() != nil {
			humanOut(o.IO.Out, func(w io.Writer) { report.CrossprocInterrupted(w, res) })
		}
		return err
	}
	doc := res.Document(host.Collect())
	doc.Settings = o.settings
	delete(doc.Settings, "child")
	if o.Plot != "" {
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.CrossprocPlot(res, format) }); err != nil {
			return err
		}
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Crossproc(w, res) })
}
