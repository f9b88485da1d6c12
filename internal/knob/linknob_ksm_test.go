package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	ksmRunFile     = "sys/kernel/mm/ksm/run"
	ksmSharingFile = "sys/kernel/mm/ksm/pages_sharing"
)

func TestKSMConforms(t *testing.T) {
	tree := map[string]string{
		ksmRunFile:                          "1\n",
		"sys/kernel/mm/ksm/pages_shared":    "120\n",
		ksmSharingFile:                      "2560\n",
		"sys/kernel/mm/ksm/sleep_millisecs": "20\n",
		"sys/kernel/mm/ksm/pages_to_scan":   "100\n",
		"sys/kernel/mm/ksm/full_scans":      "7\n",
	}
	suite.RunFiles(t, suite.Files{
		Knob:    "ksm",
		Tree:    tree,
		Explain: []string{"0", "1", "2", "unmerge"},
		Set: []suite.Set{
			{Value: "unmerge", Files: map[string]string{ksmRunFile: "2\n"}},
			{Value: "0", Files: map[string]string{ksmRunFile: "0\n"}},
			{Value: "1", NoChange: true},
		},
		Bad: map[string]string{"3": "accepted 0|1|2", "start": "accepted", "": "accepted"},
		Foreign: []suite.Place{
			suite.File(ksmRunFile, "3\n"),
			suite.File("sys/kernel/mm/ksm/sleep_millisecs", "20\n"),
			suite.File(ksmSharingFile, "0\n"),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{ksmRunFile: "0\n", ksmSharingFile: "0\n"}, Rule: "ksm-stopped", Reason: "stopped (the default)"},
			{Files: map[string]string{ksmRunFile: "0\n"}, Rule: "ksm-stopped-merged", Reason: "2560 pages are still merged"},
			{Files: map[string]string{ksmRunFile: "0\n", ksmSharingFile: "garbage\n"}, Rule: "ksm-stopped"},
			{Files: map[string]string{ksmSharingFile: "0\n"}, Rule: "ksm-running", Reason: "tuned 2.20.0 realtime-virtual-host sets [sysfs] /sys/kernel/mm/ksm/run=2"},
			{Files: map[string]string{ksmRunFile: "2\n", ksmSharingFile: "0\n"}, Rule: "ksm-unmerged", Reason: "no scanning"},
			{Files: map[string]string{ksmRunFile: "5\n", ksmSharingFile: "0\n"}, Rule: "ksm-other", Reason: "does not know"},
			{Files: map[string]string{ksmRunFile: "", ksmSharingFile: "0\n"}, Rule: "ksm-absent", Reason: "this kernel has no kernel samepage merging (CONFIG_KSM)"},
			{Files: map[string]string{ksmRunFile: "", ksmSharingFile: "", "sys/kernel/mm/ksm/pages_shared": "", "sys/kernel/mm/ksm/sleep_millisecs": "", "sys/kernel/mm/ksm/pages_to_scan": "", "sys/kernel/mm/ksm/full_scans": ""},
				Rule: "not shown", Reason: "not in this tree: /sys/kernel/mm is missing too, so the tree does not say whether the kernel has kernel samepage merging (CONFIG_KSM)"},
		},
	})
	// From 0 with merged pages: 2 is a change too.
	stopped := map[string]string{ksmRunFile: "0\n"}
	for f, c := range tree {
		if _, ok := stopped[f]; !ok {
			stopped[f] = c
		}
	}
	suite.RunFiles(t, suite.Files{
		Knob: "ksm",
		Tree: stopped,
		Set:  []suite.Set{{Value: "2", Files: map[string]string{ksmRunFile: "2\n"}}},
		More: true,
	})
}
