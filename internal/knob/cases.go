package knob

import (
	"github.com/latlab/latlab/internal/knob/backend"
)

// CaseGatherer is a knob that reads its own check-up cases, where one case
// per item of its reading does not fit: a knob judged per network
// interface, or against facts beside its stored values.
type CaseGatherer interface {
	Cases(env *Env) []*Case
}

// Cases reads k's check-up cases through env: the knob's own gathering,
// or one case per item of its reading (one Empty case for a reading
// without items, one with Err for a failed one). Nothing is written.
func Cases(env *Env, k Knob) []*Case {
	if g, ok := k.(CaseGatherer); ok {
		return g.Cases(env)
	}
	return readCases(env, k, Selector{})
}

func baseCase(env *Env, k Knob) *Case {
	return &Case{Knob: k.Name(), Build: env.Build, Server: env.Server, Raw: backend.Absent}
}

// readCases is a knob's reading, one case per item.
func readCases(env *Env, k Knob, sel Selector) []*Case {
	r, err := k.Get(env, sel)
	if err != nil {
		c := baseCase(env, k)
		c.Err = err
		return []*Case{c}
	}
	var cs []*Case
	for _, it := range r.Items {
		c := baseCase(env, k)
		fill(c, it, r.Notes)
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty, c.Notes = true, r.Notes
		cs = append(cs, c)
	}
	return cs
}

func fill(c *Case, it Item, notes []string) {
	c.Target, c.Value, c.Meaning, c.NotShown = it.Target, it.Value, it.Meaning, it.NotShown
	c.Raw = backend.Absent
	if it.Raw != nil {
		c.Raw = *it.Raw
	}
	c.Detail, c.Extra, c.Warnings, c.Notes = it.Detail, it.Extra, it.Warnings, notes
}
