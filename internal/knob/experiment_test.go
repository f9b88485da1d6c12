package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

// What latlab try reads of every knob of the catalogue (suite.Experiment;
// the knobs that run the whole suite check it there too). Only timer
// slack applies to the probe's own thread; every other knob changes the
// system through the journal.
func TestExperimentFacts(t *testing.T) {
	for _, k := range knob.All() {
		suite.Experiment(t, k)
		if s := k.Experiment().Scope; (s == knob.ScopeProcess) != (k.Name() == "timer-slack") {
			t.Errorf("%s: scope %s; only timer-slack applies to the probe's own thread", k.Name(), s)
		}
	}
}
