package knob

import (
	"fmt"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/timer"
)

// globalTimerName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const globalTimerName = "global-timer-resolution-requests"

func init() { register(globalTimer{}) }

var globalTimerLoc = regLoc(`HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, "GlobalTimerResolutionRequests")

type globalTimer struct{ windowsKnob }

func (globalTimer) Name() string { return globalTimerName }
func (globalTimer) Summary() string {
	return "whether one process's timer resolution request speeds up every process again (Windows 11 / Server 2022)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile).
func (globalTimer) regInput(l backend.Loc, v backend.Value) (string, string) {
	return dwordInput(l, v, globalTimerLoc)
}

// globalMeaning is timer.GlobalRequestsMeaning of a stored value: one
// meaning per build for knob get, knob list, knob explain and the
// check-up.
func globalMeaning(build uint32, server bool, n uint64, absent bool) string {
	if absent {
		return timer.GlobalRequestsMeaning(build, server, nil)
	}
	v := uint32(min(n, 0xFFFFFFFF))
	return timer.GlobalRequestsMeaning(build, server, &v)
}

// GlobalTimerSupported says whether build reads the value: the same rule
// as timer status's request scope.
func GlobalTimerSupported(build uint32, server bool) bool {
	return timer.GlobalKeySupported(build, server)
}

func (globalTimer) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: globalTimerName}
	if value == "" {
		ex.Text = []string{
			`Session Manager\kernel\GlobalTimerResolutionRequests (REG_DWORD), Windows 11 (build 22000+) and Server 2022 (20348+) only.`,
			"0 or absent: " + globalMeaning(0, false, 0, true), "1: " + globalMeaning(0, false, 1, false),
			"Windows Server 2022 ships with it set to 1 (PC-Tuning, https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md); elsewhere it is absent.",
			"Read at boot: a change needs a reboot.",
		}
		return ex, nil
	}
	n, ok := parseBool01(value)
	if !ok {
		return nil, badinput.Errorf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	ex.Text = []string{fmt.Sprintf("%d: %s", n, globalMeaning(0, false, uint64(n), false))}
	ex.Data = map[string]any{"value": n, "global": n == 1}
	return ex, nil
}

func (k globalTimer) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", globalTimerLoc, func(v backend.Value) string {
		n, _ := v.Uint()
		return globalMeaning(env.Build, env.Server, n, v.IsAbsent())
	})
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name(), Items: []Item{it}}
	if env.Build != 0 && !GlobalTimerSupported(env.Build, env.Server) {
		r.Notes = append(r.Notes, fmt.Sprintf("build %d ignores this value (needs Windows 11 22000+ or Server 2022 20348+)", env.Build))
	}
	return r, nil
}

func (k globalTimer) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, ok := parseBool01(value)
	if !ok {
		return nil, badinput.Errorf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	if !GlobalTimerSupported(env.Build, env.Server) {
		return nil, badinput.Errorf("global-timer-resolution-requests exists only on Windows 11 (build 22000+) and Server 2022 (20348+); this is %s build %d", platform(env.Server), env.Build)
	}
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"takes effect after a reboot"}}
	_, err := p.addNumber(env, globalTimerLoc, uint64(n), backend.TypeDWORD)
	return p, err
}

func (k globalTimer) Vet(target string, l backend.Loc, v backend.Value) error {
	return vetRegNumber(k.Name(), target, l, v, globalTimerLoc)
}

// Checkup is what the check-up knows of global-timer-resolution-requests: its default, how its
// instances are read and the verdict rules.
func (globalTimer) Checkup() Checkup {
	return Checkup{Default: gtrrDefault, Rules: globalTimerRules}
}

// Experiment is how a change of global-timer-resolution-requests takes effect for latlab try.
func (globalTimer) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "the kernel reads it at boot: it takes effect after a reboot"}
}

var globalTimerRules = []Rule{
	{ID: "gtrr-ignored", Verdict: Suspicious, When: "set to non-zero on a build that ignores it",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n != 0 && c.Build != 0 && !GlobalTimerSupported(c.Build, c.Server)
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("set to %s, but build %d ignores it: timer requests stay %s", c.Text(), c.Build, ruleWord(c.Build))
		},
		Evidence: func(c *Case) string { return noteWith(c, "ignores this value") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain global-timer-resolution-requests", Why: "it has no effect on this build", Benefit: 20}
		}},
	{ID: "gtrr-not-boolean", Verdict: Suspicious, When: "a value other than 0 or 1",
		Match: func(c *Case) bool { n, ok := c.N(); return !c.Raw.IsAbsent() && (!ok || n > 1) },
		Reason: func(c *Case) string {
			return fmt.Sprintf("%s is not one of the documented values 0 and 1", c.Value)
		},
		Evidence: func(c *Case) string {
			return quote(globalTimerName, "", "GlobalTimerResolutionRequests (REG_DWORD)")
		}},
	// PC-Tuning ("Fixing Timing Precision in Windows After The Great Rule
	// Change", https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
	// "the registry key is present and set to 1 by default on Windows
	// Server 2022". There 1 is the default, and absent or 0 the change.
	{ID: "gtrr-server-2022", Verdict: Default, When: "1 on Windows Server 2022 (build 20348), which ships it set to 1",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return ok && n == 1 && timer.GlobalKeyDefault(c.Build, c.Server) == 1
		},
		Reason: func(c *Case) string { return "the Windows Server 2022 default: " + c.Meaning },
		Evidence: func(c *Case) string {
			return quote(globalTimerName, "", "Windows Server 2022 ships with it set to 1")
		}},
	{ID: "gtrr-server-2022-off", Verdict: Changed, When: "absent or 0 on Windows Server 2022, which ships it set to 1",
		Match: func(c *Case) bool {
			n, ok := c.N()
			return (c.Raw.IsAbsent() || (ok && n == 0)) && timer.GlobalKeyDefault(c.Build, c.Server) == 1
		},
		Reason: func(c *Case) string { return "changed from the Windows Server 2022 default 1: " + c.Meaning },
		Evidence: func(c *Case) string {
			return quote(globalTimerName, "", "Windows Server 2022 ships with it set to 1")
		},
		IsDefault: func(*Case) *bool { return boolPtr(false) }},
	{ID: "gtrr-on", Verdict: Changed, When: "1 on a build that honours it",
		Match:    func(c *Case) bool { n, ok := c.N(); return ok && n == 1 },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote(globalTimerName, "", "Read at boot") }},
	{ID: "gtrr-default", Verdict: Default, When: "absent or 0",
		Match:  always,
		Reason: func(c *Case) string { return "not set: " + c.Meaning }},
}

func ruleWord(build uint32) string {
	if build < 19041 {
		return "global"
	}
	return "per process"
}

func gtrrDefault(c *Case) string {
	if timer.GlobalKeyDefault(c.Build, c.Server) == 1 {
		return "1 (Windows Server 2022 ships it set)"
	}
	return "absent (0)"
}
