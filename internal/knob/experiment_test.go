package knob

import (
	"strings"
	"testing"
)

// A knob that try can run but no probe of try measures says why, in its
// own words: the fallback note is about TCP loss recovery, and
// swappiness, ksm, numa-balancing and transparent-hugepages once got it.
func TestUnprobedKnobsSayWhy(t *testing.T) {
	for _, k := range All() {
		e := k.Experiment()
		if e.Probe != "" || e.Pending != "" || e.Unprobed != "" {
			continue
		}
		if !strings.HasPrefix(k.Name(), "tcp-") {
			t.Errorf("%s: no probe of try measures it and Experiment.Unprobed does not say why", k.Name())
		}
	}
}
