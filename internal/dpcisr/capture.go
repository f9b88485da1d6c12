package dpcisr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// KernelFlags are the kernel providers a DPC/ISR trace needs: DPC and
// INTERRUPT for the events, PROC_THREAD and LOADER so xperf can name the
// module each routine belongs to.
const KernelFlags = "PROC_THREAD+LOADER+DPC+INTERRUPT"

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
