package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/try"
)

// Setting is one audited instance of a knob.
type Setting struct {
	Knob    string `json:"knob"`
	Target  string `json:"target,omitempty"` // the instance: an adapter, an interface
	Value   string `json:"value"`
	Meaning string `json:"meaning,omitempty"`
	Default string `json:"default"` // the OS default, in the knob's terms
	// IsDefault says whether the value is the default; absent when that
	// cannot be told.
	IsDefault *bool        `json:"is_default,omitempty"`
	Verdict   knob.Verdict `json:"verdict"`
	Reason    string       `json:"reason"`
	// Evidence is what the verdict rests on, quoted from the knob's own
	// explanation or reading (the research behind the value).
	Evidence string `json:"evidence,omitempty"`
	Rule     string `json:"rule"` // the rule that decided
	// References are the values published tuning profiles set for the
	// knob (tuned's latency-performance...), which the rules cite.
	References []knob.Reference `json:"references,omitempty"`
	// Journal is the entry of latlab's own journal when latlab changed the
	// setting and has not put it back (a `latlab try` that was killed).
	Journal *JournalEntry `json:"journal,omitempty"`
	next    *Step
	try     *Step // the latlab try experiment that measures it
}

// Audit reads every knob of the catalogue that belongs to osName through
// env and judges each instance with the rules. Nothing is written.
func Audit(env *knob.Env, osName string) []Setting {
	var out []Setting
	for _, k := range knob.All() {
		if k.OS() != osName {
			continue
		}
		for _, c := range collect(env, osName, k) {
			out = append(out, judge(c))
		}
	}
	if j := knob.ReadJournal(env); j != nil {
		if r, open, err := try.Unfinished(j); err == nil && r != nil {
			markUnfinished(out, r, open)
		}
	}
	return out
}

// JournalEntry is what the check-up says of a change latlab itself made.
type JournalEntry struct {
	ID       int    `json:"id"`
	Time     string `json:"time"`     // RFC 3339
	Request  string `json:"request"`  // the value latlab set, as it was asked
	Original string `json:"original"` // what `latlab knob revert` puts back
}

// markUnfinished tells the settings an experiment left changed (a
// `latlab try` killed before it could restore them) from the ones someone
// chose: such a value is not one to measure against the old one, but a
// change latlab left behind, which knob revert takes back exactly.
func markUnfinished(ss []Setting, r *try.Record, open []journal.Entry) {
	for i := range ss {
		s := &ss[i]
		for _, e := range open {
			if e.Knob != s.Knob || (e.Target != "" && s.Target != "" && e.Target != s.Target) {
				continue
			}
			s.Journal = &JournalEntry{ID: e.ID, Time: e.Time.UTC().Format(time.RFC3339), Request: e.Request, Original: e.Original.String()}
			s.Reason = fmt.Sprintf("latlab changed this itself: %q set it to %s (journal entry %d, %s) and stopped before restoring %s; %s",
				r.Command, e.Request, e.ID, e.Time.UTC().Format("2006-01-02 15:04 UTC"), e.Original.String(), s.Reason)
			s.try = nil
			s.next = &Step{Command: "latlab knob revert",
				Why:     fmt.Sprintf("an experiment latlab did not finish left %s changed (journal entry %d): revert puts back %s", s.Knob, e.ID, e.Original.String()),
				Benefit: 90}
			break
		}
	}
}

// judge applies the first matching rule of the case's knob (the generic
// rules for unreadable values come first).
func judge(c *knob.Case) Setting {
	s := Setting{Knob: c.Knob, Target: c.Target, Value: c.Value, Meaning: c.Meaning, Default: defaultOf(c.Knob, c)}
	if k, err := knob.Lookup(c.Knob); err == nil {
		s.References = k.Checkup().References
	}
	for i := range Rules {
		r := &Rules[i]
		if (r.Knob != "*" && r.Knob != c.Knob) || !r.Match(c) {
			continue
		}
		s.Rule, s.Verdict, s.Reason = r.ID, r.Verdict, r.Reason(c)
		if r.Evidence != nil {
			s.Evidence = r.Evidence(c)
		}
		if r.Next != nil {
			s.next = (*Step)(r.Next(c))
		}
		s.try = tryStep(c, s)
		switch {
		case r.IsDefault != nil:
			s.IsDefault = r.IsDefault(c)
		case r.Verdict == knob.Default:
			s.IsDefault = boolPtr(true)
		case r.Verdict != knob.Unknown:
			s.IsDefault = boolPtr(false)
		}
		switch {
		case r.Verdict == knob.Unknown && c.Privilege != "":
			s.Value = "unknown (needs " + c.Privilege + ")"
		case s.Value != "":
		case c.Empty:
			s.Value = "(none)"
		case r.Verdict == knob.Unknown:
			s.Value = "unknown"
		}
		return s
	}
	// Every knob ends its rules with a catch-all; reaching here is a gap
	// in the table, reported rather than hidden.
	s.Rule, s.Verdict, s.Reason = "no-rule", knob.Unknown, "latlab has no rule for this value"
	return s
}

func boolPtr(b bool) *bool { return &b }

// collect reads one knob into cases.
func collect(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	switch k.Checkup().Gather {
	case knob.GatherRequests:
		return collectDisplay(env, osName, k)
	case knob.GatherQueueIRQs:
		return collectIRQ(env, osName, k)
	case knob.GatherRxQueues:
		return collectRPS(env, osName, k)
	case knob.GatherInterfaces:
		return collectCoalescing(env, osName, k)
	case knob.GatherOwn:
		return collectSlack(env, osName, k)
	}
	return readCases(env, osName, k, knob.Selector{})
}

// collectSlack reads latlab's own slack: what the program that started it
// passed on, since slack is inherited over fork and exec.
func collectSlack(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	cs := readCases(env, osName, k, knob.Selector{})
	for _, c := range cs {
		c.Target = "latlab's own"
	}
	return cs
}

func baseCase(env *knob.Env, k knob.Knob) *knob.Case {
	return &knob.Case{Knob: k.Name(), Build: env.Build, Server: env.Server}
}

// readCases is a knob's reading, one case per item.
func readCases(env *knob.Env, osName string, k knob.Knob, sel knob.Selector) []*knob.Case {
	r, err := k.Get(env, sel)
	if err != nil {
		c := baseCase(env, k)
		c.Err, c.Privilege = err, privilegeFor(env, osName, err)
		return []*knob.Case{c}
	}
	var cs []*knob.Case
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

func fill(c *knob.Case, it knob.Item, notes []string) {
	c.Target, c.Value, c.Meaning = it.Target, it.Value, it.Meaning
	c.Raw = backend.Absent
	if it.Raw != nil {
		c.Raw = *it.Raw
	}
	c.Detail, c.Extra, c.Warnings, c.Notes = it.Detail, it.Extra, it.Warnings, notes
}

// privilegeFor names the privilege a failed read lacks, or "" when the
// failure is something else.
func privilegeFor(env *knob.Env, osName string, err error) string {
	denied := errors.Is(err, fs.ErrPermission)
	if !denied && env.Privileged != nil && env.Privileged() != nil {
		// bcdedit says only "Access is denied" in its output.
		l := strings.ToLower(err.Error())
		denied = strings.Contains(l, "denied") || strings.Contains(l, "privilege")
	}
	if !denied {
		return ""
	}
	if osName == "windows" {
		return "Administrator"
	}
	return "root"
}

// --- grouped and filtered collectors ---------------------------------------

// collectDisplay keeps the requested scalings (not the active paths, which
// are facts about them) and numbers the configurations: their ids carry
// the monitors' EDID serial numbers, which a shared check-up must not.
func collectDisplay(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	r, err := k.Get(env, knob.Selector{})
	if err != nil {
		c := baseCase(env, k)
		c.Err, c.Privilege = err, privilegeFor(env, osName, err)
		return []*knob.Case{c}
	}
	var cs []*knob.Case
	var active []uint32
	for _, it := range r.Items {
		if it.Loc == nil {
			if p, ok := it.Detail.(knob.DisplayPath); ok {
				active = append(active, p.Scaling)
			}
			continue // an active path (QueryDisplayConfig)
		}
		c := baseCase(env, k)
		fill(c, it, r.Notes)
		c.Target = fmt.Sprintf("configuration %d", len(cs)+1)
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty, c.Notes = true, r.Notes
		if len(active) > 0 {
			// The same answer knob list gives: nothing stored, and
			// what the active paths use.
			c.Value = "none stored; in use: " + knob.ScalingNames(active)
		}
		cs = append(cs, c)
	}
	for _, c := range cs {
		c.ActiveScaling = active
	}
	return cs
}

// physicalIfaces are the network interfaces backed by a device (not lo,
// bridges, ifb): the ones with queues, IRQs and coalescing.
func physicalIfaces(env *knob.Env) []string {
	return physicalNICs(netInfo(filesRoot(env)))
}

func filesRoot(env *knob.Env) string {
	if fb, ok := env.Backends[backend.BackendFile].(backend.Files); ok {
		return fb.Root
	}
	return ""
}

func collectIRQ(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	root := filesRoot(env)
	online := onlineCount(root)
	ni := netInfo(root)
	var cs []*knob.Case
	for _, ifc := range physicalNICs(ni) {
		c := baseCase(env, k)
		c.Target = ifc
		for _, q := range queueIRQs(ni, ifc) {
			c.Group = append(c.Group, knob.Instance{Name: q.N, Allowed: q.Allowed, Delivered: q.Delivered, Online: online})
		}
		if len(c.Group) == 0 {
			continue
		}
		var parts []string
		for _, g := range c.Group {
			parts = append(parts, fmt.Sprintf("%s:cpu%s", g.Name, knob.OrDash(g.Delivered)))
		}
		c.Value = strings.Join(parts, " ")
		c.Meaning = fmt.Sprintf("%d queue interrupts (irq:cpu delivered to); allowed CPUs %s", len(c.Group), knob.AllowedSummary(c.Group))
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		c := baseCase(env, k)
		c.Empty = true
		cs = append(cs, c)
	}
	return cs
}

func collectRPS(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	var cs []*knob.Case
	for _, ifc := range physicalIfaces(env) {
		r, err := k.Get(env, knob.Selector{Iface: ifc})
		if err != nil {
			c := baseCase(env, k)
			c.Target, c.Err, c.Privilege = ifc, err, privilegeFor(env, osName, err)
			cs = append(cs, c)
			continue
		}
		if len(r.Items) == 0 {
			continue // no rx queues in sysfs (kernels without CONFIG_RPS)
		}
		c := baseCase(env, k)
		c.Target = ifc
		var steered []string
		for _, it := range r.Items {
			on := !strings.HasPrefix(it.Meaning, "off")
			c.Group = append(c.Group, knob.Instance{Name: strings.TrimPrefix(it.Target, ifc+" "), Value: it.Value, Steered: on})
			if on {
				steered = append(steered, strings.TrimPrefix(it.Target, ifc+" ")+" "+it.Meaning)
			}
		}
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

func collectCoalescing(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	var cs []*knob.Case
	for _, ifc := range physicalIfaces(env) {
		for _, c := range readCases(env, osName, k, knob.Selector{Iface: ifc}) {
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

// defaultOf states a knob's OS default in the knob's own terms.
func defaultOf(name string, c *knob.Case) string {
	k, err := knob.Lookup(name)
	if err != nil || k.Checkup().Default == nil {
		return ""
	}
	return k.Checkup().Default(c)
}
