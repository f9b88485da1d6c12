package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

func TestCPUIdleStatesConforms(t *testing.T) {
	onCPU1 := suite.File(cpuDir+"cpu1/cpuidle/state3/disable", "1\n")
	onCPU1.Target = "cpu 0"
	// The states of CPUs 0-1 as targets, with the rule each reaches.
	by := func(rules ...string) map[string]string {
		out := map[string]string{}
		for i, r := range rules {
			out["cpu 0-1 state"+string(rune('0'+i))] = r
		}
		return out
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "cpu-idle-states",
		Tree:    twoCPUs(nil),
		Explain: []string{"all", "ALL", "20us", "0", "1ms"},
		Set: []suite.Set{
			{Value: "10us", Files: union(onBothCPUs("cpuidle/state2/disable", "1\n"), onBothCPUs("cpuidle/state3/disable", "1\n"), onBothCPUs("cpuidle/state1/disable", "0\n"))},
			{Value: "85µs", Files: union(onBothCPUs("cpuidle/state2/disable", "0\n"), onBothCPUs("cpuidle/state3/disable", "1\n"))},
			{Value: "1.9us", Files: union(onBothCPUs("cpuidle/state1/disable", "1\n"), onBothCPUs("cpuidle/state0/disable", "0\n"))},
			{Value: "all", NoChange: true},
		},
		Bad: map[string]string{
			"10":               "give the unit, e.g. 10us",
			"-1us":             "accepted a latency bound",
			"max-latency=10us": "accepted a latency bound",
			"":                 "accepted a latency bound",
		},
		Foreign: []suite.Place{
			suite.File(cpuDir+"cpu0/cpuidle/state1/disable", "2\n"),
			suite.File(cpuDir+"cpu0/cpuidle/state1/latency", "1\n"),
			suite.File(cpuDir+"cpu0/cpuidle/state01/disable", "1\n"),
			suite.File(cpuDir+"cpu0/cpuidle/state1/../../cpufreq/disable", "1\n"),
			suite.File(cpuDir+"cpuidle/current_governor", "menu\n"),
			onCPU1, // CPU 1's file for a plan of CPU 0
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, ByTarget: by("idle-shallow", "idle-shallow", "idle-shallow", "idle-deep"), Reason: "exit latency"},
			{Files: onBothCPUs("cpuidle/state3/disable", "1\n"), ByTarget: by("idle-shallow", "idle-shallow", "idle-shallow", "idle-disabled")},
			{Files: union(onBothCPUs("cpuidle/state0/name", ""), onBothCPUs("cpuidle/state1/name", ""), onBothCPUs("cpuidle/state2/name", ""), onBothCPUs("cpuidle/state3/name", ""),
				onBothCPUs("cpuidle/state0/latency", ""), onBothCPUs("cpuidle/state1/latency", ""), onBothCPUs("cpuidle/state2/latency", ""), onBothCPUs("cpuidle/state3/latency", ""),
				onBothCPUs("cpuidle/state0/disable", ""), onBothCPUs("cpuidle/state1/disable", ""), onBothCPUs("cpuidle/state2/disable", ""), onBothCPUs("cpuidle/state3/disable", "")),
				Rule: "idle-none", Reason: "no cpuidle states"},
		},
	})
}
