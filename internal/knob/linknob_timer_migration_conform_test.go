package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const timerMigFile = "proc/sys/kernel/timer_migration"

func TestTimerMigrationConforms(t *testing.T) {
	mig := func(target, content string) suite.Place {
		p := suite.File(timerMigFile, content)
		p.Target = target
		return p
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "timer-migration",
		Tree:    map[string]string{timerMigFile: "1\n", kernelAnchorFile: "Linux\n"},
		Explain: []string{"0", "1", "on", "off"},
		Set: []suite.Set{
			{Value: "0", Files: map[string]string{timerMigFile: "0\n"}},
			{Value: "off", Files: map[string]string{timerMigFile: "0\n"}},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{"maybe": `invalid timer-migration "maybe": accepted 0|1|on|off`, "2": "accepted 0|1|on|off"},
		Foreign: []suite.Place{
			suite.File(timerMigFile+"/../nmi_watchdog", "0\n"),
			suite.File("proc/sys/kernel/nmi_watchdog", "0\n"),
			mig("", "-1\n"),
			mig("", "\n"),
			mig("cpu1", "0\n"), // the knob has no targets
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "timer-mig-on", Reason: "tuned 2.20.0 realtime sets [sysctl] kernel.timer_migration=0"},
			{Files: map[string]string{timerMigFile: "0\n"}, Rule: "timer-mig-off"},
			{Files: map[string]string{timerMigFile: "2\n"}, Rule: "timer-mig-other", Reason: "reads 2, a value the kernel does not take"},
			{Files: map[string]string{timerMigFile: ""}, Rule: "timer-mig-absent", Reason: "this kernel has no timer migration"},
			{Files: map[string]string{timerMigFile: "", kernelAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/kernel is missing"},
		},
	})
	// From 0 (written without a newline) back on.
	suite.RunFiles(t, suite.Files{
		Knob: "timer-migration",
		Tree: map[string]string{timerMigFile: "0"},
		Set:  []suite.Set{{Value: "on", Files: map[string]string{timerMigFile: "1\n"}}},
		More: true,
	})
}
