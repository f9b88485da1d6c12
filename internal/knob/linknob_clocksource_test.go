package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	csCurrentFile   = "sys/devices/system/clocksource/clocksource0/current_clocksource"
	csAvailableFile = "sys/devices/system/clocksource/clocksource0/available_clocksource"
)

func TestClocksourceConforms(t *testing.T) {
	onCPU0 := suite.File(csCurrentFile, "hpet\n")
	onCPU0.Target = "cpu0"
	suite.RunFiles(t, suite.Files{
		Knob:    "clocksource",
		Tree:    map[string]string{csCurrentFile: "tsc\n", csAvailableFile: "tsc hpet acpi_pm \n"},
		Explain: []string{"tsc", "hpet", "kvm-clock", "no-such-clock"},
		Set: []suite.Set{
			{Value: "hpet", Files: map[string]string{csCurrentFile: "hpet\n"}},
			{Value: " acpi_pm ", Files: map[string]string{csCurrentFile: "acpi_pm\n"}},
			{Value: "tsc", NoChange: true},
		},
		// Only what available_clocksource lists.
		Bad: map[string]string{"kvm-clock": "accepted tsc, hpet, acpi_pm", "": "accepted tsc, hpet, acpi_pm"},
		Foreign: []suite.Place{
			suite.File("sys/devices/system/clocksource/clocksource0/unbind_clocksource", "tsc\n"),
			suite.File(csCurrentFile, "tsc; reboot\n"),
			suite.File(csCurrentFile, "../tsc\n"),
			onCPU0, // the knob has no targets
		},
		// A machine without the file fails the reading: no rule judges it.
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "cs-tsc", Reason: "time-stamp counter"},
			{Files: map[string]string{csCurrentFile: "hpet\n"}, Rule: "cs-slow-tsc-available", Reason: "hpet is slow to read and tsc is available"},
			{Files: map[string]string{csCurrentFile: "kvm-clock\n", csAvailableFile: "kvm-clock tsc hpet acpi_pm \n"}, Rule: "cs-fast", Reason: "KVM's paravirtual clock"},
			{Files: map[string]string{csCurrentFile: "acpi_pm\n", csAvailableFile: "hpet acpi_pm \n"}, Rule: "cs-slow", Reason: "no tsc is offered"},
			// available_clocksource unreadable: tsc cannot be offered
			{Files: map[string]string{csCurrentFile: "hpet\n", csAvailableFile: ""}, Rule: "cs-slow"},
		},
	})
}
