package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	dsackFile    = "proc/sys/net/ipv4/tcp_dsack"
	recoveryFile = "proc/sys/net/ipv4/tcp_recovery"
)

func TestTCPDsackConforms(t *testing.T) {
	onCPU0 := suite.File(dsackFile, "0\n")
	onCPU0.Target = "cpu0"
	suite.RunFiles(t, suite.Files{
		Knob:    "tcp-dsack",
		Tree:    map[string]string{dsackFile: "1\n"},
		Explain: []string{"0", "1", "on", "off"},
		Set: []suite.Set{
			{Value: "off", Files: map[string]string{dsackFile: "0\n"}},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{"2": `invalid tcp-dsack "2": accepted 0|1|on|off`, "": "accepted 0|1|on|off"},
		Foreign: []suite.Place{
			suite.File(recoveryFile, "1\n"),
			suite.File(dsackFile, "x\n"),
			onCPU0, // the knob has no targets
		},
		// A kernel without the file fails the reading (and doctor says
		// so, unreadable): no rule judges it.
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "dsack-default", Reason: "on (the default)"},
			{Files: map[string]string{dsackFile: "0\n"}, Rule: "dsack-off", Reason: "senders cannot undo spurious retransmissions"},
		},
	})
}
