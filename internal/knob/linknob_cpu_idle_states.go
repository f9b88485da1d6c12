package knob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(cpuIdleStates{}) }

// cpuIdleStatesName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const cpuIdleStatesName = "cpu-idle-states"

type cpuIdleStates struct{ linuxKnob }

func (cpuIdleStates) Name() string { return cpuIdleStatesName }

// Selectors are the selector flags cpuIdleStates reads.
func (cpuIdleStates) Selectors() []string { return []string{SelCPUs} }
func (cpuIdleStates) Summary() string {
	return "which idle states (C-states) CPUs may enter (cpuidle/stateN/disable)"
}

const cpuidleDir = sysCPUDir + "/cpuidle/"

// deepIdleUS is the exit latency above which the check-up calls an
// enabled state deep: tuned's latency-performance keeps CPUs out of
// every state deeper than state1 (a few µs on Intel), and states past
// 100µs are the package C-states that also power down caches.
const deepIdleUS = 100

// noCpuidle is what a machine without idle states reads as.
const noCpuidle = "no cpuidle states: CPUs idle with the architecture's default (HLT) or as the hypervisor decides, and nothing can be disabled"

// idleDrivers are the cpuidle drivers latlab explains, short enough for
// a note line.
var idleDrivers = map[string]string{
	"haltpoll":   "a KVM guest: polls, then halts",
	"intel_idle": "the CPU model's C-state table in the kernel",
	"acpi_idle":  "the C-states the firmware lists (ACPI _CST)",
	"psci_idle":  "the firmware's idle states (PSCI)",
}

// haltpollExplained is what the haltpoll driver means for a wake-up.
const haltpollExplained = "In a KVM guest the driver is haltpoll: state0 polls, state1 halts; a CPU polls for a while (the haltpoll governor grows and shrinks the window, guest_halt_poll_ns) before it halts, so a wake-up soon after idling costs no exit to the host, while a halted CPU is the host's to wake, which takes longer than the 1µs the guest sees. Disabling the halt state keeps the CPU polling: the host sees it busy all the time."

func driverMeaning(d string) string {
	if m, ok := idleDrivers[d]; ok {
		return m
	}
	return "a driver latlab does not know"
}

func (cpuIdleStates) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: cpuIdleStatesName}
	if value == "" {
		ex.Text = []string{
			"/sys/devices/system/cpu/cpuN/cpuidle/stateK: the idle states (C-states) CPU N may enter, shallowest first: name, latency (the exit latency in µs: how long a wake-up from it takes) and disable (1: the governor never picks it).",
			"/sys/devices/system/cpu/cpuidle: current_driver (the states' source) and current_governor (how one is picked: menu, teo, ladder, haltpoll).",
			"Deep states save the most power and take the longest to leave: a wake-up from a state with a 200µs exit latency is up to 200µs late. Disabling them removes that wait, at a cost in power and heat, and fewer turbo boosts on CPUs that share a power budget.",
			"tuned 2.20.0's latency-performance sets [cpu] force_latency=cstate.id_no_zero:1|3: the exit latency of state1 (or 3µs if state1 has none or reads 0) written to /dev/cpu_dma_latency, which tuned keeps open while it runs, so the governor skips every state that takes longer to leave.",
			"latlab writes the disable files instead: they last until latlab knob revert cpu-idle-states (or a reboot), whether or not anything keeps running.",
			"Set VALUE: a latency bound with its unit (0, 10us, 100us, 1ms): every state whose exit latency is above it is disabled, every other state enabled, on each CPU (--cpus LIST for some); all enables every state.",
			haltpollExplained,
		}
		return ex, nil
	}
	bound, all, err := parseIdleBound(value)
	if err != nil {
		return nil, err
	}
	if all {
		ex.Text = []string{"all: every idle state enabled (the kernel's default)"}
		ex.Data = map[string]any{"max_latency_us": nil}
		return ex, nil
	}
	ex.Text = []string{fmt.Sprintf("%dµs: states whose exit latency is above %dµs are disabled, the rest enabled", bound, bound)}
	ex.Data = map[string]any{"max_latency_us": bound}
	return ex, nil
}

const idleAccepted = "accepted a latency bound with its unit (0, 10us, 100us, 1ms) or all"

// parseIdleBound reads a set value: the bound in µs, or all.
func parseIdleBound(value string) (us int64, all bool, err error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if v == "all" {
		return 0, true, nil
	}
	if v == "0" {
		return 0, false, nil
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return 0, false, badinput.Errorf("invalid cpu-idle-states %q: give the unit, e.g. %sus; %s", value, v, idleAccepted)
	}
	d, err := time.ParseDuration(strings.ReplaceAll(v, "μs", "µs"))
	if err != nil || d < 0 || d > time.Second {
		return 0, false, badinput.Errorf("invalid cpu-idle-states %q: %s, at most 1s", value, idleAccepted)
	}
	return int64(d / time.Microsecond), false, nil
}

// IdleStateDetail is one idle state of a group of CPUs that read the
// same state table.
type IdleStateDetail struct {
	CPUs      []int  `json:"cpus"`
	State     int    `json:"state"`
	Name      string `json:"name"`
	LatencyUS int64  `json:"latency_us"`
	Disabled  bool   `json:"disabled"`
	Driver    string `json:"driver,omitempty"`
}

type idleState struct {
	index   int
	name    string
	latency int64 // µs; -1 unreadable
	disable backend.Value
}

func (s idleState) disabled() bool { return strings.TrimSpace(s.disable.String()) == "1" }

func idleRest(k int) string { return "cpuidle/state" + strconv.Itoa(k) + "/disable" }

// readIdleStates reads the idle states of CPU c, shallowest first.
func readIdleStates(env *Env, c int) ([]idleState, error) {
	dirs, _, err := env.list(backend.BackendFile, sysCPUDir+"/cpu"+strconv.Itoa(c)+"/cpuidle")
	if errors.Is(err, backend.ErrNotFound) {
		return nil, nil // no cpuidle for this CPU
	}
	if err != nil {
		return nil, fmt.Errorf("list the idle states of CPU %d: %w", c, err)
	}
	var out []idleState
	for _, d := range dirs {
		n, ok := strings.CutPrefix(d, "state")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 0 || k > 99 || strconv.Itoa(k) != n {
			continue
		}
		base := "cpuidle/state" + n + "/"
		name, _, err := readText(env, cpuLoc(c, base+"name"))
		if err != nil {
			return nil, err
		}
		lat, _, err := readText(env, cpuLoc(c, base+"latency"))
		if err != nil {
			return nil, err
		}
		_, dv, err := readText(env, cpuLoc(c, idleRest(k)))
		if err != nil {
			return nil, err
		}
		if dv.IsAbsent() {
			continue
		}
		l, perr := strconv.ParseInt(lat, 10, 64)
		if perr != nil || l < 0 {
			l = -1
		}
		out = append(out, idleState{index: k, name: name, latency: l, disable: dv})
	}
	slices.SortFunc(out, func(a, b idleState) int { return a.index - b.index })
	return out, nil
}

func idleKey(ss []idleState) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "%d\x00%s\x00%d\x00%s\x00", s.index, s.name, s.latency, s.disable.String())
	}
	return b.String()
}

// idleDriver reads the driver and the governor.
func idleDriver(env *Env) (driver, governor string) {
	driver, _, _ = readText(env, fileLoc(cpuidleDir+"current_driver"))
	governor, _, _ = readText(env, fileLoc(cpuidleDir+"current_governor"))
	if governor == "" {
		governor, _, _ = readText(env, fileLoc(cpuidleDir+"current_governor_ro"))
	}
	return driver, governor
}

func latencyText(us int64) string {
	if us < 0 {
		return "unknown"
	}
	return strconv.FormatInt(us, 10) + "µs"
}

func (k cpuIdleStates) Get(env *Env, sel Selector) (*Reading, error) {
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	tables := map[int][]idleState{}
	for _, c := range cpus {
		if tables[c], err = readIdleStates(env, c); err != nil {
			return nil, err
		}
	}
	driver, governor := idleDriver(env)
	r := &Reading{Knob: k.Name()}
	var none []int
	for _, g := range groupCPUs(cpus, func(c int) []idleState { return tables[c] }, idleKey) {
		if len(g.Val) == 0 {
			none = append(none, g.CPUs...)
			continue
		}
		for _, s := range g.Val {
			it := groupItem(fmt.Sprintf("%s state%d", cpusName(g.CPUs), s.index), g.CPUs, idleRest(s.index), s.disable,
				fmt.Sprintf("%s, exit latency %s", s.name, latencyText(s.latency)))
			it.Value = "enabled"
			if s.disabled() {
				it.Value = "disabled"
			}
			it.Detail = IdleStateDetail{CPUs: g.CPUs, State: s.index, Name: s.name, LatencyUS: s.latency, Disabled: s.disabled(), Driver: driver}
			r.Items = append(r.Items, it)
		}
	}
	switch {
	case len(r.Items) == 0:
		r.Notes = append(r.Notes, noCpuidle)
	case len(none) > 0:
		slices.Sort(none)
		r.Notes = append(r.Notes, fmt.Sprintf("CPU %s: no idle states (offline?)", cpuset.FormatList(none)))
	}
	if driver != "" {
		n := "driver " + driver
		if governor != "" {
			n += ", governor " + governor
		}
		r.Notes = append(r.Notes, n+": "+driverMeaning(driver))
	}
	return r, nil
}

func (k cpuIdleStates) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	bound, all, err := parseIdleBound(value)
	if err != nil {
		return nil, err
	}
	cpus, err := sysCPUs(env, sel.CPU)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: cpuTarget(sel.CPU, cpus), Request: value}
	var have, allOff []int
	off := map[string]bool{}
	for _, c := range cpus {
		ss, err := readIdleStates(env, c)
		if err != nil {
			return nil, err
		}
		if len(ss) == 0 {
			continue
		}
		have = append(have, c)
		n := 0
		for _, s := range ss {
			if !all && s.latency < 0 {
				return nil, badinput.Errorf("CPU %d state%d (%s): its exit latency cannot be read, so latlab cannot tell whether it is above %dµs", c, s.index, s.name, bound)
			}
			want := "0\n"
			if !all && s.latency > bound {
				want = "1\n"
				off[fmt.Sprintf("%s (%s)", s.name, latencyText(s.latency))] = true
				n++
			}
			if err := p.add(env, cpuLoc(c, idleRest(s.index)), backend.FileValue(want)); err != nil {
				return nil, err
			}
		}
		if n == len(ss) {
			allOff = append(allOff, c)
		}
	}
	if len(have) == 0 {
		return nil, badinput.Errorf("cpu-idle-states: %s (CPU %s)", noCpuidle, cpuset.FormatList(cpus))
	}
	if len(off) > 0 {
		names := make([]string, 0, len(off))
		for n := range off {
			names = append(names, n)
		}
		slices.Sort(names)
		p.Notes = append(p.Notes, fmt.Sprintf("disabled: every state with an exit latency above %dµs: %s; the cost is power and heat", bound, strings.Join(names, ", ")))
	}
	if len(allOff) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("CPU %s: every state is disabled; the governor then uses state0 anyway", cpuset.FormatList(allOff)))
	}
	p.Notes = append(p.Notes, "lasts until knob revert or a reboot, with nothing left running (tuned's force_latency holds /dev/cpu_dma_latency open instead)")
	return p, nil
}

func (k cpuIdleStates) Vet(target string, l backend.Loc, v backend.Value) error {
	rest, err := vetCPUTarget(k.Name(), target, l)
	if err != nil {
		return err
	}
	n, ok := strings.CutPrefix(rest, "cpuidle/state")
	n, ok2 := strings.CutSuffix(n, "/disable")
	if i, err := strconv.Atoi(n); !ok || !ok2 || err != nil || i < 0 || i > 99 || strconv.Itoa(i) != n {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if s != "0" && s != "1" {
		return fmt.Errorf("%q is not 0 or 1", s)
	}
	return nil
}

// Checkup is what the check-up knows of cpu-idle-states: its default, how
// its instances are read and the verdict rules.
func (cpuIdleStates) Checkup() Checkup {
	return Checkup{
		Default:    text("every state enabled"),
		Rules:      cpuIdleStatesRules,
		References: cpuIdleStatesRefs,
		TryValue:   tryAfter("idle-disabled", "all"),
	}
}

// Experiment is how a change of cpu-idle-states takes effect for latlab
// try.
func (cpuIdleStates) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

var cpuIdleStatesRefs = []Reference{
	tunedRef("latency-performance", "cpu", "force_latency", "cstate.id_no_zero:1|3"),
	tunedRef("accelerator-performance", "cpu", "force_latency", "99"),
	tunedRef("postgresql", "cpu", "force_latency", "1"),
}

func idleDetail(c *Case) (IdleStateDetail, bool) {
	d, ok := c.Detail.(IdleStateDetail)
	return d, ok
}

var cpuIdleStatesRules = []Rule{
	{ID: "idle-none", Verdict: Default, When: "no idle states (some virtual machines)",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text(noCpuidle),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "idle-disabled", Verdict: Changed, When: "a disabled state",
		Match: func(c *Case) bool { d, ok := idleDetail(c); return ok && d.Disabled },
		Reason: func(c *Case) string {
			return c.Meaning + ": disabled, so wake-ups never wait for it to be left; the cost is power and heat (" + cpuIdleStatesRefs[0].Cite() + ")"
		},
		Evidence: func(c *Case) string { return quote(cpuIdleStatesName, "", "Disabling them removes that wait") }},
	{ID: "idle-deep", Verdict: Default, When: fmt.Sprintf("an enabled state with an exit latency above %dµs", deepIdleUS),
		Match: func(c *Case) bool { d, ok := idleDetail(c); return ok && d.LatencyUS > deepIdleUS },
		Reason: func(c *Case) string {
			return c.Meaning + ": a wake-up from it can be that late; " + cpuIdleStatesRefs[0].Cite() + ", which keeps CPUs out of it at a cost in power"
		},
		Evidence: func(c *Case) string { return quote(cpuIdleStatesName, "", "Deep states save the most power") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: fmt.Sprintf("latlab try cpu-idle-states %dus --probe sleep", deepIdleUS),
				Why: "idle states deeper than " + strconv.Itoa(deepIdleUS) + "µs are enabled: measure wake-ups without them", Benefit: 20}
		}},
	{ID: "idle-shallow", Verdict: Default, When: "an enabled state, at most 100µs to leave",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + ": enabled"
		}},
}
