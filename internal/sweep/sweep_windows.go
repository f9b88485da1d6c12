package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/timer"
)

// Quantum is the unit a request is rounded to: NtSetTimerResolution takes
// 100 ns units.
const Quantum = 100 * time.Nanosecond

// DefaultReference is the coarsest-grained choice people make without a
// sweep: 0.5 ms, the finest resolution most machines offer.
const DefaultReference = 500 * time.Microsecond

// A timer request is process-wide on Windows: it is held for the settle
// period (the research found results unreliable without one) and then the
// probe measures without making a request of its own.
func inProcessStep(ctx context.Context, po probe.SleepOptions, r, settle time.Duration) (*probe.SleepResult, time.Duration, int64, error) {
	req, err := timer.Set(r)
	if err != nil {
		return nil, 0, 0, err
	}
	defer req.Release()
	if err := clock.Pause(ctx, settle); err != nil {
		return nil, 0, 0, err
	}
	cur := currentResolution()
	po.Thread.Resolution = 0
	res, err := probe.Sleep(ctx, po)
	if err != nil {
		return nil, 0, 0, err
	}
	return res, req.Granted, cur, nil
}

// currentResolution is NtQueryTimerResolution's current interval in ns.
func currentResolution() int64 {
	_, _, cur, err := timer.QueryResolution()
	if err != nil {
		return 0
	}
	return int64(cur) * 100
}

// SeparateModeNote says whether another process's request can affect this
// one on this build.
func SeparateModeNote() (note string, cannotWork bool) {
	st, err := timer.Query()
	if err != nil {
		return "", false
	}
	if st.Scope == nil {
		return "", false
	}
	switch {
	case st.Scope.Reason == "before-2004":
		return "build before Windows 10 2004: timer requests are global, so a request held by another process applies here", false
	case st.Scope.Global:
		return fmt.Sprintf("GlobalTimerResolutionRequests=%d: another process's request applies here as before Windows 10 2004", *st.Scope.KeyValue), false
	case st.Scope.KeySupported:
		return "since Windows 10 2004 a timer request held by another process does not speed up this one: --mode separate cannot work here unless GlobalTimerResolutionRequests=1 is set (HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\kernel, then reboot); measuring anyway as a control", true
	}
	return "since Windows 10 2004 a timer request held by another process does not speed up this one, and this build has no GlobalTimerResolutionRequests: --mode separate cannot work here; measuring anyway as a control", true
}

// Defaults of `latlab sweep` on Windows: the research's micro-adjust range,
// 0.5 ms to 0.8 ms in 0.002 ms steps, with a 1 s settle after each request
// (micro-adjust-benchmark.ps1 found results unreliable without one).
const (
	DefaultFrom      = 500 * time.Microsecond
	DefaultTo        = 800 * time.Microsecond
	DefaultStep      = 2 * time.Microsecond
	DefaultPerDecade = 0
	DefaultSettle    = time.Second
	What             = "timer resolution"
)
