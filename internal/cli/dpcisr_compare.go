package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
)

// DPCISRCompareOptions are the flags of `latlab dpcisr compare`.
type DPCISRCompareOptions struct {
	IO     *IO
	Files  []string
	Module string
	Labels []string
	Plot   string
	JSON   bool

	settings map[string]string
}

// newDPCISRCompareCmd builds latlab dpcisr compare. runF, when set, is
// given the options the arguments and flags map to instead of comparing:
// the tests of the mapping.
func newDPCISRCompareCmd(io *IO, runF func(*DPCISRCompareOptions) error) *cobra.Command {
	o := &DPCISRCompareOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "compare A.txt B.txt [C.txt ...]",
		Short: "compare DPC/ISR execution-time distributions between reports",
		Long: `Compares DPC/ISR reports taken under different settings (interrupt
moderation Extreme vs Off, NetworkThrottlingIndex on vs off, ...), section by
section: the distributions side by side, the cumulative share at or below 1, 2,
4, 8 and 16 µs with the difference from the first report in percentage points,
and Pearson's chi-squared test of homogeneity on the bucket counts. A report is
xperf's text ('xperf -a dpcisr') or the JSON document of 'latlab dpc watch' or
'latlab dpcisr capture'; both use xperf's buckets, so they compare freely.
LatencyMon reports compare with one another, over LatencyMon's buckets, with the
share below 250, 500, 1000, 2000 and 4000 µs; a LatencyMon report beside an
xperf report or a trace is refused (exit 2): their buckets overlap.

Before the test, adjacent buckets are pooled from the short end until every
expected count is at least 5 (sparse tails otherwise break the test's
approximation); the pooled ranges are printed. With --module the module's blocks
are compared (several blocks of one section are added together); without it,
the histogram over all modules (or, when a file has none, the sum of its module
blocks).

The verdict names the direction only when the chi-squared test rejects equal
distributions at the 5% level, on its p Holm-adjusted across the sections
tested (DPC and ISR are two tests): "faster" means a larger share of executions
at or below every bucket bound. Cramér's V says how big the difference is: with
tens of thousands of DPCs even a negligible difference is "significant".

Without --module, .etl traces' hard page faults (or a watch's) are set side by
side per process image (a pid is another process in another trace): faults,
bytes read, time waited and the longest fault per report, counts and sums with
no test. When only some reports have them, one line says which.`,
		Example: `  latlab dpcisr compare extreme.txt off.txt --labels Extreme,Off --module ndis.sys
  latlab dpcisr compare a.txt b.txt c.txt --plot cdf.svg
  latlab dpcisr compare before.txt after.txt --json`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runDPCISRCompare(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Module, "module", "", "compare this module (case-insensitive); default: all modules")
	fs.StringSliceVar(&o.Labels, "labels", nil, "names of the reports, in order (default: file names)")
	fs.StringVar(&o.Plot, "plot", "", "write a CDF comparison plot to this .svg or .png file")
	fs.BoolVar(&o.JSON, "json", false, "write the comparison as JSON")
	return cmd
}

// compareOptions maps the arguments and flags to dpcisr's options.
func (o *DPCISRCompareOptions) compareOptions() dpcisr.CompareOptions {
	return dpcisr.CompareOptions{Files: o.Files, Labels: o.Labels, Module: o.Module}
}

// validate checks the flags before anything runs.
func (o *DPCISRCompareOptions) validate() error {
	if err := o.compareOptions().Validate(); err != nil {
		return dpcisrErr(err)
	}
	if _, err := report.PlotFormat(o.Plot); o.Plot != "" && err != nil {
		return Usagef("invalid --plot: %v", err)
	}
	return nil
}

func runDPCISRCompare(ctx context.Context, o *DPCISRCompareOptions) error {
	c, err := dpcisr.RunCompare(ctx, o.compareOptions())
	if err != nil {
		return dpcisrErr(err)
	}
	if o.Plot != "" && len(c.Sections) == 0 {
		return Usagef("--plot: the reports hold no DPC/ISR histogram to plot, only hard page faults")
	}
	if o.Plot != "" {
		panels := report.DPCISRComparePanels(c)
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.RenderCDF(panels, format) }); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeDoc(o.IO, dpcisr.KindCompare.New(host.Collect(), c), o.settings)
	}
	// image names come from the traces: escaped as dpcisr FILE escapes them
	humanOut(o.IO.Out, func(w io.Writer) { report.DPCISRCompareText(report.TerminalSafe(w), c) })
	if o.Plot != "" {
		fmt.Fprintf(o.IO.Out, "\nplot: %s\n", o.Plot)
	}
	return nil
}
