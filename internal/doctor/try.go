package doctor

import (
	"fmt"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/try"
)

// tryStep is the experiment that measures a changed setting: where a
// value is changed or suspicious and latlab try can switch the knob live
// with a probe that needs no peer, the current value is the baseline and
// the default the value tried, the original back in place at the end.
func tryStep(c *knob.Case, s Setting) *Step {
	if s.Verdict != knob.Changed && s.Verdict != knob.Suspicious {
		return nil
	}
	in, ok := try.LookupInfo(c.Knob)
	// A probe that needs a peer (udp) cannot be suggested as a command
	// that runs as it stands.
	if !ok || !in.Live() || (in.Probe != try.ProbeSleep && in.Probe != try.ProbeWake) {
		return nil
	}
	k, err := knob.Lookup(c.Knob)
	if err != nil || k.Checkup().TryValue == nil {
		return nil
	}
	v := k.Checkup().TryValue(c, s.Rule)
	if v == "" {
		return nil
	}
	benefit := 25
	if s.Verdict == knob.Suspicious {
		benefit = 50
	}
	return &Step{
		Command: fmt.Sprintf("latlab try %s %s --probe %s", c.Knob, v, in.Probe),
		Why:     fmt.Sprintf("%s is %s: measure it against %s (the current value is restored after)", c.Knob, s.Verdict, v),
		Benefit: benefit,
	}
}
