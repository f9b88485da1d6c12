package knob

import (
	"strings"
)

func init() { register(tcpDsackKnob) }

// tcpDsackName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const tcpDsackName = "tcp-dsack"

var tcpDsackKnob = &intSysctl{
	name:       tcpDsackName,
	summary:    "duplicate SACK (RFC 2883): tells the sender which retransmissions were spurious (net.ipv4.tcp_dsack)",
	loc:        dsackLoc,
	absent:     absentFails,
	parse:      parseBool01,
	accepted:   "accepted 0|1|on|off",
	meaning:    dsackMeaning,
	explain:    []string{"net.ipv4.tcp_dsack: 1 (default) on, 0 off.", "on: " + dsackMeaning("1"), "off: " + dsackMeaning("0")},
	numbered:   true,
	data:       boolData,
	checkup:    Checkup{Default: text("1"), Rules: tcpDsackRules},
	experiment: Experiment{Scope: ScopeSystem, Settle: DefaultSettle},
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
