package doctor

import (
	"sort"

	"github.com/latlab/latlab/internal/knob"
)

// Step is a suggested next command: a knob's rule suggests one as a
// knob.NextStep, the probes and experiments here.
type Step knob.NextStep

// MaxSteps bounds the suggestions.
const MaxSteps = 5

// NextSteps picks at most MaxSteps commands from the audit's findings and
// the probes, the most beneficial first, each command once.
func NextSteps(r *Result) []Step {
	var steps []Step
	for _, s := range r.Settings {
		if s.next != nil {
			steps = append(steps, *s.next)
		}
		if s.try != nil {
			steps = append(steps, *s.try)
		}
	}
	if r.Wake != nil {
		switch r.Wake.Band {
		case "poor":
			steps = append(steps, Step{Command: "latlab wake --duration 60s", Why: "some wake-ups were over 4 ms late: a longer run shows how often", Benefit: 80})
		case "mediocre":
			steps = append(steps, Step{Command: "latlab wake --duration 60s", Why: "wake-ups missed their deadlines: a longer run shows how often", Benefit: 60})
		case "fair":
			steps = append(steps, Step{Command: "latlab wake --rtprio 80 --mlock", Why: "the wake-up tail passed 200 µs: see whether priority fixes it", Benefit: 30})
		}
	}
	if s, ok := causeStep(r); ok {
		steps = append(steps, s)
	}
	if r.Profile != Thorough {
		steps = append(steps, Step{Command: "latlab doctor --thorough", Why: "a minute of probes: longer, realtime where allowed, and on each CPU", Benefit: 15})
	}
	steps = append(steps,
		Step{Command: "latlab wake --duration 60s", Why: "a minute of wake-ups catches rare delays a short probe misses", Benefit: 10},
		Step{Command: "latlab sleep --live", Why: "watch sleep overshoot live while you start the programs you care about", Benefit: 5})
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Benefit > steps[j].Benefit })
	var out []Step
	seen := map[string]bool{}
	for _, s := range steps {
		if seen[s.Command] || len(out) == MaxSteps {
			continue
		}
		seen[s.Command] = true
		out = append(out, s)
	}
	return out
}

// causeStep leads late wake-ups to their cause: wake --explain on Linux
// (as root: sudo when the check-up was not), dpc watch from an elevated
// prompt on Windows. Each outranks the longer wake run of its band.
func causeStep(r *Result) (Step, bool) {
	if r.Wake == nil {
		return Step{}, false
	}
	benefit := map[string]int{"poor": 85, "mediocre": 65, "fair": 35}[r.Wake.Band]
	if benefit == 0 {
		return Step{}, false
	}
	if r.OS == "windows" {
		return Step{Command: "latlab dpc watch", Benefit: benefit,
			Why: "from an elevated (administrator) prompt: the driver with the most DPC and ISR time and the longest one, live"}, true
	}
	cmd := "sudo latlab wake --explain"
	if r.Cause != nil && r.Cause.Source != "" {
		cmd = "latlab wake --explain" // the check-up ran as root
	}
	return Step{Command: cmd, Benefit: benefit,
		Why: "what ran on the CPU in each of the 10 worst wake-ups, and the knob for it"}, true
}
