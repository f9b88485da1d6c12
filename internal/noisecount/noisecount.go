// Package noisecount reads what the OS counted on each CPU around a run
// of latlab noise (probe.NoiseOptions.Counters): on Linux the hard
// interrupts and softirqs by source (the irq package's /proc parsers), on
// Windows each processor's interrupt and DPC counts straight from ntdll.
// It reads those counters and nothing else: the irq watcher's other
// readings (the network adapters' registry values) have no part in a
// noise run, and a reader that can fail for their sake would cost the run
// its counts.
package noisecount

import (
	"fmt"

	"github.com/latlab/latlab/internal/probe"
)

// counts are one reading of the Windows counters, per CPU in sched's
// numbering (the processors of group 0, then of group 1, ...).
type counts struct {
	interrupts []uint32 // SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION.InterruptCount
	dpcs       []uint32 // SYSTEM_INTERRUPT_INFORMATION.DpcCount
}

// diff is what the counters counted from a to b. Both are ULONGs that
// wrap: the difference taken in 32 bits is right across one wrap, and a
// run would need four billion interrupts on one CPU to see two.
func diff(a, b counts, method string) (*probe.NoiseCounters, error) {
	n := len(a.interrupts)
	if len(a.dpcs) != n || len(b.interrupts) != n || len(b.dpcs) != n {
		return nil, fmt.Errorf("the processors changed during the run: %d and %d counted before, %d and %d after",
			len(a.interrupts), len(a.dpcs), len(b.interrupts), len(b.dpcs))
	}
	out := &probe.NoiseCounters{Method: method, PerCPU: make(map[int]probe.NoiseCPUCounts, n)}
	for cpu := range n {
		out.PerCPU[cpu] = probe.NoiseCPUCounts{
			Interrupts: &probe.NoiseCounts{Total: int64(b.interrupts[cpu] - a.interrupts[cpu])},
			DPCs:       &probe.NoiseCounts{Total: int64(b.dpcs[cpu] - a.dpcs[cpu])},
		}
	}
	return out, nil
}
