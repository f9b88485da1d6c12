package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const autogroupFile = "proc/sys/kernel/sched_autogroup_enabled"

func TestSchedAutogroupConforms(t *testing.T) {
	onCPU0 := suite.File(autogroupFile, "0\n")
	onCPU0.Target = "cpu0"
	suite.RunFiles(t, suite.Files{
		Knob:    "sched-autogroup",
		Tree:    map[string]string{autogroupFile: "1\n", kernelAnchorFile: "Linux\n"},
		Explain: []string{"0", "1", "on", "off"},
		Set: []suite.Set{
			{Value: "0", Files: map[string]string{autogroupFile: "0\n"}},
			{Value: "off", Files: map[string]string{autogroupFile: "0\n"}},
			{Value: "1", NoChange: true},
		},
		Bad: map[string]string{"2": `invalid sched-autogroup "2": accepted 0|1|on|off`, "": "accepted 0|1|on|off"},
		Foreign: []suite.Place{
			suite.File("proc/sys/kernel/sched_rt_runtime_us", "950000\n"),
			suite.File(autogroupFile, "2\n"), // the kernel takes 0 and 1 only
			suite.File(autogroupFile, "on\n"),
			onCPU0, // the knob has no targets
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "autogroup-on", Reason: "tuned 2.20.0 postgresql sets [sysctl] kernel.sched_autogroup_enabled=0"},
			{Files: map[string]string{autogroupFile: "0\n"}, Rule: "autogroup-off", Reason: "nice values rank them system-wide"},
			{Files: map[string]string{autogroupFile: "7\n"}, Rule: "autogroup-other", Reason: "reads 7, a value the kernel does not take"},
			{Files: map[string]string{autogroupFile: ""}, Rule: "autogroup-absent", Reason: "this kernel has no autogroup scheduling"},
			{Files: map[string]string{autogroupFile: "", kernelAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/kernel is missing"},
		},
	})
	// From 0 (written without a newline, as by echo -n) back on.
	suite.RunFiles(t, suite.Files{
		Knob: "sched-autogroup",
		Tree: map[string]string{autogroupFile: "0"},
		Set:  []suite.Set{{Value: "on", Files: map[string]string{autogroupFile: "1\n"}}},
		More: true,
	})
}
