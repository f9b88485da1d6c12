package knob

import "testing"

// nameCounting counts the calls of its Name.
type nameCounting struct {
	Knob
	calls *int
}

func (k nameCounting) Name() string { *k.calls++; return "name-counting" }

// Registering runs in every start's init, so it must not call the knob's
// methods (their code is spread over the binary); the catalogue is
// indexed by name on first use instead.
func TestRegisterLeavesIndexingToFirstUse(t *testing.T) {
	saved := registered
	t.Cleanup(func() { registered = saved })
	calls := 0
	register(nameCounting{calls: &calls})
	if calls != 0 {
		t.Fatalf("register called Name %d times", calls)
	}
}

func TestCatalogueIndexesEveryRegisteredKnob(t *testing.T) {
	if len(registered) == 0 {
		t.Fatal("no knob registered")
	}
	for _, k := range registered {
		got, err := Lookup(k.Name())
		if err != nil || got.Name() != k.Name() {
			t.Errorf("Lookup(%q) = %v, %v", k.Name(), got, err)
		}
	}
	if n := len(All()); n != len(registered) {
		t.Errorf("All gives %d knobs, %d registered", n, len(registered))
	}
}

// What latlab try reads of every knob: a scope it knows, a settle time
// for a change it switches live, a probe it has (or none, with the reason
// said by Unprobed or the TCP default). Only timer slack applies to the
// probe's own thread; every other knob changes the system through the
// journal.
func TestExperimentFacts(t *testing.T) {
	for _, k := range All() {
		e := k.Experiment()
		live := e.Pending == "" && !e.Restart
		switch {
		case e.Scope != ScopeProcess && e.Scope != ScopeSystem:
			t.Errorf("%s: scope %q", k.Name(), e.Scope)
		case (e.Scope == ScopeProcess) != (k.Name() == "timer-slack"):
			t.Errorf("%s: scope %s; only timer-slack applies to the probe's own thread", k.Name(), e.Scope)
		case live && e.Settle <= 0:
			t.Errorf("%s: changes live but settles in %v", k.Name(), e.Settle)
		case e.Probe != "" && e.Probe != ProbeSleep && e.Probe != ProbeUDP:
			t.Errorf("%s: probe %q is not one of try's", k.Name(), e.Probe)
		case e.Probe != "" && e.Unprobed != "":
			t.Errorf("%s: has probe %s and says none shows its effect: %q", k.Name(), e.Probe, e.Unprobed)
		}
	}
}
