package timer

import "fmt"

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
			"  (read at boot; Windows Server 2022 ships with it set to 1)")
		return out
	default:
		out = append(out, "timer requests: per-process (Windows 10 2004+): a request only speeds up",
			"  the process that made it")
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
