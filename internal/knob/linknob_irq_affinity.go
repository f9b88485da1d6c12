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

func init() { register(irqAffinity{}) }

// irqAffinityName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const irqAffinityName = "irq-affinity"

type irqAffinity struct{ linuxKnob }

func (irqAffinity) Name() string { return irqAffinityName }

// Selectors are the selector flags irqAffinity reads.
func (irqAffinity) Selectors() []string { return []string{SelIRQ} }
func (irqAffinity) Summary() string {
	return "which CPUs may service an interrupt (/proc/irq/N/smp_affinity_list)"
}

func (irqAffinity) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: irqAffinityName}
	if value == "" {
		ex.Text = []string{
			"smp_affinity_list of /proc/irq/N: the CPUs allowed to service IRQ N, as a list (0-3,8).",
			"effective_affinity_list shows where it is really delivered (often one CPU of the allowed set).",
			"irqbalance rewrites these files unless it is stopped or the IRQ banned (IRQBALANCE_BANNED_CPUS / --banirq).",
		}
		return ex, nil
	}
	cpus, err := cpuset.ParseList(value)
	if err != nil || len(cpus) == 0 {
		return nil, badinput.Errorf("invalid CPU list %q: accepted e.g. 0-3,8", value)
	}
	ex.Text = []string{fmt.Sprintf("CPUs %s (%d CPUs, mask %s)", cpuset.FormatList(cpus), len(cpus), cpuset.FormatMask(cpus, ""))}
	ex.Data = map[string]any{"cpus": cpus}
	return ex, nil
}

func irqLoc(irq string) backend.Loc { return fileLoc("proc/irq/" + irq + "/smp_affinity_list") }

func onlineCPUs(env *Env) []int {
	s, _, err := readText(env, fileLoc("sys/devices/system/cpu/online"))
	if err != nil || s == "" {
		return nil
	}
	c, _ := cpuset.ParseList(s)
	return c
}

func checkCPUs(env *Env, value string) ([]int, error) {
	cpus, err := cpuset.ParseList(value)
	if err != nil {
		return nil, badinput.Errorf("invalid CPU list %q: accepted e.g. 0-3,8", value)
	}
	return cpus, checkOnline(env, cpus)
}

// checkOnline refuses a CPU that is not online (when the online list can
// be read).
func checkOnline(env *Env, cpus []int) error {
	online := onlineCPUs(env)
	for _, c := range cpus {
		if online != nil && !slices.Contains(online, c) {
			return badinput.Errorf("CPU %d is not online: accepted CPUs %s", c, cpuset.FormatList(online))
		}
	}
	return nil
}

func (k irqAffinity) Get(env *Env, sel Selector) (*Reading, error) {
	irqs, _, err := env.list(backend.BackendFile, "proc/irq")
	if err != nil {
		return nil, fmt.Errorf("list IRQs: %w", err)
	}
	if sel.IRQ != "" {
		if !slices.Contains(irqs, sel.IRQ) {
			return nil, badinput.Errorf("no IRQ %q under /proc/irq", sel.IRQ)
		}
		irqs = []string{sel.IRQ}
	}
	slices.SortFunc(irqs, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	r := &Reading{Knob: k.Name()}
	for _, irq := range irqs {
		if _, err := strconv.Atoi(irq); err != nil {
			continue
		}
		l := irqLoc(irq)
		s, v, err := readText(env, l)
		if err != nil || v.IsAbsent() {
			continue
		}
		m := "allowed on CPUs " + s
		if eff, _, err := readText(env, fileLoc("proc/irq/"+irq+"/effective_affinity_list")); err == nil && eff != "" {
			m += ", delivered to " + eff
		}
		r.Items = append(r.Items, item("irq "+irq, l, v, m))
	}
	return r, nil
}

func (k irqAffinity) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.IRQ == "" {
		return nil, badinput.Errorf("irq-affinity needs --irq N (latlab knob get irq-affinity lists them)")
	}
	if _, err := strconv.Atoi(sel.IRQ); err != nil {
		return nil, badinput.Errorf("invalid --irq %q: want an IRQ number", sel.IRQ)
	}
	l := irqLoc(sel.IRQ)
	if v, err := env.read(l); err != nil {
		return nil, err
	} else if v.IsAbsent() {
		return nil, badinput.Errorf("no IRQ %s under /proc/irq", sel.IRQ)
	}
	cpus, err := checkCPUs(env, value)
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		return nil, badinput.Errorf("an IRQ needs at least one CPU")
	}
	p := &Plan{Knob: k.Name(), Target: "irq " + sel.IRQ, Request: value}
	p.Notes = append(p.Notes, "irqbalance, if running, may move it back")
	return p, p.add(env, l, backend.FileValue(cpuset.FormatList(cpus)+"\n"))
}

func (k irqAffinity) Vet(target string, l backend.Loc, v backend.Value) error {
	irq, ok := strings.CutPrefix(target, "irq ")
	if _, err := strconv.Atoi(irq); !ok || err != nil {
		return fmt.Errorf("%s target %q is not irq N", k.Name(), target)
	}
	if l != irqLoc(irq) {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if c, err := cpuset.ParseList(s); err != nil || len(c) == 0 {
		return fmt.Errorf("%q is not a list of CPUs", s)
	}
	return nil
}

// Checkup is what the check-up knows of irq-affinity: its default, how its
// instances are read and the verdict rules.
func (irqAffinity) Checkup() Checkup {
	return Checkup{Default: text("all CPUs"), Rules: irqAffinityRules}
}

// Cases gathers the check-up's cases of irq-affinity: one per physical
// network interface, standing for its queue interrupts (a QueueGroup);
// the configuration and link interrupts are left out.
func (k irqAffinity) Cases(env *Env) []*Case {
	online := onlineCount(env)
	ni := netInfo(filesRoot(env))
	var cs []*Case
	for _, ifc := range physicalNICs(ni) {
		q := queueIRQs(ni, ifc, online)
		if len(q) == 0 {
			continue
		}
		c := baseCase(env, k)
		c.Target, c.Detail = ifc, q
		var parts []string
		for _, g := range q {
			parts = append(parts, fmt.Sprintf("%s:cpu%s", g.Name, orDash(g.Delivered)))
		}
		c.Value = strings.Join(parts, " ")
		c.Meaning = fmt.Sprintf("%d queue interrupts (irq:cpu delivered to); allowed CPUs %s", len(q), allowedSummary(q))
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty = true
		cs = append(cs, c)
	}
	return cs
}

// Experiment is how a change of irq-affinity takes effect for latlab try.
func (irqAffinity) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeUDP}
}

var irqAffinityRules = []Rule{
	{ID: "irq-none", Verdict: Default, When: "no network interface with MSI queue interrupts",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text("no network interface with MSI queue interrupts was found"),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "irq-one-cpu", Verdict: Suspicious, When: "several queue interrupts, all delivered to one CPU of several",
		Match: func(c *Case) bool {
			q := queueGroup(c)
			if len(q) < 2 || q[0].Online < 2 {
				return false
			}
			for _, g := range q {
				if g.Delivered == "" || g.Delivered != q[0].Delivered || cpuCount(g.Delivered) != 1 {
					return false
				}
			}
			return true
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("all %d queue interrupts of %s are delivered to CPU %s: one CPU services the whole interface", len(queueGroup(c)), c.Target, queueGroup(c)[0].Delivered)
		},
		Evidence: func(c *Case) string { return quote(irqAffinityName, "", "effective_affinity_list") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab irq watch", Why: "all queue interrupts of " + c.Target + " land on one CPU", Benefit: 40}
		}},
	{ID: "irq-pinned", Verdict: Changed, When: "a queue interrupt allowed on fewer CPUs than are online",
		Match: func(c *Case) bool {
			for _, g := range queueGroup(c) {
				if g.Online > 0 && g.Allowed != "" && cpuCount(g.Allowed) < g.Online {
					return true
				}
			}
			return false
		},
		Reason: func(c *Case) string {
			return fmt.Sprintf("queue interrupts of %s are pinned (allowed CPUs %s); irqbalance, if running, may move them", c.Target, allowedSummary(queueGroup(c)))
		},
		Evidence: func(c *Case) string { return quote(irqAffinityName, "", "irqbalance rewrites") }},
	{ID: "irq-default", Verdict: Default, When: "every queue interrupt allowed on all CPUs",
		Match: always,
		Reason: func(c *Case) string {
			return fmt.Sprintf("%d queue interrupts allowed on every CPU; the kernel delivers each to one of them", len(queueGroup(c)))
		},
		Evidence: func(c *Case) string { return quote(irqAffinityName, "", "effective_affinity_list") }},
}

// cpuCount is the number of CPUs in a list such as 0-3,8 (0 when it
// does not parse).
func cpuCount(list string) int {
	c, err := cpuset.ParseList(list)
	if err != nil {
		return 0
	}
	return len(c)
}

func allowedSummary(g []Instance) string {
	seen := map[string]bool{}
	var out []string
	for _, i := range g {
		if !seen[i.Allowed] {
			seen[i.Allowed] = true
			out = append(out, orDash(i.Allowed))
		}
	}
	return strings.Join(out, " / ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
