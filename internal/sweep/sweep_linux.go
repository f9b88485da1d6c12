package sweep

import (
	"context"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/probe"
)

// Quantum is the unit a request is rounded to: PR_SET_TIMERSLACK takes ns.
const Quantum = time.Nanosecond

// DefaultReference is the coarsest default choice a user would otherwise
// keep: the kernel's default timer slack for normal threads.
const DefaultReference = 50 * time.Microsecond

// Timer slack belongs to the thread, so the request must be made on the
// measuring thread itself: the probe does that through Thread.Resolution.
// It takes effect at once; the settle wait is kept so that runs on both OSes
// follow the same protocol.
func inProcessStep(ctx context.Context, po probe.SleepOptions, r, settle time.Duration) (*probe.SleepResult, time.Duration, int64, error) {
	if err := clock.Pause(ctx, settle); err != nil {
		return nil, 0, 0, err
	}
	po.Thread.Resolution = r
	res, err := probe.Sleep(ctx, po)
	if err != nil {
		return nil, 0, 0, err
	}
	return res, time.Duration(res.Setup.GrantedNs), 0, nil
}

func currentResolution() int64 { return 0 }

// SeparateModeNote says what --mode separate can show on this OS.
func SeparateModeNote() (note string, cannotWork bool) {
	return "timer slack is per thread on Linux: a slack held by another process never changes this one's sleeps, so --mode separate is a control that should show no effect", true
}

// Defaults of `latlab sweep` on Linux: timer slack from 1 ns to 100 µs,
// three values per decade. Slack applies at once, so the settle wait is short.
const (
	DefaultFrom      = time.Nanosecond
	DefaultTo        = 100 * time.Microsecond
	DefaultStep      = 0
	DefaultPerDecade = 3
	DefaultSettle    = 100 * time.Millisecond
	What             = "timer slack"
)
