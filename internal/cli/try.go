package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/try"
	"github.com/latlab/latlab/internal/units"
)

func init() { register(func(io *IO) *cobra.Command { return newTryCmd(io, nil) }) }

// TryOptions are the flags of `latlab try`.
type TryOptions struct {
	IO            *IO
	Knob          string   // the first argument
	Values        []string // the arguments after it
	Probe         string
	Blocks        int
	BlockDuration time.Duration
	Settle        time.Duration
	By            string
	Seed          uint64
	ExpectBetter  bool
	Keep          string
	DryRun        bool
	Restart       bool
	JSON          bool
	Out           string
	HTML          string
	StateDir      string
	Sel           knob.Selector

	// Probe flags.
	Duration  time.Duration
	Gap       time.Duration
	Method    string
	Interval  time.Duration
	Priority  string
	RTPrio    int
	CPUs      string
	To        string
	Profile   string
	Rate      float64
	Size      int
	Module    string
	Load      string
	Threshold time.Duration

	settings                       map[string]string
	changed                        func(flag string) bool
	settleSet, bySet, seedSet      bool
	rateSet, sizeSet, durationSet  bool
	intervalSet, gapSet, methodSet bool
	toSet, profileSet, moduleSet   bool
	loadSet, thresholdSet          bool
	command                        []string
	// try is what the flags ask of the experiment, set before the run.
	try try.Options
}

// newTryCmd builds latlab try. runF, when set, is given the options the
// arguments and flags map to instead of planning or running: the tests of
// the mapping.
func newTryCmd(io *IO, runF func(*TryOptions) error) *cobra.Command {
	o := &TryOptions{IO: io}
	methods := probe.SleepMethods()
	cmd := &cobra.Command{
		Use:         "try KNOB VALUE [VALUE...]",
		Annotations: map[string]string{negativeArgs: "values"},
		Short:       "a setting change as a randomized, reverted experiment with a verdict",
		Long: `Measures whether a setting helps: the current value (the baseline) and each
VALUE are the arms. The run is cut into --blocks rounds; each round runs every
arm once, for --block-duration, in a random order drawn from --seed. Before
each block latlab applies the arm's value (a system setting through the knob
journal, which records the original first), waits --settle, and runs the
probe; after the block it puts the original back. At the end the original
is in place (unless --keep best) and each VALUE gets a verdict against the
baseline at --by: the difference with a bootstrap interval and a
Mann-Whitney test over the samples, and a block test over the rounds (in how
many rounds the VALUE's block was lower), so that drift between blocks
cannot pass for an effect. Lower is better.

timer-slack (Linux) and timer-resolution (Windows) apply to latlab's own
measuring thread or process; other knobs apply system-wide, as
latlab knob set does. Knobs that take effect only after a reboot are
refused with the two runs that measure them by hand; rss,
interrupt-moderation, nic-buffers and nic-power-saving (Windows) need
--restart-adapter, which restarts the network adapter after each change
and each restore.

--probe dpcisr (Windows elevated, Linux root) traces every driver's DPCs
and ISRs (Linux: softirqs and hard interrupts) in each block, as latlab dpc
watch does. The module followed is --module or the one with the most DPC
(softirq) time; each VALUE is compared with the baseline as latlab dpcisr
compare does, in each section the module ran in (DPC, and ISR where it has
interrupts), with a block test per section, every value's and section's
tests Holm-adjusted together. The verdict says which section changed.

--probe noise spins a thread on each CPU of --cpus (default the last; a list
such as 2,3 or 2-5 takes several) in each block, as latlab noise does, and
counts the steps of at least --threshold between its clock reads: the
interruptions. The verdict is by rate (interruptions per second; --by rate,
the default): on each CPU, the counts of each arm's blocks pooled, an exact
Poisson rate test, and the block test over the blocks' rates. Over several
CPUs each VALUE gets a verdict per CPU, all Holm-adjusted together, and a
line that sums them up (better on 2 of 3 CPUs, worse on none). On one CPU,
--by p99 and the others compare the interruptions' lengths.

Ctrl-C stops the current block, restores the original and reports what was
measured, marked interrupted. A run killed outright leaves only journal
entries: latlab knob revert --all restores them, and the next try or
knob set says so.`,
		Example: `  latlab try timer-slack 1us --probe sleep
  latlab try win32-priority-separation 0x28 --probe sleep --dry-run
  latlab try win32-priority-separation 0x28 0x26 --blocks 12 --html try.html
  latlab try clocksource hpet --probe wake --by p99 -o try.json
  latlab try coalescing rx-usecs=0 --iface eth0 --probe udp --to 192.0.2.1:7
  latlab try interrupt-moderation off --adapter 7 --restart-adapter --probe dpcisr
  latlab try timer-migration 0 --probe noise --cpus 1 --blocks 10
  latlab try irq-affinity 0 --irq 24 --probe noise --cpus 2-3 --blocks 10`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			f := cmd.Flags()
			o.changed = f.Changed
			o.settleSet, o.bySet, o.seedSet = f.Changed("settle"), f.Changed("by"), f.Changed("seed")
			o.rateSet, o.sizeSet, o.durationSet = f.Changed("rate"), f.Changed("size"), f.Changed("sleep-length")
			o.intervalSet, o.gapSet, o.methodSet = f.Changed("interval"), f.Changed("gap"), f.Changed("method")
			o.toSet, o.profileSet, o.moduleSet = f.Changed("to"), f.Changed("profile"), f.Changed("module")
			o.loadSet, o.thresholdSet = f.Changed("load"), f.Changed("threshold")
			o.command = append([]string{"latlab", "try"}, args...)
			f.Visit(func(fl *pflag.Flag) {
				if isOldSpelling(fl) {
					return // its new name is visited too
				}
				o.command = append(o.command, "--"+fl.Name, fl.Value.String())
			})
			o.Knob, o.Values = args[0], args[1:]
			to, err := o.tryOptions(o.Knob, o.Values)
			if err != nil {
				return err
			}
			o.try = to
			if runF != nil {
				return runF(o)
			}
			return runTry(cmd.Context(), o)
		},
	}
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return try.LiveKnobs(), cobra.ShellCompDirectiveNoFileComp
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Probe, "probe", try.ProbeSleep, "what each block measures: sleep, wake, udp, dpcisr or noise")
	fs.IntVar(&o.Blocks, "blocks", try.DefaultBlocks, "blocks per arm (rounds)")
	durationFlag(fs, &o.BlockDuration, "block-duration", time.Second, "how long each block measures")
	durationFlagZero(fs, &o.Settle, "settle", try.DefaultSettle, "wait after applying a value (default: the knob's, 1s for most)")
	fs.Lookup("settle").DefValue = "" // the knob's, not the flag's 1s: help must not say "(default 1s)"
	fs.StringVar(&o.By, "by", "", "statistic of the verdict: p50, p90, p99, p99.9, mean; for noise also rate (default p99 for wake, rate for noise, p50 otherwise)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of the block order (default: a new one, printed so the run can be repeated)")
	fs.BoolVar(&o.ExpectBetter, "expect-better", false, "exit 1 unless every VALUE is significantly better than the baseline")
	fs.StringVar(&o.Keep, "keep", try.KeepNone, "at the end: none restores the original, best keeps the best VALUE if significantly better")
	fs.BoolVar(&o.Restart, "restart-adapter", false, "for the adapter knobs (rss, interrupt-moderation, nic-buffers, nic-power-saving; Windows): restart the network adapter after each change and each restore")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the plan (order, time, what would be written); change nothing")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind try) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	fs.StringVar(&o.HTML, "html", "", "write a self-contained HTML page: per-arm distributions and the blocks in run order")
	fs.StringVar(&o.StateDir, "state-dir", "", "where the journal lives (default %ProgramData%\\latlab or /var/lib/latlab)")
	selectorFlags(fs, &o.Sel, false)
	// The probe's own flags, as latlab sleep, wake and net udp name them.
	durationFlag(fs, &o.Duration, "sleep-length", time.Millisecond, "sleep probe: how long each sleep asks for")
	oldSpelling(fs, io.Err, "duration", "sleep-length", sleepLengthWhy)
	durationFlagZero(fs, &o.Gap, "gap", defaultSleepGap, "sleep probe: unmeasured pause between samples")
	fs.StringVar(&o.Method, "method", methods[0], "sleep probe: "+strings.Join(methods, ", "))
	durationFlag(fs, &o.Interval, "interval", time.Millisecond, "wake probe: wake-up period")
	priorityFlags(fs, &o.Priority, &o.RTPrio, "the measuring thread")
	cpusFlag(fs, &o.CPUs, "pin the measuring thread to this CPU, e.g. 2; noise probe: a spinning thread on each CPU listed, e.g. 2 or 2,3 or 2-5 (default: the last CPU)")
	oldSpelling(fs, io.Err, "cpu", "cpus", "")
	fs.StringVar(&o.To, "to", "", "udp probe: HOST:PORT of a UDP echo server (latlab net serve)")
	fs.StringVar(&o.Profile, "profile", "game", "udp probe: traffic profile: "+strings.Join(netload.Profiles(), ", "))
	fs.Float64Var(&o.Rate, "rate", 0, "udp probe: packets per second (overrides the profile's)")
	fs.IntVar(&o.Size, "size", 0, "udp probe: payload bytes (overrides the profile's)")
	fs.StringVar(&o.Module, "module", "", "dpcisr probe: the driver module whose DPCs and ISRs the verdict compares (default: most DPC time)")
	durationFlag(fs, &o.Threshold, "threshold", probe.DefaultNoiseThreshold, "noise probe: the shortest step between two clock reads counted as an interruption (osnoise's tracing_thresh)")
	fs.StringVar(&o.Load, "load", "", "dpcisr probe: traffic to latlab net serve at --to during each block: udp (--profile, --rate, --size) or tcp (a bulk stream to its discard port)")
	return cmd
}

// tryOptions maps the flags to try.Options.
func (o *TryOptions) tryOptions(name string, values []string) (try.Options, error) {
	to := try.Options{Knob: name, Values: values, Sel: o.Sel, Blocks: o.Blocks, BlockDuration: o.BlockDuration,
		Settle: -1, Keep: o.Keep, Root: o.IO.Root, StateDir: o.StateDir, Seed: o.Seed, RestartAdapter: o.Restart}
	if o.settleSet {
		to.Settle = o.Settle
	}
	if !o.seedSet {
		to.Seed = try.NewSeed()
	}
	if o.bySet && o.By == try.ByRate {
		to.ByRate, to.BySet = true, false
	} else if o.bySet {
		by, err := stats.ParseStatistic(o.By)
		if err != nil || by == stats.Stdev {
			return to, Usagef("invalid --by %q: accepted p50, p90, p99, p99.9 (any pN), mean, or rate for --probe noise", o.By)
		}
		to.By, to.BySet = by, true
	}
	if o.Blocks < 1 {
		return to, Usagef("invalid --blocks %d: accepted 1-%d blocks per arm", o.Blocks, try.MaxBlocks)
	}
	pin := o.CPUs
	if o.Probe == try.ProbeNoise {
		pin = "" // a thread on each CPU listed, read below
	}
	th, err := threadFromFlags(o.changed, o.Priority, o.RTPrio, pin, 0)
	if err != nil {
		return to, err
	}
	p := try.Probe{Kind: o.Probe}
	switch o.Probe {
	case try.ProbeSleep:
		p.Sleep = probe.SleepOptions{Duration: o.Duration, Gap: o.Gap, Method: o.Method, Thread: th}
	case try.ProbeWake:
		p.Wake = probe.WakeOptions{Interval: o.Interval, CPUs: []int{th.CPU}, Priority: th.Priority, RTPrio: th.RTPrio}
	case try.ProbeUDP:
		pr, err := netload.LookupProfile(o.Profile)
		if err != nil {
			return to, Usagef("invalid --profile: %v", err)
		}
		if o.rateSet {
			pr.RatePPS = o.Rate
		}
		if o.sizeSet {
			pr.Size = o.Size
		}
		p.UDP = netload.UDPOptions{To: o.To, RatePPS: pr.RatePPS, Size: pr.Size, DSCP: -1, Thread: &th}
	case try.ProbeDPCISR:
		p.Module = o.Module
		if o.Load != "" && o.Load != try.LoadUDP && o.Load != try.LoadTCP {
			return to, Usagef("invalid --load %q: accepted udp or tcp", o.Load)
		}
		p.Load = try.Load{Kind: o.Load, To: o.To}
		if o.Load == try.LoadUDP {
			pr, err := netload.LookupProfile(o.Profile)
			if err != nil {
				return to, Usagef("invalid --profile: %v", err)
			}
			p.Load.Profile = pr.Override(rateIf(o.rateSet, o.Rate), sizeIf(o.sizeSet, o.Size))
		}
	case try.ProbeNoise:
		cpus := []int{sched.NumCPU() - 1} // as latlab noise: the last CPU
		if o.CPUs != "" {
			if cpus, err = sched.ParseCPUList(o.CPUs, sched.NumCPU()); err != nil {
				return to, Usagef("invalid --cpus: %v", err)
			}
		}
		p.Noise = probe.NoiseOptions{Threshold: o.Threshold, CPUs: cpus, Priority: th.Priority, RTPrio: th.RTPrio}
	default: // try refuses it, naming the probes it accepts
		to.Probe = p
		return to, nil
	}
	// Each probe's own flags belong to it alone.
	var foreign []string
	for _, f := range []struct {
		set         bool
		name, probe string
	}{
		{o.durationSet, "sleep-length", try.ProbeSleep}, {o.gapSet, "gap", try.ProbeSleep}, {o.methodSet, "method", try.ProbeSleep},
		{o.intervalSet, "interval", try.ProbeWake},
		{o.toSet, "to", try.ProbeUDP}, {o.profileSet, "profile", try.ProbeUDP}, {o.rateSet, "rate", try.ProbeUDP}, {o.sizeSet, "size", try.ProbeUDP},
		{o.moduleSet, "module", try.ProbeDPCISR}, {o.loadSet, "load", try.ProbeDPCISR},
		{o.thresholdSet, "threshold", try.ProbeNoise},
	} {
		// A dpcisr probe's load takes the udp probe's traffic flags:
		// --to and, for a udp load, the profile.
		loadFlag := o.Probe == try.ProbeDPCISR && (o.Load == try.LoadUDP && f.probe == try.ProbeUDP || o.Load == try.LoadTCP && f.name == "to")
		if f.set && f.probe != o.Probe && !loadFlag {
			foreign = append(foreign, "--"+f.name)
		}
	}
	if len(foreign) > 0 {
		return to, Usagef("%s do(es) not go with --probe %s", strings.Join(foreign, ", "), o.Probe)
	}
	to.Probe = p
	to.Command = knob.CommandLine(o.command)
	return to, nil
}

func runTry(ctx context.Context, o *TryOptions) error {
	to := o.try
	o.settings["knob"], o.settings["values"] = o.Knob, strings.Join(o.Values, " ")
	o.settings["seed"] = fmt.Sprint(to.Seed)
	if o.DryRun {
		res, err := try.Plan(to)
		if err != nil {
			return tryErr(err)
		}
		o.settings["settle"] = units.Duration(time.Duration(res.SettleNs))
		if o.JSON {
			doc := try.Kind.New(host.Collect(), &try.Data{Result: *res})
			doc.Settings = o.settings
			doc.Notes = append([]string{"dry run: the plan only; nothing was measured or changed"}, res.Notes...)
			return result.Write(o.IO.Out, doc)
		}
		report.TryPlan(o.IO.Out, res, o.Out, o.HTML)
		return nil
	}
	plan, err := try.Plan(to) // bad input before any file is created
	if err != nil {
		return tryErr(err)
	}
	// The settle the run uses (the knob's unless --settle was given) is
	// the one the document's settings record, not the flag's default.
	o.settings["settle"] = units.Duration(time.Duration(plan.SettleNs))
	for _, p := range []string{o.Out, o.HTML} {
		if p != "" {
			if err := checkWritable(p); err != nil {
				return err
			}
		}
	}
	// What would make the run useless is said before the wait, not
	// after it: too few blocks for any verdict, a probe that does not
	// show what the knob changes.
	report.TryPlanWarnings(o.IO.Err, plan)
	stop := progressLine(o.IO, "try", time.Duration(plan.EstimateNs))
	to.Progress = func(e try.Event) {
		if e.Done || o.IO.progressForce || isTerminal(o.IO.Err) {
			return // the progress line shows it
		}
		fmt.Fprintf(o.IO.Err, "block %d/%d: %s\n", e.Block.Index+1, e.Total, e.Arm)
	}
	res, runErr := try.Run(ctx, to)
	stop()
	if res == nil {
		return tryErr(runErr)
	}
	doc, err := try.Document(host.Collect(), res, o.settings)
	if err != nil {
		return err
	}
	if o.HTML != "" {
		if err := writeTryHTML(o.HTML, doc); err != nil {
			return err
		}
		wrote(o.IO, o.HTML)
	}
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.Try(w, res) }); err != nil {
		return err
	}
	if runErr != nil {
		return tryErr(runErr)
	}
	if o.ExpectBetter {
		var not []string
		for _, a := range res.Arms[1:] {
			if a.Verdict == nil || a.Verdict.Outcome != try.Better {
				out := "not measured"
				if a.Verdict != nil {
					out = string(a.Verdict.Outcome)
				}
				not = append(not, fmt.Sprintf("%s: %s", a.Label, out))
			}
		}
		if len(not) > 0 {
			return &ExpectationError{Msg: fmt.Sprintf("expected every value to be significantly better than the baseline at %s: %s", res.By, strings.Join(not, "; "))}
		}
	}
	return nil
}

func tryErr(err error) error {
	if badinput.Is(err) {
		return Usage(err)
	}
	return err
}

// writeTryHTML writes the report page of one try document.
func writeTryHTML(path string, doc *result.Document) error {
	r, err := report.BuildReport([]report.ReportInput{{Label: "latlab try " + doc.Settings["knob"], Doc: doc}}, "latlab try")
	if err != nil {
		return err
	}
	return writeFileWith(path, r.WriteHTML)
}

func rateIf(set bool, v float64) *float64 {
	if !set {
		return nil
	}
	return &v
}

func sizeIf(set bool, v int) *int {
	if !set {
		return nil
	}
	return &v
}
