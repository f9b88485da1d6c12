package knob

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(cpuGovernor{}) }

// cpuGovernorName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const cpuGovernorName = "cpu-governor"

type cpuGovernor struct{ linuxKnob }

func (cpuGovernor) Name() string { return cpuGovernorName }

// Selectors are the selector flags cpuGovernor reads.
func (cpuGovernor) Selectors() []string { return []string{SelCPUs} }
func (cpuGovernor) Summary() string {
	return "how each CPU picks its clock frequency (cpufreq/scaling_governor)"
}

const (
	govRest       = "cpufreq/scaling_governor"
	govAvailRest  = "cpufreq/scaling_available_governors"
	govDriverRest = "cpufreq/scaling_driver"
)

// noCpufreq is what a machine without cpufreq reads as: most virtual
// machines, where the host sets the clock.
const noCpufreq = "no cpufreq: the hypervisor or firmware controls frequency"

// governorMeanings are the governors of the kernel's cpufreq
// documentation (Documentation/admin-guide/pm/cpufreq.rst).
var governorMeanings = map[string]string{
	"performance":  "the highest frequency allowed (scaling_max_freq)",
	"powersave":    "the lowest frequency allowed (scaling_min_freq)",
	"schedutil":    "follows the scheduler's load estimate",
	"ondemand":     "samples the load, jumps to the top when busy",
	"conservative": "samples the load, steps the frequency gradually",
	"userspace":    "the frequency written to scaling_setspeed",
}

// activeDriver reports whether driver chooses frequencies itself
// (intel_pstate and amd-pstate-epp in active mode): its "performance"
// and "powersave" are its own algorithms, not the generic governors.
func activeDriver(driver string) bool {
	return driver == "intel_pstate" || driver == "amd-pstate-epp"
}

// governorMeaning is short: the reading's table fits 80 columns.
func governorMeaning(gov, driver string) string {
	if activeDriver(driver) || driver == "the driver" {
		switch gov {
		case "performance":
			return driver + " holds the top of its range"
		case "powersave":
			return driver + " picks, steered by its energy preference"
		}
	}
	if m, ok := governorMeanings[gov]; ok {
		return m
	}
	return "a governor latlab does not know"
}

func (cpuGovernor) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: cpuGovernorName}
	if value == "" {
		ex.Text = []string{
			"scaling_governor of /sys/devices/system/cpu/cpuN/cpufreq: how CPU N's frequency policy picks a clock; scaling_available_governors lists the choices, scaling_driver names the driver.",
			"A CPU woken at a low clock runs the wake-up path slower and ramps up only after the governor notices the load: performance removes the ramp, at a cost in power and heat (the CPU idles at a high clock; turbo budgets and fan noise suffer).",
			"tuned 2.20.0's latency-performance (and the network-latency, realtime and cpu-partitioning profiles built on it) sets [cpu] governor=performance; balanced sets conservative|powersave, powersave ondemand|powersave (the first the CPU offers).",
			"intel_pstate and amd-pstate-epp in active mode offer only performance and powersave, both their own algorithms: powersave there is dynamic, steered by energy_performance_preference (see energy-performance-preference).",
			"Most virtual machines have no cpufreq at all: the hypervisor or the firmware sets the clock and the guest cannot.",
			"Governors:",
		}
		for _, g := range []string{"performance", "powersave", "schedutil", "ondemand", "conservative", "userspace"} {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-13s %s", g, governorMeanings[g]))
		}
		return ex, nil
	}
	g := strings.TrimSpace(value)
	if _, err := sysfsWord(backend.FileValue(g)); err != nil {
		return nil, badinput.Errorf("invalid cpu-governor %q: accepted a governor name, e.g. performance, schedutil, powersave", value)
	}
	ex.Text = []string{g + ": " + governorMeaning(g, "")}
	if g == "performance" || g == "powersave" {
		ex.Text = append(ex.Text, "under intel_pstate or amd-pstate-epp (active mode), "+governorMeaning(g, "the driver")+
			map[string]string{"performance": " (energy preference forced to performance)", "powersave": " (energy_performance_preference)"}[g])
	}
	return ex, nil
}

// GovernorDetail is what the reading knows of a group of CPUs that read
// the same.
type GovernorDetail struct {
	CPUs      []int    `json:"cpus"`
	Driver    string   `json:"driver,omitempty"`
	Available []string `json:"available,omitempty"`
}

type govState struct {
	gov       string
	raw       backend.Value
	driver    string
	available []string
}

func readGovState(env *Env, c int) (govState, error) {
	s, v, err := readText(env, cpuLoc(c, govRest))
	if err != nil {
		return govState{}, err
	}
	st := govState{gov: s, raw: v}
	if v.IsAbsent() {
		return st, nil
	}
	// The driver and the choices explain the value; a missing one is no
	// reason to fail the reading.
	st.driver, _, _ = readText(env, cpuLoc(c, govDriverRest))
	if av, _, err := readText(env, cpuLoc(c, govAvailRest)); err == nil {
		st.available = strings.Fields(av)
	}
	return st, nil
}

func (k cpuGovernor) Get(env *Env, sel Selector) (*Reading, error) {
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	states := map[int]govState{}
	for _, c := range cpus {
		st, err := readGovState(env, c)
		if err != nil {
			return nil, err
		}
		states[c] = st
	}
	r := &Reading{Knob: k.Name()}
	var none []int
	groups := groupCPUs(cpus, func(c int) govState { return states[c] },
		func(s govState) string { return s.gov + "\x00" + s.driver + "\x00" + strings.Join(s.available, " ") })
	for _, g := range groups {
		st := g.Val
		if st.raw.IsAbsent() {
			none = append(none, g.CPUs...)
			continue
		}
		m := governorMeaning(st.gov, st.driver)
		if st.driver != "" && !activeDriver(st.driver) {
			m += " (" + st.driver + ")"
		}
		it := groupItem(cpusName(g.CPUs), g.CPUs, govRest, st.raw, m)
		it.Detail = GovernorDetail{CPUs: g.CPUs, Driver: st.driver, Available: st.available}
		r.Items = append(r.Items, it)
	}
	slices.Sort(none)
	switch {
	case len(r.Items) == 0:
		r.Notes = append(r.Notes, noCpufreq)
	case len(none) > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("CPU %s: no cpufreq (offline, or no driver for it)", cpuset.FormatList(none)))
	}
	avail := groupCPUs(cpus, func(c int) string { return strings.Join(states[c].available, " ") }, func(s string) string { return s })
	for _, g := range avail {
		if g.Val != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s available: %s", cpusName(g.CPUs), g.Val))
		}
	}
	return r, nil
}

func (k cpuGovernor) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	gov := strings.TrimSpace(value)
	if _, err := sysfsWord(backend.FileValue(gov)); err != nil {
		return nil, badinput.Errorf("invalid cpu-governor %q: accepted a governor name, e.g. performance, schedutil, powersave", value)
	}
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		return nil, badinput.Errorf("cpu-governor: no CPU under /sys/devices/system/cpu")
	}
	p := &Plan{Knob: k.Name(), Target: cpuTarget(sel.CPU, cpus), Request: value}
	var none []int
	var have []int
	for _, c := range cpus {
		st, err := readGovState(env, c)
		if err != nil {
			return nil, err
		}
		if st.raw.IsAbsent() {
			none = append(none, c)
			continue
		}
		if len(st.available) > 0 && !slices.Contains(st.available, gov) {
			return nil, badinput.Errorf("cpu-governor %q is not available on CPU %d: accepted %s", gov, c, strings.Join(st.available, ", "))
		}
		have = append(have, c)
	}
	if len(have) == 0 {
		return nil, badinput.Errorf("cpu-governor: %s on CPU %s, so there is nothing to set", noCpufreq, cpuset.FormatList(cpus))
	}
	lead, notes := cpufreqPolicies(env, have)
	for _, c := range lead {
		if err := p.add(env, cpuLoc(c, govRest), backend.FileValue(gov+"\n")); err != nil {
			return nil, err
		}
	}
	p.Notes = append(p.Notes, notes...)
	if len(none) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("CPU %s: no cpufreq (offline, or no driver for it), left alone", cpuset.FormatList(none)))
	}
	p.Notes = append(p.Notes, "takes effect at once and lasts until reboot, or until tuned, power-profiles-daemon or cpupower sets it again")
	if gov == "performance" {
		p.Notes = append(p.Notes, "performance costs power and heat: CPUs stay at a high clock between wake-ups")
	}
	return p, nil
}

func (k cpuGovernor) Vet(target string, l backend.Loc, v backend.Value) error {
	rest, err := vetCPUTarget(k.Name(), target, l)
	if err != nil {
		return err
	}
	if rest != govRest {
		return notMine(k.Name(), target, l)
	}
	_, err = sysfsWord(v)
	return err
}

// Checkup is what the check-up knows of cpu-governor: its default, how
// its instances are read and the verdict rules.
func (cpuGovernor) Checkup() Checkup {
	return Checkup{
		Default: text("the kernel's build default: schedutil on most distributions, powersave under intel_pstate"),
		Rules:   cpuGovernorRules,
		TryValue: func(c *Case, rule string) string {
			if d, ok := c.Detail.(GovernorDetail); ok && c.Text() != "performance" && (len(d.Available) == 0 || slices.Contains(d.Available, "performance")) {
				return "performance"
			}
			return ""
		},
		References: cpuGovernorRefs,
	}
}

// Experiment is how a change of cpu-governor takes effect for latlab try.
func (cpuGovernor) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

var cpuGovernorRefs = []Reference{
	tunedRef("latency-performance", "cpu", "governor", "performance"),
	tunedRef("throughput-performance", "cpu", "governor", "performance"),
	tunedRef("balanced", "cpu", "governor", "conservative|powersave"),
	tunedRef("powersave", "cpu", "governor", "ondemand|powersave"),
	tunedRef("accelerator-performance", "cpu", "governor", "performance"),
}

func govDriver(c *Case) string {
	if d, ok := c.Detail.(GovernorDetail); ok {
		return d.Driver
	}
	return ""
}

var cpuGovernorRules = []Rule{
	{ID: "governor-none", Verdict: Default, When: "no cpufreq (most virtual machines)",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text(noCpufreq + "; there is no governor to set"),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "governor-performance", Verdict: Changed, When: "performance",
		Match: func(c *Case) bool { return c.Text() == "performance" },
		Reason: func(c *Case) string {
			return c.Meaning + ", as " + cpuGovernorRefs[0].Cite() + "; the cost is power and heat"
		},
		Evidence: func(c *Case) string { return quote(cpuGovernorName, "", "performance removes the ramp") }},
	{ID: "governor-lowest", Verdict: Suspicious, When: "powersave under a generic driver (the lowest frequency)",
		Match: func(c *Case) bool { return c.Text() == "powersave" && !activeDriver(govDriver(c)) },
		Reason: func(c *Case) string {
			return "powersave pins the lowest frequency: every wake-up runs at the slowest clock; " + cpuGovernorRefs[0].Cite()
		},
		Evidence: func(c *Case) string { return quote(cpuGovernorName, "", "A CPU woken at a low clock") }},
	{ID: "governor-dynamic", Verdict: Default, When: "another governor (schedutil, ondemand, the driver's powersave...)",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; " + cpuGovernorRefs[0].Cite() + ", which removes the ramp at a cost in power and heat"
		},
		Evidence: func(c *Case) string { return quote(cpuGovernorName, "", "A CPU woken at a low clock") }},
}
