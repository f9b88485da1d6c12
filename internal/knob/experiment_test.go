package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
)

// Only timer slack applies to the probe's own thread; every other knob
// changes the system through the journal. (Each knob's conformance test
// checks the rest of what latlab try reads of it.)
func TestOnlyTimerSlackIsProcessScoped(t *testing.T) {
	for _, k := range knob.All() {
		if s := k.Experiment().Scope; (s == knob.ScopeProcess) != (k.Name() == "timer-slack") {
			t.Errorf("%s: scope %s; only timer-slack applies to the probe's own thread", k.Name(), s)
		}
	}
}
