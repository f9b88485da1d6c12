package knob

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(preemption{}) }

// preemptionName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const preemptionName = "preemption"

// preemption is the kernel's preemption model: fixed when the kernel is
// built, switchable at run time on PREEMPT_DYNAMIC kernels through
// debugfs, which latlab reads and writes but never mounts.
type preemption struct{ linuxKnob }

func (preemption) Name() string { return preemptionName }
func (preemption) Summary() string {
	return "the kernel's preemption model: none, voluntary, full, lazy or PREEMPT_RT (/sys/kernel/debug/sched/preempt, uname -v)"
}

var (
	// preemptLoc is the selected model of debugfs's sched/preempt
	// ("none voluntary (full) lazy" reads "full"); a write takes the
	// bare word.
	preemptLoc  = backend.Loc{Backend: backend.BackendFile, Path: "sys/kernel/debug/sched/preempt", Name: backend.NameSelected}
	versionLoc  = fileLoc("proc/sys/kernel/version") // what uname -v prints
	realtimeLoc = fileLoc("sys/kernel/realtime")     // 1 on PREEMPT_RT kernels
)

// preemptModels are the models sched/preempt and preempt= take, in the
// kernel's order, with their worst-case effect.
var preemptModels = []struct{ name, meaning string }{
	{"none", "kernel code is never preempted: a woken task waits until the running one blocks, returns to user space or reaches a cond_resched() point, so the worst case is set by the longest kernel path (milliseconds); the best throughput"},
	{"voluntary", "kernel code is preempted only at its explicit preemption points (might_sleep()): shorter worst cases than none, still milliseconds in long kernel paths"},
	{"full", "kernel code is preemptible everywhere except where it holds a spinlock or has preemption or interrupts off: a woken higher-priority task runs within those sections' length, usually well under a millisecond; a little throughput lost"},
	{"lazy", "like full for realtime (SCHED_FIFO/RR/DEADLINE) tasks, which preempt at once; a normal task is preempted only at the next tick or return to user space, for throughput close to none's"},
}

func preemptMeaning(model string) string {
	for _, m := range preemptModels {
		if m.name == model {
			return m.meaning
		}
	}
	return "a model latlab does not know"
}

const preemptRTMeaning = "PREEMPT_RT: spinlocks become sleeping locks and interrupt handlers run in threads, so almost all kernel code is preemptible and the worst case is bounded to tens of microseconds on suited hardware; throughput falls"

// PreemptionDetail is what a reading of preemption found.
type PreemptionDetail struct {
	// Model is the model in force: none, voluntary, full, lazy, "rt", or
	// "" when it cannot be told.
	Model string `json:"model"`
	// Offered are the models sched/preempt lists (nil when unread).
	Offered []string `json:"offered,omitempty"`
	// Debugfs says how sched/preempt read: "read", "absent" (debugfs
	// not mounted or a kernel without PREEMPT_DYNAMIC), "denied".
	Debugfs string `json:"debugfs"`
	// Version is uname -v (/proc/sys/kernel/version), Build the model it
	// names: PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT or "" (none or
	// voluntary, which uname does not tell apart).
	Version  string `json:"version,omitempty"`
	Build    string `json:"build,omitempty"`
	Realtime bool   `json:"realtime"` // /sys/kernel/realtime is 1
	// BootParam is preempt= of /proc/cmdline.
	BootParam string `json:"boot_param,omitempty"`
	// BootModel is the model a PREEMPT_DYNAMIC kernel whose debugfs
	// cannot be read started with: its preempt= if it names a model, else
	// the model its build configuration chose; BootFrom says which.
	// Root may have switched it since (only debugfs tells).
	BootModel string `json:"boot_model,omitempty"`
	BootFrom  string `json:"boot_model_from,omitempty"`
}

// bootModel is the model a PREEMPT_DYNAMIC kernel starts with, as
// kernel/sched/core.c's preempt_dynamic_init and setup_preempt_mode
// choose it: preempt=MODEL when the kernel knows MODEL, else the
// configuration's preemption model, CONFIG_PREEMPT_NONE, _VOLUNTARY,
// _LAZY (6.13 on) or full (CONFIG_PREEMPT); kernels 5.12 to 5.15 name
// that choice CONFIG_PREEMPT_*_BEHAVIOUR. It returns "" when neither
// says.
func bootModel(param string, cfg map[string]string, cfgFile string) (model, from string) {
	switch param {
	case "none", "voluntary", "full", "lazy":
		return param, "preempt=" + param + " on the kernel command line"
	}
	if cfg == nil {
		return "", ""
	}
	for _, c := range []struct{ opt, model string }{
		{"CONFIG_PREEMPT_NONE_BEHAVIOUR", "none"}, {"CONFIG_PREEMPT_VOLUNTARY_BEHAVIOUR", "voluntary"}, {"CONFIG_PREEMPT_BEHAVIOUR", "full"},
		{"CONFIG_PREEMPT_NONE", "none"}, {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"}, {"CONFIG_PREEMPT_LAZY", "lazy"}, {"CONFIG_PREEMPT", "full"},
	} {
		if cfg[c.opt] == "y" {
			from := c.opt + "=y in " + cfgFile
			if param != "" {
				from += " (preempt=" + param + " names no model)"
			} else {
				from += ", no preempt= on the kernel command line"
			}
			return c.model, from
		}
	}
	return "", ""
}

// buildModel is the preemption word of a uname -v string.
func buildModel(version string) string {
	f := strings.Fields(version)
	for _, w := range []string{"PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"} {
		if slices.Contains(f, w) {
			return w
		}
	}
	return ""
}

// offeredModels are the words of a sched/preempt line, the selected one
// unmarked.
func offeredModels(line string) []string {
	var out []string
	for _, w := range strings.Fields(line) {
		out = append(out, strings.Trim(w, "()[]"))
	}
	return out
}

func (preemption) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: preemptionName}
	if value == "" {
		ex.Text = []string{
			"How soon the kernel lets a woken task run when the CPU is in kernel code: the floor under every wake-up's worst case.",
		}
		for _, m := range preemptModels {
			ex.Text = append(ex.Text, m.name+": "+m.meaning+".")
		}
		ex.Text = append(ex.Text, preemptRTMeaning+".",
			"A kernel built with PREEMPT_DYNAMIC (uname -v says so) switches between none, voluntary, full (and lazy where the architecture has it) at boot with preempt=MODEL or at run time by writing the model to /sys/kernel/debug/sched/preempt, which shows the one in force in parentheses: none voluntary (full) lazy.",
			"That file is on debugfs, which may not be mounted: mount -t debugfs none /sys/kernel/debug (as root) makes it readable; latlab does not mount it. Other kernels have their model fixed when built: PREEMPT in uname -v is full; none or voluntary are not told apart.")
		return ex, nil
	}
	v := strings.ToLower(strings.TrimSpace(value))
	if v == "rt" || v == "preempt_rt" {
		ex.Text = []string{preemptRTMeaning + "."}
		return ex, nil
	}
	if preemptMeaning(v) == preemptMeaning("?") {
		return nil, badinput.Errorf("invalid preemption %q: accepted none, voluntary, full, lazy", value)
	}
	ex.Text = []string{v + ": " + preemptMeaning(v) + "."}
	ex.Data = map[string]any{"model": v}
	return ex, nil
}

func (k preemption) Get(env *Env, sel Selector) (*Reading, error) {
	d := PreemptionDetail{}
	if s, _, err := readText(env, versionLoc); err == nil && !hasControl(s) {
		d.Version, d.Build = s, buildModel(s)
	}
	if s, _, err := readText(env, realtimeLoc); err == nil {
		d.Realtime = s == "1"
	}
	if s, _, err := readText(env, cmdlineLoc); err == nil {
		for _, w := range kernelCmdline(s) {
			if v, ok := strings.CutPrefix(w, "preempt="); ok && !hasControl(v) && len(v) < 32 {
				d.BootParam = v
			}
		}
	}
	r := &Reading{Knob: k.Name()}
	it := Item{}
	v, err := env.read(preemptLoc)
	line, _, lerr := readText(env, fileLoc(preemptLoc.Path))
	switch {
	case errors.Is(err, fs.ErrPermission) || errors.Is(lerr, fs.ErrPermission):
		d.Debugfs = "denied"
	case err != nil:
		return nil, err
	case v.IsAbsent():
		d.Debugfs = "absent"
	default:
		d.Debugfs = "read"
		d.Model = strings.TrimSpace(string(v.Data))
		if lerr == nil {
			d.Offered = offeredModels(line)
		}
		loc, raw := preemptLoc, v
		it.Loc, it.Raw = &loc, &raw
	}
	if d.Build == "PREEMPT_RT" || d.Realtime {
		d.Model = "rt"
	}
	if d.Model == "" && d.Build == "PREEMPT" {
		d.Model = "full"
	}
	switch {
	case d.Model == "rt":
		it.Value, it.Meaning = "PREEMPT_RT", preemptRTMeaning
		if d.Debugfs == "read" {
			it.Value += " (" + strings.TrimSpace(string(v.Data)) + ")"
		}
	case d.Model != "":
		it.Value, it.Meaning = d.Model, preemptMeaning(d.Model)
		if d.Build == "PREEMPT_DYNAMIC" {
			it.Value += " (dynamic)"
		}
	case d.Build == "PREEMPT_DYNAMIC":
		unread := "/sys/kernel/debug/sched/preempt, which "
		if d.Debugfs == "denied" {
			unread += debugfsDenied(env)
		} else {
			unread += "is not there: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug, as root, makes it readable; latlab does not mount it)"
		}
		var cfg map[string]string
		file := ""
		if env.KernelConfig != nil {
			cfg, file = env.KernelConfig()
		}
		d.BootModel, d.BootFrom = bootModel(d.BootParam, cfg, file)
		if d.BootModel != "" {
			it.Value = d.BootModel + " at boot (dynamic)"
			it.Meaning = preemptMeaning(d.BootModel) + "; the model the kernel started with (" + d.BootFrom + "); root may have switched it since: the model in force is in " + unread
			break
		}
		it.Value = "dynamic, unread"
		it.Meaning = "a PREEMPT_DYNAMIC kernel; the model in force is in " + unread
		if d.BootParam != "" {
			it.Meaning += "; booted with preempt=" + d.BootParam
		}
	case d.Version == "":
		it.Value, it.Meaning = "unknown", "neither /sys/kernel/debug/sched/preempt nor /proc/sys/kernel/version could be read"
	default:
		it.Value, it.Meaning = "none or voluntary", "uname -v names no PREEMPT model: the kernel was built with none or voluntary, which it does not tell apart; either way kernel code is not preempted at will (milliseconds in long kernel paths)"
	}
	it.Detail = d
	r.Items = []Item{it}
	return r, nil
}

func (k preemption) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	model := strings.ToLower(strings.TrimSpace(value))
	if preemptMeaning(model) == preemptMeaning("?") {
		return nil, badinput.Errorf("invalid preemption %q: accepted none, voluntary, full, lazy (PREEMPT_RT is a kernel of its own)", value)
	}
	r, err := k.Get(env, sel)
	if err != nil {
		return nil, err
	}
	d := r.Items[0].Detail.(PreemptionDetail)
	p := &Plan{Knob: k.Name(), Request: model}
	switch {
	case d.Debugfs == "read":
		if d.Offered != nil && !slices.Contains(d.Offered, model) {
			return nil, badinput.Errorf("this kernel does not offer preemption %s: accepted %s", model, strings.Join(d.Offered, ", "))
		}
		p.Notes = append(p.Notes, "takes effect at once and lasts until reboot; preempt="+model+" on the kernel command line makes it permanent")
		return p, p.add(env, preemptLoc, backend.FileValue(model+"\n"))
	case d.Debugfs == "denied" && !asRoot(env):
		return nil, errors.New("reading /sys/kernel/debug/sched/preempt needs root: run with sudo; nothing was changed")
	case d.Build == "PREEMPT_DYNAMIC":
		p.Manual = bootSteps(env, func(w string) bool { return strings.HasPrefix(w, "preempt=") }, "preempt=", "preempt="+model)
		if d.Debugfs == "denied" {
			// Root and refused: no switch at once is possible here.
			p.Notes = append(p.Notes, "only at boot: /sys/kernel/debug/sched/preempt, which switches at once, "+debugfsDenied(env))
		} else {
			p.Notes = append(p.Notes, "or switch at once: mount debugfs (mount -t debugfs none /sys/kernel/debug, as root; latlab does not mount it) and run this again")
		}
		return p, nil
	case d.Model == "rt":
		return nil, badinput.Errorf("this is a PREEMPT_RT kernel: its model is fixed (full or lazy on newer ones through debugfs, which is not mounted: mount -t debugfs none /sys/kernel/debug)")
	}
	return nil, fmt.Errorf("this kernel's preemption model is fixed when it is built (uname -v: %q): another model needs a kernel built with PREEMPT_DYNAMIC or PREEMPT_RT; nothing was changed", d.Version)
}

// asRoot says whether this process may change system settings on this
// machine (root): the check-up's own test, false for fakes.
func asRoot(env *Env) bool { return env.Privileged != nil && env.Privileged() == nil }

// debugfsDenied says why sched/preempt could not be read: without root,
// that only root can; as root (a refusal all the same), that debugfs is
// closed to this process, which the debugfs= boot parameter, the kernel's
// lockdown or a container's policy does.
func debugfsDenied(env *Env) string {
	if asRoot(env) {
		return "this process may not read even as root (debugfs closed to it: the debugfs= boot parameter, kernel lockdown or a container's policy)"
	}
	return "only root can read"
}

func (k preemption) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != preemptLoc {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if preemptMeaning(s) == preemptMeaning("?") {
		return fmt.Errorf("%q is not a preemption model", s)
	}
	return nil
}

// Checkup is what the check-up knows of preemption: its default, how it
// is read and the verdict rules.
func (preemption) Checkup() Checkup {
	return Checkup{Default: text("the kernel's build (voluntary on most distributions' PREEMPT_DYNAMIC kernels, full on some)"), Rules: preemptionRules}
}

// Experiment: a switch through debugfs takes effect at once; wake-ups
// under kernel activity show it.
func (preemption) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

func preemptionOf(c *Case) PreemptionDetail {
	d, _ := c.Detail.(PreemptionDetail)
	return d
}

// No tuned profile sets the model; the rules rest on the kernel's own
// description (kernel/Kconfig.preempt).
var preemptionRules = []Rule{
	{ID: "preempt-unknown", Verdict: Unknown, When: "neither debugfs nor uname -v readable",
		Match:  func(c *Case) bool { return c.Value == "unknown" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "preempt-rt", Verdict: Changed, When: "a PREEMPT_RT kernel",
		Match:    func(c *Case) bool { return preemptionOf(c).Model == "rt" },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote(preemptionName, "", "tens of microseconds") }},
	{ID: "preempt-boot", Verdict: Default, When: "none or voluntary at boot on a PREEMPT_DYNAMIC kernel whose debugfs cannot be read",
		Match: func(c *Case) bool {
			d := preemptionOf(c)
			return d.Model == "" && (d.BootModel == "none" || d.BootModel == "voluntary")
		},
		Reason: func(c *Case) string {
			return c.Value + ": " + c.Meaning + "; this kernel takes full at once through debugfs, or at boot with preempt=full (latlab knob set preemption full does the one or gives the steps of the other)"
		},
		Evidence:  func(c *Case) string { return quote(preemptionName, "", "full: kernel code is preemptible everywhere") },
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "preempt-boot-full", Verdict: Changed, When: "full or lazy at boot on a PREEMPT_DYNAMIC kernel whose debugfs cannot be read",
		Match:     func(c *Case) bool { d := preemptionOf(c); return d.Model == "" && d.BootModel != "" },
		Reason:    func(c *Case) string { return c.Value + ": " + c.Meaning },
		Evidence:  func(c *Case) string { return quote(preemptionName, "", "full: kernel code is preemptible everywhere") },
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "preempt-unread", Verdict: Unknown, When: "a PREEMPT_DYNAMIC kernel whose debugfs cannot be read",
		Match:  func(c *Case) bool { return preemptionOf(c).Model == "" && preemptionOf(c).Build == "PREEMPT_DYNAMIC" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "preempt-switchable", Verdict: Default, When: "none or voluntary on a kernel that switches at run time",
		Match: func(c *Case) bool {
			d := preemptionOf(c)
			return (d.Model == "none" || d.Model == "voluntary") && d.Debugfs == "read"
		},
		Reason: func(c *Case) string {
			return c.Value + ": " + c.Meaning + "; this kernel switches to full at once (latlab knob set preemption full), for a little throughput"
		},
		Evidence:  func(c *Case) string { return quote(preemptionName, "", "full: kernel code is preemptible everywhere") },
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "preempt-fixed", Verdict: Default, When: "none or voluntary, or PREEMPT, fixed when the kernel was built",
		Match: func(c *Case) bool {
			d := preemptionOf(c)
			return d.Model == "none" || d.Model == "voluntary" || d.Model == "" || d.Build == "PREEMPT"
		},
		Reason: func(c *Case) string {
			return c.Meaning + "; fixed when the kernel was built: only another kernel (PREEMPT_DYNAMIC or PREEMPT_RT) changes it"
		}},
	{ID: "preempt-full", Verdict: Changed, When: "full or lazy on a kernel that switches",
		Match:     always,
		Reason:    func(c *Case) string { return c.Value + ": " + c.Meaning },
		Evidence:  func(c *Case) string { return quote(preemptionName, "", "full: kernel code is preemptible everywhere") },
		IsDefault: func(c *Case) *bool { return nil }},
}
