package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	cmdlineFile  = "proc/cmdline"
	nohzFullFile = "sys/devices/system/cpu/nohz_full"
)

// isolation is planned as steps for the boot loader and a reboot: latlab
// writes nothing, so every set is NoChange and Vet refuses every place.
func TestIsolationConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob: "isolation",
		Tree: map[string]string{
			cmdlineFile:        "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=0f3a ro quiet\n",
			cpuDir + "online":  "0-3\n",
			"etc/default/grub": "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"console=ttyS0\"\n",
		},
		Explain: []string{"2-3", "none", "1"},
		Set: []suite.Set{
			{Value: "2-3", NoChange: true},
			{Value: "none", NoChange: true},
		},
		Bad: map[string]string{
			"0-3": "leaves no CPU for the kernel's own work",
			"7":   "CPU 7 is not online",
			"two": "accepted a CPU list",
		},
		Foreign: []suite.Place{
			suite.File(cmdlineFile, "ro isolcpus=2-3\n"),
			suite.File("etc/default/grub", "GRUB_CMDLINE_LINUX=\"isolcpus=2-3\"\n"),
			suite.File("etc/kernel/cmdline", "root=/dev/sda2 rw isolcpus=3\n"),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "iso-none", Reason: "a note, not a fault"},
			{Files: map[string]string{cmdlineFile: ""}, Rule: "iso-unreadable", Reason: "/proc/cmdline does not exist"},
			{Files: map[string]string{cmdlineFile: "ro nohz_full=2-3\n"}, Rule: "iso-nohz-ignored", Reason: "built without CONFIG_NO_HZ_FULL, so every CPU keeps its tick"},
			{Files: map[string]string{cmdlineFile: "ro nohz_full=2-3\n", nohzFullFile: "(null)\n"}, Rule: "iso-nohz-ignored"},
			// A tree without /sys/devices/system/cpu does not say whether
			// the kernel honours nohz_full.
			{Files: map[string]string{cmdlineFile: "ro nohz_full=2-3\n", cpuDir + "online": ""}, Rule: "iso-set", Reason: "if the kernel was built with CONFIG_NO_HZ_FULL (/sys/devices/system/cpu is missing too, so the tree does not say)"},
			{Files: map[string]string{cmdlineFile: "ro isolcpus=2-3\n", cpuDir + "isolated": "2-3\n"}, Rule: "iso-tick-kept", Reason: "still take the tick and run RCU callbacks"},
			{Files: map[string]string{cmdlineFile: "ro isolcpus=2-3 rcu_nocbs=2-3\n"}, Rule: "iso-set"},
			// As GRUB boots a tuned cpu-partitioning machine with
			// isolated_cores=2-3, init's arguments after "--".
			{Files: map[string]string{cmdlineFile: "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=0f3a ro quiet skew_tick=1 nohz=on nohz_full=2-3 rcu_nocbs=2-3 tuned.non_isolcpus=00000003 intel_pstate=disable nosoftlockup -- isolcpus=9\n",
				nohzFullFile: "2-3\n"}, Rule: "iso-set", Reason: "tick stopped on 2-3 when one task runs; RCU callbacks offloaded from 2-3"},
		},
	})
}
