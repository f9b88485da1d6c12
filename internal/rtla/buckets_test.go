package rtla

import (
	"fmt"
	"strings"
	"testing"
)

// sameAsCPU fails unless CPUBuckets gives, for every column of h, what
// CPU's dense conversion gives.
func sameAsCPU(t *testing.T, h *Histogram) {
	t.Helper()
	for _, col := range h.Columns {
		d, ok, derr := h.CPU(col.Context, col.CPU)
		s, sok, serr := h.CPUBuckets(col.Context, col.CPU)
		if ok != sok || (derr == nil) != (serr == nil) {
			t.Fatalf("column %v: CPU %v %v, CPUBuckets %v %v", col, ok, derr, sok, serr)
		}
		if derr != nil {
			continue
		}
		var us, counts []int64
		for b, k := range d.Counts {
			if k != 0 {
				us, counts = append(us, int64(b)), append(counts, k)
			}
		}
		if fmt.Sprint(us, counts) != fmt.Sprint(s.Us, s.Counts) || d.InRange != s.InRange || d.Overflows != s.Overflows || d.RangeUs != s.RangeUs {
			t.Fatalf("column %v: CPU gives %v %v in range %d over %d range %d; CPUBuckets %+v",
				col, us, counts, d.InRange, d.Overflows, d.RangeUs, s)
		}
	}
	if _, ok, err := h.CPUBuckets(Noise, 1<<20); ok || err != nil {
		t.Fatalf("a column the file does not have: %v %v", ok, err)
	}
}

func TestCPUBuckets(t *testing.T) {
	for name, h := range map[string]hist{
		"timerlat":    twoCPUs,
		"osnoise":     quietCPUs,
		"ns":          {nano: true, cols: []string{"IRQ-000", "Thr-000", "Usr-000"}, rows: [][]int64{{1500, 2, 0, 1}, {1900, 1, 1, 0}, {2000, 0, 3, 3}}, over: []int64{0, 2, 1}, summary: true},
		"ns, no over": {nano: true, cols: []string{"Thr-000"}, rows: [][]int64{{1500, 2}, {1900, 1}, {2000, 3}}, summary: true},
		// Rows far apart: the sparse form has two buckets, the dense one a
		// million slots.
		"wide": {osnoise: true, cols: []string{"CPU-000", "CPU-001"}, rows: [][]int64{{1, 1, 1}, {999999, 1, 1}}, over: []int64{0, 3}, summary: true},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Read(strings.NewReader(h.text()))
			if err != nil {
				t.Fatal(err)
			}
			sameAsCPU(t, r)
		})
	}
}
