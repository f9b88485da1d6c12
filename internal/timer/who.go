package timer

import (
	"context"
	"github.com/latlab/latlab/internal/result"
	"time"
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
// not the default.
func Who(ctx context.Context, o WhoOptions) (*WhoResult, error) {
	if o.Root == "" {
		o.Root = "/"
	}
	if o.Every <= 0 {
		o.Every = time.Second
	}
	return who(ctx, o)
}
