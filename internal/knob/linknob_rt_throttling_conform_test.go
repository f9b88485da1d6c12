package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	rtRuntimeFile = "proc/sys/kernel/sched_rt_runtime_us"
	rtPeriodFile  = "proc/sys/kernel/sched_rt_period_us"
)

func TestRTThrottlingConforms(t *testing.T) {
	period := func(target, content string) suite.Place {
		p := suite.File(rtPeriodFile, content)
		p.Target = target
		return p
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "rt-throttling",
		Tree:    map[string]string{rtRuntimeFile: "950000\n", rtPeriodFile: "1000000\n", kernelAnchorFile: "Linux\n"},
		Explain: []string{"off", "default", "500000/1000000"},
		Set: []suite.Set{
			{Value: "off", Files: map[string]string{rtRuntimeFile: "-1\n", rtPeriodFile: "1000000\n"}},
			{Value: "100000/200000", Files: map[string]string{rtRuntimeFile: "100000\n", rtPeriodFile: "200000\n"}},
			{Value: "1900000/2000000", Files: map[string]string{rtRuntimeFile: "1900000\n", rtPeriodFile: "2000000\n"}},
			{Value: "default", NoChange: true},
		},
		Bad: map[string]string{
			"x":               "accepted off (or -1), default (950000/1000000), or RUNTIME/PERIOD",
			"2000000/1000000": "accepted 1 to the period (1000000 µs), or -1 (off)",
		},
		Foreign: []suite.Place{
			suite.File(rtRuntimeFile, "-2\n"),
			period("", "0\n"),
			period("", "2147483648\n"),
			suite.File(rtRuntimeFile, "950000 1\n"),
			suite.File("proc/sys/kernel/sched_rr_timeslice_ms", "100\n"),
			period("x", "1000000\n"), // the knob has no targets
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "rt-default", Reason: "tuned 2.20.0 realtime sets [sysctl] kernel.sched_rt_runtime_us=-1"},
			{Files: map[string]string{rtRuntimeFile: "-1\n"}, Rule: "rt-off", Reason: "the risk: a runaway SCHED_FIFO thread"},
			{Files: map[string]string{rtRuntimeFile: "500000\n"}, Rule: "rt-changed", Reason: "(50%)"},
			{Files: map[string]string{rtRuntimeFile: "", rtPeriodFile: ""}, Rule: "rt-absent", Reason: "this kernel has no realtime bandwidth control"},
			{Files: map[string]string{rtRuntimeFile: "", rtPeriodFile: "", kernelAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/kernel is missing"},
		},
	})
	// From off, written without newlines, back to the default.
	suite.RunFiles(t, suite.Files{
		Knob: "rt-throttling",
		Tree: map[string]string{rtRuntimeFile: "-1", rtPeriodFile: "1000000"},
		Set:  []suite.Set{{Value: "default", Files: map[string]string{rtRuntimeFile: "950000\n"}}},
		More: true,
	})
}
