package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(nmiWatchdog{}) }

// nmiWatchdogName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const nmiWatchdogName = "nmi-watchdog"

type nmiWatchdog struct{ linuxKnob }

func (nmiWatchdog) Name() string { return nmiWatchdogName }
func (nmiWatchdog) Summary() string {
	return "the lockup detectors: the NMI watchdog (kernel.nmi_watchdog) and both at once (kernel.watchdog)"
}

var (
	nmiWdLoc     = fileLoc("proc/sys/kernel/nmi_watchdog")
	wdLoc        = fileLoc("proc/sys/kernel/watchdog")
	softWdLoc    = fileLoc("proc/sys/kernel/soft_watchdog")
	wdThreshLoc  = fileLoc("proc/sys/kernel/watchdog_thresh")
	wdLacks      = "lockup detector (CONFIG_SOFTLOCKUP_DETECTOR, CONFIG_HARDLOCKUP_DETECTOR)"
	nmiWdSetHelp = "accepted nmi-off (or 0), nmi-on (or 1), off (both detectors), on (both, as their own switches say)"
)

// nmiWdState is what the check-up reads of the lockup detectors: the
// files as they read ("" when absent). Reading a switch shows what is in
// force, not what was last written: nmi_watchdog reads 0 while
// kernel.watchdog is 0, or where there is no hard lockup detector.
type nmiWdState struct {
	NMI      string `json:"nmi_watchdog"`
	Watchdog string `json:"watchdog"`
	Soft     string `json:"soft_watchdog"`
	Thresh   string `json:"watchdog_thresh"`
}

// thresh is watchdog_thresh in seconds, the kernel's default 10 when it
// cannot be read.
func (s nmiWdState) thresh() int {
	if n, err := strconv.Atoi(s.Thresh); err == nil && n >= 0 {
		return n
	}
	return 10
}

func nmiWdMeaning(s nmiWdState) string {
	th := s.thresh()
	if th == 0 {
		return "watchdog_thresh is 0: lockup detection is off altogether, whatever the switches say"
	}
	var parts []string
	switch s.NMI {
	case "1":
		parts = append(parts, fmt.Sprintf("NMI watchdog on: each CPU's cycle counter raises an NMI after every %d s of busy time to check for hard lockups", th))
	case "0":
		if s.Watchdog == "0" {
			parts = append(parts, "both lockup detectors off (kernel.watchdog=0): neither hard nor soft lockups are detected")
			return strings.Join(parts, "; ")
		}
		parts = append(parts, "NMI watchdog off: hard lockups (a CPU stuck with interrupts off) are not detected (or this kernel or VM has no hard lockup detector)")
	default:
		parts = append(parts, "NMI watchdog "+s.NMI)
	}
	switch s.Soft {
	case "1":
		parts = append(parts, fmt.Sprintf("soft lockup detector on: a per-CPU hrtimer every %s", secs(float64(2*th)/5)))
	case "0":
		parts = append(parts, "soft lockup detector off")
	}
	return strings.Join(parts, "; ")
}

func secs(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) + " s" }

func (nmiWatchdog) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: nmiWatchdogName}
	if value == "" {
		ex.Text = []string{
			"kernel.nmi_watchdog (default 1): the hard lockup detector. Each CPU's cycle counter (perf) raises a non-maskable interrupt after every watchdog_thresh seconds (default 10) of busy time, which checks that the CPU's timer interrupts still run.",
			"kernel.soft_watchdog (default 1): the soft lockup detector. A per-CPU hrtimer every 2*watchdog_thresh/5 seconds (4 s) wakes the CPU's stopper thread (it preempts every other thread, SCHED_FIFO ones too) to note that the CPU still schedules; a CPU that has not for 2*watchdog_thresh seconds (20 s) is reported.",
			"kernel.watchdog: both detectors at once; it reads 1 while either is on. The hrtimer runs while either detector is on (the NMI checks that it still fires): nmi-off removes the NMIs, only off (kernel.watchdog=0) stops the timer too.",
			"Values: nmi-off (or 0) writes kernel.nmi_watchdog=0 alone, as tuned's realtime, cpu-partitioning and powersave profiles do; nmi-on (or 1) writes 1. off writes kernel.watchdog=0 (both detectors off, each keeps its own switch); on writes kernel.watchdog=1 (each as its own switch says). Turning the NMI watchdog off costs detection: a CPU stuck with interrupts off is no longer found (no backtrace, no panic).",
			"Where the kernel has no hard lockup detector (most VMs: no perf counter for it; KVM guests turn it off) nmi_watchdog reads 0 and cannot be written. CPUs outside kernel.watchdog_cpumask (nohz_full ones by default) run neither detector.",
		}
		return ex, nil
	}
	op, err := parseNMIWd(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{value + ": " + op.say}
	ex.Data = map[string]any{"file": sysctlName(op.loc), "value": op.val}
	return ex, nil
}

// nmiWdOp is the one write a value stands for.
type nmiWdOp struct {
	loc backend.Loc
	val string
	say string
}

func parseNMIWd(value string) (nmiWdOp, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "0", "nmi-off":
		return nmiWdOp{nmiWdLoc, "0", "kernel.nmi_watchdog=0: no perf-counter NMIs; hard lockups are no longer detected; the soft lockup detector and its hrtimer keep running"}, nil
	case "1", "nmi-on":
		return nmiWdOp{nmiWdLoc, "1", "kernel.nmi_watchdog=1: the hard lockup detector's NMI every watchdog_thresh seconds of busy time per CPU (the default)"}, nil
	case "off":
		return nmiWdOp{wdLoc, "0", "kernel.watchdog=0: both lockup detectors off, no NMIs and no watchdog hrtimer; neither hard nor soft lockups are detected"}, nil
	case "on":
		return nmiWdOp{wdLoc, "1", "kernel.watchdog=1: both lockup detectors as their own switches (nmi_watchdog, soft_watchdog) say (the default)"}, nil
	}
	return nmiWdOp{}, badinput.Errorf("invalid nmi-watchdog %q: %s", value, nmiWdSetHelp)
}

// readNMIWd reads the four files; a file the kernel lacks reads "".
func readNMIWd(env *Env) (nmiWdState, map[backend.Loc]backend.Value, error) {
	var s nmiWdState
	raw := map[backend.Loc]backend.Value{}
	for _, f := range []struct {
		l   backend.Loc
		dst *string
	}{{nmiWdLoc, &s.NMI}, {wdLoc, &s.Watchdog}, {softWdLoc, &s.Soft}, {wdThreshLoc, &s.Thresh}} {
		t, v, err := readText(env, f.l)
		if err != nil {
			return s, nil, err
		}
		raw[f.l] = v
		*f.dst = t
	}
	return s, raw, nil
}

func (k nmiWatchdog) Get(env *Env, sel Selector) (*Reading, error) {
	s, raw, err := readNMIWd(env)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	if raw[nmiWdLoc].IsAbsent() {
		it, err := sysctlAbsentItem(env, nmiWdLoc, raw[nmiWdLoc], wdLacks)
		if err != nil {
			return nil, err
		}
		it.Detail = s
		r.Items = append(r.Items, it)
		return r, nil
	}
	it := item("", nmiWdLoc, raw[nmiWdLoc], nmiWdMeaning(s))
	it.Value = "nmi_watchdog=" + s.NMI
	it.Detail = s
	if v := raw[wdLoc]; !v.IsAbsent() {
		it.Extra = append(it.Extra, Change{Loc: wdLoc, Old: backend.Absent, New: v})
	}
	r.Items = append(r.Items, it)
	for _, l := range []backend.Loc{wdLoc, softWdLoc, wdThreshLoc} {
		if raw[l].IsAbsent() {
			r.Notes = append(r.Notes, sysctlName(l)+": absent")
			continue
		}
		r.Notes = append(r.Notes, sysctlName(l)+"="+strings.TrimSpace(string(raw[l].Data)))
	}
	return r, nil
}

func (k nmiWatchdog) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	op, err := parseNMIWd(value)
	if err != nil {
		return nil, err
	}
	s, raw, err := readNMIWd(env)
	if err != nil {
		return nil, err
	}
	if raw[op.loc].IsAbsent() {
		return nil, sysctlAbsentError(env, op.loc, wdLacks)
	}
	p := &Plan{Knob: k.Name(), Request: value}
	if op.loc == nmiWdLoc && s.Watchdog == "0" {
		// nmi_watchdog reads 0 while kernel.watchdog is 0 whatever was
		// written to it, so a write of 1 would show nothing, and a revert
		// could not tell what it held.
		if op.val == "1" {
			return nil, badinput.Errorf("nmi-watchdog nmi-on: kernel.watchdog is 0 (both lockup detectors off); set on first (kernel.watchdog=1)")
		}
		p.Notes = append(p.Notes, "kernel.watchdog is 0: both lockup detectors are off already")
		return p, nil
	}
	if op.loc == nmiWdLoc && op.val == "1" && s.NMI != "1" && nmiWdReadOnly(env) {
		return nil, fmt.Errorf("nothing was changed: %s is read-only while %s can be written: this kernel (or VM) has no hard lockup detector, so the NMI watchdog cannot be turned on", sysctlName(nmiWdLoc), sysctlName(wdLoc))
	}
	if op.loc == nmiWdLoc && op.val == "0" && s.Soft != "0" {
		p.Notes = append(p.Notes, "the soft lockup detector and its per-CPU hrtimer keep running; off (kernel.watchdog=0) stops both")
	}
	if op.val == "0" {
		p.Notes = append(p.Notes, "the cost: a CPU stuck with interrupts off is no longer detected")
	}
	return p, p.add(env, op.loc, backend.FileValue(op.val+"\n"))
}

// nmiWdReadOnly reports whether nmi_watchdog cannot be written while
// kernel.watchdog can: the kernel makes the file read-only when it has no
// hard lockup detector (a VM without a perf counter for it). Without the
// privilege to write either, it cannot tell, and says no.
func nmiWdReadOnly(env *Env) bool {
	b, err := env.backend(backend.BackendFile)
	if err != nil {
		return false
	}
	return b.CheckWrite(wdLoc) == nil && b.CheckWrite(nmiWdLoc) != nil
}

func (k nmiWatchdog) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != nmiWdLoc && l != wdLoc {
		return notMine(k.Name(), target, l)
	}
	return vetSysctlInt(v, 0, 1)
}

// Checkup is what the check-up knows of nmi-watchdog: its default, how
// its instances are read, the verdict rules and whose advice they cite.
func (nmiWatchdog) Checkup() Checkup {
	return Checkup{Default: text("1 (0 in KVM guests and where there is no hard lockup detector)"), Rules: nmiWatchdogRules, References: nmiWatchdogRefs}
}

// Experiment is how a change of nmi-watchdog takes effect for latlab try.
// No probe: one NMI per CPU every watchdog_thresh seconds of busy time is
// too rare to move the quantiles try compares.
func (nmiWatchdog) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "one NMI per CPU every watchdog_thresh seconds of busy time is too rare to move the quantiles; a long latlab wake run's maximum, or perf's NMI count, shows it"}
}

var nmiWatchdogRefs = []Reference{
	tunedRef("realtime", "sysctl", "kernel.nmi_watchdog", "0"),
	tunedRef("cpu-partitioning", "sysctl", "kernel.nmi_watchdog", "0"),
	tunedRef("powersave", "sysctl", "kernel.nmi_watchdog", "0"),
}

func nmiWdOf(c *Case) nmiWdState {
	s, _ := c.Detail.(nmiWdState)
	return s
}

var nmiWatchdogRules = []Rule{
	{ID: "nmi-wd-absent", Verdict: Default, When: "the kernel has no lockup detector",
		Match:     func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason:    func(c *Case) string { return c.Meaning + "; nothing to tune" },
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "nmi-wd-all-off", Verdict: Changed, When: "kernel.watchdog 0",
		Match: func(c *Case) bool { return nmiWdOf(c).Watchdog == "0" },
		Reason: func(c *Case) string {
			return c.Meaning + "; the cost: a CPU stuck with interrupts off, or hogged by one thread, is no longer reported"
		},
		Evidence: func(c *Case) string {
			return quote(nmiWatchdogName, "", "only off (kernel.watchdog=0) stops the timer")
		}},
	{ID: "nmi-wd-off", Verdict: Changed, When: "kernel.nmi_watchdog 0",
		Match: func(c *Case) bool { return c.Text() == "0" },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + nmiWatchdogRefs[0].Cite() + " (cpu-partitioning and powersave too): no perf-counter NMIs; the cost: hard lockups are no longer detected"
		},
		Evidence:  func(c *Case) string { return quote(nmiWatchdogName, "", "KVM guests turn it off") },
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "nmi-wd-on", Verdict: Default, When: "kernel.nmi_watchdog 1",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + nmiWatchdogRefs[0].Cite() + " to remove these NMIs, at the cost of hard lockup detection"
		}},
	{ID: "nmi-wd-other", Verdict: Unknown, When: "another value",
		Match: always,
		Reason: func(c *Case) string {
			return "kernel.nmi_watchdog reads " + c.Text() + ", which the kernel does not take (0 or 1)"
		}},
}
