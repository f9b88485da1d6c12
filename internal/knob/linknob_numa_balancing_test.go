package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	numaFile = "proc/sys/kernel/numa_balancing"
	node0    = "sys/devices/system/node/node0/cpulist"
	node1    = "sys/devices/system/node/node1/cpulist"
)

func TestNUMABalancingConforms(t *testing.T) {
	// two NUMA nodes, balancing on
	tree := map[string]string{"sys/devices/system/node/possible": "0\n", node0: "0-1\n", node1: "0-1\n", numaFile: "1\n", kernelAnchorFile: "Linux\n"}
	suite.RunFiles(t, suite.Files{
		Knob:    "numa-balancing",
		Tree:    tree,
		Explain: []string{"0", "1", "2", "3", "off", "on+tiering"},
		Set: []suite.Set{
			{Value: "off", Files: map[string]string{numaFile: "0\n"}},
			{Value: "on+tiering", Files: map[string]string{numaFile: "3\n"}},
			{Value: "1", NoChange: true},
		},
		Bad: map[string]string{"4": "accepted 0|1|2|3", "yes please": "accepted", "": "accepted"},
		Foreign: []suite.Place{
			suite.File("proc/sys/kernel/numa_balancing_scan_delay_ms", "1\n"),
			suite.File(numaFile, "on\n"),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{node1: "", numaFile: "0\n"}, Rule: "numa-one-node", Reason: "no effect here"},
			{Files: map[string]string{node1: ""}, Rule: "numa-one-node-on", Reason: "nowhere to move memory"},
			{Files: map[string]string{numaFile: "0\n"}, Rule: "numa-off", Reason: "tuned 2.20.0 network-latency and hpc-compute set [sysctl] kernel.numa_balancing=0 (throughput-performance too, on Marvell ThunderX only"},
			{Files: map[string]string{}, Rule: "numa-on", Reason: "hinting faults"},
			{Files: map[string]string{"sys/devices/system/node/node2/cpulist": "0-1\n", "sys/devices/system/node/node3/cpulist": "0-1\n", numaFile: "2\n"}, Rule: "numa-other", Reason: "memory tiering"},
			{Files: map[string]string{node0: "", node1: ""}, Rule: "numa-on"}, // nodes unknown: judged as several
			{Files: map[string]string{numaFile: ""}, Rule: "numa-absent", Reason: "CONFIG_NUMA_BALANCING"},
			{Files: map[string]string{numaFile: "", kernelAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/kernel is missing"},
		},
	})
	// Tiering needs 5.18: an older kernel is told so before anything.
	old := map[string]string{"proc/sys/kernel/osrelease": "5.15.0-91-generic\n"}
	for f, c := range tree {
		old[f] = c
	}
	suite.RunFiles(t, suite.Files{
		Knob: "numa-balancing",
		Tree: old,
		Set:  []suite.Set{{Value: "0", Files: map[string]string{numaFile: "0\n"}}},
		Bad:  map[string]string{"2": "needs Linux 5.18"},
		More: true,
	})
}
