package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(func(io *IO) *cobra.Command { return newReportCmd(io, nil) }) }

// ReportOptions are the flags of `latlab report`.
type ReportOptions struct {
	IO    *IO
	Files []string
	Out   string
	PNG   string
	Title string
	Force bool // the guard's --force: PNGs may replace files in --png
}

// newReportCmd builds latlab report. runF, when set, is given the options
// the arguments and flags map to instead of writing the report: the tests
// of the mapping. At least one file is needed (checked with the arguments,
// before anything runs); the files themselves are checked as they are
// read.
func newReportCmd(io *IO, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "report R.json [more.json ...] -o report.html",
		Short: "write one self-contained HTML report of results (plots inline, no network)",
		Long: `Writes one HTML file with, for each result: its verdict, statistics table,
plots as inline SVG (histogram and cumulative distribution for sleep and wake,
the sweep curve, the crossproc curve), its settings and the host and timer
facts. Two or more sleep (or wake) results also get a comparison: overlaid
plots and compare's verdicts against the first; two or more noise results,
compare's comparison of them CPU by CPU.

It also reads what latlab compare reads as sides: cyclictest histogram files
and rtla timerlat hist output (its Thr columns). Each is shown from its 1 µs
buckets, never expanded: its source, its statistics (those its overflows reach
are not known, and say why), its histogram and cumulative distribution (the
overflows counted apart, never drawn at a value) and compare's notes; it keeps
no order, so it has no time series. Histograms are compared with each other
and with wake results as latlab compare compares them.

rtla osnoise hist output is shown the same way, per CPU and every CPU pooled:
its noise occurrences, those in its "over:" row, the statistics of their
lengths and rtla's own min:, avg: and max:; it records no runtime, so it has
no rate. Beside noise results or other osnoise output, it is compared with
them as latlab compare compares them.

The file loads nothing: no scripts, fonts, images or styles from anywhere
(its Content-Security-Policy forbids every load), so it opens offline and can
be mailed or attached as is. It reads well on a phone. --png DIR also writes
every plot as a PNG file.`,
		Example: `  latlab report sleep.json -o report.html
  latlab report before.json after.json sweep.json crossproc.json -o report.html --png plots
  latlab report before.hist after.hist wake.json -o tuning.html`,
		Args:        cobra.MinimumNArgs(1),
		Annotations: map[string]string{inputArgs: "files"},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.Force, _ = cmd.Flags().GetBool("force")
			if runF != nil {
				return runF(o)
			}
			return runReport(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "output", "o", "report.html", "the HTML file to write")
	cmd.Flags().StringVar(&o.PNG, "png", "", "also write every plot as PNG into this directory")
	cmd.Flags().StringVar(&o.Title, "title", "latlab report", "the report's title")
	return cmd
}

func runReport(ctx context.Context, o *ReportOptions) error {
	res, err := report.Run(ctx, report.Options{Files: o.Files, Out: o.Out, PNG: o.PNG, Title: o.Title, Force: o.Force})
	if res != nil {
		report.Wrote(o.IO.Out, res)
	}
	if badinput.Is(err) {
		return Usage(err)
	}
	return err
}
