package try

import (
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// A knob that takes effect only after a reboot, a sign-in or an adapter
// restart is refused in one line that says why and gives the two runs
// that measure it by hand.
func TestTryRefusalSaysWhyAndHow(t *testing.T) {
	n := 0
	for _, in := range infos() {
		name := in.Name
		if in.Live() {
			continue
		}
		n++
		err := refusal(in, []string{"1"}, "latlab wake")
		msg := err.Error()
		if !badinput.Is(err) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q: want one line of bad input", name, msg)
		}
		for _, want := range []string{name, "latlab wake -o before.json", "latlab knob set " + name + " 1", "latlab wake -o after.json", "latlab compare before.json after.json"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", name, msg, want)
			}
		}
		switch {
		case in.Restart && !strings.Contains(msg, "restart the adapter"):
			t.Errorf("%s: %q does not say the adapter must restart", name, msg)
		case in.Pending != "" && !strings.Contains(msg, in.Pending):
			t.Errorf("%s: %q does not say %q", name, msg, in.Pending)
		}
	}
	if n < 7 {
		t.Errorf("only %d knobs refused", n)
	}
}

// The order gives every arm one block per round, is the same for the same
// seed and differs between seeds.
func TestTryOrder(t *testing.T) {
	for _, arms := range []int{2, 3, 5} {
		o := Order(arms, 8, 42)
		if len(o) != arms*8 {
			t.Fatalf("%d arms: %d blocks", arms, len(o))
		}
		for r := 0; r < 8; r++ {
			round := slices.Clone(o[r*arms : r*arms+arms])
			slices.Sort(round)
			for i, a := range round {
				if a != i {
					t.Fatalf("%d arms, round %d: %v is not every arm once", arms, r, o[r*arms:r*arms+arms])
				}
			}
		}
		if !slices.Equal(o, Order(arms, 8, 42)) {
			t.Errorf("%d arms: seed 42 gave two orders", arms)
		}
		if slices.Equal(o, Order(arms, 8, 43)) {
			t.Errorf("%d arms: seeds 42 and 43 gave the same order", arms)
		}
	}
	// Over many seeds each arm comes first in a round about as often.
	first := 0
	for s := uint64(0); s < 200; s++ {
		for r, o := 0, Order(2, 8, s); r < 8; r++ {
			if o[2*r] == 0 {
				first++
			}
		}
	}
	if first < 700 || first > 900 {
		t.Errorf("the baseline came first in %d of 1600 rounds", first)
	}
}
