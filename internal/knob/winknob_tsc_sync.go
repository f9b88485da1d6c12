package knob

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// tscSyncName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const tscSyncName = "tsc-sync-policy"

func init() { register(tscSync{}) }

var tscLoc = backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}

type tscSync struct{ windowsKnob }

func (tscSync) Name() string { return tscSyncName }
func (tscSync) Summary() string {
	return "how the HAL synchronises the CPUs' time-stamp counters at boot (BCD tscsyncpolicy)"
}

var tscPolicies = map[string]string{
	"default":  "HalpTscSyncPolicy 0: the HAL's own choice (what Windows does when the element is absent)",
	"legacy":   "HalpTscSyncPolicy 1: the older synchronisation method",
	"enhanced": "HalpTscSyncPolicy 2: the newer synchronisation method",
}

func (tscSync) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: tscSyncName}
	if value == "" {
		ex.Text = []string{
			"bcdedit element tscsyncpolicy of {current}: default, legacy or enhanced; absent means default.",
			"  default  " + tscPolicies["default"], "  legacy   " + tscPolicies["legacy"], "  enhanced " + tscPolicies["enhanced"],
			`The Windows default is "default", not "enhanced" as many guides claim. Read at boot: a change needs a reboot.`,
			`Caveat (PC-Tuning, "What TscSyncPolicy Does Windows Use by Default?", github.com/valleyofdoom/PC-Tuning docs/research.md): "default" may correspond to another value that reading HalpTscSyncPolicy does not expose; "further research is required".`,
		}
		return ex, nil
	}
	v := strings.ToLower(strings.TrimSpace(value))
	m, ok := tscPolicies[v]
	if !ok {
		return nil, badinput.Errorf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced", value)
	}
	ex.Text = []string{v + ": " + m}
	ex.Data = map[string]any{"policy": v, "halp_tsc_sync_policy": map[string]int{"default": 0, "legacy": 1, "enhanced": 2}[v]}
	return ex, nil
}

func (k tscSync) Get(env *Env, sel Selector) (*Reading, error) {
	v, err := env.read(tscLoc)
	if err != nil {
		return nil, err
	}
	m := "absent: default (HalpTscSyncPolicy 0)"
	if !v.IsAbsent() {
		m = tscPolicies[strings.ToLower(v.String())]
	}
	return &Reading{Knob: k.Name(), Items: []Item{item("", tscLoc, v, m)}}, nil
}

func (k tscSync) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	p := &Plan{Knob: k.Name(), Request: value, Notes: []string{"read at boot: takes effect after a reboot"}}
	if v == "remove" || v == "absent" || v == "delete" {
		return p, p.add(env, tscLoc, backend.Absent)
	}
	if _, ok := tscPolicies[v]; !ok {
		return nil, badinput.Errorf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced|remove", value)
	}
	return p, p.add(env, tscLoc, backend.Value{Type: backend.TypeBCD, Data: []byte(v)})
}

func (k tscSync) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != tscLoc {
		return notMine(k.Name(), target, l)
	}
	if v.IsAbsent() {
		return regNumber(v)
	}
	if _, ok := tscPolicies[strings.ToLower(string(v.Data))]; v.Type != backend.TypeBCD || !ok {
		return fmt.Errorf("%s %q is not a tscsyncpolicy (default, legacy, enhanced)", v.Type, v.Data)
	}
	return nil
}

// Checkup is what the check-up knows of tsc-sync-policy: its default, how its
// instances are read and the verdict rules.
func (tscSync) Checkup() Checkup {
	return Checkup{Default: text("default (absent)"), Rules: tscSyncRules}
}

// Experiment is how a change of tsc-sync-policy takes effect for latlab try.
func (tscSync) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "it is a boot setting (BCD): it takes effect after a reboot"}
}

var tscSyncRules = []Rule{
	{ID: "tsc-default", Verdict: Default, When: "absent or default",
		Match:  func(c *Case) bool { return c.Raw.IsAbsent() || strings.EqualFold(c.Text(), "default") },
		Reason: text("the HAL's own choice (HalpTscSyncPolicy 0)")},
	{ID: "tsc-set", Verdict: Suspicious, When: "legacy or enhanced",
		Match: always,
		Reason: func(c *Case) string {
			return fmt.Sprintf("set to %s without a measured benefit; the Windows default is default", strings.ToLower(c.Text()))
		},
		Evidence: func(c *Case) string { return quote(tscSyncName, "", "many guides claim") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain tsc-sync-policy", Why: "it is set to " + strings.ToLower(c.Text()) + " without a measured benefit", Benefit: 30}
		}},
}
