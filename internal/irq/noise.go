package irq

import (
	"math"
	"sort"

	"github.com/latlab/latlab/internal/probe"
)

// NoiseCounters reads the per-CPU counters for `latlab noise`
// (probe.NoiseOptions.Counters) under root ("" or "/" is this machine;
// Linux only, another root is a fixture tree): a first reading now, and
// the second when the returned function is called.
func NoiseCounters(root string) func() (func() (*probe.NoiseCounters, error), error) {
	return func() (func() (*probe.NoiseCounters, error), error) {
		end, err := startRun(root)
		if err != nil {
			return nil, err
		}
		return func() (*probe.NoiseCounters, error) {
			iv, err := end()
			if err != nil {
				return nil, err
			}
			return noiseCounters(iv), nil
		}, nil
	}
}

// noiseCounters turns the interval of a run into each CPU's counts: the
// hard interrupts and softirqs by source (Linux), or the interrupts and
// DPCs queued (Windows, PDH rates times the interval's seconds).
func noiseCounters(iv *Interval) *probe.NoiseCounters {
	out := &probe.NoiseCounters{Method: runMethod, PerCPU: map[int]probe.NoiseCPUCounts{}}
	for k, cpu := range iv.CPUs {
		var c probe.NoiseCPUCounts
		add := func(into **probe.NoiseCounts, r Row, named bool) {
			v := r.PerCPU[k]
			if math.IsNaN(v) {
				return
			}
			if *into == nil {
				*into = &probe.NoiseCounts{}
			}
			n := int64(math.Round(v))
			(*into).Total += n
			if named && n > 0 {
				(*into).Sources = append((*into).Sources, probe.NoiseCount{Name: r.Name, Label: r.Label, Count: n})
			}
		}
		for _, r := range iv.Rows {
			if r.Unit != UnitCount || len(r.PerCPU) <= k {
				continue
			}
			switch {
			case r.Source == "interrupts":
				add(&c.Interrupts, r, true)
			case r.Source == "softirqs":
				add(&c.Softirqs, r, true)
			case r.Source == "pdh" && r.Name == "Interrupts/sec":
				add(&c.Interrupts, r, false)
			case r.Source == "pdh" && r.Role == RoleDPC:
				add(&c.DPCs, r, false)
			}
		}
		for _, x := range []*probe.NoiseCounts{c.Interrupts, c.Softirqs, c.DPCs} {
			if x != nil {
				sort.SliceStable(x.Sources, func(a, b int) bool { return x.Sources[a].Count > x.Sources[b].Count })
			}
		}
		out.PerCPU[cpu] = c
	}
	return out
}
