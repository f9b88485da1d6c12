package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

func TestTCPRecoveryConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob:    "tcp-recovery",
		Tree:    map[string]string{recoveryFile: "1\n"},
		Explain: []string{"0", "1", "7", "0x5", "rack,no-dupthresh", "none"},
		Set: []suite.Set{
			{Value: "rack,no-dupthresh", Files: map[string]string{recoveryFile: "5\n"}},
			{Value: "none", Files: map[string]string{recoveryFile: "0\n"}},
			{Value: "0x7", Files: map[string]string{recoveryFile: "7\n"}},
			{Value: "rack", NoChange: true},
		},
		// An empty value is refused, not taken as 0 (RACK off).
		Bad: map[string]string{"8": "accepted 0-7", "rack,fast": "accepted 0-7 or rack,static-reo-wnd,no-dupthresh", "": "empty value", " ": "empty value"},
		Foreign: []suite.Place{
			suite.File(dsackFile, "1\n"),
			suite.File(recoveryFile, "rack\n"),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "rack-default", Reason: "RACK loss detection"},
			{Files: map[string]string{recoveryFile: "0\n"}, Rule: "rack-off", Reason: "RACK off: 3-duplicate-ACK loss detection"},
			{Files: map[string]string{recoveryFile: "4\n"}, Rule: "rack-off"},
			{Files: map[string]string{recoveryFile: "5\n"}, Rule: "rack-options", Reason: "rack+no-dupthresh"},
			{Files: map[string]string{recoveryFile: "x\n"}, Rule: "rack-unreadable", Reason: "unreadable: x"},
		},
	})
}
