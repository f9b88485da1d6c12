package timer

import (
	"context"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/result"
)

// KindWho is the result-document kind of 'latlab timer who'.
var KindWho = result.Register[WhoResult]("timer-who", "which processes hold timer-resolution requests (Windows, powercfg /energy) or cpu_dma_latency and timer slack (Linux) (latlab timer who)")

// WhoOptions are the inputs of Who.
type WhoOptions struct {
	// Seconds is the window: on Windows the duration of the powercfg
	// /energy trace, on Linux how long the holders are watched (one scan a
	// second; 0 scans once).
	Seconds int
	// Root is where /proc is read (Linux; "/" unless testing).
	Root string
	// Every is the period of the Linux scans (default 1 s).
	Every time.Duration
	// Report, if set, is a saved powercfg /energy report (XML, HTML or
	// text) to read instead of looking, on any OS.
	Report string
}

// MaxWhoSeconds bounds WhoOptions.Seconds: an hour.
const MaxWhoSeconds = 3600

// WindowError is a WhoOptions.Seconds outside 0 to MaxWhoSeconds.
type WindowError struct{ Seconds int }

func (e *WindowError) Error() string {
	return fmt.Sprintf("a window of %d s: want 0 to %d", e.Seconds, MaxWhoSeconds)
}

// ReportError is a saved report that cannot be opened (Open) or is not a
// powercfg /energy report.
type ReportError struct {
	Path string
	Open bool
	Err  error
}

func (e *ReportError) Error() string {
	if e.Open {
		return fmt.Sprintf("cannot read %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *ReportError) Unwrap() error { return e.Err }

// Validate checks the options Who would refuse, so that a caller can
// refuse them before it says it is looking.
func (o WhoOptions) Validate() error {
	if o.Seconds < 0 || o.Seconds > MaxWhoSeconds {
		return &WindowError{Seconds: o.Seconds}
	}
	return nil
}

// WhoResult says who holds timer requests.
type WhoResult struct {
	OS string `json:"os"`

	// Windows: NtQueryTimerResolution now, and the requesters that
	// 'powercfg /energy' lists.
	Coarsest100ns uint32        `json:"coarsest_100ns,omitempty"`
	Finest100ns   uint32        `json:"finest_100ns,omitempty"`
	Current100ns  uint32        `json:"current_100ns,omitempty"`
	Energy        *EnergyReport `json:"energy_report,omitempty"`
	// EnergyError says why there is no report (not elevated, no powercfg).
	EnergyError string `json:"energy_report_error,omitempty"`

	// Linux.
	DMALatency *DMALatency `json:"cpu_dma_latency,omitempty"`
	Slack      []SlackProc `json:"timer_slack,omitempty"`
	// DefaultSlackNs is the slack the kernel starts every process with.
	DefaultSlackNs int64 `json:"default_timer_slack_ns,omitempty"`
	// Unreadable counts processes whose file descriptors or slack could
	// not be read (another user's, without root).
	Unreadable int `json:"unreadable_processes,omitempty"`
	Scans      int `json:"scans,omitempty"`

	Notes []string `json:"notes,omitempty"`
}

// DMALatency is /dev/cpu_dma_latency: the PM QoS CPU latency limit.
type DMALatency struct {
	// EffectiveUs is what the device reads: the strictest request in
	// force, in µs (2000000000 when there is none). Reading needs root.
	EffectiveUs    *int64 `json:"effective_us,omitempty"`
	EffectiveError string `json:"effective_error,omitempty"`
	// Holders are the processes with the device open: each open file is
	// one request, whose value Linux does not show per process.
	Holders []DMAHolder `json:"holders"`
}

// NoDMALimit is the value /dev/cpu_dma_latency reads with no request in
// force (PM_QOS_CPU_LATENCY_DEFAULT_VALUE).
const NoDMALimit = 2000000000

// DMAHolder is a process holding /dev/cpu_dma_latency open.
type DMAHolder struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	FDs  []int  `json:"fds"`
	// Seen is in how many of the scans it held the device.
	Seen int `json:"seen"`
}

// SlackProc is a process whose timer slack differs from the default.
type SlackProc struct {
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	SlackNs int64  `json:"timer_slack_ns"`
	// Policy is the scheduling policy (SCHED_OTHER, SCHED_FIFO, ...):
	// realtime tasks get no slack.
	Policy string `json:"policy,omitempty"`
}

// Who finds the holders of timer requests: on Windows the processes with
// an outstanding timer-resolution request (powercfg /energy), on Linux the
// processes holding /dev/cpu_dma_latency and those whose timer slack is
// not the default; with Report, the requesters that report lists. Bad
// options are a *WindowError, a report that cannot be read a
// *ReportError.
func Who(ctx context.Context, o WhoOptions) (*WhoResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Report != "" {
		rep, err := readEnergyReport(o.Report)
		if err != nil {
			return nil, err
		}
		return &WhoResult{OS: "windows", Energy: rep}, nil
	}
	if o.Root == "" {
		o.Root = "/"
	}
	if o.Every <= 0 {
		o.Every = time.Second
	}
	return who(ctx, o)
}

// readEnergyReport reads a saved report, bounded by infile's limits.
func readEnergyReport(path string) (*EnergyReport, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, &ReportError{Path: path, Open: true, Err: err}
	}
	defer f.Close()
	rep, err := ParseEnergyReport(f)
	if err != nil {
		return nil, &ReportError{Path: path, Err: err}
	}
	return rep, nil
}
