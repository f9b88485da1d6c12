package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/report"
)

// DPCISRCaptureOptions are the flags of `latlab dpcisr capture`.
type DPCISRCaptureOptions struct {
	IO      *IO
	Seconds int
	Out     string // xperf's text report
	Result  string // the result document
	Etl     string
	Module  string
	JSON    bool

	settings map[string]string
}

// newDPCISRCaptureCmd builds latlab dpcisr capture. runF, when set, is
// given the options the flags map to instead of tracing: the tests of the
// mapping.
func newDPCISRCaptureCmd(io *IO, runF func(*DPCISRCaptureOptions) error) *cobra.Command {
	o := &DPCISRCaptureOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "capture --duration D -o out.txt",
		Short: "trace DPCs and ISRs with xperf for N seconds and analyse the report (Windows, elevated)",
		Long: `Windows only, and it needs an elevated (Administrator) prompt: starting a kernel
trace is a privileged operation.

Runs 'xperf -on ` + dpcisr.KernelFlags + `', waits --duration, stops the
trace into an .etl in a temporary folder ('xperf -d'), exports it with
'xperf -i trace.etl -o out.txt -a dpcisr', and prints the analysis as
'latlab dpcisr out.txt' would. xperf comes with the Windows Performance Toolkit
(Windows ADK or SDK). Ctrl-C ends the wait early; the trace is still stopped and
analysed.

Unlike the measuring commands, -o names xperf's text report (the file
'latlab dpcisr' and 'latlab dpcisr compare' read); the result document (kind
dpcisr) goes to stdout with --json and to a file with --result.`,
		Example: `  latlab dpcisr capture --duration 30s -o idle.txt
  latlab dpcisr capture --duration 60s -o load.txt --etl load.etl --module ndis.sys
  latlab dpcisr capture --duration 30s -o idle.txt --result idle.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runDPCISRCapture(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	secondsDurationFlag(fs, io.Err, &o.Seconds, 30, "how long to trace, e.g. 30s")
	fs.StringVarP(&o.Out, "output", "o", "", "write xperf's text report to this file (required; not the result document: see --result)")
	fs.StringVar(&o.Result, "result", "", "also write the result document (kind dpcisr) to this file")
	fs.StringVar(&o.Etl, "etl", "", "also keep the kernel trace (.etl) at this path")
	fs.StringVar(&o.Module, "module", "", "show only this module (case-insensitive)")
	fs.BoolVar(&o.JSON, "json", false, "write a result document (kind dpcisr) to stdout")
	return cmd
}

func (o *DPCISRCaptureOptions) options() dpcisr.CaptureOptions {
	return dpcisr.CaptureOptions{
		Seconds: o.Seconds, Out: o.Out, Etl: o.Etl, Module: o.Module,
		OnStart: func() {
			fmt.Fprintf(o.IO.Err, "tracing DPCs and ISRs for %ds (xperf -on %s); Ctrl-C ends early ...\n", o.Seconds, dpcisr.KernelFlags)
		},
	}
}

// validate checks the flags (and that this system can capture) before
// anything runs.
func (o *DPCISRCaptureOptions) validate() error {
	if err := o.options().Validate(); err != nil {
		return dpcisrErr(err)
	}
	if o.Result != "" && filepath.Clean(o.Result) == filepath.Clean(o.Out) {
		return Usagef("--result %s is also -o: -o is xperf's text report, --result the result document; give two files", o.Result)
	}
	return nil
}

func runDPCISRCapture(ctx context.Context, o *DPCISRCaptureOptions) error {
	res, err := dpcisr.RunCapture(ctx, o.options())
	if err != nil {
		return dpcisrErr(err)
	}
	return emitCapture(o, res)
}

// reportCapture is a capture from xperf's report on: the text to -o, its
// analysis emitted. Tests drive it without xperf.
func reportCapture(o *DPCISRCaptureOptions, text []byte) error {
	res, err := o.options().WriteReport(text)
	if err != nil {
		return dpcisrErr(err)
	}
	return emitCapture(o, res)
}

// emitCapture writes the result document to --json and --result, or the
// text of 'latlab dpcisr'.
func emitCapture(o *DPCISRCaptureOptions, res *dpcisr.CaptureResult) error {
	doc := res.Document(host.Collect())
	doc.Settings = o.settings
	return emitResult(o.IO, doc, o.Result, o.JSON, func(w io.Writer) { report.DPCISRText(w, res.Result) })
}
