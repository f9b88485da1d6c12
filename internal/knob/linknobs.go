package knob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/timer"
)

// The Linux knobs: files under /proc and /sys (through the Files backend,
// so tests use a fixture tree) and ethtool coalescing.

func init() {
	register(timerSlack{})
	register(tcpRecovery{})
	register(tcpDsack{})
	register(clocksource{})
	register(irqAffinity{})
	register(rps{})
	register(coalescing{})
}

type linuxKnob struct{}

func (linuxKnob) OS() string { return "linux" }

func fileLoc(p string) Loc { return Loc{Backend: BackendFile, Path: p} }

func readText(env *Env, l Loc) (string, Value, error) {
	v, err := env.read(l)
	if err != nil {
		return "", v, err
	}
	if v.IsAbsent() {
		return "", v, nil
	}
	return strings.TrimSpace(string(v.Data)), v, nil
}

func item(target string, l Loc, v Value, meaning string) Item {
	loc, raw := l, v
	return Item{Target: target, Loc: &loc, Raw: &raw, Value: v.String(), Meaning: meaning}
}

// --- timer-slack ---------------------------------------------------------

type timerSlack struct{ linuxKnob }

func (timerSlack) Name() string { return "timer-slack" }
func (timerSlack) Summary() string {
	return "how late the kernel may fire a process's timers to batch wake-ups (/proc/PID/timerslack_ns)"
}

// parseNs reads "50us", "1ms", "0" or a plain number of nanoseconds.
func parseNs(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("must not be negative")
		}
		return n, nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "μs", "µs"))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want nanoseconds or a duration, e.g. 50000, 50us, 1us, 0")
	}
	return int64(d), nil
}

func slackMeaning(ns int64) string {
	if ns == 0 {
		return "0: resets the thread to its default slack when written"
	}
	return fmt.Sprintf("timers may fire up to %s late so the kernel can batch wake-ups (default 50µs; realtime threads have none)", time.Duration(ns))
}

func (timerSlack) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "timer-slack"}
	if value == "" {
		ex.Text = []string{
			"timerslack_ns of /proc/PID: the slack of that task (the process's main thread; other threads keep theirs, see /proc/PID/task/TID).",
			"The kernel may delay a timer by up to the slack to merge wake-ups; 50µs by default, inherited over fork and exec.",
			"SCHED_FIFO/SCHED_RR threads have no slack. Writing 0 resets the task to its default slack. Writing another process's needs CAP_SYS_NICE.",
		}
		return ex, nil
	}
	ns, err := parseNs(value)
	if err != nil {
		return nil, inputf("invalid timer-slack %q: %v", value, err)
	}
	ex.Text = []string{fmt.Sprintf("%d ns: %s", ns, slackMeaning(ns))}
	ex.Data = map[string]any{"timerslack_ns": ns}
	return ex, nil
}

func slackLoc(sel Selector) (Loc, string, error) {
	pid := sel.PID
	if pid == "" {
		pid = "self"
	} else if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return Loc{}, "", inputf("invalid --pid %q: want a process id", pid)
	}
	return fileLoc("proc/" + pid + "/timerslack_ns"), "pid " + pid, nil
}

func (timerSlack) Get(env *Env, sel Selector) (*Reading, error) {
	l, target, err := slackLoc(sel)
	if err != nil {
		return nil, err
	}
	s, v, err := readText(env, l)
	if err != nil {
		return nil, err
	}
	if v.IsAbsent() {
		if sel.PID == "" {
			return nil, fmt.Errorf("%s does not exist: this kernel does not expose timer slack (timerslack_ns came with Linux 4.6)", l)
		}
		return nil, inputf("no process %s (no %s)", sel.PID, l)
	}
	ns, _ := strconv.ParseInt(s, 10, 64)
	it := item(target, l, v, slackMeaning(ns))
	it.Value = fmt.Sprintf("%s (%d ns)", time.Duration(ns), ns)
	r := &Reading{Knob: "timer-slack", Items: []Item{it}}
	if sel.PID == "" {
		r.Notes = append(r.Notes, "this is latlab's own slack; --pid PID reads another process")
	}
	return r, nil
}

func (k timerSlack) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.PID == "" {
		return nil, inputf("timer-slack needs --pid PID: the process whose main thread's slack to set")
	}
	l, target, err := slackLoc(sel)
	if err != nil {
		return nil, err
	}
	ns, err := parseNs(value)
	if err != nil {
		return nil, inputf("invalid timer-slack %q: %v", value, err)
	}
	if ns > int64(10*time.Second) {
		return nil, inputf("timer-slack %s is out of range: accepted 0 to 10s", time.Duration(ns))
	}
	if _, v, err := readText(env, l); err != nil {
		return nil, err
	} else if v.IsAbsent() {
		return nil, inputf("no process %s (no %s)", sel.PID, l)
	}
	p := &Plan{Knob: k.Name(), Target: target, Request: value}
	p.Notes = append(p.Notes, "only the main thread of the process changes; threads it starts later inherit the new slack")
	if err := p.add(env, l, FileValue(strconv.FormatInt(ns, 10)+"\n")); err != nil {
		return nil, err
	}
	// The start time (field 22 of /proc/PID/stat) tells this process from
	// a later one with the same PID, which a revert must not touch.
	start := slackGuardLoc(sel.PID)
	if v, err := env.read(start); err == nil && !v.IsAbsent() && len(p.Changes) == 1 {
		p.Changes[0].Guard = &Guard{Loc: start, Value: v, What: "process " + sel.PID + " has exited (its PID is free or belongs to another process now)"}
	}
	return p, nil
}

// slackGuardLoc is the start time of process pid (field 22 of its stat).
func slackGuardLoc(pid string) Loc {
	return Loc{Backend: BackendFile, Path: "proc/" + pid + "/stat", Name: "stat-field:22"}
}

// --- tcp-recovery --------------------------------------------------------

type tcpRecovery struct{ linuxKnob }

func (tcpRecovery) Name() string { return "tcp-recovery" }
func (tcpRecovery) Summary() string {
	return "TCP loss recovery: RACK and its options (net.ipv4.tcp_recovery bitmap)"
}

var recoveryBits = []struct {
	bit        int
	name, desc string
}{
	{1, "rack", "RACK loss detection: a packet is lost when a later one is delivered and a reordering window has passed (time-based, not 3 duplicate ACKs)"},
	{2, "static-reo-wnd", "static reordering window of min_rtt/4, instead of one that adapts to the reordering seen (D-SACKs)"},
	{4, "no-dupthresh", "no fallback to the 3-duplicate-ACK threshold: RACK alone decides loss"},
}

func decodeRecovery(n uint64) []string {
	var out []string
	for _, b := range recoveryBits {
		if n&uint64(b.bit) != 0 {
			out = append(out, fmt.Sprintf("0x%x %s: %s", b.bit, b.name, b.desc))
		}
	}
	if n&^7 != 0 {
		out = append(out, fmt.Sprintf("0x%x: bits unknown to this latlab", n&^7))
	}
	if n&1 == 0 {
		out = append(out, "RACK off: classic loss detection by 3 duplicate ACKs (RFC 6675)")
	}
	return out
}

func parseRecovery(s string) (uint64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(s, "0x")], 32); err == nil {
		if n > 7 {
			return 0, fmt.Errorf("%d is out of range: accepted 0-7 (bits 1 rack, 2 static-reo-wnd, 4 no-dupthresh)", n)
		}
		return n, nil
	}
	if s == "none" || s == "off" {
		return 0, nil
	}
	var n uint64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '+' || r == '|' }) {
		i := slices.IndexFunc(recoveryBits, func(b struct {
			bit        int
			name, desc string
		}) bool {
			return b.name == strings.TrimSpace(f)
		})
		if i < 0 {
			return 0, fmt.Errorf("unknown flag %q: accepted 0-7 or rack,static-reo-wnd,no-dupthresh (or none)", f)
		}
		n |= uint64(recoveryBits[i].bit)
	}
	return n, nil
}

func (tcpRecovery) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "tcp-recovery"}
	if value == "" {
		ex.Text = []string{"net.ipv4.tcp_recovery (default 1: RACK on). Bits:"}
		for _, b := range recoveryBits {
			ex.Text = append(ex.Text, fmt.Sprintf("  0x%x %-15s %s", b.bit, b.name, b.desc))
		}
		return ex, nil
	}
	n, err := parseRecovery(value)
	if err != nil {
		return nil, inputf("invalid tcp-recovery %q: %v", value, err)
	}
	ex.Text = append([]string{fmt.Sprintf("%d:", n)}, decodeRecovery(n)...)
	ex.Data = map[string]any{"value": n, "rack": n&1 != 0, "static_reo_wnd": n&2 != 0, "no_dupthresh": n&4 != 0}
	return ex, nil
}

var recoveryLoc = fileLoc("proc/sys/net/ipv4/tcp_recovery")

func sysctlGet(env *Env, name string, l Loc, meaning func(string) string) (*Reading, error) {
	s, v, err := readText(env, l)
	if err != nil {
		return nil, err
	}
	if v.IsAbsent() {
		return nil, fmt.Errorf("%s does not exist on this kernel", l)
	}
	return &Reading{Knob: name, Items: []Item{item("", l, v, meaning(s))}}, nil
}

func (k tcpRecovery) Get(env *Env, sel Selector) (*Reading, error) {
	return sysctlGet(env, k.Name(), recoveryLoc, func(s string) string {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return "unreadable: " + s
		}
		if n == 1 {
			return "RACK loss detection (the default)"
		}
		var names []string
		for _, b := range recoveryBits {
			if n&uint64(b.bit) != 0 {
				names = append(names, b.name)
			}
		}
		if len(names) == 0 {
			return "RACK off: 3-duplicate-ACK loss detection"
		}
		return strings.Join(names, "+")
	})
}

func (k tcpRecovery) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := parseRecovery(value)
	if err != nil {
		return nil, inputf("invalid tcp-recovery %q: %v", value, err)
	}
	p := &Plan{Knob: k.Name(), Request: value}
	return p, p.add(env, recoveryLoc, FileValue(fmt.Sprintf("%d\n", n)))
}

// --- tcp-dsack -----------------------------------------------------------

type tcpDsack struct{ linuxKnob }

func (tcpDsack) Name() string { return "tcp-dsack" }
func (tcpDsack) Summary() string {
	return "duplicate SACK (RFC 2883): tells the sender which retransmissions were spurious (net.ipv4.tcp_dsack)"
}

var dsackLoc = fileLoc("proc/sys/net/ipv4/tcp_dsack")

func parseBool01(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "off", "false", "no", "disabled":
		return 0, true
	case "1", "on", "true", "yes", "enabled":
		return 1, true
	}
	return 0, false
}

func dsackMeaning(s string) string {
	if s == "0" {
		return "off: the receiver does not report duplicate segments, so senders cannot undo spurious retransmissions or adapt RACK's reordering window"
	}
	return "on (the default): duplicate segments are reported, senders undo spurious retransmissions and RACK widens its reordering window"
}

func (tcpDsack) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "tcp-dsack"}
	if value == "" {
		ex.Text = []string{"net.ipv4.tcp_dsack: 1 (default) on, 0 off.", "on: " + dsackMeaning("1"), "off: " + dsackMeaning("0")}
		return ex, nil
	}
	n, ok := parseBool01(value)
	if !ok {
		return nil, inputf("invalid tcp-dsack %q: accepted 0|1|on|off", value)
	}
	ex.Text = []string{fmt.Sprintf("%d: %s", n, dsackMeaning(strconv.Itoa(n)))}
	ex.Data = map[string]any{"enabled": n == 1}
	return ex, nil
}

func (k tcpDsack) Get(env *Env, sel Selector) (*Reading, error) {
	return sysctlGet(env, k.Name(), dsackLoc, dsackMeaning)
}

func (k tcpDsack) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, ok := parseBool01(value)
	if !ok {
		return nil, inputf("invalid tcp-dsack %q: accepted 0|1|on|off", value)
	}
	p := &Plan{Knob: k.Name(), Request: value}
	return p, p.add(env, dsackLoc, FileValue(fmt.Sprintf("%d\n", n)))
}

// --- clocksource ---------------------------------------------------------

type clocksource struct{ linuxKnob }

func (clocksource) Name() string { return "clocksource" }
func (clocksource) Summary() string {
	return "the kernel's time source: what clock_gettime reads and how fast (current_clocksource)"
}

const csDir = "sys/devices/system/clocksource/clocksource0/"

var csCurrentLoc = fileLoc(csDir + "current_clocksource")

func (clocksource) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "clocksource"}
	if value == "" {
		ex.Text = []string{"current_clocksource; available_clocksource lists what this machine offers. Known sources:"}
		for _, c := range timer.Clocksources {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-28s %s", c.Name, c.Desc))
		}
		return ex, nil
	}
	m := "not a clock source this latlab knows"
	if c, ok := timer.LookupClocksource(value); ok {
		m = c.Desc
	}
	ex.Text = []string{value + ": " + m}
	return ex, nil
}

func (k clocksource) available(env *Env) []string {
	s, _, err := readText(env, fileLoc(csDir+"available_clocksource"))
	if err != nil {
		return nil
	}
	return strings.Fields(s)
}

func (k clocksource) Get(env *Env, sel Selector) (*Reading, error) {
	r, err := sysctlGet(env, k.Name(), csCurrentLoc, func(s string) string {
		if c, ok := timer.LookupClocksource(s); ok {
			return c.Desc
		}
		return s
	})
	if err == nil {
		if av := k.available(env); len(av) > 0 {
			r.Notes = append(r.Notes, "available: "+strings.Join(av, " "))
		}
	}
	return r, err
}

func (k clocksource) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	av := k.available(env)
	value = strings.TrimSpace(value)
	if !slices.Contains(av, value) {
		return nil, inputf("clocksource %q is not available here: accepted %s", value, strings.Join(av, ", "))
	}
	p := &Plan{Knob: k.Name(), Request: value}
	p.Notes = append(p.Notes, "takes effect at once and lasts until reboot; clocksource= on the kernel command line makes it permanent")
	return p, p.add(env, csCurrentLoc, FileValue(value+"\n"))
}

// --- irq-affinity --------------------------------------------------------

type irqAffinity struct{ linuxKnob }

func (irqAffinity) Name() string { return "irq-affinity" }
func (irqAffinity) Summary() string {
	return "which CPUs may service an interrupt (/proc/irq/N/smp_affinity_list)"
}

func (irqAffinity) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "irq-affinity"}
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
		return nil, inputf("invalid CPU list %q: accepted e.g. 0-3,8", value)
	}
	ex.Text = []string{fmt.Sprintf("CPUs %s (%d CPUs, mask %s)", cpuset.FormatList(cpus), len(cpus), cpuset.FormatMask(cpus, ""))}
	ex.Data = map[string]any{"cpus": cpus}
	return ex, nil
}

func irqLoc(irq string) Loc { return fileLoc("proc/irq/" + irq + "/smp_affinity_list") }

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
		return nil, inputf("invalid CPU list %q: accepted e.g. 0-3,8", value)
	}
	return cpus, checkOnline(env, cpus)
}

// checkOnline refuses a CPU that is not online (when the online list can
// be read).
func checkOnline(env *Env, cpus []int) error {
	online := onlineCPUs(env)
	for _, c := range cpus {
		if online != nil && !slices.Contains(online, c) {
			return inputf("CPU %d is not online: accepted CPUs %s", c, cpuset.FormatList(online))
		}
	}
	return nil
}

func (k irqAffinity) Get(env *Env, sel Selector) (*Reading, error) {
	irqs, _, err := env.list(BackendFile, "proc/irq")
	if err != nil {
		return nil, fmt.Errorf("list IRQs: %w", err)
	}
	if sel.IRQ != "" {
		if !slices.Contains(irqs, sel.IRQ) {
			return nil, inputf("no IRQ %q under /proc/irq", sel.IRQ)
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
		return nil, inputf("irq-affinity needs --irq N (latlab knob get irq-affinity lists them)")
	}
	if _, err := strconv.Atoi(sel.IRQ); err != nil {
		return nil, inputf("invalid --irq %q: want an IRQ number", sel.IRQ)
	}
	l := irqLoc(sel.IRQ)
	if v, err := env.read(l); err != nil {
		return nil, err
	} else if v.IsAbsent() {
		return nil, inputf("no IRQ %s under /proc/irq", sel.IRQ)
	}
	cpus, err := checkCPUs(env, value)
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		return nil, inputf("an IRQ needs at least one CPU")
	}
	p := &Plan{Knob: k.Name(), Target: "irq " + sel.IRQ, Request: value}
	p.Notes = append(p.Notes, "irqbalance, if running, may move it back")
	return p, p.add(env, l, FileValue(cpuset.FormatList(cpus)+"\n"))
}

// --- rps -----------------------------------------------------------------

type rps struct{ linuxKnob }

func (rps) Name() string { return "rps" }
func (rps) Summary() string {
	return "receive packet steering: CPUs that do protocol processing for an rx queue (rps_cpus)"
}

func (rps) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "rps"}
	if value == "" {
		ex.Text = []string{
			"/sys/class/net/IF/queues/rx-N/rps_cpus: a hex mask of the CPUs that run the network stack for packets of that queue.",
			"0 (the default) processes packets on the CPU that took the interrupt. Values here: a CPU list (0-3), a mask with 0x (0xf), or none.",
		}
		return ex, nil
	}
	cpus, err := parseRPS(value)
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		ex.Text = []string{"none: RPS off, packets are processed on the interrupted CPU"}
	} else {
		ex.Text = []string{fmt.Sprintf("CPUs %s (mask %s)", cpuset.FormatList(cpus), cpuset.FormatMask(cpus, ""))}
	}
	ex.Data = map[string]any{"cpus": cpus}
	return ex, nil
}

func parseRPS(value string) ([]int, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	switch {
	case v == "none" || v == "off":
		return nil, nil
	case strings.HasPrefix(v, "0x"):
		c, err := cpuset.ParseMask(v)
		if err != nil {
			return nil, inputf("invalid rps mask %q: %v", value, err)
		}
		return c, nil
	}
	c, err := cpuset.ParseList(v)
	if err != nil {
		return nil, inputf("invalid rps value %q: accepted a CPU list (0-3), a mask with 0x (0xf) or none", value)
	}
	return c, nil
}

type rxQueue struct{ iface, queue string }

func rpsLoc(iface, queue string) Loc {
	return fileLoc("sys/class/net/" + iface + "/queues/" + queue + "/rps_cpus")
}

// selectIfaces returns the named network interface, or every one when
// none is named.
func selectIfaces(env *Env, iface string) ([]string, error) {
	ifaces, _, err := env.list(BackendFile, "sys/class/net")
	if err != nil {
		return nil, fmt.Errorf("list network interfaces: %w", err)
	}
	if iface == "" {
		return ifaces, nil
	}
	if !slices.Contains(ifaces, iface) {
		return nil, inputf("unknown interface %q: accepted %s", iface, strings.Join(ifaces, ", "))
	}
	return []string{iface}, nil
}

func rxQueues(env *Env, sel Selector) ([]rxQueue, error) {
	ifaces, err := selectIfaces(env, sel.Iface)
	if err != nil {
		return nil, err
	}
	var qs []rxQueue
	for _, ifc := range ifaces {
		dirs, _, err := env.list(BackendFile, "sys/class/net/"+ifc+"/queues")
		if err != nil {
			continue
		}
		for _, d := range dirs {
			if strings.HasPrefix(d, "rx-") && (sel.Queue == "" || sel.Queue == d) {
				qs = append(qs, rxQueue{ifc, d})
			}
		}
	}
	if sel.Queue != "" && len(qs) == 0 {
		return nil, inputf("no rx queue %q on %s", sel.Queue, sel.Iface)
	}
	return qs, nil
}

func (k rps) Get(env *Env, sel Selector) (*Reading, error) {
	qs, err := rxQueues(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, q := range qs {
		l := rpsLoc(q.iface, q.queue)
		s, v, err := readText(env, l)
		if err != nil || v.IsAbsent() {
			continue
		}
		cpus, err := cpuset.ParseMask(s)
		m := "off: packets are processed on the interrupted CPU"
		if err != nil {
			m = "unreadable mask " + s
		} else if len(cpus) > 0 {
			m = "steered to CPUs " + cpuset.FormatList(cpus)
		}
		r.Items = append(r.Items, item(q.iface+" "+q.queue, l, v, m))
	}
	return r, nil
}

func (k rps) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Iface == "" {
		return nil, inputf("rps needs --iface NAME (and optionally --queue rx-N; default all rx queues)")
	}
	qs, err := rxQueues(env, sel)
	if err != nil {
		return nil, err
	}
	cpus, err := parseRPS(value)
	if err != nil {
		return nil, err
	}
	if err := checkOnline(env, cpus); err != nil {
		return nil, err
	}
	target := sel.Iface
	if sel.Queue != "" {
		target += " " + sel.Queue
	}
	p := &Plan{Knob: k.Name(), Target: target, Request: value}
	for _, q := range qs {
		l := rpsLoc(q.iface, q.queue)
		s, v, err := readText(env, l)
		if err != nil {
			return nil, err
		}
		if v.IsAbsent() {
			continue // kernels without CONFIG_RPS
		}
		if err := p.add(env, l, FileValue(cpuset.FormatMask(cpus, s)+"\n")); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// --- coalescing ----------------------------------------------------------

type coalescing struct{ linuxKnob }

func coalesceLoc(iface string) Loc {
	return Loc{Backend: BackendEthtool, Path: iface, Name: "coalesce"}
}

func (coalescing) Name() string { return "coalescing" }
func (coalescing) Summary() string {
	return "interrupt coalescing of a network interface: how long and how many packets the NIC waits before interrupting (ethtool -c/-C)"
}

func (coalescing) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: "coalescing"}
	if value == "" {
		ex.Text = []string{
			"ethtool coalesce parameters (ETHTOOL_GCOALESCE/SCOALESCE). The NIC raises an interrupt after rx-usecs µs or rx-frames packets, whichever first;",
			"0 µs with 1 frame interrupts per packet (lowest latency, most CPU); adaptive-rx lets the driver choose. Names as in ethtool -C:",
			"  " + strings.Join(CoalesceNames(), " "),
		}
		return ex, nil
	}
	set, err := ParseCoalesce(value)
	if err != nil {
		return nil, err
	}
	for _, kv := range set {
		ex.Text = append(ex.Text, fmt.Sprintf("%s = %d: %s", kv.Name, kv.Value, coalesceFields[kv.index].desc))
	}
	return ex, nil
}

func (k coalescing) Get(env *Env, sel Selector) (*Reading, error) {
	ifaces, err := selectIfaces(env, sel.Iface)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, ifc := range ifaces {
		l := coalesceLoc(ifc)
		v, err := env.read(l)
		if err != nil {
			it := Item{Target: ifc, Value: "-", Meaning: err.Error()}
			if errors.Is(err, ErrNotSupported) {
				it.Meaning = "not supported by the driver"
			}
			r.Items = append(r.Items, it)
			continue
		}
		c, err := DecodeCoalesce(v)
		if err != nil {
			return nil, err
		}
		it := item(ifc, l, v, c.Meaning())
		it.Value = c.Short()
		it.Detail = c
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k coalescing) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Iface == "" {
		return nil, inputf("coalescing needs --iface NAME")
	}
	if _, err := selectIfaces(env, sel.Iface); err != nil {
		return nil, err
	}
	set, err := ParseCoalesce(value)
	if err != nil {
		return nil, err
	}
	l := coalesceLoc(sel.Iface)
	v, err := env.read(l)
	if errors.Is(err, ErrNotSupported) {
		return nil, inputf("%s: the driver does not support interrupt coalescing settings (ethtool -c fails the same way)", sel.Iface)
	}
	if err != nil {
		return nil, err
	}
	c, err := DecodeCoalesce(v)
	if err != nil {
		return nil, err
	}
	for _, kv := range set {
		c[kv.index] = kv.Value
	}
	p := &Plan{Knob: k.Name(), Target: sel.Iface, Request: value}
	p.Notes = append(p.Notes, "drivers accept only some parameters; one they reject fails the whole change, which is then not applied")
	return p, p.add(env, l, c.Value())
}
