package knob

import (
	"fmt"

	"github.com/latlab/latlab/internal/timer"
)

var globalTimerLoc = regLoc(`HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, "GlobalTimerResolutionRequests")

type globalTimer struct{ windowsKnob }

func (globalTimer) Name() string { return "global-timer-resolution-requests" }
func (globalTimer) Summary() string {
	return "whether one process's timer resolution request speeds up every process again (Windows 11 / Server 2022)"
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
	ex := &Explanation{Knob: "global-timer-resolution-requests"}
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
		return nil, inputf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	ex.Text = []string{fmt.Sprintf("%d: %s", n, globalMeaning(0, false, uint64(n), false))}
	ex.Data = map[string]any{"value": n, "global": n == 1}
	return ex, nil
}

func (k globalTimer) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := regItem(env, "", globalTimerLoc, func(v Value) string {
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
		return nil, inputf("invalid global-timer-resolution-requests %q: accepted 0|1", value)
	}
	if !GlobalTimerSupported(env.Build, env.Server) {
		return nil, inputf("global-timer-resolution-requests exists only on Windows 11 (build 22000+) and Server 2022 (20348+); this is %s build %d", platform(env.Server), env.Build)
	}
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"takes effect after a reboot"}}
	_, err := p.addNumber(env, globalTimerLoc, uint64(n), TypeDWORD)
	return p, err
}
