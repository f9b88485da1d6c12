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
