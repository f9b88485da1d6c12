package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const statIntervalFile = "proc/sys/vm/stat_interval"

func TestStatIntervalConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob:    "stat-interval",
		Tree:    map[string]string{statIntervalFile: "1\n", swappinessFile: "60\n"},
		Explain: []string{"1", "10", "120s"},
		Set: []suite.Set{
			{Value: "10", Files: map[string]string{statIntervalFile: "10\n"}},
			{Value: "120s", Files: map[string]string{statIntervalFile: "120\n"}},
			{Value: "1", NoChange: true},
		},
		Bad: map[string]string{"0": "accepted whole seconds 1-3600", "3601": "1-3600", "1.5": "accepted", "10ms": "accepted", "": "accepted"},
		Foreign: []suite.Place{
			suite.File("proc/sys/vm/stat_refresh", "1\n"),
			suite.File(statIntervalFile, "10s\n"),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "stat-interval-default", Reason: "tuned 2.20.0 realtime sets [sysctl] vm.stat_interval=10"},
			{Files: map[string]string{statIntervalFile: "10\n"}, Rule: "stat-interval-long"},
			{Files: map[string]string{statIntervalFile: "0\n"}, Rule: "stat-interval-zero", Reason: "no delay"},
			{Files: map[string]string{statIntervalFile: "x\n"}, Rule: "stat-interval-other", Reason: "unreadable"},
			{Files: map[string]string{statIntervalFile: ""}, Rule: "stat-interval-absent", Reason: "no vm.stat_interval"},
			{Files: map[string]string{statIntervalFile: "", swappinessFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/vm is missing"},
		},
	})
}
