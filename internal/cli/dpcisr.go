package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
)

func init() { register(newDPCISRCmd) }

// DPCISROptions are the flags of `latlab dpcisr FILE`.
type DPCISROptions struct {
	IO     *IO
	File   string
	Module string
	JSON   bool
	HTML   string

	settings map[string]string
}

func newDPCISRCmd(io *IO) *cobra.Command {
	o := &DPCISROptions{IO: io}
	cmd := &cobra.Command{
		Use:   "dpcisr FILE",
		Short: "read an xperf DPC/ISR report: per-driver execution-time distributions",
		Long: `Reads the text report that 'xperf -i trace.etl -o out.txt -a dpcisr' writes (or
the JSON document of 'latlab dpc watch' or 'latlab dpcisr capture') and prints, for the DPC and the ISR section and for every module (driver), the count,
the histogram with percentages and cumulative percentages, the buckets that hold
p50, p90, p99 and p99.9, the most common bucket and the highest non-empty one.

xperf's buckets are powers of two (0-1, 1-2, 2-4 ... µs), so a percentile is
reported as the bucket that holds it: "p99 in 8-16 µs". latlab does not
interpolate inside a bucket.

Hand-edited reports are read too: collapsed or padded spaces, CRLF, UTF-16,
decimal commas, headings added above blocks (shown as labels), footers missing.
A module that appears in several blocks of a section is listed once per block,
in file order.

--html writes one self-contained page: per section a table of the modules
(count, total time, longest, p99, share above 1 ms and 2 ms), the verdict of a
dpc watch document, and the modules' distributions plotted.`,
		Example: `  latlab dpcisr out.txt
  latlab dpcisr out.txt --module ndis.sys
  latlab dpcisr out.txt --json > dpcisr.json
  latlab dpcisr watch.json --html watch.html
  latlab dpcisr compare extreme.txt off.txt --labels Extreme,Off --module ndis.sys
  latlab dpcisr capture --seconds 30 -o out.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			o.settings = settingsOf(cmd.Flags())
			return runDPCISR(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Module, "module", "", "show only this module (case-insensitive, e.g. ndis.sys)")
	fs.BoolVar(&o.JSON, "json", false, "write the analysed report as JSON")
	fs.StringVar(&o.HTML, "html", "", "also write a self-contained HTML page of the report to this file")
	cmd.AddCommand(newDPCISRCompareCmd(io), newDPCISRCaptureCmd(io))
	return cmd
}

// readDPCISR parses a report file; every failure is bad input (exit 2)
// named by file and line.
func readDPCISR(path string) (*dpcisr.Report, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, Usagef("cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	r, err := dpcisr.Read(f)
	if err != nil {
		return nil, Usagef("%s: %v", path, err)
	}
	return r, nil
}

// watchDocument is the dpc watch document at path, read again: the report
// read from it leaves out the watch's own summary (its verdict, the exact
// longest executions) and the traced machine's host facts. nil for any
// file that is not such a document.
func watchDocument(path string) *result.Document {
	f, err := infile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, dpcisr.MaxInput+1))
	if err != nil || len(b) > dpcisr.MaxInput {
		return nil
	}
	doc, err := result.Read(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return nil
	}
	if _, ok := dpcisr.Kind.Of(doc); !ok {
		return nil
	}
	return doc
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func runDPCISR(_ context.Context, o *DPCISROptions) error {
	r, err := readDPCISR(o.File)
	if err != nil {
		return err
	}
	if r, err = filterModule(r, o.File, o.Module); err != nil {
		return err
	}
	if o.HTML != "" {
		if err := checkWritable(o.HTML); err != nil {
			return err
		}
		v := r.View(o.File, o.Module)
		doc := dpcisr.Kind.New(&v)
		doc.Settings = o.settings
		if r.Source == dpcisr.SourceETW {
			if src := watchDocument(o.File); src != nil {
				w, _ := dpcisr.Kind.Of(src)
				v.Watch = w.Watch
				src.Data, doc = &v, src
			}
		}
		if err := writeFileWith(o.HTML, func(w io.Writer) error {
			return report.DPCISRPage(w, "latlab dpcisr "+filepath.Base(o.File), o.File, doc)
		}); err != nil {
			return err
		}
	}
	if o.JSON {
		v := r.View(o.File, o.Module)
		return writeDoc(o.IO, dpcisr.Kind.New(&v), o.settings)
	}
	printDPCISR(o.IO.Out, r, o.File, o.Module)
	return nil
}

// filterModule keeps only module's histograms (all with no module); a
// module the report lacks is bad input naming the ones it has.
func filterModule(r *dpcisr.Report, file, module string) (*dpcisr.Report, error) {
	if module == "" {
		return r, nil
	}
	f := r.Filter(module)
	for _, s := range f.Sections {
		if len(s.Modules) > 0 {
			return f, nil
		}
	}
	return nil, Usagef("%s: no module %q; the report has %s", file, module, strings.Join(r.ModuleNames(), ", "))
}

// printDPCISR prints a report that filterModule has filtered.
func printDPCISR(w io.Writer, r *dpcisr.Report, file, module string) {
	v := r.View(file, module)
	if r.Source == dpcisr.SourceETW {
		fmt.Fprintf(w, "latlab dpcisr: %s (an ETW trace of latlab dpc watch)\n", file)
	} else {
		fmt.Fprintf(w, "latlab dpcisr: %s (%s, %d lines)\n", file, r.Encoding, r.Lines)
	}
	fmt.Fprintln(w, "execution times in xperf's power-of-two buckets; a percentile is the bucket that holds it")
	for _, s := range v.Sections {
		if s.Overall == nil && len(s.Modules) == 0 && len(s.Usage) == 0 {
			continue // emptied by --module
		}
		head := s.Name
		if s.Heading != "" && !strings.EqualFold(s.Heading, s.Name) {
			head += fmt.Sprintf(" (%q, line %d)", s.Heading, s.Line)
		}
		unit := "DPCs"
		if s.Name == dpcisr.ISR {
			unit = "ISRs"
		}
		fmt.Fprintf(w, "\n== %s\n", head)
		if len(s.Usage) > 0 {
			printUsage(w, s.Section)
		}
		if s.Overall != nil {
			printHistogram(w, *s.Overall, unit)
		}
		for _, m := range s.Modules {
			printHistogram(w, m, unit)
		}
		if s.Check != nil {
			fmt.Fprintf(w, "\nxperf's own check: all modules %d, total %d: %s\n", s.Check.AllModule, s.Check.Total, s.Check.Verdict)
		}
		if s.Intervals != nil {
			printIntervals(w, s.Intervals)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func printHistogram(w io.Writer, h dpcisr.HistogramView, unit string) {
	fmt.Fprintf(w, "\n%s", h.Name())
	if h.Label != "" {
		fmt.Fprintf(w, " — %s", h.Label)
	}
	if h.Line > 0 { // a report's line; latlab's own traces have none
		fmt.Fprintf(w, " (line %d)", h.Line)
	}
	fmt.Fprintln(w)
	s := h.Summary
	if s.Count == 0 {
		fmt.Fprintf(w, "  no %s\n", unit)
		return
	}
	var q []string
	for _, x := range s.Quantiles {
		q = append(q, fmt.Sprintf("p%s in %s", trimFloat(x.P), x.Bucket.Range()))
	}
	fmt.Fprintf(w, "  %d %s; %s\n", s.Count, unit, strings.Join(q, ", "))
	fmt.Fprintf(w, "  most common %s (%.2f%%); longest in %s\n", s.Mode.Range(), 100*float64(s.Mode.Count)/float64(s.Count), s.Max.Range())
	if s.Count < 1000 {
		fmt.Fprintf(w, "  (%d %s: p99.9 is the longest one)\n", s.Count, unit)
	}
	rows := [][]string{}
	for _, r := range s.Rows {
		rows = append(rows, []string{"  " + r.Range(), fmt.Sprint(r.Count), fmt.Sprintf("%.2f", r.Pct), fmt.Sprintf("%.2f", r.CumPct)})
	}
	report.Table(w, []string{"  bucket", "count", "%", "cum %"}, rows)
}

func printUsage(w io.Writer, s dpcisr.Section) {
	span := ""
	var spanUs float64
	if s.Span != nil {
		spanUs = float64(s.Span.ToUs - s.Span.FromUs)
		span = fmt.Sprintf(" over %s", fmtNs(int64(spanUs*1000)))
	}
	us := append([]dpcisr.ModuleUsage(nil), s.Usage...)
	sort.SliceStable(us, func(i, j int) bool { return us[i].TotalUsec() > us[j].TotalUsec() })
	fmt.Fprintf(w, "\nCPU time by module%s (xperf's usage table):\n", span)
	rows := [][]string{}
	for _, u := range us {
		busiest, bu := 0, int64(-1)
		for k, v := range u.Usec {
			if v > bu {
				busiest, bu = k, v
			}
		}
		share := "-"
		if spanUs > 0 && bu >= 0 {
			share = fmt.Sprintf("%.2f", 100*float64(bu)/spanUs)
		}
		cpu := "-"
		if len(u.CPUs) > busiest {
			cpu = fmt.Sprint(u.CPUs[busiest])
		}
		rows = append(rows, []string{"  " + u.Module, fmt.Sprint(u.TotalUsec()), cpu, fmt.Sprint(max(bu, 0)), share})
	}
	report.Table(w, []string{"  module", "total µs", "busiest CPU", "µs there", "% of that CPU"}, rows)
}

func printIntervals(w io.Writer, t *dpcisr.IntervalTable) {
	var best dpcisr.IntervalRow
	bestCPU, bestUs := -1, int64(-1)
	for _, r := range t.Rows {
		for k, v := range r.Usec {
			if v > bestUs {
				best, bestUs, bestCPU = r, v, k
			}
		}
	}
	if bestCPU < 0 {
		return
	}
	cpu := bestCPU
	if bestCPU < len(t.CPUs) {
		cpu = t.CPUs[bestCPU]
	}
	fmt.Fprintf(w, "busiest %gs interval (all modules): CPU %d at %d-%d ms, %d µs (%.2f%%), of %d intervals\n",
		t.IntervalSec, cpu, best.StartMs, best.EndMs, bestUs, best.Percent[bestCPU], len(t.Rows))
}

func trimFloat(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return strings.TrimRight(fmt.Sprintf("%.3f", f), "0")
}
