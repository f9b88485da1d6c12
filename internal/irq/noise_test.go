package irq

import (
	"math"
	"reflect"
	"testing"

	"github.com/latlab/latlab/internal/probe"
)

// On Windows a run's counts are PDH's per-processor rates times the
// interval, rounded: interrupts and DPCs queued, with no sources; the
// percentage counters and the _Total-like NaN cells are left out.
func TestNoiseCountersPDH(t *testing.T) {
	iv := &Interval{StartNs: 0, EndNs: 2e9, CPUs: []int{0, 3}, Rows: []Row{
		{Source: "pdh", Name: "Interrupts/sec", Unit: UnitCount, PerCPU: Values{2001.6, 250}},
		{Source: "pdh", Name: "DPCs Queued/sec", Role: RoleDPC, Unit: UnitCount, PerCPU: Values{40.4, math.NaN()}},
		{Source: "pdh", Name: "% DPC Time", Unit: UnitPercent, PerCPU: Values{0.5, 0.1}},
	}}
	got := noiseCounters(iv)
	want := map[int]probe.NoiseCPUCounts{
		0: {Interrupts: &probe.NoiseCounts{Total: 2002}, DPCs: &probe.NoiseCounts{Total: 40}},
		3: {Interrupts: &probe.NoiseCounts{Total: 250}},
	}
	if !reflect.DeepEqual(got.PerCPU, want) {
		t.Errorf("got %+v\nwant %+v", got.PerCPU, want)
	}
}
