package noisecount

import (
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/probe"
)

// A run's counts are the second reading less the first, per CPU, the
// 32-bit counters' wrap included; readings of different processor counts
// are refused rather than put on the wrong CPUs.
func TestDiff(t *testing.T) {
	total := func(n int64) *probe.NoiseCounts { return &probe.NoiseCounts{Total: n} }
	for _, c := range []struct {
		name string
		a, b counts
		want map[int]probe.NoiseCPUCounts
		err  string
	}{
		{name: "two CPUs",
			a:    counts{interrupts: []uint32{1000, 50}, dpcs: []uint32{7, 0}},
			b:    counts{interrupts: []uint32{3001, 50}, dpcs: []uint32{47, 2}},
			want: map[int]probe.NoiseCPUCounts{0: {Interrupts: total(2001), DPCs: total(40)}, 1: {Interrupts: total(0), DPCs: total(2)}}},
		{name: "a counter wraps",
			a:    counts{interrupts: []uint32{0xFFFF_FFF0}, dpcs: []uint32{0xFFFF_FFFF}},
			b:    counts{interrupts: []uint32{0x10}, dpcs: []uint32{4}},
			want: map[int]probe.NoiseCPUCounts{0: {Interrupts: total(32), DPCs: total(5)}}},
		{name: "a processor more after",
			a:   counts{interrupts: []uint32{1}, dpcs: []uint32{1}},
			b:   counts{interrupts: []uint32{2, 2}, dpcs: []uint32{2, 2}},
			err: "the processors changed during the run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := diff(c.a, c.b, "m")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, %v; want an error saying %q", got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Method != "m" || !reflect.DeepEqual(got.PerCPU, c.want) {
				t.Errorf("got %s %+v, want %+v", got.Method, got.PerCPU, c.want)
			}
		})
	}
}
