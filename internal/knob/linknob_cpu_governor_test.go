package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const govFile = "cpufreq/scaling_governor"

func TestCPUGovernorConforms(t *testing.T) {
	onCPU7 := suite.File(cpuDir+"cpu1/"+govFile, "performance\n")
	onCPU7.Target = "cpu 0"
	suite.RunFiles(t, suite.Files{
		Knob:    "cpu-governor",
		Tree:    twoCPUs(nil),
		Explain: []string{"performance", "powersave", "schedutil", "no-such-governor"},
		Set: []suite.Set{
			{Value: "performance", Files: onBothCPUs(govFile, "performance\n")},
			{Value: " powersave ", Files: onBothCPUs(govFile, "powersave\n")},
			{Value: "schedutil", NoChange: true},
		},
		Bad: map[string]string{
			"ondemand":     `"ondemand" is not available on CPU 0: accepted performance, powersave, schedutil`,
			"perf ormance": "accepted a governor name",
			"":             "accepted a governor name",
			"../powersave": "accepted a governor name",
		},
		Foreign: []suite.Place{
			suite.File(cpuDir+"cpu0/cpufreq/scaling_max_freq", "4000000\n"),
			suite.File(cpuDir+"cpu0/cpufreq/energy_performance_preference", "performance\n"),
			suite.File(cpuDir+"cpu01/"+govFile, "performance\n"),
			suite.File(cpuDir+"cpufreq/policy0/scaling_governor", "performance\n"),
			suite.File(cpuDir+"cpu0/"+govFile, "perf;rm -rf\n"),
			suite.File(cpuDir+"cpu0/"+govFile, ""),
			onCPU7, // CPU 1's file for a plan of CPU 0
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "governor-dynamic", Reason: "follows the scheduler's load estimate (acpi-cpufreq); tuned 2.20.0 latency-performance sets [cpu] governor=performance"},
			{Files: onBothCPUs(govFile, "performance\n"), Rule: "governor-performance", Reason: "tuned 2.20.0 latency-performance sets [cpu] governor=performance; the cost is power and heat"},
			{Files: onBothCPUs(govFile, "powersave\n"), Rule: "governor-lowest", Reason: "powersave pins the lowest frequency"},
			// intel_pstate's powersave is its own dynamic algorithm.
			{Files: union(onBothCPUs(govFile, "powersave\n"), onBothCPUs("cpufreq/scaling_driver", "intel_pstate\n")), Rule: "governor-dynamic", Reason: "intel_pstate picks, steered by its energy preference"},
			{Files: onBothCPUs(govFile, ""), Rule: "governor-none", Reason: "no cpufreq: the hypervisor or firmware controls frequency"},
		},
	})
}
