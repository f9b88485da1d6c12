package knob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(tcpRecovery{}) }

// tcpRecoveryName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const tcpRecoveryName = "tcp-recovery"

type tcpRecovery struct{ linuxKnob }

func (tcpRecovery) Name() string { return tcpRecoveryName }
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
	if s == "" {
		// Not 0: an empty value is a mistake, and 0 turns RACK off.
		return 0, fmt.Errorf("empty value: accepted 0-7 or rack,static-reo-wnd,no-dupthresh (or none)")
	}
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
	ex := &Explanation{Knob: tcpRecoveryName}
	if value == "" {
		ex.Text = []string{"net.ipv4.tcp_recovery (default 1: RACK on). Bits:"}
		for _, b := range recoveryBits {
			ex.Text = append(ex.Text, fmt.Sprintf("  0x%x %-15s %s", b.bit, b.name, b.desc))
		}
		return ex, nil
	}
	n, err := parseRecovery(value)
	if err != nil {
		return nil, badinput.Errorf("invalid tcp-recovery %q: %v", value, err)
	}
	ex.Text = append([]string{fmt.Sprintf("%d:", n)}, decodeRecovery(n)...)
	ex.Data = map[string]any{"value": n, "rack": n&1 != 0, "static_reo_wnd": n&2 != 0, "no_dupthresh": n&4 != 0}
	return ex, nil
}

var recoveryLoc = fileLoc("proc/sys/net/ipv4/tcp_recovery")

func sysctlGet(env *Env, name string, l backend.Loc, meaning func(string) string) (*Reading, error) {
	s, v, err := readText(env, l)
	if err != nil {
		return nil, err
	}
	if v.IsAbsent() {
		// A partial tree that lacks the file's directory too does not
		// say whether the kernel has it (absence.go).
		what := l.String()
		if strings.HasPrefix(l.Path, "proc/sys/") {
			what = sysctlName(l)
		}
		a, err := absenceOf(env, l, what)
		if err != nil {
			return nil, err
		}
		if a.unseen() {
			return nil, errors.New(a.why(l.String()))
		}
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
		return nil, badinput.Errorf("invalid tcp-recovery %q: %v", value, err)
	}
	p := &Plan{Knob: k.Name(), Request: value}
	return p, p.add(env, recoveryLoc, backend.FileValue(fmt.Sprintf("%d\n", n)))
}

func (k tcpRecovery) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != recoveryLoc {
		return notMine(k.Name(), target, l)
	}
	return fileInt(v)
}

// Checkup is what the check-up knows of tcp-recovery: its default, how its
// instances are read and the verdict rules.
func (tcpRecovery) Checkup() Checkup {
	return Checkup{Default: text("1"), Rules: tcpRecoveryRules}
}

// Experiment is how a change of tcp-recovery takes effect for latlab try.
func (tcpRecovery) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle}
}

var tcpRecoveryRules = []Rule{
	{ID: "rack-default", Verdict: Default, When: "1 (RACK)",
		Match:  func(c *Case) bool { return c.Text() == "1" },
		Reason: text("RACK loss detection, the default")},
	{ID: "rack-off", Verdict: Suspicious, When: "the RACK bit clear",
		Match:  func(c *Case) bool { n, ok := c.N(); return ok && n&1 == 0 },
		Reason: func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string {
			return quote(tcpRecoveryName, "", "RACK loss detection")
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set tcp-recovery 1", Why: "RACK is off (applies at once; latlab knob revert tcp-recovery undoes it)", Benefit: 45}
		}},
	{ID: "rack-options", Verdict: Changed, When: "RACK with options",
		Match:    func(c *Case) bool { _, ok := c.N(); return ok },
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return explainText(tcpRecoveryName, c.Text()) }},
	{ID: "rack-unreadable", Verdict: Unknown, When: "not a number",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
