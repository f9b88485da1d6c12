package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(swappiness{}) }

// swappinessName is the knob's name, written in this file only: the rest
// of latlab asks the catalogue.
const swappinessName = "swappiness"

type swappiness struct{ linuxKnob }

func (swappiness) Name() string { return swappinessName }
func (swappiness) Summary() string {
	return "how readily the kernel swaps anonymous memory out rather than drop page cache, 0-200 (vm.swappiness)"
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

func (swappiness) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: swappinessName}
	if value == "" {
		ex.Text = []string{
			"vm.swappiness: the relative cost of swapping anonymous memory against dropping page cache, 0-200 (Linux 5.8 and later; 0-100 before); 60 by default.",
			"For latency: a page of a waiting program that was swapped out comes back through a major page fault, a disk read of milliseconds. A low value keeps anonymous memory resident longer, at the cost of a smaller page cache (more file reads) under memory pressure; tuned's latency-performance and throughput-performance profiles set 10. Only mlock keeps a program's memory resident for sure.",
			"Without swap (none in /proc/swaps) anonymous memory is never swapped, whatever the value.",
		}
		return ex, nil
	}
	n, ok := parseIntIn(value, 0, 200)
	if !ok {
		return nil, badinput.Errorf("invalid swappiness %q: accepted 0-200 (0-100 before Linux 5.8)", value)
	}
	ex.Text = []string{swappinessMeaning(strconv.Itoa(n))}
	ex.Data = map[string]any{"swappiness": n}
	return ex, nil
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

func (k swappiness) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := sysItem(env, swappinessLoc, swappinessLacks, swappinessMeaning)
	if err != nil {
		return nil, err
	}
	dev := swapDevices(env)
	it.Detail = swapFacts{Devices: dev}
	r := &Reading{Knob: k.Name(), Items: []Item{it}}
	switch {
	case dev == 0:
		r.Notes = append(r.Notes, "no swap is configured (/proc/swaps): anonymous memory is never swapped, whatever the value")
	case dev > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("%d swap area(s) in /proc/swaps", dev))
	}
	return r, nil
}

func (k swappiness) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, ok := parseIntIn(value, 0, 200)
	if !ok {
		return nil, badinput.Errorf("invalid swappiness %q: accepted 0-200 (0-100 before Linux 5.8)", value)
	}
	if n > 100 && kernelBelow(env, 5, 8) {
		return nil, badinput.Errorf("invalid swappiness %q: this kernel (before Linux 5.8) takes 0-100", value)
	}
	if err := mustExist(env, swappinessLoc, swappinessLacks); err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	if swapDevices(env) == 0 {
		p.Notes = append(p.Notes, "no swap is configured: the value matters once swap is added")
	}
	return p, p.add(env, swappinessLoc, backend.FileValue(fmt.Sprintf("%d\n", n)))
}

func (k swappiness) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != swappinessLoc {
		return notMine(k.Name(), target, l)
	}
	return fileInt(v)
}

var swappinessRefs = []Reference{
	tunedRef("latency-performance", "sysctl", "vm.swappiness", "10"),
	tunedRef("throughput-performance", "sysctl", "vm.swappiness", "10"),
}

// Checkup is what the check-up knows of swappiness.
func (swappiness) Checkup() Checkup {
	return Checkup{Default: text("60"), Gather: GatherReading, Rules: swappinessRules, References: swappinessRefs}
}

// Experiment: no probe of try is swapped out, so none shows a change.
func (swappiness) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle}
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
