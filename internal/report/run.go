package report

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/units"
)

// Options are the inputs of `latlab report`.
type Options struct {
	// Files are the results, read as compare reads its sides
	// (compare.ReadInputs): result documents, cyclictest histograms and
	// rtla timerlat and osnoise hist output; a side of several runs shows
	// its first.
	Files []string
	Out   string // the HTML file to write
	PNG   string // a directory to write every plot into as PNG; "" for none
	Title string
	// Force lets the PNGs replace files of the same names in PNG; the
	// HTML file's guard is the command's.
	Force bool
}

// Result is what Run wrote.
type Result struct {
	Out     string // the HTML file
	Results int    // results in the report
	Plots   int    // plots in the report
	Bytes   int    // size of the HTML file
	// PNGDir is the directory the PNG plots went to, set once they are
	// all written; PNGs are their paths.
	PNGDir string
	PNGs   []string
}

// Wrote prints what `report` wrote: the HTML file, what it holds and
// its size, then the PNG plots.
func Wrote(w io.Writer, r *Result) {
	fmt.Fprintf(w, "wrote %s (%d result%s, %d plot%s, %s)\n", r.Out, r.Results, plural(r.Results), r.Plots, plural(r.Plots), units.KiBCeil(int64(r.Bytes)))
	if r.PNGDir != "" {
		fmt.Fprintf(w, "wrote %d PNG plot%s to %s\n", len(r.PNGs), plural(len(r.PNGs)), r.PNGDir)
	}
}

// Run is the work of `latlab report`: it reads the results, builds the
// report and writes it as HTML (and its plots as PNG with Options.PNG).
// When the HTML is written but the PNGs fail, it returns both the Result
// (what was written) and the error.
func Run(_ context.Context, o Options) (*Result, error) {
	if len(o.Files) == 0 {
		return nil, badinput.Errorf("report needs at least one result file: e.g. latlab report sleep.json -o report.html")
	}
	in, err := compare.ReadInputs(o.Files)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	var ri []ReportInput
	for _, x := range in {
		// Cyclictest and rtla timerlat and osnoise histograms come as
		// compare reads them: the page plots them from their buckets
		// (html_hist.go, html_osnoise.go).
		ri = append(ri, ReportInput{Label: x.Label, Doc: x.Doc})
	}
	r, err := BuildReport(ri, o.Title)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	// Found before the work of rendering: a path that cannot be written
	// is bad input, not a failure halfway.
	if err := outfile.Check(o.Out, true); err != nil {
		return nil, err
	}
	if o.PNG != "" {
		if err := r.CheckPNGs(o.PNG, o.Force); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		return nil, err
	}
	if err := outfile.WriteBytes(o.Out, b.Bytes()); err != nil {
		return nil, err
	}
	res := &Result{Out: o.Out, Results: len(in), Plots: len(r.Figures()), Bytes: b.Len()}
	if o.PNG != "" {
		paths, err := r.WritePNGs(o.PNG)
		if err != nil {
			return res, err
		}
		res.PNGDir, res.PNGs = o.PNG, paths
	}
	return res, nil
}
