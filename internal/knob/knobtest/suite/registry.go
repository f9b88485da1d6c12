package suite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
)

// Registry is a knob of the Windows registry (or the BCD store) over an
// in-memory registry (knobtest.Mem), and what it must do there. The knobs
// are logic over the backend, so the suite runs them on any OS.
type Registry struct {
	Knob string
	Sel  knob.Selector
	// Build and Server are the Windows the machine runs (Env.Build,
	// Env.Server).
	Build  uint32
	Server bool
	// Values are the fixture: the registry's values (a Key value makes a
	// key without values) and, with Backend BCD, the boot store's.
	Values []Value
	// Env, when set, adds to the Env what the knob reads beyond the two
	// stores (the display paths, say), for every part of the suite.
	Env     func(t *testing.T, e *knob.Env)
	Explain []string
	// Set are values to set and the values each leaves (Absent: the value
	// is gone); every one is reverted, and both stores must then be as
	// they were.
	Set     []RegSet
	Bad     map[string]string
	Foreign []Place
	// Rules are the fixture with these values changed (Absent removes
	// one) and the rule its reading reaches; together they must reach
	// every rule of the knob.
	Rules []RegRule
	More  bool
}

// Value is a stored value at a registry (or BCD) location.
type Value struct {
	Loc   backend.Loc
	Value backend.Value
}

// Reg is a registry value at key path, name.
func Reg(path, name string, v backend.Value) Value {
	return Value{Loc: backend.Loc{Backend: backend.BackendRegistry, Path: path, Name: name}, Value: v}
}

// RegPlace is a Place of the registry, for Vet.
func RegPlace(path, name string, v backend.Value, target string) Place {
	return Place{Loc: backend.Loc{Backend: backend.BackendRegistry, Path: path, Name: name}, Value: v, Target: target}
}

// RegSet is a value to set and the values it leaves.
type RegSet struct {
	Value    string
	Values   []Value
	NoChange bool
}

// RegRule is a change of the fixture and the rule its reading reaches (as
// Rule).
type RegRule struct {
	Values   []Value
	Env      func(t *testing.T, e *knob.Env)
	Rule     string
	ByTarget map[string]string
	Reason   string
}

// RunRegistry runs the suite on c.
func RunRegistry(t *testing.T, c Registry) {
	t.Helper()
	sp := spec{Knob: c.Knob, Sel: c.Sel, Explain: c.Explain, Bad: c.Bad, Foreign: c.Foreign, More: c.More, Env: c.Env}
	sp.newEnv = func(t *testing.T, rule int) (*knob.Env, func() map[string]string) {
		reg, bcd := knobtest.NewMem(), knobtest.NewMem()
		put := func(vs []Value) {
			for _, v := range vs {
				m := reg
				if v.Loc.Backend == backend.BackendBCD {
					m = bcd
				}
				switch {
				case v.Value.IsAbsent(): // a value, or an emptied key
					if err := m.Write(v.Loc, backend.Absent); err != nil {
						t.Fatal(err)
					}
				case v.Value.Type == backend.TypeKey || (v.Loc.Name == "" && v.Loc.Backend == backend.BackendRegistry):
					m.CreateKey(v.Loc.Path)
				default:
					m.Set(v.Loc.Path, v.Loc.Name, v.Value)
				}
			}
		}
		put(c.Values)
		e := &knob.Env{
			Backends: map[string]backend.Backend{backend.BackendRegistry: reg, backend.BackendBCD: bcd},
			Build:    c.Build, Server: c.Server, TickMs: 15.625,
			Privileged: func() error { return nil },
		}
		if c.Env != nil {
			c.Env(t, e)
		}
		if rule >= 0 {
			put(c.Rules[rule].Values)
			if f := c.Rules[rule].Env; f != nil {
				f(t, e)
			}
		}
		return e, func() map[string]string {
			out := map[string]string{}
			for k, v := range reg.Snapshot() {
				out["reg "+k] = v
			}
			for k, v := range bcd.Snapshot() {
				out["bcd "+k] = v
			}
			return out
		}
	}
	for _, st := range c.Set {
		s := setSpec{Value: st.Value, NoChange: st.NoChange, Want: map[string]string{}}
		for _, v := range st.Values {
			key, want := entry(v)
			s.Want[key] = want
		}
		sp.Set = append(sp.Set, s)
	}
	for _, r := range c.Rules {
		var what []string
		for _, v := range r.Values {
			what = append(what, fmt.Sprintf("%s=%s", v.Loc, v.Value))
		}
		sp.Rules = append(sp.Rules, ruleSpec{What: "[" + strings.Join(what, " ") + "]", Rule: r.Rule, ByTarget: r.ByTarget, Reason: r.Reason})
	}
	run(t, sp)
}

// entry is v's entry in the snapshot of the two stores (knobtest.Mem's).
func entry(v Value) (string, string) {
	store := "reg "
	if v.Loc.Backend == backend.BackendBCD {
		store = "bcd "
	}
	key := store + "val:" + strings.ToLower(v.Loc.Path) + "\x00" + strings.ToLower(v.Loc.Name)
	if v.Value.IsAbsent() {
		return key, absentEntry
	}
	return key, fmt.Sprintf("%s %x", v.Value.Type, v.Value.Data)
}
