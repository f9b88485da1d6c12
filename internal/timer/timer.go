// Package timer queries and requests the OS timer resolution: on Windows the
// system timer interval (NtQueryTimerResolution / NtSetTimerResolution), on
// Linux the per-thread timer slack (PR_SET_TIMERSLACK) and the clock facts
// that bound how precisely a sleeping thread can be woken.
package timer

import (
	"fmt"
	"time"
)

// Status is the timer state reported by `latlab timer status` and stored in
// every result document. OS-specific fields are omitted on the other OS.
type Status struct {
	// Windows: NtQueryTimerResolution, in 100 ns units and in ms.
	// "Current" is the system-wide timer interval; since Windows 10 2004 it
	// does not prove that this process is woken at that rate.
	Coarsest100ns   uint32  `json:"coarsest_100ns,omitempty"`
	Finest100ns     uint32  `json:"finest_100ns,omitempty"`
	Current100ns    uint32  `json:"current_100ns,omitempty"`
	CoarsestMs      float64 `json:"coarsest_ms,omitempty"`
	FinestMs        float64 `json:"finest_ms,omitempty"`
	CurrentMs       float64 `json:"current_ms,omitempty"`
	Build           uint32  `json:"build,omitempty"`
	PerProcessRule  *bool   `json:"per_process_rule,omitempty"`                 // build >= 19041 (Windows 10 2004)
	GlobalSupported *bool   `json:"global_requests_supported,omitempty"`        // Windows 11 >= 22000, Server 2022 >= 20348
	GlobalValue     *uint32 `json:"global_timer_resolution_requests,omitempty"` // registry value when present
	Server          *bool   `json:"server,omitempty"`
	// Scope is how far a request reaches here, from the three above.
	Scope *Scope `json:"request_scope,omitempty"`

	// Linux.
	ClockResNs            int64    `json:"clock_res_ns,omitempty"`   // clock_getres(CLOCK_MONOTONIC)
	TimerSlackNs          int64    `json:"timer_slack_ns,omitempty"` // this thread's slack (in a probe's document, the measuring thread's)
	DefaultTimerSlackNs   int64    `json:"default_timer_slack_ns,omitempty"`
	Clocksource           string   `json:"clocksource,omitempty"`
	AvailableClocksources []string `json:"available_clocksources,omitempty"`
	// Tickless is the tick mode the kernel was built for (its config:
	// TickConfig names the option), or "full" when nohz_full CPUs are set.
	Tickless     string `json:"tickless,omitempty"` // "idle", "full", "periodic" when known
	NohzFullCPUs string `json:"nohz_full_cpus,omitempty"`
	ConfigHZ     int    `json:"config_hz,omitempty"`
	// HighResTimers is CONFIG_HIGH_RES_TIMERS of the kernel's build config:
	// built in, which the boot parameter highres=off can still turn off.
	HighResTimers *bool `json:"high_res_timers,omitempty"`

	Warnings []string `json:"warnings,omitempty"`
}

// TickConfig names the kernel build option a Linux tick mode (Status
// Tickless) was read from, "" for one read at run time (nohz_full CPUs)
// or unknown: the output says the build's option, not a mode the kernel
// reported (the boot parameter nohz=off makes an idle-tickless build
// periodic).
func TickConfig(tickless string) string {
	switch tickless {
	case "idle":
		return "CONFIG_NO_HZ_IDLE"
	case "periodic":
		return "CONFIG_HZ_PERIODIC"
	case "full (when nohz_full= is set)":
		return "CONFIG_NO_HZ_FULL"
	}
	return ""
}

// HighResConfig words Status HighResTimers as the build option it is.
func HighResConfig(built bool) string {
	if built {
		return "built in (CONFIG_HIGH_RES_TIMERS=y)"
	}
	return "not built in (CONFIG_HIGH_RES_TIMERS not set)"
}

// Query reads the timer state of this machine (and, on Linux, of the
// calling thread).
func Query() (Status, error) { return query() }

// QueryRoot is Query with the files it reads (on Linux: the clocksource,
// nohz_full, the kernel config) taken under root, a --root tree; the
// clock's resolution and the thread's slack stay this process's. Windows
// reads no file for it: root is not used there.
func QueryRoot(root string) (Status, error) { return queryRoot(root) }

// Request is a held timer request. Release undoes it exactly once.
type Request struct {
	Requested time.Duration
	Granted   time.Duration
	release   func() error
}

// Release gives the request back to the OS.
func (r *Request) Release() error {
	if r == nil || r.release == nil {
		return nil
	}
	f := r.release
	r.release = nil
	return f()
}

// Set requests a timer resolution for this process: on Windows the system
// timer interval (after opting out of power throttling, which would
// otherwise ignore the request while the process is in the background); on
// Linux the timer slack of the calling thread, which the caller must have
// locked with runtime.LockOSThread.
func Set(d time.Duration) (*Request, error) {
	if err := Validate(d); err != nil {
		return nil, err
	}
	return set(d)
}

// Validate checks that d can be requested on this OS.
func Validate(d time.Duration) error {
	if d < minRequest || d > maxRequest {
		return &RangeError{D: d}
	}
	return nil
}

// RangeError reports a request outside Bounds.
type RangeError struct{ D time.Duration }

func (e *RangeError) Error() string {
	return fmt.Sprintf("timer %s %s is out of range: accepted %s to %s", what, e.D, minRequest, maxRequest)
}
