package timer

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"github.com/latlab/latlab/internal/winapi"
)

const (
	what       = "resolution"
	minRequest = 100 * time.Nanosecond  // the API's unit
	maxRequest = 100 * time.Millisecond // far above any real coarsest interval (15.625 ms)
)

// ntError splits the error of an ntdll call: a missing procedure
// (lookup != nil) or the NTSTATUS it returned.
func ntError(err error) (status windows.NTStatus, lookup error) {
	if st, ok := err.(windows.NTStatus); ok {
		return st, nil
	}
	return 0, err
}

// QueryResolution returns NtQueryTimerResolution's coarsest, finest and
// current interval in 100 ns units. (NT calls them "minimum" and "maximum"
// resolution; latlab says coarsest and finest to avoid the inversion.)
func QueryResolution() (coarsest, finest, current uint32, err error) {
	st, lookup := ntError(winapi.NtQueryTimerResolution(&coarsest, &finest, &current))
	if lookup != nil {
		return 0, 0, 0, fmt.Errorf("NtQueryTimerResolution: %w", lookup)
	}
	if st != 0 {
		return 0, 0, 0, fmt.Errorf("NtQueryTimerResolution: NTSTATUS 0x%08x", uint32(st))
	}
	return coarsest, finest, current, nil
}

func queryRoot(string) (Status, error) { return query() }

func query() (Status, error) {
	var st Status
	v := windows.RtlGetVersion()
	st.Build = v.BuildNumber
	server := v.ProductType != 1 // VER_NT_WORKSTATION
	st.Server = &server
	perProcess := v.BuildNumber >= BuildPerProcess
	st.PerProcessRule = &perProcess
	global := GlobalKeySupported(v.BuildNumber, server)
	st.GlobalSupported = &global
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, registry.QUERY_VALUE); err == nil {
		if val, _, err := k.GetIntegerValue("GlobalTimerResolutionRequests"); err == nil {
			g := uint32(val)
			st.GlobalValue = &g
		}
		k.Close()
	}
	sc := RequestScope(v.BuildNumber, server, st.GlobalValue)
	st.Scope = &sc
	if v.BuildNumber < 17134 {
		st.Warnings = append(st.Warnings, fmt.Sprintf("build %d is older than 17134: the Go runtime raises the timer resolution itself there, so every measurement in this process runs at the finest resolution", v.BuildNumber))
	}
	c, f, cur, err := QueryResolution()
	if err != nil {
		return st, err
	}
	st.Coarsest100ns, st.Finest100ns, st.Current100ns = c, f, cur
	st.CoarsestMs, st.FinestMs, st.CurrentMs = float64(c)/1e4, float64(f)/1e4, float64(cur)/1e4
	return st, nil
}

// processPowerThrottlingState is PROCESS_POWER_THROTTLING_STATE.
type processPowerThrottlingState struct {
	Version     uint32
	ControlMask uint32
	StateMask   uint32
}

const (
	processPowerThrottling                      = 4 // PROCESS_INFORMATION_CLASS ProcessPowerThrottling
	processPowerThrottlingCurrentVersion        = 1
	processPowerThrottlingIgnoreTimerResolution = 0x4
)

// OptOutOfTimerThrottling tells Windows 11 not to ignore this process's
// timer requests when its windows are minimised or hidden
// (PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION in ControlMask, clear in
// StateMask). Older builds reject the flag; that is not an error for latlab.
func OptOutOfTimerThrottling() error {
	st := processPowerThrottlingState{
		Version:     processPowerThrottlingCurrentVersion,
		ControlMask: processPowerThrottlingIgnoreTimerResolution,
		StateMask:   0,
	}
	err := winapi.SetProcessInformation(windows.CurrentProcess(), processPowerThrottling,
		unsafe.Pointer(&st), uint32(unsafe.Sizeof(st)))
	if winapi.Missing(err) {
		return err
	}
	if err != nil {
		return fmt.Errorf("SetProcessInformation(ProcessPowerThrottling): %w", err)
	}
	return nil
}

func setResolution(units uint32, set bool) (uint32, error) {
	var cur uint32
	st, lookup := ntError(winapi.NtSetTimerResolution(units, set, &cur))
	if lookup != nil {
		return 0, fmt.Errorf("NtSetTimerResolution: %w", lookup)
	}
	return cur, resolutionStatus(uint32(st), units, set)
}

// statusTimerResolutionNotSet is STATUS_TIMER_RESOLUTION_NOT_SET
// (ntstatus.h, 0xC0000245; scripts/windows-abi compares it).
const statusTimerResolutionNotSet = 0xC0000245

// resolutionStatus is NtSetTimerResolution's NTSTATUS as an error.
// STATUS_TIMER_RESOLUTION_NOT_SET on a release means this process held no
// request: there was nothing to release, which is what release wants.
func resolutionStatus(st, units uint32, set bool) error {
	if st == 0 || (!set && st == statusTimerResolutionNotSet) {
		return nil
	}
	return fmt.Errorf("NtSetTimerResolution(%d, %v): NTSTATUS 0x%08x", units, set, st)
}

func set(d time.Duration) (*Request, error) {
	units := uint32((d + 50*time.Nanosecond) / (100 * time.Nanosecond))
	// Builds before Windows 11 do not know the flag and do not throttle
	// timers, so its failure changes nothing.
	_ = OptOutOfTimerThrottling()
	cur, err := setResolution(units, true)
	if err != nil {
		return nil, err
	}
	return &Request{
		Requested: d,
		Granted:   time.Duration(cur) * 100 * time.Nanosecond,
		release: func() error {
			_, err := setResolution(units, false)
			return err
		},
	}, nil
}
