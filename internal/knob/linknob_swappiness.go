package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
)

func init() { register(swappinessKnob) }

// swappinessName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const swappinessName = "swappiness"

var swappinessKnob = &intSysctl{
	name:     swappinessName,
	summary:  "how readily the kernel swaps anonymous memory out rather than drop page cache, 0-200 (vm.swappiness)",
	loc:      swappinessLoc,
	lacks:    swappinessLacks,
	parse:    intRange(0, 200),
	accepted: "accepted 0-200 (0-100 before Linux 5.8)",
	meaning:  swappinessMeaning,
	explain: []string{
		"vm.swappiness: the relative cost of swapping anonymous memory against dropping page cache, 0-200 (Linux 5.8 and later; 0-100 before); 60 by default.",
		"For latency: a page of a waiting program that was swapped out comes back through a major page fault, a disk read of milliseconds. A low value keeps anonymous memory resident longer, at the cost of a smaller page cache (more file reads) under memory pressure; tuned's latency-performance and throughput-performance profiles set 10. Only mlock keeps a program's memory resident for sure.",
		"Without swap (none in /proc/swaps) anonymous memory is never swapped, whatever the value.",
	},
	data: func(n int) map[string]any { return map[string]any{"swappiness": n} },
	refuse: func(env *Env, n int, value string) error {
		if n > 100 && kernelBelow(env, 5, 8) {
			return badinput.Errorf("invalid swappiness %q: this kernel (before Linux 5.8) takes 0-100", value)
		}
		return nil
	},
	notes: func(env *Env, n int) []string {
		if swapDevices(env) == 0 {
			return []string{"no swap is configured: the value matters once swap is added"}
		}
		return nil
	},
	facts:   swapFactsOf,
	checkup: Checkup{Default: text("60"), Rules: swappinessRules, References: swappinessRefs},
	// no probe of try is swapped out, so none shows a change
	experiment: Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "it decides what is reclaimed under memory pressure, and no probe of try is swapped out: run the workload under its usual memory load and compare (major faults: pgmajfault in /proc/vmstat)"},
}

var (
	swappinessLoc = fileLoc("proc/sys/vm/swappiness")
	swapsLoc      = fileLoc("proc/swaps")
)

const swappinessLacks = "vm.swappiness"

// Documentation/admin-guide/sysctl/vm.rst: the relative IO cost of
// swapping against file paging, 0-200 (Linux 5.8; 0-100 before), 60 by
// default.
func swappinessMeaning(s string) string {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return "unreadable: " + s
	case n == 60:
		return "60, the default: page cache is reclaimed somewhat before anonymous memory"
	case n == 0:
		return "0: anonymous memory is swapped only when page cache is nearly gone"
	case n < 60:
		return fmt.Sprintf("%d: page cache is reclaimed well before anonymous memory is swapped", n)
	case n < 100:
		return fmt.Sprintf("%d: swapping is nearly as cheap as dropping page cache", n)
	case n == 100:
		return "100: swapping and dropping page cache cost the same"
	}
	return fmt.Sprintf("%d: swapping is cheaper than dropping page cache (meant for in-memory swap: zram, zswap)", n)
}

// swapFacts is what the reading knows of swap for the check-up.
type swapFacts struct {
	// Devices is the number of swap areas in /proc/swaps; -1 unknown.
	Devices int `json:"swap_devices"`
}

// swapDevices counts the swap areas of /proc/swaps (a header line, then
// one line each); -1 when it cannot be read.
func swapDevices(env *Env) int {
	v, err := env.read(swapsLoc)
	if err != nil || v.IsAbsent() {
		return -1
	}
	n := 0
	for i, l := range strings.Split(string(v.Data), "\n") {
		if i > 0 && strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// swapFactsOf adds the swap areas of /proc/swaps to the reading.
func swapFactsOf(env *Env, r *Reading) {
	dev := swapDevices(env)
	r.Items[0].Detail = swapFacts{Devices: dev}
	switch {
	case dev == 0:
		r.Notes = append(r.Notes, "no swap is configured (/proc/swaps): anonymous memory is never swapped, whatever the value")
	case dev > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("%d swap area(s) in /proc/swaps", dev))
	}
}

var swappinessRefs = []Reference{
	tunedRef("latency-performance", "sysctl", "vm.swappiness", "10"),
	tunedRef("throughput-performance", "sysctl", "vm.swappiness", "10"),
	tunedRef("accelerator-performance", "sysctl", "vm.swappiness", "10"),
	tunedRef("postgresql", "sysctl", "vm.swappiness", "3"),
}

func swapOf(c *Case) int {
	if f, ok := c.Detail.(swapFacts); ok {
		return f.Devices
	}
	return -1
}

var swappinessRules = []Rule{
	absentRule("swappiness-absent"),
	{ID: "swappiness-no-swap", Verdict: Default, When: "no swap configured",
		Match: func(c *Case) bool { return swapOf(c) == 0 },
		Reason: func(c *Case) string {
			return "no swap is configured: anonymous memory is never swapped, whatever the value (" + c.Meaning + ")"
		},
		IsDefault: func(c *Case) *bool { return boolPtr(c.Text() == "60") }},
	{ID: "swappiness-default", Verdict: Default, When: "60",
		Match: func(c *Case) bool { return c.Text() == "60" },
		Reason: func(c *Case) string {
			return "the default: a swapped-out page costs a major fault (a disk read) when touched; " + swappinessRefs[0].Cite()
		}},
	{ID: "swappiness-low", Verdict: Changed, When: "below 60",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && n < 60 },
		Reason: func(c *Case) string {
			return c.Meaning + ", as " + swappinessRefs[0].Cite() + "; costs page cache (file reads) under memory pressure"
		}},
	{ID: "swappiness-high", Verdict: Suspicious, When: "above 60",
		Match: func(c *Case) bool { n, ok := c.N(); return ok && n > 60 },
		Reason: func(c *Case) string {
			return c.Meaning + ": idle programs' memory goes to swap sooner and comes back through major faults; " + swappinessRefs[0].Cite()
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set swappiness 10", Why: "memory is swapped out readily (applies at once; latlab knob revert swappiness undoes it)", Benefit: 20}
		}},
	{ID: "swappiness-other", Verdict: Unknown, When: "not a number",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
