package knob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(energyPreference{}) }

// energyPreferenceName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const energyPreferenceName = "energy-performance-preference"

type energyPreference struct{ linuxKnob }

func (energyPreference) Name() string { return energyPreferenceName }

// Selectors are the selector flags energyPreference reads.
func (energyPreference) Selectors() []string { return []string{SelCPUs} }
func (energyPreference) Summary() string {
	return "energy/speed hints: EPP and energy_perf_bias"
}

const (
	eppRest      = "cpufreq/energy_performance_preference"
	eppAvailRest = "cpufreq/energy_performance_available_preferences"
	epbRest      = "power/energy_perf_bias"
)

// noEnergyHints is what a machine without either hint reads as.
const noEnergyHints = "no energy_performance_preference and no energy_perf_bias: the CPU (or the hypervisor) offers no energy hint to set"

// epbLevels are the names the kernel's energy_perf_bias file takes, with
// the values it stores for them (arch/x86/kernel/cpu/intel_epb.c,
// ENERGY_PERF_BIAS_* of msr-index.h), lowest first.
var epbLevels = []struct {
	name string
	n    int
	epp  string // the EPP name of the same intent
}{
	{"performance", 0, "performance"},
	{"balance-performance", 4, "balance_performance"},
	{"normal", 6, "default"},
	{"balance-power", 8, "balance_power"},
	{"power", 15, "power"},
}

// epbName names an EPB value by the level at or below it.
func epbName(n int) string {
	name := ""
	for _, l := range epbLevels {
		if n >= l.n {
			name = l.name
		}
	}
	if n == 7 {
		return "normal on Alder Lake-L/N and Raptor Lake-P"
	}
	if epbLevel(name) != n {
		return "between " + name + " and the next level"
	}
	return name
}

func epbLevel(name string) int {
	for _, l := range epbLevels {
		if l.name == name {
			return l.n
		}
	}
	return -1
}

// parseEPB reads 0-15 or one of the kernel's names.
func parseEPB(s string) (int, bool) {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	if n := epbLevel(s); n >= 0 {
		return n, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 15
}

func eppMeaning(epp string) string {
	switch epp {
	case "performance":
		return "clock up at once, whatever the power"
	case "balance_performance":
		return "leans to speed (the usual default)"
	case "default":
		return "the firmware's own value"
	case "balance_power":
		return "leans to saving power: ramps up later"
	case "power":
		return "saves power first: slowest to ramp up"
	}
	if _, err := strconv.Atoi(epp); err == nil {
		return "a raw EPP value (0 performance to 255 power)"
	}
	return "a preference latlab does not know"
}

func epbMeaning(n int) string {
	switch {
	case n == 0:
		return "favours performance over energy"
	case n <= 6:
		return "balanced, leaning to performance"
	case n <= 8:
		return "balanced, leaning to saving power"
	}
	return "favours saving energy"
}

func (energyPreference) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: energyPreferenceName}
	if value == "" {
		ex.Text = []string{
			"Two hints tell the CPU how to trade energy for speed; neither sets a frequency.",
			"EPP, energy_performance_preference of /sys/devices/system/cpu/cpuN/cpufreq: read by the hardware's own P-state control (Intel HWP under intel_pstate, AMD CPPC under amd-pstate-epp); the choices are in energy_performance_available_preferences: default, performance, balance_performance, balance_power, power.",
			"EPB, energy_perf_bias of /sys/devices/system/cpu/cpuN/power: Intel's older Energy Performance Bias, 0 (performance) to 15 (power), which also sways turbo and C-state decisions; the kernel takes performance 0, balance-performance 4, normal 6 (7 on Alder Lake-L/N and Raptor Lake-P), balance-power 8, power 15, and sets a 0 it finds at boot to normal.",
			"performance wakes to a high clock at once: wake-ups run faster, at a cost in power and heat (and battery life); under intel_pstate the performance governor forces EPP to performance and refuses other values.",
			"tuned 2.20.0's latency-performance and throughput-performance set [cpu] energy_perf_bias=performance, balanced normal, powersave powersave|power; none of its profiles sets energy_performance_preference.",
			"Set VALUE: a level, performance, balance_performance, default (EPB normal), balance_power or power, sets both hints where the CPU has them; epp=NAME or epb=N|NAME sets one, e.g. epp=balance_performance,epb=0.",
			"Most virtual machines have neither.",
		}
		return ex, nil
	}
	req, err := parseEnergyRequest(value)
	if err != nil {
		return nil, err
	}
	if req.epp != "" {
		ex.Text = append(ex.Text, "EPP "+req.epp+": "+eppMeaning(req.epp))
	}
	if req.epb >= 0 {
		ex.Text = append(ex.Text, fmt.Sprintf("EPB %d (%s): %s", req.epb, epbName(req.epb), epbMeaning(req.epb)))
	}
	ex.Data = map[string]any{"epp": req.epp, "epb": req.epb}
	return ex, nil
}

// energyRequest is a set value: the EPP name ("" = leave it) and the EPB
// value (-1 = leave it); both says a level named both, so a CPU with
// only one of the hints gets that one.
type energyRequest struct {
	epp  string
	epb  int
	both bool
}

const energyAccepted = "accepted performance, balance_performance, default, balance_power, power, or epp=NAME and/or epb=0-15|NAME, e.g. epp=balance_performance,epb=0"

func parseEnergyRequest(value string) (energyRequest, error) {
	r := energyRequest{epb: -1}
	v := strings.ToLower(strings.TrimSpace(value))
	if !strings.Contains(v, "=") {
		w := strings.ReplaceAll(v, "-", "_")
		if w == "normal" {
			w = "default"
		}
		for _, l := range epbLevels {
			if l.epp == w {
				return energyRequest{epp: l.epp, epb: l.n, both: true}, nil
			}
		}
		return r, badinput.Errorf("invalid energy-performance-preference %q: %s", value, energyAccepted)
	}
	for _, part := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case k == "epp" && r.epp == "":
			if _, err := sysfsWord(backend.FileValue(val)); err != nil {
				return r, badinput.Errorf("invalid epp %q: accepted a name from energy_performance_available_preferences, e.g. performance", val)
			}
			r.epp = val
		case k == "epb" && r.epb < 0:
			n, ok := parseEPB(val)
			if !ok {
				return r, badinput.Errorf("invalid epb %q: accepted 0-15 or performance, balance-performance, normal, balance-power, power", val)
			}
			r.epb = n
		default:
			return r, badinput.Errorf("invalid energy-performance-preference %q at %q: %s", value, part, energyAccepted)
		}
	}
	return r, nil
}

// EnergyDetail is what the reading knows of a group of CPUs that read the
// same hint.
type EnergyDetail struct {
	Hint      string   `json:"hint"` // epp or epb
	CPUs      []int    `json:"cpus"`
	Available []string `json:"available,omitempty"`
}

type energyState struct {
	epp, eppAvail string
	eppRaw        backend.Value
	epb           string
	epbRaw        backend.Value
}

func readEnergy(env *Env, c int) (energyState, error) {
	var st energyState
	var err error
	if st.epp, st.eppRaw, err = readText(env, cpuLoc(c, eppRest)); err != nil {
		return st, err
	}
	if st.epb, st.epbRaw, err = readText(env, cpuLoc(c, epbRest)); err != nil {
		return st, err
	}
	if !st.eppRaw.IsAbsent() {
		st.eppAvail, _, _ = readText(env, cpuLoc(c, eppAvailRest))
	}
	return st, nil
}

func (k energyPreference) Get(env *Env, sel Selector) (*Reading, error) {
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	states := map[int]energyState{}
	for _, c := range cpus {
		if states[c], err = readEnergy(env, c); err != nil {
			return nil, err
		}
	}
	r := &Reading{Knob: k.Name()}
	var noEPP, noEPB []int
	for _, g := range groupCPUs(cpus, func(c int) energyState { return states[c] }, func(s energyState) string { return s.epp + "\x00" + s.eppAvail }) {
		if g.Val.eppRaw.IsAbsent() {
			noEPP = append(noEPP, g.CPUs...)
			continue
		}
		it := groupItem(cpusName(g.CPUs)+" epp", g.CPUs, eppRest, g.Val.eppRaw, eppMeaning(g.Val.epp))
		it.Detail = EnergyDetail{Hint: "epp", CPUs: g.CPUs, Available: strings.Fields(g.Val.eppAvail)}
		r.Items = append(r.Items, it)
	}
	for _, g := range groupCPUs(cpus, func(c int) energyState { return states[c] }, func(s energyState) string { return s.epb }) {
		if g.Val.epbRaw.IsAbsent() {
			noEPB = append(noEPB, g.CPUs...)
			continue
		}
		it := groupItem(cpusName(g.CPUs)+" epb", g.CPUs, epbRest, g.Val.epbRaw, "unreadable")
		if n, err := strconv.Atoi(g.Val.epb); err == nil {
			it.Value = fmt.Sprintf("%d (%s)", n, epbName(n))
			it.Meaning = epbMeaning(n)
		}
		it.Detail = EnergyDetail{Hint: "epb", CPUs: g.CPUs}
		r.Items = append(r.Items, it)
	}
	slices.Sort(noEPP)
	slices.Sort(noEPB)
	switch {
	case len(r.Items) == 0:
		r.Notes = append(r.Notes, noEnergyHints)
	default:
		if len(noEPP) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("CPU %s: no energy_performance_preference (needs intel_pstate or amd-pstate-epp in active mode)", cpuset.FormatList(noEPP)))
		}
		if len(noEPB) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("CPU %s: no energy_perf_bias (an Intel CPU feature)", cpuset.FormatList(noEPB)))
		}
	}
	for _, g := range groupCPUs(cpus, func(c int) string { return states[c].eppAvail }, func(s string) string { return s }) {
		if g.Val != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s epp available: %s", cpusName(g.CPUs), g.Val))
		}
	}
	return r, nil
}

func (k energyPreference) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	req, err := parseEnergyRequest(value)
	if err != nil {
		return nil, err
	}
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: cpuTarget(sel.CPU, cpus), Request: value}
	var eppCPUs, epbCPUs []int
	for _, c := range cpus {
		st, err := readEnergy(env, c)
		if err != nil {
			return nil, err
		}
		if req.epp != "" && !st.eppRaw.IsAbsent() {
			if av := strings.Fields(st.eppAvail); len(av) > 0 && !slices.Contains(av, req.epp) {
				return nil, badinput.Errorf("energy preference %q is not available on CPU %d: accepted %s", req.epp, c, strings.Join(av, ", "))
			}
			if req.epp != "performance" {
				gov, _, _ := readText(env, cpuLoc(c, govRest))
				drv, _, _ := readText(env, cpuLoc(c, govDriverRest))
				if gov == "performance" && activeDriver(drv) {
					return nil, badinput.Errorf("CPU %d: %s keeps the energy preference at performance while the governor is performance (a write fails with EBUSY): set cpu-governor powersave first", c, drv)
				}
			}
			eppCPUs = append(eppCPUs, c)
		}
		if req.epb >= 0 && !st.epbRaw.IsAbsent() {
			epbCPUs = append(epbCPUs, c)
		}
	}
	switch {
	case req.both && len(eppCPUs) == 0 && len(epbCPUs) == 0:
		return nil, badinput.Errorf("energy-performance-preference: %s (CPU %s), so there is nothing to set", noEnergyHints, cpuset.FormatList(cpus))
	case !req.both && req.epp != "" && len(eppCPUs) == 0:
		return nil, badinput.Errorf("epp: CPU %s has no energy_performance_preference (it needs intel_pstate or amd-pstate-epp in active mode)", cpuset.FormatList(cpus))
	case !req.both && req.epb >= 0 && len(epbCPUs) == 0:
		return nil, badinput.Errorf("epb: CPU %s has no energy_perf_bias (an Intel CPU feature)", cpuset.FormatList(cpus))
	}
	lead, notes := cpufreqPolicies(env, eppCPUs)
	for _, c := range lead {
		if err := p.add(env, cpuLoc(c, eppRest), backend.FileValue(req.epp+"\n")); err != nil {
			return nil, err
		}
	}
	for _, c := range epbCPUs {
		if err := p.add(env, cpuLoc(c, epbRest), backend.FileValue(strconv.Itoa(req.epb)+"\n")); err != nil {
			return nil, err
		}
	}
	p.Notes = append(p.Notes, notes...)
	if req.both && len(eppCPUs) == 0 {
		p.Notes = append(p.Notes, "no energy_performance_preference here: only energy_perf_bias changes")
	}
	if req.both && len(epbCPUs) == 0 {
		p.Notes = append(p.Notes, "no energy_perf_bias here: only energy_performance_preference changes")
	}
	p.Notes = append(p.Notes, "takes effect at once and lasts until reboot, or until tuned, power-profiles-daemon or a suspend and resume sets it again")
	if req.epp == "performance" || req.epb == 0 {
		p.Notes = append(p.Notes, "performance costs power and heat: the CPU clocks up at once and stays high")
	}
	return p, nil
}

func (k energyPreference) Vet(target string, l backend.Loc, v backend.Value) error {
	rest, err := vetCPUTarget(k.Name(), target, l)
	if err != nil {
		return err
	}
	switch rest {
	case eppRest:
		_, err = sysfsWord(v)
		return err
	case epbRest:
		s, err := fileText(v)
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(s); err != nil || n < 0 || n > 15 {
			return fmt.Errorf("%q is not an energy_perf_bias value (0-15)", s)
		}
		return nil
	}
	return notMine(k.Name(), target, l)
}

// Checkup is what the check-up knows of energy-performance-preference:
// its default, how its instances are read and the verdict rules.
func (energyPreference) Checkup() Checkup {
	return Checkup{
		Default:    text("EPP the firmware's (usually balance_performance); EPB 6 (normal)"),
		Rules:      energyPreferenceRules,
		References: energyPreferenceRefs,
		TryValue:   tryAfter("energy-saving", "performance"),
	}
}

// Experiment is how a change of energy-performance-preference takes
// effect for latlab try.
func (energyPreference) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

var energyPreferenceRefs = []Reference{
	tunedRef("latency-performance", "cpu", "energy_perf_bias", "performance"),
	tunedRef("throughput-performance", "cpu", "energy_perf_bias", "performance"),
	tunedRef("balanced", "cpu", "energy_perf_bias", "normal"),
	tunedRef("powersave", "cpu", "energy_perf_bias", "powersave|power"),
	tunedRef("accelerator-performance", "cpu", "energy_perf_bias", "performance"),
}

// energyHint is the hint a case reads (epp or epb) and its level: 0
// performance, 1 leaning to speed or the default, 2 leaning to power.
func energyHint(c *Case) (hint string, level int) {
	d, ok := c.Detail.(EnergyDetail)
	if !ok {
		return "", 1
	}
	if d.Hint == "epb" {
		n, ok := c.N()
		switch {
		case !ok:
			return d.Hint, 1
		case n == 0:
			return d.Hint, 0
		case n > 7:
			return d.Hint, 2
		}
		return d.Hint, 1
	}
	switch c.Text() {
	case "performance":
		return d.Hint, 0
	case "balance_power", "power":
		return d.Hint, 2
	}
	return d.Hint, 1
}

var energyPreferenceRules = []Rule{
	{ID: "energy-none", Verdict: Default, When: "neither hint (most virtual machines)",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text(noEnergyHints),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "energy-performance", Verdict: Changed, When: "EPP performance or EPB 0",
		Match: func(c *Case) bool { _, l := energyHint(c); return l == 0 },
		Reason: func(c *Case) string {
			return c.Meaning + ", as " + energyPreferenceRefs[0].Cite() + "; the cost is power and heat"
		},
		Evidence: func(c *Case) string { return quote(energyPreferenceName, "", "performance wakes to a high clock") }},
	{ID: "energy-saving", Verdict: Suspicious, When: "EPP balance_power or power, or EPB above 7",
		Match: func(c *Case) bool { _, l := energyHint(c); return l == 2 },
		Reason: func(c *Case) string {
			return c.Meaning + ": wake-ups start at a low clock; " + energyPreferenceRefs[0].Cite()
		},
		Evidence: func(c *Case) string { return quote(energyPreferenceName, "", "performance wakes to a high clock") }},
	{ID: "energy-balanced", Verdict: Default, When: "a balanced or the default hint",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; " + energyPreferenceRefs[0].Cite() + ", at a cost in power and heat"
		}},
}
