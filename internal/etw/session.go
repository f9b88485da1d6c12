package etw

import (
	"errors"
	"fmt"
	"strings"
)

// Kernel trace flags (EnableFlags of EVENT_TRACE_PROPERTIES, evntrace.h).
const (
	FlagProcess          = 0x00000001 // EVENT_TRACE_FLAG_PROCESS: process starts and ends, and the rundown
	FlagThread           = 0x00000002 // EVENT_TRACE_FLAG_THREAD: thread starts and ends, and the rundown
	FlagImageLoad        = 0x00000004 // EVENT_TRACE_FLAG_IMAGE_LOAD: module loads, and the rundown at the start
	FlagDPC              = 0x00000020 // EVENT_TRACE_FLAG_DPC
	FlagInterrupt        = 0x00000040 // EVENT_TRACE_FLAG_INTERRUPT
	FlagMemoryHardFaults = 0x00002000 // EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS: PageFault HardFault
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

// Every session latlab starts carries its process id in its name ("latlab
// dpc watch 4312"), so two latlabs run side by side, each with its own
// session, and a session whose name says its process is gone is known to
// be a leftover of a latlab that was killed: that one, and only that one,
// is stopped before a new session starts. A live latlab's session is
// never touched.
const (
	// KernelSessionBase names latlab's private kernel (system-logger)
	// sessions.
	KernelSessionBase = "latlab dpc watch"
	// TCPSessionBase names latlab's TCP/IP provider sessions.
	TCPSessionBase = "latlab tcpip"
)

// MaxSystemLoggers is how many sessions may use the kernel provider at
// once from Windows 8 on (learn.microsoft.com/windows/win32/etw/
// configuring-and-starting-a-systemtraceprovider-session: "up to eight
// ... system logger sessions"); the NT Kernel Logger and the Circular
// Kernel Context Logger are two of them.
const MaxSystemLoggers = 8

// SessionName is the name of latlab's session base started by process pid.
func SessionName(base string, pid uint32) string {
	return fmt.Sprintf("%s %d", base, pid)
}

// SessionPID is the process id in the name of a session of base that
// SessionName made; false for any other name.
func SessionPID(base, name string) (uint32, bool) {
	rest, ok := strings.CutPrefix(name, base+" ")
	if !ok || rest == "" || len(rest) > 10 || (rest[0] == '0' && rest != "0") {
		return 0, false
	}
	var pid uint64
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
		pid = pid*10 + uint64(c-'0')
	}
	if pid > 1<<32-1 {
		return 0, false
	}
	return uint32(pid), true
}

// StaleSessions are the sessions of base among all whose owning process
// is gone (alive says false for its id): the ones a new session may stop.
// The caller's own (self) and every session alive claims are left alone,
// as is any name SessionName did not make (a session of another tool, or
// of a latlab older than process ids in names, whose owner is unknown).
func StaleSessions(all []SessionInfo, base string, self uint32, alive func(pid uint32) bool) []string {
	var out []string
	for _, s := range all {
		pid, ok := SessionPID(base, s.Name)
		if !ok || pid == self || alive(pid) {
			continue
		}
		out = append(out, s.Name)
	}
	return out
}

// SessionGUID is the session GUID of latlab's private kernel session of
// process pid: fixed bytes ("latlabDPCwatch") with the process id in the
// last four, so that two processes' sessions never share one.
func SessionGUID(pid uint32) GUID {
	return GUID{Data1: 0x6c61746c, Data2: 0x6162, Data3: 0x4450, Data4: [8]byte{0x43, 0x77, 0x61, 0x74, byte(pid >> 24), byte(pid >> 16), byte(pid >> 8), byte(pid)}}
}

// LimitError: Windows runs as many trace sessions as it allows already
// (ERROR_NO_SYSTEM_RESOURCES from StartTrace).
type LimitError struct {
	// Session is the session latlab tried to start.
	Session string
	// Kernel: the limit is the eight sessions of the kernel provider; else
	// the system-wide number of trace sessions (64 unless raised).
	Kernel bool
	// Holders are the sessions that hold the kernel provider, by name.
	Holders []string
}

func (e *LimitError) Error() string {
	if e.Kernel {
		msg := fmt.Sprintf("cannot start %q: Windows runs its limit of %d kernel trace sessions already", e.Session, MaxSystemLoggers)
		if len(e.Holders) > 0 {
			msg += " (" + quoteList(e.Holders) + ")"
		}
		return msg + "; stop one with 'logman stop NAME -ets' (list them with 'logman query -ets')"
	}
	return fmt.Sprintf("cannot start %q: Windows runs as many trace sessions as it allows already; list them with 'logman query -ets' and stop one with 'logman stop NAME -ets'", e.Session)
}
