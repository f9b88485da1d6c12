package noisecount

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/testutil"
)

// The reader counts interrupts and DPCs for every CPU the machine has,
// numbered as --cpus numbers them. Under Wine this proves only that the
// calls run and the records fit: Wine's interrupt counts are zero and its
// DPC counts random bytes, which the reader leaves out there.
func TestReaderEveryCPU(t *testing.T) {
	end, err := Reader("")()
	if err != nil {
		t.Fatalf("first reading: %v", err)
	}
	got, err := end()
	if err != nil {
		t.Fatalf("second reading: %v", err)
	}
	n := sched.NumCPU()
	if len(got.PerCPU) != n || !strings.HasPrefix(got.Method, method) {
		t.Fatalf("%d CPUs counted of %d (%q)", len(got.PerCPU), n, got.Method)
	}
	for cpu := range n {
		c, ok := got.PerCPU[cpu]
		if !ok || c.Interrupts == nil || (c.DPCs == nil) != testutil.UnderWine() || c.Softirqs != nil {
			t.Errorf("CPU %d: %+v (present %v)", cpu, c, ok)
			continue
		}
		if c.Interrupts.Total < 0 || (c.DPCs != nil && c.DPCs.Total < 0) {
			t.Errorf("CPU %d: %d interrupts, DPCs %+v", cpu, c.Interrupts.Total, c.DPCs)
		}
	}
	if testutil.UnderWine() != strings.Contains(got.Method, "no DPC counts under Wine") {
		t.Errorf("method %q", got.Method)
	}
}
