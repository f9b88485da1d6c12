package knob

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/timer"
)

// ClocksourceName is the knob's name, which the check-up's timer facts and
// the exporter's metric label also use for the kernel's clock source.
const ClocksourceName = "clocksource"

func init() { register(clocksource{}) }

type clocksource struct{ linuxKnob }

func (clocksource) Name() string { return ClocksourceName }
func (clocksource) Summary() string {
	return "the kernel's time source: what clock_gettime reads and how fast (current_clocksource)"
}

const csDir = "sys/devices/system/clocksource/clocksource0/"

var csCurrentLoc = fileLoc(csDir + "current_clocksource")

func (clocksource) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: ClocksourceName}
	if value == "" {
		ex.Text = []string{"current_clocksource; available_clocksource lists what this machine offers. Known sources:"}
		for _, c := range timer.Clocksources {
			ex.Text = append(ex.Text, fmt.Sprintf("  %-28s %s", c.Name, c.Desc))
		}
		return ex, nil
	}
	m := "not a clock source this latlab knows"
	if c, ok := timer.LookupClocksource(value); ok {
		m = c.Desc
	}
	ex.Text = []string{value + ": " + m}
	return ex, nil
}

func (k clocksource) available(env *Env) []string {
	s, _, err := readText(env, fileLoc(csDir+"available_clocksource"))
	if err != nil {
		return nil
	}
	return strings.Fields(s)
}

func (k clocksource) Get(env *Env, sel Selector) (*Reading, error) {
	r, err := sysctlGet(env, k.Name(), csCurrentLoc, func(s string) string {
		if c, ok := timer.LookupClocksource(s); ok {
			return c.Desc
		}
		return s
	})
	if err == nil {
		if av := k.available(env); len(av) > 0 {
			r.Notes = append(r.Notes, "available: "+strings.Join(av, " "))
		}
	}
	return r, err
}

func (k clocksource) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	av := k.available(env)
	value = strings.TrimSpace(value)
	if !slices.Contains(av, value) {
		return nil, badinput.Errorf("clocksource %q is not available here: accepted %s", value, strings.Join(av, ", "))
	}
	p := &Plan{Knob: k.Name(), Request: value}
	p.Notes = append(p.Notes, "takes effect at once and lasts until reboot; clocksource= on the kernel command line makes it permanent")
	return p, p.add(env, csCurrentLoc, backend.FileValue(value+"\n"))
}

func (k clocksource) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != csCurrentLoc {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if len(s) > 64 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) {
		return fmt.Errorf("%q is not the name of a clock source", s)
	}
	return nil
}

// Checkup is what the check-up knows of clocksource: its default, how its
// instances are read and the verdict rules.
func (clocksource) Checkup() Checkup {
	return Checkup{Default: text("the kernel's best-rated (tsc where stable)"), Rules: clocksourceRules,
		TryValue: clocksourceTry}
}

// Experiment is how a change of clocksource takes effect for latlab try.
func (clocksource) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeSleep}
}

var clocksourceRules = []Rule{
	{ID: "cs-tsc", Verdict: Default, When: "tsc",
		Match:  func(c *Case) bool { return c.Text() == "tsc" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "cs-slow-tsc-available", Verdict: Suspicious, When: "a slow source while tsc is available",
		Match: func(c *Case) bool { return !timer.ClocksourceFast(c.Text()) && slices.Contains(available(c), "tsc") },
		Reason: func(c *Case) string {
			return c.Text() + " is slow to read and tsc is available; the kernel leaves tsc when its watchdog finds it unstable (dmesg says so)"
		},
		Evidence: func(c *Case) string {
			return explainText(ClocksourceName, c.Text()) + "; " + explainText(ClocksourceName, "tsc")
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob explain clocksource", Why: c.Text() + " is slow to read while tsc is available", Benefit: 40}
		}},
	{ID: "cs-fast", Verdict: Default, When: "another source read in user space",
		Match:  func(c *Case) bool { return timer.ClocksourceFast(c.Text()) },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "cs-slow", Verdict: Default, When: "a slow source and no tsc to choose",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; no tsc is offered (the kernel found it unstable or the CPU has none)"
		},
		IsDefault: func(c *Case) *bool { return nil }},
}

// available is the clocksource reading's list of available sources.
func available(c *Case) []string {
	for _, n := range c.Notes {
		if s, ok := strings.CutPrefix(n, "available: "); ok {
			return strings.Fields(s)
		}
	}
	return nil
}

// clocksourceTry is tsc, to try against a slow source while tsc is
// available.
func clocksourceTry(c *Case, _ string) string {
	if c.Text() != "tsc" && slices.Contains(available(c), "tsc") {
		return "tsc"
	}
	return ""
}
