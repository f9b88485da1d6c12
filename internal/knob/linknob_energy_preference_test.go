package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	eppFile = "cpufreq/energy_performance_preference"
	epbFile = "power/energy_perf_bias"
)

func TestEnergyPreferenceConforms(t *testing.T) {
	onCPU1 := suite.File(cpuDir+"cpu1/"+epbFile, "0\n")
	onCPU1.Target = "cpu 0"
	by := func(epp, epb string) map[string]string {
		return map[string]string{"cpu 0-1 epp": epp, "cpu 0-1 epb": epb}
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "energy-performance-preference",
		Tree:    twoCPUs(nil),
		Explain: []string{"performance", "normal", "epb=7", "epp=balance_power", "epp=power,epb=0"},
		Set: []suite.Set{
			{Value: "performance", Files: union(onBothCPUs(eppFile, "performance\n"), onBothCPUs(epbFile, "0\n"))},
			{Value: "epb=balance-power", Files: union(onBothCPUs(eppFile, "balance_performance\n"), onBothCPUs(epbFile, "8\n"))},
			{Value: "epp=power,epb=0", Files: union(onBothCPUs(eppFile, "power\n"), onBothCPUs(epbFile, "0\n"))},
			{Value: "epp=balance_performance,epb=6", NoChange: true},
		},
		Bad: map[string]string{
			"epp=balance_foo": `"balance_foo" is not available on CPU 0: accepted default, performance`,
			"epb=16":          "accepted 0-15",
			"turbo":           "accepted performance, balance_performance",
			"epb=1,epb=2":     `at "epb=2"`,
			"":                "accepted performance, balance_performance",
		},
		Foreign: []suite.Place{
			suite.File(cpuDir+"cpu0/"+epbFile, "16\n"),
			suite.File(cpuDir+"cpu0/"+epbFile, "performance\n"),
			suite.File(cpuDir+"cpu0/power/pm_qos_resume_latency_us", "0\n"),
			suite.File(cpuDir+"cpu0/cpufreq/scaling_governor", "performance\n"),
			suite.File(cpuDir+"cpu0/"+eppFile, "power;reboot\n"),
			onCPU1, // CPU 1's file for a plan of CPU 0
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "energy-balanced", Reason: "tuned 2.20.0 latency-performance"},
			{Files: onBothCPUs(epbFile, "0\n"), ByTarget: by("energy-balanced", "energy-performance")},
			{Files: onBothCPUs(eppFile, "power\n"), ByTarget: by("energy-saving", "energy-balanced")},
			{Files: union(onBothCPUs(eppFile, "performance\n"), onBothCPUs(epbFile, "15\n")), ByTarget: by("energy-performance", "energy-saving")},
			{Files: union(onBothCPUs(eppFile, ""), onBothCPUs(epbFile, "")), Rule: "energy-none", Reason: "no energy_performance_preference and no energy_perf_bias"},
		},
	})
}
