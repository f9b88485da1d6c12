package knob

import "strings"

var tscLoc = Loc{Backend: BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}

type tscSync struct{ windowsKnob }

func (tscSync) Name() string { return "tsc-sync-policy" }
func (tscSync) Summary() string {
	return "how the HAL synchronises the CPUs' time-stamp counters at boot (BCD tscsyncpolicy)"
}

var tscPolicies = map[string]string{
	"default":  "HalpTscSyncPolicy 0: the HAL's own choice (what Windows does when the element is absent)",
	"legacy":   "HalpTscSyncPolicy 1: the older synchronisation method",
	"enhanced": "HalpTscSyncPolicy 2: the newer synchronisation method",
}

func (tscSync) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "tsc-sync-policy"}
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
		return nil, inputf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced", value)
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
		return p, p.add(env, tscLoc, Absent)
	}
	if _, ok := tscPolicies[v]; !ok {
		return nil, inputf("invalid tsc-sync-policy %q: accepted default|legacy|enhanced|remove", value)
	}
	return p, p.add(env, tscLoc, Value{Type: TypeBCD, Data: []byte(v)})
}
