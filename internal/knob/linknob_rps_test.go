package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

func TestRPSConforms(t *testing.T) {
	linuxNICs(t)
	as := func(p suite.Place, target string) suite.Place { p.Target = target; return p }
	suite.RunFiles(t, suite.Files{
		Knob:    "rps",
		Sel:     knob.Selector{Iface: "eth0"},
		Tree:    virtioNIC(nil),
		Explain: []string{"0-1", "1", "0x3", "none"},
		Set: []suite.Set{
			{Value: "0-1", Files: map[string]string{eth0Rx0: "3\n"}},
			{Value: "1", Files: map[string]string{eth0Rx0: "2\n", "sys/class/net/lo/queues/rx-0/rps_cpus": "0\n"}},
			{Value: "0x1", Files: map[string]string{eth0Rx0: "1\n"}},
			{Value: "none", NoChange: true},
		},
		Bad: map[string]string{
			"0xzz": "invalid rps mask",
			"ff":   "accepted a CPU list (0-3), a mask with 0x (0xf) or none",
			"0-7":  "CPU 2 is not online: accepted CPUs 0-1",
		},
		Foreign: []suite.Place{
			as(suite.File("sys/class/net/eth0/queues/rx-0/../../../../../etc/x", "0\n"), "eth0"),
			as(suite.File("sys/class/net/eth0/queues/tx-0/xps_cpus", "0\n"), "eth0"),
			as(suite.File("sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "0\n"), "eth0"),
			as(suite.File("sys/class/net/lo/queues/rx-0/rps_cpus", "0\n"), "eth0"),
			as(suite.File(eth0Rx0, "0\n"), "../.."),
			as(suite.File(eth0Rx0, "zz\n"), "eth0"),
		},
		// The check-up judges each physical interface's rx queues
		// together; lo is left out.
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "rps-off", Reason: "off: packets are processed on the interrupted CPU"},
			{Files: map[string]string{eth0Rx0: "3\n"}, Rule: "rps-set", Reason: "rx-0 steered to CPUs 0-1"},
			{Files: noDevice, Rule: "rps-none", Reason: "no network interface with rx queues"},
		},
	})
}
