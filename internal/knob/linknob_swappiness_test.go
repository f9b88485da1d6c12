package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	swappinessFile = "proc/sys/vm/swappiness"
	swapsFile      = "proc/swaps"
	swapsOne       = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/nvme0n1p3                          partition\t8388604\t\t0\t\t-2\n"
	swapsNone      = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
)

func TestSwappinessConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob:    "swappiness",
		Tree:    map[string]string{swappinessFile: "60\n", swapsFile: swapsOne, vmAnchorFile: "0\n"},
		Explain: []string{"0", "10", "60", "100", "200"},
		Set: []suite.Set{
			{Value: "10", Files: map[string]string{swappinessFile: "10\n"}},
			{Value: "0", Files: map[string]string{swappinessFile: "0\n"}},
			{Value: "200", Files: map[string]string{swappinessFile: "200\n"}},
			{Value: "60", NoChange: true},
		},
		Bad: map[string]string{"201": "accepted 0-200", "-1": "accepted 0-200", "ten": "accepted", "": "accepted"},
		Foreign: []suite.Place{
			suite.File(swapsFile, "0\n"),
			suite.File(swappinessFile, "60 60\n"),
			suite.File(swappinessFile, ""),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "swappiness-default", Reason: "tuned 2.20.0 latency-performance sets [sysctl] vm.swappiness=10"},
			{Files: map[string]string{swappinessFile: "10\n"}, Rule: "swappiness-low", Reason: "costs page cache"},
			{Files: map[string]string{swappinessFile: "0\n"}, Rule: "swappiness-low"},
			{Files: map[string]string{swappinessFile: "100\n"}, Rule: "swappiness-high", Reason: "major faults"},
			{Files: map[string]string{swappinessFile: "100\n", swapsFile: swapsNone}, Rule: "swappiness-no-swap", Reason: "no swap is configured"},
			// /proc/swaps unreadable: judged on the value
			{Files: map[string]string{swapsFile: ""}, Rule: "swappiness-default"},
			{Files: map[string]string{swappinessFile: ""}, Rule: "swappiness-absent", Reason: "no vm.swappiness"},
			{Files: map[string]string{swappinessFile: "", vmAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/vm is missing"},
			{Files: map[string]string{swappinessFile: "x\n"}, Rule: "swappiness-other", Reason: "unreadable"},
		},
	})
	// Before Linux 5.8 the kernel takes 0-100.
	suite.RunFiles(t, suite.Files{
		Knob: "swappiness",
		Tree: map[string]string{swappinessFile: "60\n", swapsFile: swapsOne, "proc/sys/kernel/osrelease": "5.4.0-150-generic\n"},
		Set:  []suite.Set{{Value: "100", Files: map[string]string{swappinessFile: "100\n"}}},
		Bad:  map[string]string{"150": "takes 0-100"},
		More: true,
	})
}
