package try

import (
	"slices"
	"testing"

	"github.com/latlab/latlab/internal/probe"
)

// A wake block whose thread was held off its CPU for the whole block has
// its one wake-up, the warm-up, as its sample: left empty, it would be
// left out as incomplete, and an arm that starves the thread would lose
// exactly its worst blocks. A block that measured keeps its samples, and
// its warm-up stays out.
func TestStarvedSample(t *testing.T) {
	starved := &probe.WakeResult{Threads: []probe.WakeThread{{WarmupNs: 1_600_000_000}}}
	if s, ok := starvedSample(starved, nil); !ok || !slices.Equal(s, []int64{1_600_000_000}) {
		t.Errorf("starved: %v %v", s, ok)
	}
	measured := &probe.WakeResult{Threads: []probe.WakeThread{{WarmupNs: 30_000, Latencies: []int64{50_000, 60_000}}}}
	if s, ok := starvedSample(measured, []int64{50_000, 60_000}); ok || !slices.Equal(s, []int64{50_000, 60_000}) {
		t.Errorf("measured: %v %v", s, ok)
	}
	// stopped before its first wake-up: nothing to take
	stopped := &probe.WakeResult{Threads: []probe.WakeThread{{}}}
	if s, ok := starvedSample(stopped, nil); ok || len(s) != 0 {
		t.Errorf("stopped: %v %v", s, ok)
	}
}
