package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/dpcisr"
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

// xperfMissing is the one line printed when xperf cannot be found.
const xperfMissing = "xperf.exe not found on PATH or in the Windows Kits folder: install the Windows Performance Toolkit (part of the Windows ADK and the Windows SDK) and run again"

func newDPCISRCaptureCmd(io *IO) *cobra.Command {
	o := &DPCISRCaptureOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "capture --seconds N -o out.txt",
		Short: "trace DPCs and ISRs with xperf for N seconds and analyse the report (Windows, elevated)",
		Long: `Windows only, and it needs an elevated (Administrator) prompt: starting a kernel
trace is a privileged operation.

Runs 'xperf -on ` + dpcisr.KernelFlags + `', waits --seconds, stops the
trace into an .etl in a temporary folder ('xperf -d'), exports it with
'xperf -i trace.etl -o out.txt -a dpcisr', and prints the analysis as
'latlab dpcisr out.txt' would. xperf comes with the Windows Performance Toolkit
(Windows ADK or SDK). Ctrl-C ends the wait early; the trace is still stopped and
analysed.

Unlike the measuring commands, -o names xperf's text report (the file
'latlab dpcisr' and 'latlab dpcisr compare' read); the result document (kind
dpcisr) goes to stdout with --json and to a file with --result.`,
		Example: `  latlab dpcisr capture --seconds 30 -o idle.txt
  latlab dpcisr capture --seconds 60 -o load.txt --etl load.etl --module ndis.sys
  latlab dpcisr capture --seconds 30 -o idle.txt --result idle.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			return runDPCISRCapture(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&o.Seconds, "seconds", 30, "how long to trace")
	fs.StringVarP(&o.Out, "output", "o", "", "write xperf's text report to this file (required; not the result document: see --result)")
	fs.StringVar(&o.Result, "result", "", "also write the result document (kind dpcisr) to this file")
	fs.StringVar(&o.Etl, "etl", "", "also keep the kernel trace (.etl) at this path")
	fs.StringVar(&o.Module, "module", "", "show only this module (case-insensitive)")
	fs.BoolVar(&o.JSON, "json", false, "write a result document (kind dpcisr) to stdout")
	return cmd
}

func runDPCISRCapture(ctx context.Context, o *DPCISRCaptureOptions) error {
	if err := captureSupported(); err != nil {
		return err
	}
	if o.Seconds < 1 || o.Seconds > 24*3600 {
		return Usagef("invalid --seconds %d: want 1 to 86400", o.Seconds)
	}
	if o.Out == "" {
		return Usagef("missing -o FILE: where to write xperf's text report")
	}
	if o.Result != "" && filepath.Clean(o.Result) == filepath.Clean(o.Out) {
		return Usagef("--result %s is also -o: -o is xperf's text report, --result the result document; give two files", o.Result)
	}
	xperf, err := findXperf()
	if err != nil {
		return err
	}
	if err := checkElevated(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "latlab-dpcisr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(o.IO.Err, "tracing DPCs and ISRs for %ds (xperf -on %s); Ctrl-C ends early ...\n", o.Seconds, dpcisr.KernelFlags)
	c := dpcisr.Capturer{Xperf: xperf, Dir: dir, Run: runCommand, Sleep: dpcisr.SleepContext}
	text, etl, err := c.Capture(ctx, time.Duration(o.Seconds)*time.Second)
	if err != nil {
		return err
	}
	if o.Etl != "" {
		if err := copyFile(etl, o.Etl); err != nil {
			return fmt.Errorf("keeping the trace: %w", err)
		}
	}
	return reportCapture(o, text)
}

// reportCapture writes xperf's report to -o and analyses it: the result
// document to --json and --result, or the text of 'latlab dpcisr'.
func reportCapture(o *DPCISRCaptureOptions, text []byte) error {
	if err := os.WriteFile(o.Out, text, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", o.Out, err)
	}
	res, err := dpcisr.Run(context.Background(), dpcisr.Options{File: o.Out})
	if err != nil {
		return fmt.Errorf("xperf's report: %w", dpcisrErr(err))
	}
	if o.Module != "" {
		if res, err = dpcisr.Run(context.Background(), dpcisr.Options{File: o.Out, Module: o.Module}); err != nil {
			return dpcisrErr(err)
		}
	}
	doc := res.Document()
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, fmt.Sprintf("xperf -on %s for %d s; report in %s", dpcisr.KernelFlags, o.Seconds, o.Out))
	return emitResult(o.IO, doc, o.Result, o.JSON, func(w io.Writer) { report.DPCISRText(w, res) })
}

// findXperf looks on PATH, then where the Windows Kits install it.
func findXperf() (string, error) {
	if p, err := exec.LookPath("xperf"); err == nil {
		return p, nil
	}
	for _, p := range xperfPaths() {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", Usagef("%s", xperfMissing)
}

func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, &dpcisr.CommandError{Args: args, Output: string(out), Err: err}
	}
	return out, nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		return err
	}
	return nil
}
