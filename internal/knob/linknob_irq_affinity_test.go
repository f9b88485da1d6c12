package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const irq38 = "proc/irq/38/smp_affinity_list"

func TestIRQAffinityConforms(t *testing.T) {
	linuxNICs(t)
	as := func(p suite.Place, target string) suite.Place { p.Target = target; return p }
	suite.RunFiles(t, suite.Files{
		Knob:    "irq-affinity",
		Sel:     knob.Selector{IRQ: "38"},
		Tree:    virtioNIC(nil),
		Explain: []string{"0", "1", "0-1", "0,1"},
		Set: []suite.Set{
			{Value: "1", Files: map[string]string{irq38: "1\n", "proc/irq/39/smp_affinity_list": "0-1\n"}},
			{Value: "0", Files: map[string]string{irq38: "0\n"}},
			{Value: "0-1", NoChange: true},
		},
		Bad: map[string]string{
			"0-7": "CPU 2 is not online: accepted CPUs 0-1",
			"x":   "accepted",
			"":    "an IRQ needs at least one CPU",
		},
		Foreign: []suite.Place{
			as(suite.File("proc/irq/39/smp_affinity_list", "1\n"), "irq 38"),
			as(suite.File("proc/irq/38/effective_affinity_list", "1\n"), "irq 38"),
			as(suite.File("proc/irq/default_smp_affinity", "3\n"), "irq 38"),
			as(suite.File(irq38, "\n"), "irq 38"),
			as(suite.File(irq38, "0;reboot\n"), "irq 38"),
			as(suite.File("proc/irq/x/smp_affinity_list", "1\n"), "irq x"),
			suite.File(irq38, "1\n"), // no irq target
		},
		// The check-up judges each physical interface's queue
		// interrupts together (38 and 39; 37 is the configuration one).
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "irq-default", Reason: "2 queue interrupts allowed on every CPU"},
			{Files: map[string]string{"proc/irq/38/effective_affinity_list": "0\n"}, Rule: "irq-one-cpu", Reason: "all 2 queue interrupts of eth0 are delivered to CPU 0"},
			{Files: map[string]string{irq38: "1\n"}, Rule: "irq-pinned", Reason: "pinned (allowed CPUs 1 / 0-1)"},
			{Files: noDevice, Rule: "irq-none", Reason: "no network interface with MSI queue interrupts"},
		},
	})
}
