package knob

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
)

func init() { register(irqbalance{}) }

// irqbalanceName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const irqbalanceName = "irqbalance"

type irqbalance struct{ linuxKnob }

func (irqbalance) Name() string { return irqbalanceName }
func (irqbalance) Summary() string {
	return "the irqbalance service, which moves interrupts between CPUs every 10 s (systemctl is-active/is-enabled irqbalance)"
}

var irqbalanceLoc = backend.Loc{Backend: backend.BackendService, Path: "irqbalance.service"}

// irqbalanceConfigs are where distributions keep the daemon's settings:
// Debian's /etc/default, Red Hat's /etc/sysconfig.
var irqbalanceConfigs = []backend.Loc{fileLoc("etc/default/irqbalance"), fileLoc("etc/sysconfig/irqbalance")}

// irqbalanceRefs: tuned's low-latency partitioning profiles keep
// irqbalance running and ban the isolated cores from it (tuned's
// irqbalance plugin writes IRQBALANCE_BANNED_CPUS and restarts it).
var irqbalanceRefs = []Reference{
	tunedRef("cpu-partitioning", "irqbalance", "banned_cpus", "${isolated_cores}"),
	tunedRef("realtime", "irqbalance", "banned_cpus", "${isolated_cores}"),
}

// IrqbalanceDetail is what a reading of irqbalance found.
type IrqbalanceDetail struct {
	Unit string `json:"unit"`
	// Available is false when services cannot be asked (systemd is not
	// running, a fixture --root).
	Available bool   `json:"available"`
	Installed bool   `json:"installed"`
	Active    string `json:"active,omitempty"`  // systemctl is-active
	Enabled   string `json:"enabled,omitempty"` // systemctl is-enabled
	Running   bool   `json:"running"`
	// Config is the settings file read, BannedCPUs and BannedCPUList
	// its IRQBALANCE_BANNED_CPUS (a mask) and IRQBALANCE_BANNED_CPULIST.
	Config        string `json:"config,omitempty"`
	BannedCPUs    string `json:"banned_cpus,omitempty"`
	BannedCPUList string `json:"banned_cpulist,omitempty"`
	// Pinned is how many IRQ affinities latlab set that are still in
	// place (open irq-affinity entries of its journal): the hand-set
	// affinities irqbalance would undo.
	Pinned int `json:"latlab_pinned_irqs,omitempty"`
}

func (irqbalance) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: irqbalanceName}
	general := []string{
		"irqbalance spreads hardware interrupts over the CPUs: every 10 seconds (its --interval default) it re-reads the interrupt load and rewrites /proc/irq/N/smp_affinity.",
		"So an affinity set by hand (latlab knob set irq-affinity, echo > smp_affinity_list) lasts until its next pass, unless the CPUs are banned (IRQBALANCE_BANNED_CPUS, a mask, or IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance or /etc/sysconfig/irqbalance) or the IRQ is (--banirq).",
		"It is a systemd service: on (running and enabled, the default where installed) or off (stopped and disabled). Off, every interrupt stays where it was last put and new ones get /proc/irq/default_smp_affinity: placement is yours.",
		"tuned's cpu-partitioning and realtime profiles keep it running and ban the isolated cores ([irqbalance] banned_cpus=${isolated_cores}) rather than stop it: the other CPUs stay balanced.",
	}
	if value == "" {
		ex.Text = general
		return ex, nil
	}
	on, ok := parseBool01(value)
	if !ok {
		return nil, badinput.Errorf("invalid irqbalance %q: accepted on|off", value)
	}
	if on == 1 {
		ex.Text = []string{"on: irqbalance.service enabled and started: " + general[0], general[1]}
	} else {
		ex.Text = []string{"off: irqbalance.service stopped and disabled: interrupts stay where they are and affinities set by hand hold; new interrupts get /proc/irq/default_smp_affinity.", general[3]}
	}
	ex.Data = map[string]any{"running": on == 1}
	return ex, nil
}

// readIrqbalanceConfig reads the first settings file that exists.
// Debian's init script sources it; irqbalance.service reads it as an
// EnvironmentFile, whose parser (systemd's env-file.c) is not sh: after
// a closing quote it goes on reading the value, so a comment there is
// part of it. A plain NAME=value or NAME="value" line, with nothing
// after the value, is read alike; any other value is left out rather
// than read one way or the other.
func readIrqbalanceConfig(env *Env, d *IrqbalanceDetail) {
	for _, l := range irqbalanceConfigs {
		v, err := env.read(l)
		if err != nil || v.IsAbsent() {
			continue
		}
		d.Config = l.String()
		st := newShellState(irqBannedCPUs, irqBannedCPUList)
		st.source(d.Config, string(v.Data))
		if b := st.get(irqBannedCPUs); b.Unknown == "" && b.Plain {
			d.BannedCPUs = b.Value
		}
		if b := st.get(irqBannedCPUList); b.Unknown == "" && b.Plain {
			d.BannedCPUList = b.Value
		}
		return
	}
}

const (
	irqBannedCPUs    = "IRQBALANCE_BANNED_CPUS"
	irqBannedCPUList = "IRQBALANCE_BANNED_CPULIST"
)

// latlabPinned counts the IRQ affinities latlab set and has not reverted,
// from the journal in the default state directory of the file backend's
// root; 0 when it cannot tell.
func latlabPinned(env *Env) int {
	fb, ok := env.Backends[backend.BackendFile].(backend.Files)
	if !ok {
		return 0
	}
	j, err := journal.Read(linuxStateDir(fb.Root))
	if err != nil {
		return 0
	}
	n := 0
	for i := range j.Entries {
		if e := &j.Entries[i]; e.Open() && e.Knob == irqAffinityName {
			n++
		}
	}
	return n
}

// linuxStateDir is DefaultStateDir as Linux has it, on any OS: the
// journal of the root's own latlab.
func linuxStateDir(root string) string {
	if root != "" && root != "/" {
		return root + "/var/lib/latlab"
	}
	return "/var/lib/latlab"
}

func (k irqbalance) Get(env *Env, sel Selector) (*Reading, error) {
	d := IrqbalanceDetail{Unit: irqbalanceLoc.Path}
	readIrqbalanceConfig(env, &d)
	d.Pinned = latlabPinned(env)
	r := &Reading{Knob: k.Name()}
	v, err := env.read(irqbalanceLoc)
	if errors.Is(err, backend.ErrUnavailable) {
		r.Items = []Item{{Value: "not available", Meaning: err.Error(), Detail: d}}
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	d.Available = true
	it := item("", irqbalanceLoc, v, "")
	if v.IsAbsent() {
		it.Value = "not installed"
		it.Meaning = "irqbalance.service is not installed: interrupts stay where the kernel (/proc/irq/default_smp_affinity) and any affinity set by hand put them"
		it.Detail = d
		r.Items = []Item{it}
		return r, nil
	}
	s, err := backend.DecodeService(v)
	if err != nil {
		return nil, err
	}
	d.Installed, d.Active, d.Enabled, d.Running = true, s.Active, s.Enabled, s.Running()
	it.Value = s.Active + ", " + s.Enabled
	if s.Running() {
		it.Meaning = "running: it rewrites the interrupts' affinities every 10 s"
	} else {
		it.Meaning = "stopped: interrupts stay where they were last put"
	}
	switch {
	case d.BannedCPUList != "":
		it.Meaning += "; CPUs " + d.BannedCPUList + " banned (IRQBALANCE_BANNED_CPULIST in " + d.Config + ")"
	case d.BannedCPUs != "":
		it.Meaning += "; CPU mask " + d.BannedCPUs + " banned (IRQBALANCE_BANNED_CPUS in " + d.Config + ")"
	}
	if s.Enabled != "enabled" && s.Running() {
		it.Warnings = append(it.Warnings, "running but "+s.Enabled+": it will not start at the next boot")
	}
	if s.Enabled == "enabled" && !s.Running() {
		it.Warnings = append(it.Warnings, "stopped but enabled: it starts again at the next boot")
	}
	it.Detail = d
	r.Items = []Item{it}
	return r, nil
}

func (k irqbalance) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	on, ok := parseBool01(value)
	if !ok {
		return nil, badinput.Errorf("invalid irqbalance %q: accepted on|off", value)
	}
	v, err := env.read(irqbalanceLoc)
	if err != nil {
		return nil, fmt.Errorf("nothing was changed: %w", err)
	}
	if v.IsAbsent() {
		return nil, fmt.Errorf("irqbalance.service is not installed: there is nothing to %s; nothing was changed", map[int]string{0: "stop", 1: "start"}[on])
	}
	cur, err := backend.DecodeService(v)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	want := cur
	if on == 1 {
		if strings.HasPrefix(cur.Enabled, "masked") {
			return nil, fmt.Errorf("irqbalance.service is %s: latlab does not unmask it (systemctl unmask irqbalance.service does); nothing was changed", cur.Enabled)
		}
		want.Active = "active"
		if cur.Enabled == "disabled" {
			want.Enabled = "enabled"
		}
	} else {
		if cur.Running() {
			want.Active = "inactive"
		} // else failed stays failed: both are stopped
		if cur.Enabled == "enabled" {
			want.Enabled = "disabled"
		}
		p.Notes = append(p.Notes, "interrupts stay where irqbalance last put them; latlab knob set irq-affinity places them")
		p.Notes = append(p.Notes, "tuned's cpu-partitioning bans the isolated cores instead of stopping it: "+irqbalanceRefs[0].Cite())
	}
	if want.Enabled != "enabled" && want.Enabled != "disabled" {
		p.Notes = append(p.Notes, "its unit file is "+cur.Enabled+", which latlab leaves as it is: only started or stopped")
	}
	return p, p.add(env, irqbalanceLoc, want.Value())
}

// serviceActive and serviceEnabled are the states systemctl reports
// (systemctl(1) is-active and is-enabled).
var (
	serviceActive  = []string{"active", "reloading", "refreshing", "inactive", "failed", "activating", "deactivating", "maintenance"}
	serviceEnabled = []string{"enabled", "enabled-runtime", "linked", "linked-runtime", "alias", "masked", "masked-runtime",
		"static", "indirect", "disabled", "generated", "transient", "bad", "-"}
)

func (k irqbalance) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != irqbalanceLoc {
		return notMine(k.Name(), target, l)
	}
	s, err := backend.DecodeService(v)
	if err != nil {
		return err
	}
	if !slices.Contains(serviceActive, s.Active) || !slices.Contains(serviceEnabled, s.Enabled) {
		return fmt.Errorf("%q is not a state systemctl reports", v.Data)
	}
	return nil
}

// Checkup is what the check-up knows of irqbalance: its default, how it
// is read and the verdict rules.
func (irqbalance) Checkup() Checkup {
	return Checkup{Default: text("running and enabled, where installed"), Rules: irqbalanceRules, References: irqbalanceRefs}
}

// Experiment is how a change of irqbalance takes effect for latlab try:
// at once, but irqbalance places interrupts on its first pass and then
// every 10 s, so a block waits for one pass; interrupt placement shows
// in network round trips.
func (irqbalance) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: 10 * time.Second, Probe: ProbeUDP}
}

func irqbalanceOf(c *Case) IrqbalanceDetail {
	d, _ := c.Detail.(IrqbalanceDetail)
	return d
}

func irqbalanceBanned(d IrqbalanceDetail) string {
	switch {
	case d.BannedCPUList != "":
		return "CPUs " + d.BannedCPUList
	case d.BannedCPUs != "":
		return "CPU mask " + d.BannedCPUs
	}
	return ""
}

var irqbalanceRules = []Rule{
	{ID: "irqb-unavailable", Verdict: Unknown, When: "services cannot be read (systemd not running)",
		Match:  func(c *Case) bool { return !irqbalanceOf(c).Available },
		Reason: func(c *Case) string { return "not available: " + c.Meaning }},
	{ID: "irqb-absent", Verdict: Default, When: "irqbalance.service not installed",
		Match:     func(c *Case) bool { return !irqbalanceOf(c).Installed },
		Reason:    func(c *Case) string { return c.Meaning },
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "irqb-undoes-affinity", Verdict: Suspicious, When: "running while IRQ affinities latlab set by hand are in place",
		Match: func(c *Case) bool { d := irqbalanceOf(c); return d.Running && d.Pinned > 0 },
		Reason: func(c *Case) string {
			d := irqbalanceOf(c)
			s := fmt.Sprintf("irqbalance is running while %d IRQ affinities latlab set by hand are in place: it rewrites affinities every 10 s, so they may not hold", d.Pinned)
			if b := irqbalanceBanned(d); b != "" {
				s += " (it keeps interrupts off " + b + ")"
			}
			return s + "; " + irqbalanceRefs[0].Cite() + ", i.e. bans the isolated cores rather than stopping it; stopping it leaves all interrupt placement to you"
		},
		Evidence: func(c *Case) string { return quote(irqbalanceName, "", "lasts until its next pass") },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set irqbalance off", Why: "irqbalance would undo the IRQ affinities set by hand (latlab knob revert irqbalance restores it); or ban those CPUs in IRQBALANCE_BANNED_CPULIST", Benefit: 30}
		}},
	{ID: "irqb-banned", Verdict: Changed, When: "running with banned CPUs",
		Match: func(c *Case) bool { d := irqbalanceOf(c); return d.Running && irqbalanceBanned(d) != "" },
		Reason: func(c *Case) string {
			return "running and keeping interrupts off " + irqbalanceBanned(irqbalanceOf(c)) + ": as " + irqbalanceRefs[0].Cite() + " does for its isolated cores"
		}},
	{ID: "irqb-stopped-enabled", Verdict: Suspicious, When: "stopped but enabled",
		Match: func(c *Case) bool { d := irqbalanceOf(c); return !d.Running && d.Enabled == "enabled" },
		Reason: func(c *Case) string {
			return "stopped now but enabled: it starts again at the next boot and moves interrupts every 10 s from then on"
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set irqbalance off", Why: "irqbalance is stopped but starts again at boot", Benefit: 10}
		}},
	{ID: "irqb-stopped", Verdict: Changed, When: "stopped",
		Match: func(c *Case) bool { return !irqbalanceOf(c).Running },
		Reason: func(c *Case) string {
			return "stopped: interrupts stay where they were last put, affinities set by hand hold, and nothing spreads the interrupt load (the cost: a busy device's interrupts may all land on one CPU)"
		}},
	{ID: "irqb-running", Verdict: Default, When: "running",
		Match: always,
		Reason: func(c *Case) string {
			return "running: it moves interrupts between CPUs every 10 s, so an interrupt may change CPU under a latency-sensitive thread; " + irqbalanceRefs[0].Cite() + " to keep isolated cores free of them"
		},
		Evidence: func(c *Case) string { return quote(irqbalanceName, "", "every 10 seconds") }},
}
