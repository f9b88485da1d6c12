package dpcisr

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/systool"
)

// KernelFlags are the kernel providers a DPC/ISR trace needs: DPC and
// INTERRUPT for the events, PROC_THREAD and LOADER so xperf can name the
// module each routine belongs to.
const KernelFlags = "PROC_THREAD+LOADER+DPC+INTERRUPT"

// CaptureOptions are the work of `latlab dpcisr capture`.
type CaptureOptions struct {
	// Seconds is how long to trace, 1 to 86400.
	Seconds int
	// Out is where xperf's text report is written (the file 'latlab
	// dpcisr' reads).
	Out string
	// Etl, when set, is where the kernel trace is kept.
	Etl string
	// Module keeps only that module's histograms in the analysis.
	Module string
	// Xperf is the path of xperf.exe; empty: found on PATH or where the
	// Windows Kits install it.
	Xperf string
	// Command runs a command and returns its combined output; nil runs
	// it with os/exec. Tests replace it, and Sleep, to run the sequence
	// without xperf.
	Command func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Sleep waits while the trace runs; nil: SleepContext.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnStart, when set, is called just before the trace starts.
	OnStart func()
}

// CaptureResult is xperf's report of a capture, written to
// CaptureOptions.Out and analysed as Run does.
type CaptureResult struct {
	*Result
	Seconds int
}

// Document is the result document of the capture (kind dpcisr), with a
// note on how it was traced, on the host facts.
func (r *CaptureResult) Document(facts host.Facts) *result.Document {
	doc := r.Result.Document(facts)
	doc.Notes = append(doc.Notes, fmt.Sprintf("xperf -on %s for %d s; report in %s", KernelFlags, r.Seconds, r.File))
	return doc
}

// Validate checks what needs neither xperf nor a trace: that this OS has
// xperf's kernel logger, the duration and the report's file name.
func (o CaptureOptions) Validate() error {
	if err := captureSupported(); err != nil {
		return err
	}
	if o.Seconds < 1 || o.Seconds > 24*3600 {
		return badinput.Errorf("invalid --duration %ds: want 1s to 24h", o.Seconds)
	}
	if o.Out == "" {
		return badinput.Errorf("missing -o FILE: where to write xperf's text report")
	}
	return nil
}

// RunCapture traces DPCs and ISRs with xperf for o.Seconds (less if ctx
// ends first: the trace is still stopped and exported), writes xperf's
// report to o.Out, keeps the trace at o.Etl, and analyses the report.
// Windows only, elevated; elsewhere a badinput.Error.
func RunCapture(ctx context.Context, o CaptureOptions) (*CaptureResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	xperf := o.Xperf
	if xperf == "" {
		var err error
		if xperf, err = findXperf(); err != nil {
			return nil, err
		}
	}
	if err := checkElevated(); err != nil {
		return nil, err
	}
	return o.capture(ctx, xperf)
}

// capture runs the xperf sequence in a temporary folder and keeps what
// the options ask for.
func (o CaptureOptions) capture(ctx context.Context, xperf string) (*CaptureResult, error) {
	dir, err := os.MkdirTemp("", "latlab-dpcisr-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if o.OnStart != nil {
		o.OnStart()
	}
	c := Capturer{Xperf: xperf, Dir: dir, Run: o.Command, Sleep: o.Sleep}
	if c.Run == nil {
		c.Run = runCommand
	}
	if c.Sleep == nil {
		c.Sleep = SleepContext
	}
	text, etl, err := c.Capture(ctx, time.Duration(o.Seconds)*time.Second)
	if err != nil {
		return nil, err
	}
	if o.Etl != "" {
		if err := copyFile(etl, o.Etl); err != nil {
			return nil, fmt.Errorf("keeping the trace: %w", err)
		}
	}
	return o.WriteReport(text)
}

// WriteReport writes xperf's report text to o.Out and analyses it: the
// end of RunCapture once xperf has exported the report.
func (o CaptureOptions) WriteReport(text []byte) (*CaptureResult, error) {
	if err := outfile.WriteBytes(o.Out, text); err != nil {
		return nil, err
	}
	r, err := readFile(context.Background(), o.Out) // a text report: read at once
	if err != nil {
		return nil, fmt.Errorf("xperf's report: %w", err)
	}
	if r, err = filterModule(r, o.Out, o.Module); err != nil {
		return nil, err
	}
	return &CaptureResult{Result: &Result{File: o.Out, Module: o.Module, Report: r}, Seconds: o.Seconds}, nil
}

// findXperf finds xperf.exe where the Windows Kits' registered installed
// root puts it, never on PATH (a capture runs elevated).
func findXperf() (string, error) {
	p, err := systool.Path(systool.Xperf)
	if err != nil {
		return "", badinput.Errorf("%v", err)
	}
	return p, nil
}

func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, &CommandError{Args: args, Output: string(out), Err: err}
	}
	return out, nil
}

// copyFile copies in bounded pieces: a kernel trace can be gigabytes.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	return outfile.Write(to, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// Capturer runs an xperf kernel trace and exports its DPC/ISR report.
// Run and Sleep are replaceable so the sequence is tested without xperf.
type Capturer struct {
	Xperf string // path of xperf.exe
	Dir   string // where the .etl and the report are written
	Run   func(ctx context.Context, name string, args ...string) ([]byte, error)
	Sleep func(ctx context.Context, d time.Duration) error
}

// Capture traces for d and returns the text of the report and the path
// of the .etl. If the wait is interrupted (Ctrl-C), the trace is still
// stopped and exported: a shorter trace is better than a kernel logger
// left running.
func (c Capturer) Capture(ctx context.Context, d time.Duration) (report []byte, etl string, err error) {
	if _, err := c.Run(ctx, c.Xperf, "-on", KernelFlags); err != nil {
		return nil, "", fmt.Errorf("starting the kernel trace (xperf -on %s): %w", KernelFlags, err)
	}
	etl = filepath.Join(c.Dir, "dpcisr.etl")
	out := filepath.Join(c.Dir, "dpcisr.txt")
	waitErr := c.Sleep(ctx, d)
	// Stop with a context of its own: ctx may be the one Ctrl-C cancelled.
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := c.Run(stopCtx, c.Xperf, "-d", etl); err != nil {
		_, _ = c.Run(stopCtx, c.Xperf, "-stop")
		return nil, "", fmt.Errorf("stopping the kernel trace into %s (xperf -d): %w", etl, err)
	}
	if _, err := c.Run(stopCtx, c.Xperf, "-i", etl, "-o", out, "-a", "dpcisr"); err != nil {
		return nil, etl, fmt.Errorf("exporting the DPC/ISR report (xperf -i %s -a dpcisr): %w", etl, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, etl, fmt.Errorf("reading the report xperf wrote: %w", err)
	}
	if waitErr != nil && ctx.Err() == nil {
		return b, etl, waitErr
	}
	return b, etl, nil
}

// SleepContext waits for d or until ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil // stop early; the caller still stops the trace
	}
}

// CommandError carries a failed command's output, which is where xperf
// says what went wrong (it writes errors to stdout).
type CommandError struct {
	Args   []string
	Output string
	Err    error
}

func (e *CommandError) Error() string {
	out := strings.TrimSpace(e.Output)
	if i := strings.IndexByte(out, '\n'); i >= 0 {
		out = out[:i]
	}
	if out == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v: %s", e.Err, strings.TrimSpace(out))
}

func (e *CommandError) Unwrap() error { return e.Err }
