package etw

import (
	"errors"
	"fmt"
	"strings"
)

// Kernel trace flags (EnableFlags of EVENT_TRACE_PROPERTIES, evntrace.h).
const (
	FlagImageLoad = 0x00000004 // EVENT_TRACE_FLAG_IMAGE_LOAD: module loads, and the rundown at the start
	FlagDPC       = 0x00000020 // EVENT_TRACE_FLAG_DPC
	FlagInterrupt = 0x00000040 // EVENT_TRACE_FLAG_INTERRUPT
)

// KernelLoggerName is the one session that may use the kernel provider on
// every Windows; from Windows 8 on, up to 8 sessions may (two slots are
// the NT Kernel Logger's and the Circular Kernel Context Logger's).
const KernelLoggerName = "NT Kernel Logger"

// ErrUnsupported is returned where ETW does not exist.
var ErrUnsupported = errors.New("Event Tracing for Windows exists only on Windows")

// AccessError: starting a kernel session needs an elevated token (or
// membership of Performance Log Users with the right grants).
type AccessError struct{ Op string }

func (e *AccessError) Error() string {
	return fmt.Sprintf("%s: access denied: a kernel trace needs an elevated (Administrator) prompt", e.Op)
}

// HeldError: the kernel provider's sessions are taken by other tools.
type HeldError struct {
	// Sessions are the sessions that hold the kernel provider, by name.
	Sessions []string
}

func (e *HeldError) Error() string {
	if len(e.Sessions) == 0 {
		return "the kernel trace is in use by another tool; list the sessions with 'logman query -ets' and stop one with 'logman stop NAME -ets'"
	}
	var stops []string
	for _, s := range e.Sessions {
		stops = append(stops, fmt.Sprintf("logman stop %q -ets", s))
	}
	return fmt.Sprintf("the kernel trace is in use by %s; stop it with: %s", quoteList(e.Sessions), strings.Join(stops, " or "))
}

func quoteList(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}

// UnavailableError: the OS has the API but no tracing behind it (Wine).
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return "tracing unavailable: " + e.Reason }

// SessionInfo is one running trace session, as QueryAllTraces lists it.
type SessionInfo struct {
	Name        string
	LogFileMode uint32
	EnableFlags uint32
}

// eventTraceSystemLoggerMode is EVENT_TRACE_SYSTEM_LOGGER_MODE: a
// session of the kernel provider other than the NT Kernel Logger.
const eventTraceSystemLoggerMode = 0x02000000

// KernelHolders picks the sessions that use the kernel provider: the NT
// Kernel Logger and any session in system-logger mode. The Circular Kernel
// Context Logger is left out: Windows runs it and it must not be stopped.
func KernelHolders(all []SessionInfo) []string {
	var out []string
	for _, s := range all {
		switch {
		case s.Name == "Circular Kernel Context Logger":
		case s.Name == KernelLoggerName, s.LogFileMode&eventTraceSystemLoggerMode != 0:
			out = append(out, s.Name)
		}
	}
	return out
}
