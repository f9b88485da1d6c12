package try

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
)

// Scope says what a knob's value applies to during an experiment.
type Scope = knob.Scope

// The scopes, as the catalogue declares them.
const (
	ScopeProcess = knob.ScopeProcess
	ScopeSystem  = knob.ScopeSystem
)

// Info is what try needs to know about a knob beyond its values: what
// the catalogue declares of a change (knob.Experiment), or the same for
// the timer resolution request.
type Info struct {
	Name string
	OS   string
	knob.Experiment
}

// DefaultSettle is the wait after a change before a block is measured,
// when the knob names none.
const DefaultSettle = knob.DefaultSettle

// TimerResolution is the name of the Windows timer resolution request as a
// knob of try: it is not in the catalogue (no setting of the system holds
// it: a process asks for it and keeps it while it runs).
const TimerResolution = "timer-resolution"

// timerResolution is what try knows of the timer resolution request.
var timerResolution = Info{Name: TimerResolution, OS: "windows", Experiment: knob.Experiment{Scope: ScopeProcess, Settle: DefaultSettle, Probe: ProbeSleep}}

// LookupInfo returns what try knows of a knob by its catalogue name (or
// timer-resolution).
func LookupInfo(name string) (Info, bool) {
	if name == TimerResolution {
		return timerResolution, true
	}
	k, err := knob.Lookup(name)
	if err != nil || k.Name() != name {
		return Info{Name: name}, false
	}
	return Info{Name: name, OS: k.OS(), Experiment: k.Experiment()}, true
}

// LiveKnobs are the knobs try can switch between blocks on this OS, by
// name.
func LiveKnobs() []string {
	var out []string
	for _, in := range infos() {
		if in.OS == knob.HostOS && in.Live() {
			out = append(out, in.Name)
		}
	}
	slices.Sort(out)
	return out
}

// infos are what try knows of every knob of the catalogue and of the
// timer resolution request.
func infos() []Info {
	out := []Info{timerResolution}
	for _, k := range knob.All() {
		in, _ := LookupInfo(k.Name())
		out = append(out, in)
	}
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
			return in, nil, badinput.Errorf("timer-resolution is the Windows timer request; on Linux the per-thread equivalent is timer-slack: latlab try timer-slack 1us --probe sleep")
		}
		return in, nil, nil
	}
	k, err := knob.Lookup(name)
	if err != nil {
		return Info{}, nil, badinput.Errorf("%s", err.Error())
	}
	in, ok := LookupInfo(k.Name())
	if !ok {
		return Info{}, nil, fmt.Errorf("internal: try knows nothing of knob %s", k.Name())
	}
	if !knob.IsNative(k) {
		return in, k, badinput.Errorf("%s is a %s setting: this is %s", k.Name(), k.OS(), knob.HostOS)
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
		return badinput.Errorf("%s takes effect only when the network adapter restarts: add --restart-adapter to have latlab try restart it after each change and each restore, or measure it in two runs: %s",
			in.Name, strings.Replace(recipe, "; reboot;", "; restart the adapter (or reboot);", 1))
	}
	return badinput.Errorf("%s cannot be tried live: %s; measure it in two runs: %s", in.Name, in.Pending, recipe)
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
