package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(tcpDsack{}) }

// tcpDsackName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const tcpDsackName = "tcp-dsack"

type tcpDsack struct{ linuxKnob }

func (tcpDsack) Name() string { return tcpDsackName }
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
	ex := &Explanation{Knob: tcpDsackName}
	if value == "" {
		ex.Text = []string{"net.ipv4.tcp_dsack: 1 (default) on, 0 off.", "on: " + dsackMeaning("1"), "off: " + dsackMeaning("0")}
		return ex, nil
	}
	n, ok := parseBool01(value)
	if !ok {
		return nil, badinput.Errorf("invalid tcp-dsack %q: accepted 0|1|on|off", value)
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
		return nil, badinput.Errorf("invalid tcp-dsack %q: accepted 0|1|on|off", value)
	}
	p := &Plan{Knob: k.Name(), Request: value}
	return p, p.add(env, dsackLoc, backend.FileValue(fmt.Sprintf("%d\n", n)))
}

func (k tcpDsack) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != dsackLoc {
		return notMine(k.Name(), target, l)
	}
	return fileInt(v)
}

// Checkup is what the check-up knows of tcp-dsack: its default, how its
// instances are read and the verdict rules.
func (tcpDsack) Checkup() Checkup {
	return Checkup{Default: text("1"), Gather: GatherReading, Rules: tcpDsackRules}
}

// Experiment is how a change of tcp-dsack takes effect for latlab try.
func (tcpDsack) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle}
}

var tcpDsackRules = []Rule{
	{ID: "dsack-default", Verdict: Default, When: "1",
		Match:  func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "dsack-off", Verdict: Suspicious, When: "0",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning },
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set tcp-dsack 1", Why: "D-SACK is off (applies at once; latlab knob revert tcp-dsack undoes it)", Benefit: 35}
		}},
}
