package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	preemptFile    = "sys/kernel/debug/sched/preempt"
	kernelVersion  = "proc/sys/kernel/version"
	dynamicVersion = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n" // uname -v (scripts/mkcompile_h)
)

// selected is a place of a list whose selection the knob reads and
// writes ("none voluntary (full) lazy").
func selected(path, content, target string) suite.Place {
	return suite.Place{Loc: backend.Loc{Backend: backend.BackendFile, Path: path, Name: backend.NameSelected},
		Value: backend.FileValue(content), Target: target}
}

func TestPreemptionConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob: "preemption",
		// sched_dynamic_show's listing, with its trailing space.
		Tree:    map[string]string{kernelVersion: dynamicVersion, preemptFile: "none voluntary (full) lazy \n"},
		Explain: []string{"none", "voluntary", "full", "lazy"},
		Set: []suite.Set{
			{Value: "none", Files: map[string]string{preemptFile: "(none) voluntary full lazy \n"}},
			{Value: " Lazy", Files: map[string]string{preemptFile: "none voluntary full (lazy) \n"}},
			{Value: "full", NoChange: true},
		},
		Bad: map[string]string{
			"fast": "accepted none, voluntary, full, lazy",
			"rt":   "accepted none, voluntary, full, lazy (PREEMPT_RT is a kernel of its own)",
			"":     "accepted none, voluntary, full, lazy",
		},
		Foreign: []suite.Place{
			suite.File(preemptFile, "full\n"), // the whole listing, not its selection
			selected(preemptFile, "none voluntary (full) lazy \n", ""),
			selected(preemptFile, "fast\n", ""),
			selected(preemptFile, "full\n", "x"),
			selected("sys/kernel/debug/sched/verbose", "full\n", ""),
			suite.File(kernelVersion, dynamicVersion),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "preempt-full", Reason: "full (dynamic): kernel code is preemptible everywhere"},
			{Files: map[string]string{preemptFile: "none (voluntary) full \n"}, Rule: "preempt-switchable", Reason: "this kernel switches to full at once"},
			{Files: map[string]string{preemptFile: ""}, Rule: "preempt-unread", Reason: "debugfs is not mounted"},
			{Files: map[string]string{preemptFile: "", "proc/cmdline": "ro preempt=voluntary\n"}, Rule: "preempt-boot",
				Reason: "the model the kernel started with (preempt=voluntary on the kernel command line); root may have switched it since"},
			{Files: map[string]string{preemptFile: "", "proc/cmdline": "ro preempt=lazy\n"}, Rule: "preempt-boot-full", Reason: "lazy at boot (dynamic): like full for realtime"},
			{Files: map[string]string{preemptFile: "", kernelVersion: "#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)\n", "sys/kernel/realtime": "1\n"},
				Rule: "preempt-rt", Reason: "PREEMPT_RT: spinlocks become sleeping locks"},
			{Files: map[string]string{preemptFile: "", kernelVersion: "#1 SMP Tue Jan 9 2024\n"}, Rule: "preempt-fixed", Reason: "only another kernel"},
			{Files: map[string]string{preemptFile: "", kernelVersion: "#1 SMP PREEMPT Tue Jan 9 2024\n"}, Rule: "preempt-fixed"},
			{Files: map[string]string{preemptFile: "", kernelVersion: ""}, Rule: "preempt-unknown", Reason: "could be read"},
		},
	})
}
