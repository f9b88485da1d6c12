package knob

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(coalescing{}) }

// coalescingName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const coalescingName = "coalescing"

type coalescing struct{ linuxKnob }

func coalesceLoc(iface string) backend.Loc {
	return backend.Loc{Backend: backend.BackendEthtool, Path: iface, Name: "coalesce"}
}

func (coalescing) Name() string { return coalescingName }

// Selectors are the selector flags coalescing reads.
func (coalescing) Selectors() []string { return []string{SelIface} }
func (coalescing) Summary() string {
	return "interrupt coalescing of a network interface: how long and how many packets the NIC waits before interrupting (ethtool -c/-C)"
}

func (coalescing) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: coalescingName}
	if value == "" {
		ex.Text = []string{
			"ethtool coalesce parameters (ETHTOOL_GCOALESCE/SCOALESCE). The NIC raises an interrupt after rx-usecs µs or rx-frames packets, whichever first;",
			"0 µs with 1 frame interrupts per packet (lowest latency, most CPU); adaptive-rx lets the driver choose. Names as in ethtool -C:",
			"  " + strings.Join(backend.CoalesceNames(), " "),
		}
		return ex, nil
	}
	set, err := ParseCoalesce(value)
	if err != nil {
		return nil, err
	}
	for _, kv := range set {
		ex.Text = append(ex.Text, fmt.Sprintf("%s = %d: %s", kv.Name, kv.Value, backend.CoalesceFields()[kv.index].Desc))
	}
	return ex, nil
}

func (k coalescing) Get(env *Env, sel Selector) (*Reading, error) {
	if err := env.available(backend.BackendEthtool); err != nil {
		// One answer whatever the tree holds: under --root the
		// interfaces it lists are not this machine's to ask.
		return &Reading{Knob: k.Name(), Items: []Item{{Value: "not available", Meaning: err.Error()}}}, nil
	}
	ifaces, err := selectIfaces(env, sel.Iface)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, ifc := range ifaces {
		l := coalesceLoc(ifc)
		v, err := env.read(l)
		if err != nil {
			it := Item{Target: ifc, Value: "-", Meaning: err.Error()}
			if errors.Is(err, backend.ErrNotSupported) {
				it.Meaning = "not supported by the driver"
			}
			r.Items = append(r.Items, it)
			continue
		}
		c, err := backend.DecodeCoalesce(v)
		if err != nil {
			return nil, err
		}
		it := item(ifc, l, v, c.Meaning())
		it.Value = c.Short()
		it.Detail = c
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k coalescing) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Iface == "" {
		return nil, badinput.Errorf("coalescing needs --iface NAME")
	}
	if err := env.available(backend.BackendEthtool); err != nil {
		return nil, err
	}
	if _, err := selectIfaces(env, sel.Iface); err != nil {
		return nil, err
	}
	set, err := ParseCoalesce(value)
	if err != nil {
		return nil, err
	}
	l := coalesceLoc(sel.Iface)
	v, err := env.read(l)
	if errors.Is(err, backend.ErrNotSupported) {
		return nil, badinput.Errorf("%s: the driver does not support interrupt coalescing settings (ethtool -c fails the same way)", sel.Iface)
	}
	if err != nil {
		return nil, err
	}
	c, err := backend.DecodeCoalesce(v)
	if err != nil {
		return nil, err
	}
	for _, kv := range set {
		c[kv.index] = kv.Value
	}
	p := &Plan{Knob: k.Name(), Target: sel.Iface, Request: value}
	p.Notes = append(p.Notes, "drivers accept only some parameters; one they reject fails the whole change, which is then not applied")
	return p, p.add(env, l, c.Value())
}

func (k coalescing) Vet(target string, l backend.Loc, v backend.Value) error {
	if !validIface(target) || l != coalesceLoc(target) {
		return notMine(k.Name(), target, l)
	}
	if len(v.Data) > 4096 {
		return fmt.Errorf("%d bytes, more than coalesce parameters take", len(v.Data))
	}
	_, err := backend.DecodeCoalesce(v)
	return err
}

// Checkup is what the check-up knows of coalescing: its default, how its
// instances are read and the verdict rules.
func (coalescing) Checkup() Checkup {
	return Checkup{Default: text("the driver's"), Rules: coalescingRules}
}

// Experiment is how a change of coalescing takes effect for latlab try.
func (coalescing) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeUDP}
}

// Cases gathers the check-up's cases of coalescing: one reading per
// physical network interface; an interface the driver cannot report on is
// a failed case.
func (k coalescing) Cases(env *Env) []*Case {
	if err := env.available(backend.BackendEthtool); err != nil {
		c := baseCase(env, k)
		c.Value, c.Meaning, c.Err = "not available", err.Error(), err
		return []*Case{c}
	}
	var cs []*Case
	for _, ifc := range physicalIfaces(env) {
		for _, c := range readCases(env, k, Selector{Iface: ifc}) {
			if c.Err == nil && c.Detail == nil && !c.Empty {
				// The reading keeps a failed interface as an item whose
				// meaning is the error.
				c.Err = errors.New(c.Meaning)
				if c.Meaning == "not supported by the driver" {
					c.Err = fmt.Errorf("the driver of %s does not support coalescing settings (ethtool -c fails the same way)", ifc)
				}
			}
			c.Target = ifc
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty = true
		cs = append(cs, c)
	}
	return cs
}

var coalescingRules = []Rule{
	{ID: "coal-none", Verdict: Default, When: "no network interface backed by a device",
		Match:     func(c *Case) bool { return c.Empty },
		Reason:    text("no network interface backed by a device was found"),
		IsDefault: func(c *Case) *bool { return nil }},
	{ID: "coal-read", Verdict: Default, When: "any setting (latlab cannot tell a driver's default)",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; drivers differ in their defaults, so latlab cannot tell whether this was changed"
		},
		Evidence:  func(c *Case) string { return quote(coalescingName, "", "lowest latency") },
		IsDefault: func(c *Case) *bool { return nil }},
}
