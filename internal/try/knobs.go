package try

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob"
)

// Scope says what a knob's value applies to during an experiment.
type Scope string

// Scopes: the probe's own thread or process (nothing outside latlab
// changes, nothing is journaled), or the whole system through the knob
// journal, as `latlab knob set` does.
const (
	ScopeProcess Scope = "process"
	ScopeSystem  Scope = "system"
)

// Info is what try needs to know about a knob beyond the catalogue: whether
// a change takes effect while the system runs, how long to let it settle,
// and which probe shows its effect.
type Info struct {
	Name  string
	OS    string
	Scope Scope
	// Pending says when a change takes effect if not at once ("after a
	// reboot"); try refuses such knobs.
	Pending string
	// Restart is set when the change takes effect only once the network
	// adapter restarts.
	Restart bool
	Settle  time.Duration
	// Probe is the probe of try that shows the knob's effect ("sleep";
	// "udp" for a NIC setting, which needs an echo server), "" when none
	// does (a TCP setting).
	Probe string
}

// DefaultSettle is the wait after a change before a block is measured,
// when the knob names none.
const DefaultSettle = time.Second

// TimerResolution is the name of the Windows timer resolution request as a
// knob of try: it is not in the catalogue (no setting of the system holds
// it: a process asks for it and keeps it while it runs).
const TimerResolution = "timer-resolution"

// infos covers every knob of the catalogue (a test checks it) and the
// timer resolution request.
var infos = map[string]Info{
	// Linux.
	"timer-slack":  {OS: "linux", Scope: ScopeProcess, Settle: 100 * time.Millisecond, Probe: "sleep"},
	"clocksource":  {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle, Probe: "sleep"},
	"tcp-recovery": {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle},
	"tcp-dsack":    {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle},
	"irq-affinity": {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle, Probe: "udp"},
	"rps":          {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle, Probe: "udp"},
	"coalescing":   {OS: "linux", Scope: ScopeSystem, Settle: DefaultSettle, Probe: "udp"},
	// Windows.
	TimerResolution:                    {OS: "windows", Scope: ScopeProcess, Settle: DefaultSettle, Probe: "sleep"},
	"win32-priority-separation":        {OS: "windows", Scope: ScopeSystem, Settle: DefaultSettle, Probe: "sleep"},
	"global-timer-resolution-requests": {OS: "windows", Scope: ScopeSystem, Pending: "the kernel reads it at boot: it takes effect after a reboot"},
	"network-throttling-index":         {OS: "windows", Scope: ScopeSystem, Pending: "MMCSS reads it when it starts: it takes effect after a reboot"},
	"tsc-sync-policy":                  {OS: "windows", Scope: ScopeSystem, Pending: "it is a boot setting (BCD): it takes effect after a reboot"},
	"display-scaling":                  {OS: "windows", Scope: ScopeSystem, Pending: "Windows applies it at the next display mode change or sign-in"},
	"qos-dscp":                         {OS: "windows", Scope: ScopeSystem, Pending: "Group Policy applies it at the next refresh (gpupdate /force) or sign-in"},
	"rss":                              {OS: "windows", Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: "udp"},
	"interrupt-moderation":             {OS: "windows", Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: "udp"},
}

// LookupInfo returns what try knows of a knob by its catalogue name (or
// timer-resolution).
func LookupInfo(name string) (Info, bool) {
	in, ok := infos[name]
	in.Name = name
	return in, ok
}

// LiveKnobs are the knobs try can switch between blocks on this OS, by
// name.
func LiveKnobs() []string {
	var out []string
	for name, in := range infos {
		if in.OS == knob.HostOS && in.Live() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Live reports whether try can switch the knob between blocks by itself.
func (in Info) Live() bool { return in.Pending == "" && !in.Restart }

// resolve finds the knob of a try: its Info and, for a knob of the
// catalogue, the knob. Bad names and knobs of the other OS are input
// errors.
func resolve(name string) (Info, knob.Knob, error) {
	if strings.EqualFold(name, TimerResolution) {
		in, _ := LookupInfo(TimerResolution)
		if in.OS != knob.HostOS {
			return in, nil, inputf("timer-resolution is the Windows timer request; on Linux the per-thread equivalent is timer-slack: latlab try timer-slack 1us --probe sleep")
		}
		return in, nil, nil
	}
	k, err := knob.Lookup(name)
	if err != nil {
		return Info{}, nil, inputf("%s", err.Error())
	}
	in, ok := LookupInfo(k.Name())
	if !ok {
		return Info{}, nil, fmt.Errorf("internal: try knows nothing of knob %s", k.Name())
	}
	if !knob.IsNative(k) {
		return in, k, inputf("%s is a %s setting: this is %s", k.Name(), k.OS(), knob.HostOS)
	}
	return in, k, nil
}

// refusal is the one line that says why try cannot measure a knob that
// does not take effect live, with the two runs that measure it by hand.
func refusal(in Info, values []string, probeCmd string) error {
	v := "VALUE"
	if len(values) > 0 {
		v = values[0]
	}
	step := "reboot"
	if strings.Contains(in.Pending, "sign-in") {
		step = "sign out and in"
	}
	recipe := fmt.Sprintf("%s -o before.json; latlab knob set %s %s; %s; %s -o after.json; latlab compare before.json after.json",
		probeCmd, in.Name, quoteArg(v), step, probeCmd)
	if in.Restart {
		return inputf("%s takes effect only when the network adapter restarts: add --restart-adapter to have latlab try restart it after each change and each restore, or measure it in two runs: %s",
			in.Name, strings.Replace(recipe, "; reboot;", "; restart the adapter (or reboot);", 1))
	}
	return inputf("%s cannot be tried live: %s; measure it in two runs: %s", in.Name, in.Pending, recipe)
}

// quoteArg quotes a value for the command line of this OS when it needs
// it: single quotes for a POSIX shell, double quotes for cmd and
// PowerShell (where a backslash is a path separator, not an escape).
func quoteArg(s string) string {
	special := " \t'\"*?$&;|<>()`\\"
	if knob.HostOS == "windows" {
		special = " \t'\"*?$&;|<>()`"
	}
	switch {
	case s != "" && !strings.ContainsAny(s, special):
		return s
	case knob.HostOS == "windows":
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
