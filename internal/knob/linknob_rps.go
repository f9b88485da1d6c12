package knob

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(rps{}) }

// rpsName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const rpsName = "rps"

type rps struct{ linuxKnob }

func (rps) Name() string { return rpsName }

// Selectors are the selector flags rps reads.
func (rps) Selectors() []string { return []string{SelIface, SelQueue} }
func (rps) Summary() string {
	return "receive packet steering: CPUs that do protocol processing for an rx queue (rps_cpus)"
}

func (rps) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: rpsName}
	if value == "" {
		ex.Text = []string{
			"/sys/class/net/IF/queues/rx-N/rps_cpus: a hex mask of the CPUs that run the network stack for packets of that queue.",
			"0 (the default) processes packets on the CPU that took the interrupt. Values here: a CPU list (0-3), a mask with 0x (0xf), or none.",
		}
		return ex, nil
	}
	cpus, err := parseRPS(value)
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		ex.Text = []string{"none: RPS off, packets are processed on the interrupted CPU"}
	} else {
		ex.Text = []string{fmt.Sprintf("CPUs %s (mask %s)", cpuset.FormatList(cpus), cpuset.FormatMask(cpus, ""))}
	}
	ex.Data = map[string]any{"cpus": cpus}
	return ex, nil
}

func parseRPS(value string) ([]int, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	switch {
	case v == "none" || v == "off":
		return nil, nil
	case strings.HasPrefix(v, "0x"):
		c, err := cpuset.ParseMask(v)
		if err != nil {
			return nil, badinput.Errorf("invalid rps mask %q: %v", value, err)
		}
		return c, nil
	}
	c, err := cpuset.ParseList(v)
	if err != nil {
		return nil, badinput.Errorf("invalid rps value %q: accepted a CPU list (0-3), a mask with 0x (0xf) or none", value)
	}
	return c, nil
}

type rxQueue struct{ iface, queue string }

func rpsLoc(iface, queue string) backend.Loc {
	return fileLoc("sys/class/net/" + iface + "/queues/" + queue + "/rps_cpus")
}

// selectIfaces returns the named network interface, or every one when
// none is named.
func selectIfaces(env *Env, iface string) ([]string, error) {
	ifaces, _, err := env.list(backend.BackendFile, "sys/class/net")
	if err != nil {
		return nil, fmt.Errorf("list network interfaces: %w", err)
	}
	if iface == "" {
		return ifaces, nil
	}
	if !slices.Contains(ifaces, iface) {
		return nil, badinput.Errorf("unknown interface %q: accepted %s", iface, strings.Join(ifaces, ", "))
	}
	return []string{iface}, nil
}

func rxQueues(env *Env, sel Selector) ([]rxQueue, error) {
	ifaces, err := selectIfaces(env, sel.Iface)
	if err != nil {
		return nil, err
	}
	var qs []rxQueue
	for _, ifc := range ifaces {
		dirs, _, err := env.list(backend.BackendFile, "sys/class/net/"+ifc+"/queues")
		if err != nil {
			continue
		}
		for _, d := range dirs {
			if strings.HasPrefix(d, "rx-") && (sel.Queue == "" || sel.Queue == d) {
				qs = append(qs, rxQueue{ifc, d})
			}
		}
	}
	if sel.Queue != "" && len(qs) == 0 {
		return nil, badinput.Errorf("no rx queue %q on %s", sel.Queue, sel.Iface)
	}
	return qs, nil
}

func (k rps) Get(env *Env, sel Selector) (*Reading, error) {
	qs, err := rxQueues(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, q := range qs {
		l := rpsLoc(q.iface, q.queue)
		s, v, err := readText(env, l)
		if err != nil || v.IsAbsent() {
			continue
		}
		cpus, err := cpuset.ParseMask(s)
		m := "off: packets are processed on the interrupted CPU"
		if err != nil {
			m = "unreadable mask " + s
		} else if len(cpus) > 0 {
			m = "steered to CPUs " + cpuset.FormatList(cpus)
		}
		r.Items = append(r.Items, item(q.iface+" "+q.queue, l, v, m))
	}
	return r, nil
}

func (k rps) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Iface == "" {
		return nil, badinput.Errorf("rps needs --iface NAME (and optionally --queue rx-N; default all rx queues)")
	}
	qs, err := rxQueues(env, sel)
	if err != nil {
		return nil, err
	}
	cpus, err := parseRPS(value)
	if err != nil {
		return nil, err
	}
	if err := checkOnline(env, cpus); err != nil {
		return nil, err
	}
	target := sel.Iface
	if sel.Queue != "" {
		target += " " + sel.Queue
	}
	p := &Plan{Knob: k.Name(), Target: target, Request: value}
	for _, q := range qs {
		l := rpsLoc(q.iface, q.queue)
		s, v, err := readText(env, l)
		if err != nil {
			return nil, err
		}
		if v.IsAbsent() {
			continue // kernels without CONFIG_RPS
		}
		if err := p.add(env, l, backend.FileValue(cpuset.FormatMask(cpus, s)+"\n")); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (k rps) Vet(target string, l backend.Loc, v backend.Value) error {
	iface, queue, _ := strings.Cut(target, " ")
	if !validIface(iface) || (queue != "" && !isRxQueue(queue)) {
		return fmt.Errorf("%s target %q is not an interface and an optional rx queue", k.Name(), target)
	}
	rest, ok := strings.CutPrefix(l.Path, "sys/class/net/"+iface+"/queues/")
	q, _, _ := strings.Cut(rest, "/")
	if !ok || !isRxQueue(q) || (queue != "" && q != queue) || l != rpsLoc(iface, q) {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, err := cpuset.ParseMask(s); err != nil {
		return fmt.Errorf("%q is not a CPU mask", s)
	}
	return nil
}

// Checkup is what the check-up knows of rps: its default, how its
// instances are read and the verdict rules.
func (rps) Checkup() Checkup {
	return Checkup{Default: text("0 (off)"), Rules: rpsRules}
}

// Experiment is how a change of rps takes effect for latlab try.
func (rps) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeUDP}
}

// Cases gathers the check-up's cases of rps: one per physical network
// interface with rx queues, standing for them (a QueueGroup).
func (k rps) Cases(env *Env) []*Case {
	var cs []*Case
	for _, ifc := range physicalIfaces(env) {
		r, err := k.Get(env, Selector{Iface: ifc})
		if err != nil {
			c := baseCase(env, k)
			c.Target, c.Err = ifc, err
			cs = append(cs, c)
			continue
		}
		if len(r.Items) == 0 {
			continue // no rx queues in sysfs (kernels without CONFIG_RPS)
		}
		c := baseCase(env, k)
		c.Target = ifc
		var q QueueGroup
		var steered []string
		for _, it := range r.Items {
			on := !strings.HasPrefix(it.Meaning, "off")
			q = append(q, Instance{Name: strings.TrimPrefix(it.Target, ifc+" "), Value: it.Value, Steered: on})
			if on {
				steered = append(steered, strings.TrimPrefix(it.Target, ifc+" ")+" "+it.Meaning)
			}
		}
		c.Detail = q
		if len(steered) == 0 {
			c.Value = fmt.Sprintf("0 on %d rx queue(s)", len(r.Items))
			c.Meaning = "off: packets are processed on the interrupted CPU"
		} else {
			c.Value = fmt.Sprintf("set on %d of %d rx queue(s)", len(steered), len(r.Items))
			c.Meaning = strings.Join(steered, "; ")
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty = true
		cs = append(cs, c)
	}
	return cs
}

var rpsRules = []Rule{
	{ID: "rps-none", Verdict: Default, When: "no network interface with rx queues",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network interface with rx queues was found")},
	{ID: "rps-off", Verdict: Default, When: "0 on every rx queue",
		Match: func(c *Case) bool {
			for _, g := range queueGroup(c) {
				if g.Steered {
					return false
				}
			}
			return true
		},
		Reason:   func(c *Case) string { return c.Meaning },
		Evidence: func(c *Case) string { return quote(rpsName, "", "0 (the default)") }},
	{ID: "rps-set", Verdict: Changed, When: "a CPU mask on some rx queue",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
