package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/stats"
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

func newDPCISRCompareCmd(io *IO) *cobra.Command {
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

Before the test, adjacent buckets are pooled from the short end until every
expected count is at least 5 (sparse tails otherwise break the test's
approximation); the pooled ranges are printed. With --module the module's blocks
are compared (several blocks of one section are added together); without it,
the histogram over all modules (or, when a file has none, the sum of its module
blocks).

The verdict names the direction only when the chi-squared test rejects equal
distributions at the 5% level: "faster" means a larger share of executions at or
below every bucket bound. Cramér's V says how big the difference is: with tens
of thousands of DPCs even a negligible difference is "significant".`,
		Example: `  latlab dpcisr compare extreme.txt off.txt --labels Extreme,Off --module ndis.sys
  latlab dpcisr compare a.txt b.txt c.txt --plot cdf.svg
  latlab dpcisr compare before.txt after.txt --json`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.settings = settingsOf(cmd.Flags())
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

func runDPCISRCompare(_ context.Context, o *DPCISRCompareOptions) error {
	if o.Labels != nil && len(o.Labels) != len(o.Files) {
		return Usagef("--labels has %d names for %d files: give one per file, comma-separated", len(o.Labels), len(o.Files))
	}
	if _, err := report.PlotFormat(o.Plot); o.Plot != "" && err != nil {
		return Usagef("invalid --plot: %v", err)
	}
	var runs []dpcisr.Run
	for i, f := range o.Files {
		r, err := readDPCISR(f)
		if err != nil {
			return err
		}
		label := filepath.Base(f)
		if o.Labels != nil {
			label = o.Labels[i]
		}
		runs = append(runs, dpcisr.Run{Label: label, Report: r})
	}
	c, err := dpcisr.Compare(runs, o.Module)
	if err != nil {
		return Usage(err)
	}
	if o.Plot != "" {
		panels := cdfPanels(c)
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return report.RenderCDF(panels, format) }); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeDoc(o.IO, dpcisr.KindCompare.New(c), o.settings)
	}
	printDpcisrCompare(o.IO.Out, c)
	if o.Plot != "" {
		fmt.Fprintf(o.IO.Out, "\nplot: %s\n", o.Plot)
	}
	return nil
}

func cdfPanels(c *dpcisr.Comparison) []report.CDFPanel {
	var ps []report.CDFPanel
	for _, s := range c.Sections {
		title := s.Name
		if c.Module != "" {
			title += " " + c.Module
		}
		pn := report.CDFPanel{Title: title}
		for i, r := range s.Runs {
			cs := report.CDFSeries{Label: r.Label}
			var cum, n int64
			for _, v := range s.Counts[i] {
				n += v
			}
			for j, b := range s.Buckets {
				cum += s.Counts[i][j]
				if b.Open() {
					continue
				}
				cs.X = append(cs.X, b.Upper())
				cs.Y = append(cs.Y, 100*float64(cum)/float64(n))
			}
			pn.Series = append(pn.Series, cs)
		}
		ps = append(ps, pn)
	}
	return ps
}

func printDpcisrCompare(w io.Writer, c *dpcisr.Comparison) {
	what := "all modules"
	if c.Module != "" {
		what = c.Module
	}
	fmt.Fprintf(w, "latlab dpcisr compare: %s in %s\n", what, strings.Join(c.Labels, " vs "))
	for _, s := range c.Sections {
		fmt.Fprintf(w, "\n== %s\n", s.Name)
		if len(s.Missing) > 0 {
			fmt.Fprintf(w, "not in: %s\n", strings.Join(s.Missing, ", "))
		}
		hdr := []string{"bucket"}
		for _, r := range s.Runs {
			hdr = append(hdr, r.Label, "%")
		}
		rows := [][]string{}
		for j, b := range s.Buckets {
			row := []string{b.Range()}
			for i, r := range s.Runs {
				row = append(row, fmt.Sprint(s.Counts[i][j]), fmt.Sprintf("%.2f", 100*float64(s.Counts[i][j])/float64(r.Summary.Count)))
			}
			rows = append(rows, row)
		}
		total := []string{"total"}
		for _, r := range s.Runs {
			total = append(total, fmt.Sprint(r.Summary.Count), "")
		}
		rows = append(rows, total)
		for _, p := range dpcisr.Percentiles {
			row := []string{"p" + trimFloat(p) + " in"}
			for _, r := range s.Runs {
				b, _ := dpcisr.QuantileBucket(r.Hist, p)
				row = append(row, b.Range(), "")
			}
			rows = append(rows, row)
		}
		report.Table(w, hdr, rows)

		fmt.Fprintln(w)
		hdr = []string{"share at or below"}
		for i, r := range s.Runs {
			hdr = append(hdr, r.Label)
			if i > 0 {
				hdr = append(hdr, "vs "+s.Runs[0].Label)
			}
		}
		rows = nil
		for _, sh := range s.Shares {
			row := []string{fmt.Sprintf("%g µs", sh.Us)}
			for i := range s.Runs {
				mark := ""
				if !sh.Exact[i] {
					mark = "~"
				}
				row = append(row, mark+sharePct(sh.Pct[i]))
				if i > 0 {
					row = append(row, fmt.Sprintf("%+.2f pp", sh.Delta[i]))
				}
			}
			rows = append(rows, row)
		}
		report.Table(w, hdr, rows)
		if s.Test != nil {
			fmt.Fprintf(w, "\nchi-squared test of homogeneity: X² = %.2f, df %d, %s, Cramér's V %.3f, n %.0f",
				s.Test.Statistic, s.Test.DF, stats.FormatP(s.Test.P), s.Test.CramersV, s.Test.N)
			if len(s.PooledBuckets) < len(s.Buckets) {
				fmt.Fprintf(w, "\n  buckets pooled to keep expected counts >= 5: %s", pooledRanges(s))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "verdict: %s\n", s.Verdict)
	}
}

func sharePct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", v)
}

func pooledRanges(s dpcisr.SectionComparison) string {
	var parts []string
	for _, g := range s.PooledBuckets {
		lo, hi := s.Buckets[g[0]], s.Buckets[g[len(g)-1]]
		if len(g) == 1 {
			parts = append(parts, lo.Range())
			continue
		}
		if hi.Open() {
			parts = append(parts, fmt.Sprintf("> %d µs", lo.GtUs))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d µs", lo.GtUs, *hi.LeUs))
		}
	}
	return strings.Join(parts, ", ")
}
