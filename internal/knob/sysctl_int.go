package knob

import (
	"fmt"
	"strconv"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// intSysctl is a knob of one /proc/sys file that holds one integer:
// swappiness, stat-interval, numa-balancing, timer-migration, tcp-dsack,
// sched-autogroup. A knob of this kind is its location, the values it
// takes, what each means and its check-up rules; the reading, planning,
// vetting and explaining are the same for all and live here.
type intSysctl struct {
	linuxKnob
	name, summary string
	loc           backend.Loc
	// lacks names the feature (and its build option) of a kernel without
	// the file; absent says how such a kernel is reported.
	lacks  string
	absent sysctlAbsence
	// parse takes a requested value; accepted ends the message that
	// refuses another ("accepted 0|1|on|off").
	parse    func(string) (int, bool)
	accepted string
	// meaning says what a value the file holds means.
	meaning func(string) string
	// explain is the general explanation; a value's explanation is its
	// meaning, after "n: " when numbered, with data as its Data.
	explain  []string
	numbered bool
	data     func(n int) map[string]any
	// vet checks a value the file may hold; nil takes any integer.
	vet func(backend.Value) error
	// refuse, when set, refuses a value this kernel does not take (a
	// range older releases had); notes, when set, are the plan's notes.
	refuse func(env *Env, n int, value string) error
	notes  func(env *Env, n int) []string
	// facts, when set, adds to the reading what the check-up needs
	// beside the value (the swap areas, the NUMA nodes).
	facts      func(env *Env, r *Reading)
	checkup    Checkup
	experiment Experiment
}

// sysctlAbsence is how a knob reports a kernel without its file.
type sysctlAbsence int

const (
	// absentNotPresent: an item "not present: this kernel has no ..."
	// (or that the tree does not show it: absence.go).
	absentNotPresent sysctlAbsence = iota
	// absentSysctlName: an item naming the sysctl ("kernel.x does not
	// exist: this kernel has no ...", or "kernel.x is not in this tree:
	// ...").
	absentSysctlName
	// absentFails: the reading fails; a plan writes without looking.
	absentFails
)

func (k *intSysctl) Name() string     { return k.name }
func (k *intSysctl) Summary() string  { return k.summary }
func (k *intSysctl) Checkup() Checkup { return k.checkup }

func (k *intSysctl) Experiment() Experiment { return k.experiment }

// parseValue takes a requested value or says, as bad input, what is
// accepted.
func (k *intSysctl) parseValue(value string) (int, error) {
	n, ok := k.parse(value)
	if !ok {
		return 0, badinput.Errorf("invalid %s %q: %s", k.name, value, k.accepted)
	}
	return n, nil
}

func (k *intSysctl) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: k.name}
	if value == "" {
		ex.Text = k.explain
		return ex, nil
	}
	n, err := k.parseValue(value)
	if err != nil {
		return nil, err
	}
	m := k.meaning(strconv.Itoa(n))
	if k.numbered {
		m = fmt.Sprintf("%d: %s", n, m)
	}
	ex.Text = []string{m}
	ex.Data = k.data(n)
	return ex, nil
}

func (k *intSysctl) Get(env *Env, sel Selector) (*Reading, error) {
	var it Item
	switch k.absent {
	case absentFails:
		return sysctlGet(env, k.name, k.loc, k.meaning)
	case absentSysctlName:
		s, v, err := readText(env, k.loc)
		if err != nil {
			return nil, err
		}
		if v.IsAbsent() {
			if it, err = sysctlAbsentItem(env, k.loc, v, k.lacks); err != nil {
				return nil, err
			}
		} else {
			it = item("", k.loc, v, k.meaning(s))
		}
	default:
		var err error
		if it, err = sysItem(env, k.loc, k.lacks, k.meaning); err != nil {
			return nil, err
		}
	}
	r := &Reading{Knob: k.name, Items: []Item{it}}
	if k.facts != nil {
		k.facts(env, r)
	}
	return r, nil
}

func (k *intSysctl) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, err := k.parseValue(value)
	if err != nil {
		return nil, err
	}
	if k.refuse != nil {
		if err := k.refuse(env, n, value); err != nil {
			return nil, err
		}
	}
	switch k.absent {
	case absentNotPresent:
		if err := mustExist(env, k.loc, k.lacks); err != nil {
			return nil, err
		}
	case absentSysctlName:
		if v, err := env.read(k.loc); err != nil {
			return nil, err
		} else if v.IsAbsent() {
			return nil, sysctlAbsentError(env, k.loc, k.lacks)
		}
	}
	p := &Plan{Knob: k.name, Request: value}
	if k.notes != nil {
		p.Notes = append(p.Notes, k.notes(env, n)...)
	}
	return p, p.add(env, k.loc, backend.FileValue(fmt.Sprintf("%d\n", n)))
}

func (k *intSysctl) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.name, target); err != nil {
		return err
	}
	if l != k.loc {
		return notMine(k.name, target, l)
	}
	if k.vet != nil {
		return k.vet(v)
	}
	return fileInt(v)
}

// intRange parses a decimal integer in [lo, hi], for intSysctl.parse.
func intRange(lo, hi int) func(string) (int, bool) {
	return func(s string) (int, bool) { return parseIntIn(s, lo, hi) }
}

// boolData is the Data of a 0|1 knob's explained value.
func boolData(n int) map[string]any { return map[string]any{"enabled": n == 1} }

// vetBool01 takes what a 0|1 sysctl file can hold.
func vetBool01(v backend.Value) error { return vetSysctlInt(v, 0, 1) }
