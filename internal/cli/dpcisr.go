package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
)

func init() { register(func(io *IO) *cobra.Command { return newDPCISRCmd(io, nil) }) }

// DPCISROptions are the flags of `latlab dpcisr FILE`.
type DPCISROptions struct {
	IO     *IO
	File   string
	Module string
	JSON   bool
	HTML   string

	settings map[string]string
}

// newDPCISRCmd builds latlab dpcisr. runF, when set, is given the options
// the argument and flags map to instead of reading the report: the tests
// of the mapping. The report is the only input, checked as it is read.
func newDPCISRCmd(io *IO, runF func(*DPCISROptions) error) *cobra.Command {
	o := &DPCISROptions{IO: io}
	cmd := &cobra.Command{
		Use:   "dpcisr FILE",
		Short: "read an xperf DPC/ISR or LatencyMon report: per-driver execution-time distributions",
		Long: `Reads the text report that 'xperf -i trace.etl -o out.txt -a dpcisr' writes (or
the JSON document of 'latlab dpc watch' or 'latlab dpcisr capture') and prints,
for the DPC and the ISR section and for every module (driver), the count, the
histogram with percentages and cumulative percentages, the buckets that hold
p50, p90, p99 and p99.9, the most common bucket and the highest non-empty one.

xperf's buckets are powers of two (0-1, 1-2, 2-4 ... µs), so a percentile is
reported as the bucket that holds it: "p99 in 8-16 µs". latlab does not
interpolate inside a bucket.

Hand-edited reports are read too: collapsed or padded spaces, CRLF, CR CR LF,
UTF-16, decimal commas, headings added above blocks (shown as labels), footers
missing. A report cut short is read as far as it goes, with a note saying it may
be; one quoted with '> ' or shown as a diff is refused. A module that appears
in several blocks of a section is listed once per block, in file order.

A LatencyMon report (its saved or copied text, recognised by its content: UTF-8,
UTF-16 or ANSI, a decimal comma, quoted in a forum post or cut short) is read
too: first the verdict of 'latlab dpc watch' on its highest DPC and ISR
execution times (over 1 ms, over 2 ms) with the drivers, LatencyMon's own
conclusion and the length of the run, then its DPC and ISR counts in its own
buckets (<250, 250-500 ... >=4000 µs) with the buckets of p50 and p99, the
drivers with the most time, the interrupt to process and to DPC latencies, the
hard page faults and PER CPU DATA (which CPU carries the DPC and ISR time).
'dpcisr compare' compares LatencyMon reports with one another, never with an
xperf report or a trace: their buckets differ.

--html writes one self-contained page: per section a table of the modules
(count, total time, longest, p99, share above 1 ms and 2 ms), the verdict of a
dpc watch document, and the modules' distributions plotted.`,
		Example: `  latlab dpcisr out.txt
  latlab dpcisr out.txt --module ndis.sys
  latlab dpcisr latencymon-report.txt
  latlab dpcisr out.txt --json > dpcisr.json
  latlab dpcisr watch.json --html watch.html
  latlab dpcisr compare extreme.txt off.txt --labels Extreme,Off --module ndis.sys
  latlab dpcisr capture --duration 30s -o out.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			if runF != nil {
				return runF(o)
			}
			return runDPCISR(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Module, "module", "", "show only this module (case-insensitive, e.g. ndis.sys)")
	fs.BoolVar(&o.JSON, "json", false, "write the analysed report as JSON")
	fs.StringVar(&o.HTML, "html", "", "also write a self-contained HTML page of the report to this file")
	cmd.AddCommand(newDPCISRCompareCmd(io, nil), newDPCISRCaptureCmd(io, nil))
	return cmd
}

func runDPCISR(ctx context.Context, o *DPCISROptions) error {
	res, err := dpcisr.Run(ctx, dpcisr.Options{File: o.File, Module: o.Module, Page: o.HTML != ""})
	if err != nil {
		return dpcisrErr(err)
	}
	if o.HTML != "" {
		if err := checkWritable(o.HTML); err != nil {
			return err
		}
		doc := res.PageDocument(host.Collect(), o.settings)
		if err := writeFileWith(o.HTML, func(w io.Writer) error {
			return report.DPCISRPage(w, "latlab dpcisr "+filepath.Base(o.File), o.File, doc)
		}); err != nil {
			return err
		}
	}
	if o.JSON {
		err = writeDoc(o.IO, res.Document(host.Collect()), o.settings)
	} else {
		humanOut(o.IO.Out, func(w io.Writer) { report.DPCISRText(report.TerminalSafe(w), res) })
	}
	if err == nil && res.Report.Interrupted {
		return errInterrupted
	}
	return err
}

// dpcisrErr makes the dpcisr commands' bad input a usage error (exit 2).
func dpcisrErr(err error) error {
	if badinput.Is(err) {
		return Usage(err)
	}
	return err
}

// unwrapPathErr drops the operation and path of an *os.PathError, for
// messages that name the file already.
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
