package knob

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(isolation{}) }

// isolationName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const isolationName = "isolation"

// isolation reads the CPU isolation the kernel was booted with. It is
// set on the kernel command line only, which latlab does not edit: a
// plan of it is the steps to take by hand.
type isolation struct{ linuxKnob }

func (isolation) Name() string { return isolationName }
func (isolation) Summary() string {
	return "CPUs kept free of ordinary tasks, the tick and RCU callbacks (isolcpus, nohz_full, rcu_nocbs on the kernel command line; read only)"
}

var (
	cmdlineLoc     = fileLoc("proc/cmdline")
	isolatedLoc    = fileLoc("sys/devices/system/cpu/isolated")
	nohzFullLoc    = fileLoc("sys/devices/system/cpu/nohz_full")
	grubDefaultLoc = fileLoc("etc/default/grub")
	kernelCmdLoc   = fileLoc("etc/kernel/cmdline")
)

// isolationRefs: tuned's profiles set these on the kernel command line
// through their [bootloader] section. The cpu-partitioning and realtime
// lines are quoted as the profiles write them, with tuned's variables:
// isolated_cores is the user's list, cmd_isolcpus adds isolcpus= for
// no_balance_cores, managed_irq adds "managed_irq,domain," when
// isolate_managed_irq is set.
var isolationRefs = []Reference{
	tunedRef("network-latency", "bootloader", "cmdline_network_latency", "skew_tick=1"),
	tunedRef("cpu-partitioning", "bootloader", "cmdline_cpu_part", "+nohz=on${cmd_isolcpus} nohz_full=${isolated_cores} rcu_nocbs=${isolated_cores} tuned.non_isolcpus=${not_isolated_cpumask} intel_pstate=disable nosoftlockup"),
	tunedRef("realtime", "bootloader", "cmdline_realtime", "+isolcpus=${managed_irq}${isolated_cores} intel_pstate=disable nosoftlockup tsc=reliable"),
	tunedRef("realtime-virtual-host", "bootloader", "cmdline_rvh", "+nohz=on nohz_full=${isolated_cores} rcu_nocbs=${isolated_cores} irqaffinity=${non_isolated_cores}"),
}

// isolationParams are the kernel parameters the knob reads, in the
// order it shows them.
var isolationParams = []string{"isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity", "nohz", "skew_tick"}

// IsolationDetail is what a reading of isolation found.
type IsolationDetail struct {
	// Params are the isolation parameters of /proc/cmdline, by name.
	Params map[string]string `json:"params"`
	// IsolFlags and IsolCPUs are isolcpus= taken apart.
	IsolFlags []string `json:"isolcpus_flags,omitempty"`
	IsolCPUs  string   `json:"isolcpus_cpus,omitempty"`
	// Isolated is /sys/devices/system/cpu/isolated ("" none); NohzFull
	// /sys/devices/system/cpu/nohz_full, "" none, and NohzFullFile false
	// when the file does not exist (a kernel without CONFIG_NO_HZ_FULL).
	Isolated     string `json:"isolated"`
	NohzFull     string `json:"nohz_full"`
	NohzFullFile bool   `json:"nohz_full_file"`
	// NohzFullNotShown is the directory every kernel has above
	// nohz_full, missing with it from a partial --root tree: the file's
	// absence then says nothing of the kernel (absence.go).
	NohzFullNotShown string `json:"nohz_full_not_shown,omitempty"`
}

func (isolation) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: isolationName}
	general := []string{
		"isolcpus=[FLAGS,]CPUS takes CPUs out of the scheduler's load balancing (flag domain, the default): only threads pinned there run there. managed_irq also keeps the kernel-managed queue interrupts of multi-queue drivers off them where it can; nohz stops the tick as nohz_full does.",
		"nohz_full=CPUS stops the scheduler tick on a CPU that runs one task (a kernel built with CONFIG_NO_HZ_FULL; /sys/devices/system/cpu/nohz_full lists them), and offloads their RCU callbacks too. rcu_nocbs=CPUS moves RCU callbacks to kernel threads on other CPUs. irqaffinity=CPUS is the default affinity of interrupts.",
		"Without nohz_full or rcu_nocbs an isolated CPU still takes the tick (HZ times a second while busy) and runs RCU callbacks, so a pinned thread is still interrupted for microseconds at a time.",
		"skew_tick=1 offsets each CPU's tick so they do not all fire at once and contend for the same kernel locks (tuned's network-latency sets it). Each costs: isolated CPUs do no general work, so throughput falls with their number; a tickless CPU pays more per kernel entry and exit.",
		"All are kernel boot parameters: latlab reads /proc/cmdline and /sys/devices/system/cpu/{isolated,nohz_full} and, to change them, prints the boot loader steps (a reboot) rather than editing the boot configuration.",
	}
	if value == "" {
		ex.Text = general
		return ex, nil
	}
	cpus, none, err := parseIsolation(value)
	if err != nil {
		return nil, err
	}
	if none {
		ex.Text = []string{"none: no isolation parameters; every CPU takes ordinary tasks, the tick and RCU callbacks."}
		ex.Data = map[string]any{"cpus": []int{}}
		return ex, nil
	}
	l := cpuset.FormatList(cpus)
	ex.Text = []string{fmt.Sprintf("%s: %s (%d CPUs) isolated: %s", l, l, len(cpus), isolationLine(l)), general[0], general[1]}
	ex.Data = map[string]any{"cpus": cpus, "params": isolationLine(l)}
	return ex, nil
}

// parseIsolation reads a set value: a CPU list, or none.
func parseIsolation(value string) (cpus []int, none bool, err error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "none", "off", "0":
		return nil, true, nil
	}
	cpus, err = cpuset.ParseList(value)
	if err != nil || len(cpus) == 0 {
		return nil, false, badinput.Errorf("invalid isolation %q: accepted a CPU list to isolate (2-3) or none", value)
	}
	return cpus, false, nil
}

// isolationLine is the parameters that isolate cpus: isolcpus with the
// flags of tuned's realtime (managed_irq,domain), nohz_full and
// rcu_nocbs as cpu-partitioning sets them.
func isolationLine(cpus string) string {
	return "isolcpus=managed_irq,domain," + cpus + " nohz_full=" + cpus + " rcu_nocbs=" + cpus
}

// kernelCmdline splits a kernel command line into its parameters: the
// words before "--" (what follows goes to init).
func kernelCmdline(s string) []string {
	f := strings.Fields(s)
	if i := slices.Index(f, "--"); i >= 0 {
		f = f[:i]
	}
	return f
}

// cmdlineParams picks the isolation parameters of a command line; a
// parameter given twice counts as the last.
func cmdlineParams(s string) map[string]string {
	out := map[string]string{}
	for _, w := range kernelCmdline(s) {
		k, v, _ := strings.Cut(w, "=")
		if slices.Contains(isolationParams, k) && !hasControl(v) && len(v) <= 1024 {
			out[k] = v
		}
	}
	return out
}

// splitIsolcpus takes isolcpus= apart: the leading flags, then the CPU
// list. Without flags it is domain, as the kernel takes it.
func splitIsolcpus(v string) (flags []string, cpus string) {
	parts := strings.Split(v, ",")
	i := 0
	for i < len(parts) && parts[i] != "" && parts[i][0] >= 'a' && parts[i][0] <= 'z' {
		flags = append(flags, parts[i])
		i++
	}
	if len(flags) == 0 {
		flags = []string{"domain"}
	}
	return flags, strings.Join(parts[i:], ",")
}

func (k isolation) Get(env *Env, sel Selector) (*Reading, error) {
	r := &Reading{Knob: k.Name()}
	cmd, cv, err := readText(env, cmdlineLoc)
	if err != nil {
		return nil, err
	}
	if cv.IsAbsent() {
		r.Items = []Item{{Value: "unknown", Meaning: "/proc/cmdline does not exist: the boot parameters cannot be read"}}
		return r, nil
	}
	d := IsolationDetail{Params: cmdlineParams(cmd)}
	if v, ok := d.Params["isolcpus"]; ok {
		d.IsolFlags, d.IsolCPUs = splitIsolcpus(v)
	}
	if s, _, err := readText(env, isolatedLoc); err == nil {
		d.Isolated = s
	}
	if s, v, err := readText(env, nohzFullLoc); err == nil && !v.IsAbsent() {
		d.NohzFullFile = true
		if s != "(null)" {
			d.NohzFull = s
		}
	} else if err == nil {
		if a, err := absenceOf(env, nohzFullLoc, "CONFIG_NO_HZ_FULL"); err == nil && a.unseen() {
			d.NohzFullNotShown = a.notShown()
		}
	}
	var parts []string
	for _, p := range isolationParams {
		if v, ok := d.Params[p]; ok {
			parts = append(parts, p+"="+v)
		}
	}
	it := Item{Value: "none", Detail: d}
	if len(parts) > 0 {
		it.Value = strings.Join(parts, " ")
	}
	it.Meaning = isolationMeaning(d)
	r.Items = []Item{it}
	return r, nil
}

func isolationMeaning(d IsolationDetail) string {
	var m []string
	if d.IsolCPUs != "" {
		m = append(m, "CPUs "+d.IsolCPUs+" isolated ("+strings.Join(d.IsolFlags, ", ")+")")
	}
	if v := d.Params["nohz_full"]; v != "" {
		s := "tick stopped on " + v + " when one task runs"
		if d.NohzFullNotShown != "" {
			s += ", if the kernel was built with CONFIG_NO_HZ_FULL (" + d.NohzFullNotShown + " is missing too, so the tree does not say)"
		}
		m = append(m, s)
	}
	if v := d.Params["rcu_nocbs"]; v != "" {
		m = append(m, "RCU callbacks offloaded from "+v)
	}
	if v := d.Params["irqaffinity"]; v != "" {
		m = append(m, "interrupts default to CPUs "+v)
	}
	if d.Params["skew_tick"] == "1" {
		m = append(m, "ticks skewed")
	}
	if len(m) == 0 {
		return "no CPU is isolated: every CPU takes ordinary tasks, the tick and RCU callbacks"
	}
	return strings.Join(m, "; ")
}

// Plan never writes: the parameters live in the boot loader's
// configuration. The plan's Manual steps say where to put them.
func (k isolation) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	cpus, none, err := parseIsolation(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	want := ""
	if !none {
		if err := checkOnline(env, cpus); err != nil {
			return nil, err
		}
		if online := onlineCPUs(env); online != nil && len(cpus) >= len(online) {
			return nil, badinput.Errorf("isolation %s leaves no CPU for the kernel's own work: accepted a list of fewer than the %d online CPUs", cpuset.FormatList(cpus), len(online))
		}
		if slices.Contains(cpus, 0) {
			p.Warnings = append(p.Warnings, "CPU 0 does the kernel's timekeeping and takes most boot-time interrupts; isolate other CPUs (some kernels keep nohz_full off the boot CPU)")
		}
		want = isolationLine(cpuset.FormatList(cpus))
	}
	cmd, _, err := readText(env, cmdlineLoc)
	if err != nil {
		return nil, err
	}
	if isolationOf(cmd) == want {
		return p, nil // already booted so: nothing to do
	}
	p.Manual = bootSteps(env, isolationWord, "isolcpus=, nohz_full= and rcu_nocbs=", want)
	p.Notes = append(p.Notes,
		"tuned's cpu-partitioning writes the same from isolated_cores= in /etc/tuned/cpu-partitioning-variables.conf: "+isolationRefs[1].Cite(),
		"after the reboot, latlab knob get isolation shows what the kernel took")
	return p, nil
}

// isolationOf is the isolcpus, nohz_full and rcu_nocbs words of a
// command line, in isolationLine's order.
func isolationOf(cmd string) string {
	var out []string
	for _, w := range kernelCmdline(cmd) {
		if isolationWord(w) {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(a[:2], b[:2]) })
	return strings.Join(out, " ")
}

func isolationWord(w string) bool {
	k, _, _ := strings.Cut(w, "=")
	return k == "isolcpus" || k == "nohz_full" || k == "rcu_nocbs"
}

// withIsolation replaces the isolation words of a command line with want.
func withIsolation(cmd, want string) string { return replaceWords(cmd, isolationWord, want) }

// replaceWords drops the words of a command line that drop matches and
// appends add.
func replaceWords(cmd string, drop func(string) bool, add string) string {
	var out []string
	for _, w := range strings.Fields(cmd) {
		if !drop(w) {
			out = append(out, w)
		}
	}
	if add != "" {
		out = append(out, add)
	}
	return strings.Join(out, " ")
}

// bootSteps are the steps that put add on the kernel command line in
// place of the words drop matches (named by dropped), for the boot
// loader found: GRUB's /etc/default/grub (grubSteps), else
// kernel-install's /etc/kernel/cmdline (systemd-boot), else in general
// words.
func bootSteps(env *Env, drop func(string) bool, dropped, add string) []ManualStep {
	reboot := ManualStep{Do: "reboot: the kernel reads its parameters only at boot"}
	if g, ok := readGrub(env); ok {
		return append(grubSteps(g, drop, dropped, add), reboot)
	}
	if v, err := env.read(kernelCmdLoc); err == nil && !v.IsAbsent() {
		cur := strings.TrimSpace(string(v.Data))
		if hasControl(cur) {
			cur = ""
		}
		return []ManualStep{
			{Do: "write the new command line to /etc/kernel/cmdline (systemd-boot: kernel-install reads it):", Line: replaceWords(cur, drop, add)},
			{Do: "rebuild the running kernel's boot entry: kernel-install add \"$(uname -r)\" followed by the path of its image (/boot/vmlinuz-$(uname -r) on most distributions)"},
			reboot,
		}
	}
	do := "add to the kernel command line in your boot loader's configuration (in place of any " + dropped + "):"
	if add == "" {
		do = "remove " + dropped + " from the kernel command line in your boot loader's configuration"
	}
	return []ManualStep{{Do: do, Line: add}, reboot}
}

// Vet refuses every write: the knob never writes.
func (k isolation) Vet(target string, l backend.Loc, v backend.Value) error {
	return errors.New("isolation is set on the kernel command line, which latlab does not write")
}

// Checkup is what the check-up knows of isolation: its default, how it
// is read and the verdict rules.
func (isolation) Checkup() Checkup {
	return Checkup{Default: text("none"), Rules: isolationRules, References: isolationRefs}
}

// Experiment: a change needs a reboot, which try cannot do between
// blocks.
func (isolation) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "after a reboot", Settle: DefaultSettle, Probe: ProbeSleep}
}

func isolationDetailOf(c *Case) IsolationDetail {
	d, _ := c.Detail.(IsolationDetail)
	return d
}

// isolatedCPUs are the CPUs isolation leaves to pinned threads: those the
// kernel lists as isolated or tickless, else (the kernel lists none,
// e.g. it ignored nohz_full) those the command line names; "" for none.
func isolatedCPUs(d IsolationDetail) string {
	lists := []string{d.Isolated, d.NohzFull}
	if strings.TrimSpace(d.Isolated+d.NohzFull) == "" {
		lists = []string{d.IsolCPUs, d.Params["nohz_full"]}
	}
	var cpus []int
	for _, l := range lists {
		c, err := cpuset.ParseList(strings.TrimSpace(l))
		if err != nil {
			continue
		}
		for _, n := range c {
			if !slices.Contains(cpus, n) {
				cpus = append(cpus, n)
			}
		}
	}
	if len(cpus) == 0 {
		return ""
	}
	slices.Sort(cpus)
	return cpuset.FormatList(cpus)
}

// noiseStep measures what isolation left on its CPUs: a thread spinning
// on each, and the interrupts the kernel still sends them. Isolation was
// asked for, and whether it holds is the question it raises: the step
// ranks (32) below the cause of late wake-ups (35 and up) and the fixes
// worth 35 and up, just above the settings worth 30, far above the
// generic longer probes (15 and less).
func noiseStep(c *Case) *NextStep {
	cpus := isolatedCPUs(isolationDetailOf(c))
	if cpus == "" {
		return nil
	}
	return &NextStep{Command: "latlab noise --cpus " + cpus + " --duration 30s",
		Why: "how much the kernel still interrupts the isolated CPUs", Benefit: 32}
}

var isolationRules = []Rule{
	{ID: "iso-unreadable", Verdict: Unknown, When: "/proc/cmdline cannot be read",
		Match:  func(c *Case) bool { return isolationDetailOf(c).Params == nil },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "iso-nohz-ignored", Verdict: Suspicious, When: "nohz_full given but the kernel lists no tickless CPU",
		Match: func(c *Case) bool {
			d := isolationDetailOf(c)
			return d.Params["nohz_full"] != "" && d.NohzFull == "" && d.NohzFullNotShown == ""
		},
		Reason: func(c *Case) string {
			d := isolationDetailOf(c)
			why := "/sys/devices/system/cpu/nohz_full is empty"
			if !d.NohzFullFile {
				why = "the kernel has no /sys/devices/system/cpu/nohz_full: it was built without CONFIG_NO_HZ_FULL"
			}
			return "nohz_full=" + d.Params["nohz_full"] + " is on the command line but " + why + ", so every CPU keeps its tick"
		},
		Next: noiseStep},
	{ID: "iso-tick-kept", Verdict: Changed, When: "isolcpus without nohz_full or rcu_nocbs",
		Match: func(c *Case) bool {
			d := isolationDetailOf(c)
			return d.IsolCPUs != "" && d.Params["nohz_full"] == "" && d.Params["rcu_nocbs"] == ""
		},
		Reason: func(c *Case) string {
			d := isolationDetailOf(c)
			return "CPUs " + d.IsolCPUs + " are isolated from the scheduler but still take the tick and run RCU callbacks, so a thread pinned there is still interrupted; " +
				"tuned's cpu-partitioning adds nohz_full= and rcu_nocbs= for its isolated cores (" + isolationRefs[1].Cite() + ")"
		},
		Evidence: func(c *Case) string { return quote(isolationName, "", "still takes the tick") },
		Next:     noiseStep},
	{ID: "iso-set", Verdict: Changed, When: "isolation parameters given",
		Match: func(c *Case) bool { return len(isolationDetailOf(c).Params) > 0 },
		Reason: func(c *Case) string {
			s := c.Meaning + "; isolated CPUs do no general work, so throughput falls with their number"
			if isolationDetailOf(c).Params["skew_tick"] == "1" {
				s += "; skew_tick=1 as " + isolationRefs[0].Cite()
			}
			return s
		},
		Evidence: func(c *Case) string { return quote(isolationName, "", "only threads pinned there run there") },
		Next:     noiseStep},
	{ID: "iso-none", Verdict: Default, When: "no isolation parameters",
		Match: always,
		Reason: func(c *Case) string {
			return "no CPU is isolated (the default): a note, not a fault; for the lowest worst case, isolate CPUs for the latency-critical threads and pin them there (latlab knob explain isolation)"
		}},
}
