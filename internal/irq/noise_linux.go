package irq

import (
	"math"
	"sort"

	"github.com/latlab/latlab/internal/probe"
)

const runMethod = "/proc/interrupts and /proc/softirqs, read just before the threads start and just after they stop"

// startRun reads /proc/interrupts and /proc/softirqs under root; end
// reads them again and returns what happened in between. Unlike a
// Watcher it reads nothing else: it runs while the noise threads wait.
func startRun(root string) (end func() (*Interval, error), err error) {
	if root == "" {
		root = "/"
	}
	intr, err := ReadInterrupts(root)
	if err != nil {
		return nil, err
	}
	sft, err := ReadSoftirqs(root)
	if err != nil {
		return nil, err
	}
	return func() (*Interval, error) {
		intr2, err := ReadInterrupts(root)
		if err != nil {
			return nil, err
		}
		sft2, err := ReadSoftirqs(root)
		if err != nil {
			return nil, err
		}
		return BuildInterval(intr, intr2, sft, sft2, nil), nil
	}, nil
}

// NoiseCounters reads the per-CPU counters for `latlab noise`
// (probe.NoiseOptions.Counters) under root ("" or "/" is this machine,
// another root a fixture tree): a first reading now, and the second when
// the returned function is called. Windows' noise counters are
// internal/noisecount's: they need nothing else of this package.
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
// hard interrupts and softirqs by source.
func noiseCounters(iv *Interval) *probe.NoiseCounters {
	out := &probe.NoiseCounters{Method: runMethod, PerCPU: map[int]probe.NoiseCPUCounts{}}
	for k, cpu := range iv.CPUs {
		var c probe.NoiseCPUCounts
		add := func(into **probe.NoiseCounts, r Row) {
			v := r.PerCPU[k]
			if math.IsNaN(v) {
				return
			}
			if *into == nil {
				*into = &probe.NoiseCounts{}
			}
			n := int64(math.Round(v))
			(*into).Total += n
			if n > 0 {
				(*into).Sources = append((*into).Sources, probe.NoiseCount{Name: r.Name, Label: r.Label, Count: n})
			}
		}
		for _, r := range iv.Rows {
			if r.Unit != UnitCount || len(r.PerCPU) <= k {
				continue
			}
			switch r.Source {
			case "interrupts":
				add(&c.Interrupts, r)
			case "softirqs":
				add(&c.Softirqs, r)
			}
		}
		for _, x := range []*probe.NoiseCounts{c.Interrupts, c.Softirqs} {
			if x != nil {
				sort.SliceStable(x.Sources, func(a, b int) bool { return x.Sources[a].Count > x.Sources[b].Count })
			}
		}
		out.PerCPU[cpu] = c
	}
	return out
}
