package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/try"
)

func init() { register(func(io *IO) *cobra.Command { return newCompareCmd(io, nil) }) }

// CompareOptions are the flags of `latlab compare`.
type CompareOptions struct {
	IO           *IO
	Files        []string
	By           string
	Seed         uint64
	Detect       float64
	ExpectBetter string
	JSON         bool
	Out          string

	settings    map[string]string
	detectAsked bool
}

// newCompareCmd builds latlab compare. runF, when set, is given the
// options the arguments and flags map to instead of comparing: the tests
// of the mapping.
func newCompareCmd(io *IO, runF func(*CompareOptions) error) *cobra.Command {
	o := &CompareOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "compare A B [more ...]",
		Short: "say with statistics whether results differ (bootstrap CIs, Mann-Whitney, KS)",
		Long: `Compares results of the same kind (sleep or wake) with statistics: for each of
p50, p90, p99 (p99.9 with 1000+ samples) and the mean, the difference B - A with
a percentile-bootstrap 95% confidence interval (seeded: the same --seed gives
the same interval), the Mann-Whitney U test, the Kolmogorov-Smirnov distance,
and a one-line verdict on the --by statistic. When nothing is detected it
says how many more samples would detect a --detect change (5% by default).

Successive samples of a run are rarely independent (the machine's state
drifts; a burst of interference delays several in a row). Where a result
keeps its samples in the order measured (sleep, wake, noise, udp), compare
measures each run's lag-1 autocorrelation and effective sample size, and for a
run whose lag-1 autocorrelation exceeds 3/sqrt(n) it resamples blocks of
consecutive samples (moving-block bootstrap), takes the Mann-Whitney variance
from the long-run variance and the Kolmogorov-Smirnov p-value from a multiplier
bootstrap over the same blocks, so that dependence does not make a difference
look significant. Values rebuilt from a histogram have no order:
compared as independent samples.

With more than two files each is compared with the first, the runs are ranked
by --by (ties by stdev), intervals are Bonferroni-adjusted so that all hold
together at 95%, and Mann-Whitney p-values are Holm-adjusted.

A side with fewer than 20 samples (or, for a percentile, fewer than make its
interval end on an observed sample: 368 for p99) gets no verdict, and
--expect-better then fails.

tcp-discard results are compared run by run: each transfer's duration and
goodput, with repeated runs of a side given as a directory of results or a
comma-separated list (20 runs per side for a verdict); the RTT samples inside
one transfer are not pooled.

noise results (of the same --threshold and CPUs) are compared CPU by CPU: the
rate of interruptions over each thread's runtime by the exact test of two
Poisson rates (B's rate over A's with its exact interval), the interruptions'
lengths as samples are above (--by; 20 interruptions per run for a verdict,
368 for p99), and the share of the CPU available side by side.

A try result given alone is compared arm by arm (try.json[VALUE], the baseline
first), each arm its complete blocks pooled, as results of the try's probe:
samples as above, a noise try's CPUs as noise results, a dpcisr try's reports
as latlab dpcisr compare compares them (chi-squared over the buckets, the
p-values Holm-adjusted across the sections, for the module the try followed).
A note quotes the try's own verdicts, which also ask its rounds to agree.

A file that is not JSON is read as a cyclictest histogram (cyclictest -h,
-H, --histfile; latlab wake --histfile): one run of wake-up latency, its
thread columns pooled (-H's sum column left out), each sample at the middle
of its 1 µs bucket. It keeps no order, so it is compared as independent
samples, which a cyclictest run's wake-ups often are not: its intervals may
be too narrow. Overflows (at or above the histogram's range) have no value:
values at or above the smallest such range are unknown in every run, and a
statistic that reaches them (any mean; a percentile that falls among them)
is shown as "?" with why. A histogram is compared with wake results (their
values put in the same buckets) or other histograms; it records neither
cyclictest's -i nor its priority, and compare says so. Histograms are
compared from their buckets, never expanded, whatever their count, alone
or against wake results (whose raw samples keep their serial analysis; a
wake result without raw samples is counted from its histogram too).

rtla timerlat hist output (its "# RTLA timerlat histogram" header told
apart) is read as such a histogram of its Thr columns, the timerlat
thread's wake-up latency, its CPUs pooled; its IRQ and Usr columns are not
compared. Its buckets must be 1 µs (-b 1, the default), or with -n buckets
that divide 1000 ns.

rtla osnoise hist output ("# RTLA osnoise histogram") is compared with noise
results or other such files, CPU by CPU: the lengths of its noise
occurrences (each a step of at least its threshold between two time reads,
as latlab noise's interruptions), in the same 1 µs buckets; not their rate,
as the file records no runtime.

Percentiles are nearest-rank (values that occurred). Lower is better.`,
		Example: `  latlab compare before.json after.json
  latlab compare r0500.json r0507.json --by p99
  latlab compare base.json cand*.json --expect-better cand3.json
  latlab compare before/ after/          # tcp-discard: a directory of runs per side
  latlab compare try.json                # the arms of a try
  latlab compare rt.hist nort.hist       # cyclictest -h outputs
  latlab compare before.rtla after.rtla  # rtla timerlat hist outputs
  latlab compare noise.json osnoise.rtla # latlab noise against rtla osnoise hist`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.settings = settingsOf(cmd.Flags())
			o.detectAsked = cmd.Flags().Changed("detect")
			if err := o.runOptions().Validate(); err != nil {
				return Usage(err)
			}
			if runF != nil {
				return runF(o)
			}
			return runCompare(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.By, "by", "p50", "statistic for the verdict and ranking: p50, p90, p99, p99.9, mean")
	fs.Uint64Var(&o.Seed, "seed", 1, "bootstrap seed (same seed, same intervals)")
	fs.Float64Var(&o.Detect, "detect", 0.05, "relative change the sample-size advice is for (0.05 = 5%)")
	fs.StringVar(&o.ExpectBetter, "expect-better", "", "exit 1 unless this file is significantly better (lower --by) than the first")
	fs.BoolVar(&o.JSON, "json", false, "write the comparison as a result document (kind compare)")
	fs.StringVarP(&o.Out, "output", "o", "", outputHelp)
	return cmd
}

// runOptions maps the flags to compare.Run's options.
func (o *CompareOptions) runOptions() compare.RunOptions {
	return compare.RunOptions{
		Files: o.Files, By: o.By, Seed: o.Seed, Detect: o.Detect, DetectAsked: o.detectAsked, ExpectBetter: o.ExpectBetter,
		// A try result stands for its arms.
		Arms: map[string]compare.Arms{try.Kind.Name(): try.CompareInputs},
	}
}

func runCompare(ctx context.Context, o *CompareOptions) error {
	res, err := compare.Run(ctx, o.runOptions())
	if err != nil {
		if badinput.Is(err) {
			return Usage(err)
		}
		return err
	}
	doc := compare.Kind.New(host.Collect(), res)
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, res.Notes...)
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { report.CompareText(w, res) }); err != nil {
		return err
	}
	if met, why := res.Expectation(); !met {
		return &ExpectationError{Msg: why}
	}
	return nil
}
