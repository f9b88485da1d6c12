package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(numaBalancingKnob) }

// numaBalancingName is the knob's name, written in this file only: the
// rest of latlab asks the catalogue.
const numaBalancingName = "numa-balancing"

var numaBalancingKnob = &intSysctl{
	name:     numaBalancingName,
	summary:  "automatic NUMA balancing: the kernel unmaps pages to find which node uses them and moves them there (kernel.numa_balancing)",
	loc:      numaLoc,
	lacks:    numaLacks,
	parse:    parseNUMA,
	accepted: numaAccepted,
	meaning:  numaMeaning,
	explain: []string{
		"kernel.numa_balancing: 0 off, 1 on, 2 memory tiering (Linux 5.18 and later), 3 both; the kernel turns it on at boot only where there are several NUMA nodes.",
		"on: " + numaMeaning("1") + ". The unmapping and the hinting faults it causes cost time at arbitrary moments, and a page being migrated stalls whoever touches it: " + numaCite() + ".",
		"off costs throughput when tasks move between nodes and leave their memory behind; pinning a workload to one node (numactl, cpusets) makes balancing unnecessary.",
		"On a machine with one node there is nowhere to move memory: the setting has no effect there.",
	},
	numbered: true,
	data:     func(n int) map[string]any { return map[string]any{"normal": n&1 != 0, "memory_tiering": n&2 != 0} },
	refuse: func(env *Env, n int, value string) error {
		if n >= 2 && kernelBelow(env, 5, 18) {
			return badinput.Errorf("invalid numa-balancing %q: memory tiering (2, 3) needs Linux 5.18 or later; this kernel takes 0|1", value)
		}
		return nil
	},
	notes: func(env *Env, n int) []string {
		if nodes := numaNodes(env); nodes == 1 {
			return []string{"this machine has one NUMA node: the setting has no effect here"}
		}
		return nil
	},
	facts: numaFactsOf,
	// the node count decides whether it matters
	checkup: Checkup{
		Default: func(c *Case) string {
			if numaNodesOf(c) == 1 {
				return "0 (one node)"
			}
			return "1 (several nodes)"
		},
		Rules: numaRules, References: numaRefs,
	},
	// the probes of try neither migrate pages nor span nodes
	experiment: Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "its hinting faults and page moves come to programs whose memory is on another node, and the probes of try neither span nodes nor migrate pages: compare the workload's runs (numa_hint_faults, numa_pages_migrated in /proc/vmstat)"},
}

var numaLoc = fileLoc("proc/sys/kernel/numa_balancing")

const numaLacks = "automatic NUMA balancing (CONFIG_NUMA_BALANCING)"

// The values are bits (Documentation/admin-guide/sysctl/kernel.rst):
// NUMA_BALANCING_NORMAL 1, NUMA_BALANCING_MEMORY_TIERING 2 (Linux 5.18).
const numaAccepted = "accepted 0|1|2|3 or off|on|tiering|on+tiering"

func parseNUMA(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "off":
		return 0, true
	case "1", "on", "normal":
		return 1, true
	case "2", "tiering":
		return 2, true
	case "3", "on+tiering", "normal+tiering":
		return 3, true
	}
	return 0, false
}

func numaMeaning(s string) string {
	switch s {
	case "0":
		return "off: memory stays on the node it was allocated on; no hinting faults"
	case "1":
		return "on (the default where there are several nodes): the kernel periodically unmaps a task's pages and moves those it then faults on to the task's node"
	case "2":
		return "memory tiering only: hot pages of slow memory nodes (CXL, persistent memory) are promoted to fast ones; no balancing between fast nodes"
	case "3":
		return "balancing between nodes and memory tiering"
	}
	return "a value latlab does not know: " + s
}

// numaFacts is the node count the reading carries for the check-up.
type numaFacts struct {
	// Nodes is the number of NUMA nodes (node* of
	// /sys/devices/system/node), 0 when unknown.
	Nodes int `json:"nodes"`
}

// numaNodes counts the NUMA nodes; 0 when /sys/devices/system/node
// cannot be listed.
func numaNodes(env *Env) int {
	dirs, _, err := env.list(backend.BackendFile, "sys/devices/system/node")
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range dirs {
		if rest, ok := strings.CutPrefix(d, "node"); ok {
			if _, err := strconv.ParseUint(rest, 10, 16); err == nil {
				n++
			}
		}
	}
	return n
}

// numaFactsOf adds the NUMA node count to the reading.
func numaFactsOf(env *Env, r *Reading) {
	nodes := numaNodes(env)
	r.Items[0].Detail = numaFacts{Nodes: nodes}
	switch {
	case nodes == 0:
		r.Notes = append(r.Notes, "the NUMA nodes could not be counted (/sys/devices/system/node)")
	case nodes == 1:
		r.Notes = append(r.Notes, "this machine has one NUMA node: there is nowhere to move memory, so the setting has no effect")
	default:
		r.Notes = append(r.Notes, fmt.Sprintf("this machine has %d NUMA nodes", nodes))
	}
}

var numaRefs = []Reference{
	tunedRef("network-latency", "sysctl", "kernel.numa_balancing", "0"),
	tunedRef("hpc-compute", "sysctl", "kernel.numa_balancing", "0"),
}

// numaThunderX is throughput-performance's setting, which applies only on
// Marvell ThunderX (its [sysctl.thunderx] section matches aarch64 and the
// ThunderX CPU): cited in words, not among the references, whose lines
// would drop the condition.
var numaThunderX = tunedRef("throughput-performance", "sysctl.thunderx", "kernel.numa_balancing", "0")

// numaCite says which tuned profiles turn NUMA balancing off: "tuned
// 2.20.0 network-latency and hpc-compute set [sysctl]
// kernel.numa_balancing=0 (throughput-performance too, on Marvell ThunderX
// only)".
func numaCite() string {
	r := numaRefs[0]
	return fmt.Sprintf("%s %s %s and %s set [%s] %s=%s (%s too, on Marvell ThunderX only: its [%s] section)",
		r.Source, r.Version, r.Profile, numaRefs[1].Profile, r.Section, r.Key, r.Value, numaThunderX.Profile, numaThunderX.Section)
}

func numaNodesOf(c *Case) int {
	if f, ok := c.Detail.(numaFacts); ok {
		return f.Nodes
	}
	return 0
}

var numaRules = []Rule{
	absentRule("numa-absent"),
	{ID: "numa-one-node", Verdict: Default, When: "0 on one NUMA node",
		Match: func(c *Case) bool { return numaNodesOf(c) == 1 && c.Text() == "0" },
		Reason: func(c *Case) string {
			return "off, and one NUMA node: there is nowhere to move memory, so the setting has no effect here"
		}},
	{ID: "numa-one-node-on", Verdict: Suspicious, When: "on with one NUMA node",
		Match: func(c *Case) bool { return numaNodesOf(c) == 1 },
		Reason: func(c *Case) string {
			return "set on a machine with one NUMA node, where there is nowhere to move memory (the kernel leaves it off on such machines); its scanning can still cost hinting faults"
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set numa-balancing 0", Why: "NUMA balancing is on with one node, where it has nothing to balance (latlab knob revert numa-balancing undoes it)", Benefit: 10}
		}},
	{ID: "numa-off", Verdict: Changed, When: "0 on several nodes",
		Match: func(c *Case) bool { return c.Text() == "0" },
		Reason: func(c *Case) string {
			return "off, as " + numaCite() + ": no hinting faults or page migrations; costs throughput when tasks run far from their memory"
		}},
	{ID: "numa-on", Verdict: Default, When: "1 on several nodes",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return "on: hinting faults and page migrations stall tasks at arbitrary moments; " + numaCite()
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set numa-balancing 0", Why: "NUMA balancing unmaps and migrates pages under running tasks (latlab knob revert numa-balancing undoes it)", Benefit: 15}
		}},
	{ID: "numa-other", Verdict: Changed, When: "any other value",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
