package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(func(io *IO) *cobra.Command { return newSweepCmd(io, nil) }) }

// SweepOptions are the flags of `latlab sweep`.
type SweepOptions struct {
	IO            *IO
	From, To      time.Duration
	Step          time.Duration
	PerDecade     int
	Reference     time.Duration
	Samples       int
	Duration      time.Duration
	Method        string
	Gap           time.Duration
	Settle        time.Duration
	Order         string
	Repeat        int
	Seed          uint64
	Mode          string
	Load          int
	RankBy        string
	Priority      string
	RTPrio        int
	CPUs          string
	CSV           string
	Plot          string
	JSON          bool
	Out           string
	DryRun        bool
	stepSet       bool
	perDecadeSet  bool
	settings      map[string]string
	changed       func(flag string) bool
	progressForce bool // tests: draw the progress bar on a non-terminal
	// plan is what the flags ask for, set by planSweep before the run.
	plan *sweepPlan
}

// newSweepCmd builds latlab sweep. runF, when set, is given the options
// the flags map to (with the plan checked) instead of sweeping: the tests
// of the mapping.
func newSweepCmd(io *IO, runF func(*SweepOptions) error) *cobra.Command {
	o := &SweepOptions{IO: io}
	methods := probe.SleepMethods()
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "micro-adjust: measure sleep overshoot over a range of " + sweep.What + " requests and rank them",
		Long: `For each value from --from to --to (linear --step, or --steps-per-decade
logarithmic steps) latlab requests that ` + sweep.What + `, waits --settle, and
measures --samples sleeps of --sleep-length. Steps run in random order in each
of --repeat passes (so drift over time does not masquerade as an effect). Each
step's overshoot (slept - requested) is summarised. Requests the OS granted
the same value are one treatment (Windows snaps requests to hardware steps):
their samples are pooled and they are ranked as one. Treatments are ranked by
--rank-by with bootstrap 95% CIs, and the best is compared with the default
choice (--reference: 0.5ms on Windows, the 50us default slack on Linux), which
is always measured. It is called distinguishable only when a Mann-Whitney test
(Holm-adjusted over all treatments) and the Bonferroni-adjusted interval of
the difference agree, with enough samples for the statistic, so neither one
lucky treatment among many nor one outlier makes a winner. Within a pass a
step's sleeps are consecutive, and a burst of interference delays several in
a row: when a treatment's or the default's samples in measurement order are
measurably dependent (lag-1 autocorrelation above 3/sqrt(n)), the interval is
a moving-block bootstrap and the Mann-Whitney test uses the long-run variance,
and the output says so.

--mode inprocess (default): this process makes each request (Windows: held
for --settle, then measured; Linux: the slack of the measuring thread).
--mode separate: a child 'latlab timer set R' holds each request while this
process, requesting nothing, measures: the micro-adjust-benchmark.ps1 method.
The child reports its grant before measuring starts. On Windows 10 2004 and
later it only works with GlobalTimerResolutionRequests=1 (Windows 11 /
Server 2022); on Linux slack is per thread, so it is a control.

--load N runs N busy threads during the sweep: rank under load, idle sweeps
mislead. --csv writes micro-adjust-benchmark.ps1's columns first.

` + strings.Join(textwrap.Hanging("Ranking: "+sweep.RankingReason+".", 0, 78), "\n") + `

` + strings.Join(textwrap.Hanging(sweep.PopulationFindings+".", 0, 78), "\n"),
		Example: `  latlab sweep                                     # the research's 0.5-0.8ms micro-adjust (Windows)
  latlab sweep --from 0.5ms --to 0.52ms --step 0.0002ms --samples 200 --load 2 --csv sweep.csv --plot sweep.svg
  latlab sweep --from 1ns --to 100us --steps-per-decade 4 --json > slack.json   # Linux timer slack`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			o.changed = cmd.Flags().Changed
			o.stepSet = cmd.Flags().Changed("step")
			o.perDecadeSet = cmd.Flags().Changed("steps-per-decade")
			pl, err := planSweep(o)
			if err != nil {
				return err
			}
			o.plan = pl
			if runF != nil {
				return runF(o)
			}
			return runSweep(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.From, "from", sweep.DefaultFrom, "first value to request")
	durationFlag(fs, &o.To, "to", sweep.DefaultTo, "last value to request")
	durationFlagZero(fs, &o.Step, "step", sweep.DefaultStep, "linear step between requests")
	fs.IntVar(&o.PerDecade, "steps-per-decade", sweep.DefaultPerDecade, "logarithmic steps per factor of ten, instead of the linear --step")
	durationFlag(fs, &o.Reference, "reference", sweep.DefaultReference, "the default choice the best step is compared with (always measured)")
	fs.IntVar(&o.Samples, "samples", 50, "sleeps measured per step and pass")
	durationFlag(fs, &o.Duration, "sleep-length", time.Millisecond, "how long each sleep measured asks for")
	oldSpelling(fs, io.Err, "duration", "sleep-length", sleepLengthWhy)
	fs.StringVar(&o.Method, "method", methods[0], "sleep primitive: "+strings.Join(methods, ", "))
	durationFlagZero(fs, &o.Gap, "gap", 2*time.Millisecond, "unmeasured pause between samples")
	durationFlagZero(fs, &o.Settle, "settle", sweep.DefaultSettle, "wait after each request before measuring")
	fs.StringVar(&o.Order, "order", "random", "step order in each pass: random or ascending")
	fs.IntVar(&o.Repeat, "repeat", 1, "passes over all steps")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed for the random order and the bootstrap (default: a new one, recorded and printed so the run can be repeated)")
	fs.StringVar(&o.Mode, "mode", "inprocess", "who holds each request: inprocess or separate")
	fs.IntVar(&o.Load, "load", 0, "busy-loop threads running during the sweep")
	fs.StringVar(&o.RankBy, "rank-by", "mean", "statistic of the overshoot to rank by: mean, p50, p99, stdev (ties by stdev)")
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the measuring thread")
	cpusFlag(fs, &o.CPUs, pinHelp)
	oldSpelling(fs, io.Err, "cpu", "cpus", "")
	fs.StringVar(&o.CSV, "csv", "", "write one row per step (micro-adjust-benchmark.ps1 columns first)")
	fs.StringVar(&o.Plot, "plot", "", "write a plot of overshoot vs request (FILE.svg or FILE.png)")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind sweep) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the plan and the run-time estimate, measure nothing")
	return cmd
}

type sweepPlan struct {
	opts     sweep.Options
	logSteps bool
	estim    time.Duration
	warning  string
}

func planSweep(o *SweepOptions) (*sweepPlan, error) {
	var steps []time.Duration
	var err error
	if o.DryRun && o.JSON {
		// the plan is text; --json was dropped without a word, and stdout
		// had text where a document was asked for
		return nil, Usagef("--dry-run prints the plan as text, not a result document: drop --json")
	}
	logSteps := o.PerDecade > 0
	if o.perDecadeSet && o.PerDecade <= 0 {
		return nil, Usagef("--steps-per-decade %d gives zero steps: want 1 or more", o.PerDecade)
	}
	if o.stepSet && o.perDecadeSet {
		return nil, Usagef("give either --step or --steps-per-decade, not both")
	}
	if o.stepSet {
		logSteps = false
	}
	if logSteps {
		steps, err = sweep.LogSteps(o.From, o.To, o.PerDecade, sweep.Quantum)
	} else {
		steps, err = sweep.LinearSteps(o.From, o.To, o.Step, sweep.Quantum)
	}
	if err != nil {
		return nil, Usage(err)
	}
	steps, ref := sweep.WithReference(steps, o.Reference)
	if o.Order != "random" && o.Order != "ascending" {
		return nil, Usagef("invalid --order %q: accepted random or ascending", o.Order)
	}
	mode := sweep.Mode(o.Mode)
	rankBy, err := stats.ParseStatistic(o.RankBy)
	if err != nil {
		return nil, Usagef("invalid --rank-by: %v", err)
	}
	th, err := threadFromFlags(o.changed, o.Priority, o.RTPrio, o.CPUs, 0)
	if err != nil {
		return nil, err
	}
	opts := sweep.Options{
		Steps: steps, Reference: ref, Samples: o.Samples, Duration: o.Duration, Method: o.Method, Gap: o.Gap,
		Settle: o.Settle, Random: o.Order == "random", Repeat: o.Repeat, Seed: o.Seed, Mode: mode, Load: o.Load, Thread: th,
		RankBy: rankBy, LogSteps: logSteps,
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if o.Plot != "" {
		if _, err := report.PlotFormat(o.Plot); err != nil {
			return nil, Usage(err)
		}
	}
	// A seed given is used as given, 0 included, as try's and compare's
	// are (0 once meant "from the clock" here alone).
	seed, given := o.Seed, o.Seed != 0 // options built without flags: a seed is one given
	if o.changed != nil {
		given = o.changed("seed")
	}
	if !given {
		seed = uint64(time.Now().UnixNano())
	}
	opts.Seed = seed
	pl := &sweepPlan{logSteps: logSteps, opts: opts}
	pl.estim = pl.opts.Estimate()
	if mode == sweep.Separate {
		pl.opts.Holder = holdInChild
		if note, cannot := sweep.SeparateModeNote(); note != "" && cannot {
			pl.warning = note
		}
	}
	return pl, nil
}

func runSweep(ctx context.Context, o *SweepOptions) error {
	pl := o.plan
	for _, f := range []string{o.CSV, o.Out, o.Plot} {
		if f != "" {
			if err := checkWritable(f); err != nil {
				return err
			}
		}
	}
	so := pl.opts
	errProse(o.IO.Err, func(w io.Writer) {
		fmt.Fprintf(w, "latlab sweep: %d %s values x %d pass(es) x %d samples of %s(%s), settle %s, %s order, mode %s: estimated %s\n",
			len(so.Steps), sweep.What, so.Repeat, so.Samples, so.Method, units.Duration(so.Duration), units.Duration(so.Settle), o.Order, so.Mode,
			units.Duration(pl.estim.Round(time.Millisecond)))
		if pl.warning != "" {
			fmt.Fprintf(w, "warning: %s\n", pl.warning)
		}
	})
	if o.DryRun {
		var vs []string
		for _, s := range so.Steps {
			vs = append(vs, units.Request(s.Nanoseconds()))
		}
		fmt.Fprintf(o.IO.Out, "steps: %s\nreference: %s\n", strings.Join(vs, " "), units.Request(so.Steps[so.Reference].Nanoseconds()))
		// What the run would write, as try's plan says: a dry run writes
		// none of it.
		for _, f := range []struct{ path, what string }{{o.Out, "the result document (-o)"}, {o.CSV, "one row per step (--csv)"}, {o.Plot, "the plot (--plot)"}} {
			if f.path != "" {
				fmt.Fprintf(o.IO.Out, "would write %s: %s\n", f.path, f.what)
			}
		}
		return nil
	}
	var bar *progressbar.ProgressBar
	if o.progressForce || isTerminal(o.IO.Err) {
		bar = progressbar.NewOptions(len(so.Steps)*so.Repeat,
			progressbar.OptionSetWriter(o.IO.Err), progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(200*time.Millisecond))
		so.Progress = func(done, total int) { _ = bar.Set(done) }
	}
	res, err := sweep.Run(ctx, so)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		if ctx.Err() != nil {
			if res != nil {
				humanOut(o.IO.Out, func(w io.Writer) { report.SweepInterrupted(w, res) })
			}
			return fmt.Errorf("sweep interrupted: %w", err)
		}
		return fmt.Errorf("sweep: %w", err)
	}
	doc := res.Document(host.Collect())
	doc.Settings = o.settings
	doc.Settings["seed"] = fmt.Sprint(res.Seed)
	if o.CSV != "" {
		if err := writeFileWith(o.CSV, func(w io.Writer) error { return sweep.WriteCSV(w, res) }); err != nil {
			return err
		}
		wrote(o.IO, o.CSV)
	}
	if o.Plot != "" {
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.SweepPlot(res, format) }); err != nil {
			return err
		}
		wrote(o.IO, o.Plot)
	}
	return emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Sweep(w, res) })
}
