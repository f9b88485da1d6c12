package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	nmiWdFile = "proc/sys/kernel/nmi_watchdog"
	wdFile    = "proc/sys/kernel/watchdog"
)

func TestNMIWatchdogConforms(t *testing.T) {
	// a bare-metal kernel with both lockup detectors on
	tree := map[string]string{
		nmiWdFile:                         "1\n",
		wdFile:                            "1\n",
		"proc/sys/kernel/soft_watchdog":   "1\n",
		"proc/sys/kernel/watchdog_thresh": "10\n",
		kernelAnchorFile:                  "Linux\n",
	}
	wd := func(target, content string) suite.Place {
		p := suite.File(wdFile, content)
		p.Target = target
		return p
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "nmi-watchdog",
		Tree:    tree,
		Explain: []string{"0", "1", "on", "off", "nmi-off", "nmi-on"},
		Set: []suite.Set{
			{Value: "nmi-off", Files: map[string]string{nmiWdFile: "0\n", wdFile: "1\n"}},
			{Value: "off", Files: map[string]string{nmiWdFile: "1\n", wdFile: "0\n"}},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{"yes": "accepted nmi-off"},
		Foreign: []suite.Place{
			suite.File("proc/sys/kernel/soft_watchdog", "0\n"),
			suite.File("proc/sys/kernel/watchdog_thresh", "10\n"),
			suite.File("proc/sys/kernel/../../../etc/passwd", "0\n"),
			suite.File(nmiWdFile, "2\n"),
			suite.File(nmiWdFile, "1; reboot\n"),
			wd("", ""),
			wd("x", "0\n"), // the knob has no targets
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "nmi-wd-on", Reason: "NMI watchdog on"},
			{Files: map[string]string{nmiWdFile: "0\n"}, Rule: "nmi-wd-off", Reason: "tuned 2.20.0 realtime sets [sysctl] kernel.nmi_watchdog=0"},
			{Files: map[string]string{nmiWdFile: "0\n", wdFile: "0\n"}, Rule: "nmi-wd-all-off", Reason: "both lockup detectors off"},
			{Files: map[string]string{nmiWdFile: "2\n"}, Rule: "nmi-wd-other", Reason: "the kernel does not take"},
			{Files: map[string]string{nmiWdFile: "", wdFile: "", "proc/sys/kernel/soft_watchdog": "", "proc/sys/kernel/watchdog_thresh": ""}, Rule: "nmi-wd-absent", Reason: "this kernel has no lockup detector"},
			{Files: map[string]string{nmiWdFile: "", wdFile: "", "proc/sys/kernel/soft_watchdog": "", "proc/sys/kernel/watchdog_thresh": "", kernelAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/kernel is missing"},
		},
	})
	// The original is restored byte for byte, whatever its spelling.
	spelt := map[string]string{wdFile: "0"}
	for f, c := range tree {
		if _, ok := spelt[f]; !ok {
			spelt[f] = c
		}
	}
	suite.RunFiles(t, suite.Files{
		Knob: "nmi-watchdog",
		Tree: spelt,
		Set:  []suite.Set{{Value: "on", Files: map[string]string{wdFile: "1\n"}}},
		More: true,
	})
}
