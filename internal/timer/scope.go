package timer

import (
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/units"
)

// Windows builds that change how far a timer resolution request reaches.
const (
	// BuildPerProcess is Windows 10 2004: from it on, a request only
	// speeds up the process that made it.
	BuildPerProcess = 19041
	// BuildGlobalClient and BuildGlobalServer are Windows 11 and Server
	// 2022, the first builds that read GlobalTimerResolutionRequests.
	BuildGlobalClient = 22000
	BuildGlobalServer = 20348
)

// Scope is how far a timer resolution request reaches on a Windows
// machine, and why: the build and GlobalTimerResolutionRequests decide it.
type Scope struct {
	// Global: any process's request sets the interval every process is
	// woken at; false: only the requesting process is.
	Global bool `json:"global"`
	// Reason is "before-2004" (requests were always global),
	// "per-process" (2004 and later, the key absent, 0 or unsupported) or
	// "global-key" (the key is set and the build honours it).
	Reason string `json:"reason"`
	// KeySupported: this build reads GlobalTimerResolutionRequests.
	KeySupported bool `json:"global_key_supported"`
	// KeyValue is the registry value, when present.
	KeyValue *uint32 `json:"global_key_value,omitempty"`
}

// GlobalKeySupported says whether a build reads
// GlobalTimerResolutionRequests (Windows 11 22000+, Server 2022 20348+).
func GlobalKeySupported(build uint32, server bool) bool {
	if server {
		return build >= BuildGlobalServer
	}
	return build >= BuildGlobalClient
}

// RequestScope decides the scope from the build, the platform and
// GlobalTimerResolutionRequests (nil when absent). The kernel reads the
// value at boot and treats any non-zero value as on.
func RequestScope(build uint32, server bool, key *uint32) Scope {
	s := Scope{KeySupported: GlobalKeySupported(build, server), KeyValue: key}
	switch {
	case build < BuildPerProcess:
		s.Global, s.Reason = true, "before-2004"
	case s.KeySupported && key != nil && *key != 0:
		s.Global, s.Reason = true, "global-key"
	default:
		s.Reason = "per-process"
	}
	return s
}

// Lines says what s means, in lines of at most 80 columns.
func (s Scope) Lines() []string {
	var out []string
	switch s.Reason {
	case "before-2004":
		out = append(out, "timer requests: global (before Windows 10 2004): any process's request",
			"  speeds up every process")
	case "global-key":
		out = append(out, fmt.Sprintf("timer requests: global: GlobalTimerResolutionRequests=%d brings back the", *s.KeyValue),
			"  pre-2004 behaviour: any process's request speeds up every process",
			"  (read at boot; Windows Server 2022 ships with it set to 1); on Windows 11",
			"  a minimised or hidden requester still falls back to 15.625 ms unless it",
			"  opts out with PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION")
		return out
	default:
		out = append(out, "timer requests: per-process (Windows 10 2004+): a request still sets the",
			"  system's timer interrupt, but only the requester's sleeps follow it;",
			"  another process's sleeps keep near 15.625 ms in whole intervals",
			"  ("+otherSleepsFigures()+": Bruce Dawson)")
	}
	val := "absent"
	if s.KeyValue != nil {
		val = fmt.Sprintf("set to %d", *s.KeyValue)
	}
	if !s.KeySupported {
		return append(out, fmt.Sprintf("GlobalTimerResolutionRequests: %s; it has no effect on this build", val),
			"  (read only by Windows 11 22000+ and Server 2022 20348+)")
	}
	if s.KeyValue != nil {
		val = "0"
	}
	return append(out, fmt.Sprintf("GlobalTimerResolutionRequests: %s; 1 and a restart bring back the global", val),
		"  behaviour (Windows Server 2022 ships with it set to 1)")
}

// EffectiveScope is st's request scope: the one Query recorded or, for a
// document written before latlab recorded it, the one the same facts give.
func (st *Status) EffectiveScope() Scope {
	if st.Scope != nil {
		return *st.Scope
	}
	return RequestScope(st.Build, st.Server != nil && *st.Server, st.GlobalValue)
}

// BuildServer2022 is Windows Server 2022, which ships with
// GlobalTimerResolutionRequests set to 1: PC-Tuning, "Fixing Timing
// Precision in Windows After The Great Rule Change" (valleyofdoom,
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
// "the registry key is present and set to 1 by default on Windows Server
// 2022".
const BuildServer2022 = 20348

// GlobalKeyDefault is the GlobalTimerResolutionRequests value a build
// ships with: 1 on Windows Server 2022, absent (0) elsewhere.
func GlobalKeyDefault(build uint32, server bool) uint32 {
	if server && build == BuildServer2022 {
		return 1
	}
	return 0
}

// OccludedCaveat is what GlobalTimerResolutionRequests=1 does not change:
// Windows 11 still drops the request of a window-owning process that is
// minimised or hidden (Microsoft's timeBeginPeriod documentation), and
// PC-Tuning measured exactly that with the key set (Sleep(1) back to
// 15.6 ms once the requester was minimised) until the requester opted out
// with PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION.
const OccludedCaveat = "on Windows 11 a minimised or hidden requester still falls back to 15.625 ms unless it opts out with PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION"

// GlobalRequestsMeaning is what GlobalTimerResolutionRequests (nil:
// absent) means on a build (0: unknown), the one wording knob get, knob
// list, knob explain and the check-up share: before Windows 10 2004
// requests are global whatever the value; from 2004 they are per process
// unless the build reads the value (Windows 11 22000+, Server 2022
// 20348+) and it is non-zero.
func GlobalRequestsMeaning(build uint32, server bool, key *uint32) string {
	set := key != nil && *key != 0
	switch {
	case build == 0 && set:
		return fmt.Sprintf("global where the build reads GlobalTimerResolutionRequests=%d (Windows 11 22000+, Server 2022 20348+): any process's timer resolution request raises the resolution for every process, as before Windows 10 2004; %s", *key, OccludedCaveat)
	case build == 0:
		return "per process from Windows 10 2004: " + PerProcessEffect() + " (before 2004 requests are global whatever GlobalTimerResolutionRequests says)"
	case build < BuildPerProcess:
		return fmt.Sprintf("global: build %d predates Windows 10 2004 (19041), so any process's timer resolution request raises the resolution for every process, whatever GlobalTimerResolutionRequests says", build)
	case set && GlobalKeySupported(build, server):
		return fmt.Sprintf("global again: GlobalTimerResolutionRequests=%d is honoured on build %d, so any process's timer resolution request raises the resolution for every process, as before Windows 10 2004; %s", *key, build, OccludedCaveat)
	case set:
		return fmt.Sprintf("per process: GlobalTimerResolutionRequests=%d is ignored by build %d (Windows 11 22000+ and Server 2022 20348+ read it), so %s", *key, build, PerProcessEffect())
	}
	return fmt.Sprintf("per process (Windows 10 2004+, build %d): %s", build, PerProcessEffect())
}

// OtherSleeps is what Bruce Dawson measured Sleep(1) to take on Windows
// 10 2004 in a process that requested nothing while another process held
// timeBeginPeriod(Interval) ("Windows Timer Resolution: The Great Rule
// Change", randomascii.wordpress.com, 2020-10-04, its [Updated] section):
// about 12 ms (two intervals) at 6 ms, and at 8 ms one interval a fifth
// of the time and two the rest. So a request still reaches other
// processes ("There is still an effect"): their sleeps imitate the default
// 15.625 ms in whole intervals of the interval in force. The timeBeginPeriod
// call still sets the system's timer interrupt interval on every version
// (Dawson: "timeBeginPeriod still sets the global timer interrupt
// interval, on all versions"). crossproc.Expected models this, and its
// tests hold the model to these figures.
var OtherSleeps = []struct {
	Interval time.Duration
	Sleeps   []time.Duration // the lengths seen, shortest first
}{
	{6 * time.Millisecond, []time.Duration{12 * time.Millisecond}},
	{8 * time.Millisecond, []time.Duration{8 * time.Millisecond, 16 * time.Millisecond}},
}

// otherSleepsFigures words OtherSleeps: "12 ms at a 6 ms interval, 8 or
// 16 ms at 8 ms".
func otherSleepsFigures() string {
	var parts []string
	for i, o := range OtherSleeps {
		var ss []string
		for _, d := range o.Sleeps {
			ss = append(ss, units.Ms(d, 0))
		}
		at := units.Ms(o.Interval, 0) + " ms"
		if i == 0 {
			at = "a " + at + " interval"
		}
		parts = append(parts, strings.Join(ss, " or ")+" ms at "+at)
	}
	return strings.Join(parts, ", ")
}

// PerProcessEffect is what a timer resolution request does since Windows
// 10 2004 where requests are per process (see OtherSleeps).
func PerProcessEffect() string {
	return "a timer resolution request still sets the system's timer interrupt, but only the requester's sleeps follow it; another process's sleeps keep near the default 15.625 ms in whole intervals (Bruce Dawson measured Sleep(1) at " + otherSleepsFigures() + ")"
}
