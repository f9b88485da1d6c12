package irq

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

// putProc writes testdata/noise/<reading>/proc's counter files into
// root/proc.
func putProc(t *testing.T, root, reading string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"interrupts", "softirqs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "noise", reading, "proc", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "proc", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The counts of a noise run are the per-CPU differences between the
// readings before and after it, by source, most first. The fixture is
// this machine's /proc around a 1 s noise run on CPU 1; the expected
// figures are awk's (testdata/PROVENANCE).
func TestNoiseCountersFixture(t *testing.T) {
	root := testutil.TempDir(t)
	putProc(t, root, "before")
	end, err := NoiseCounters(root)()
	if err != nil {
		t.Fatal(err)
	}
	putProc(t, root, "after")
	got, err := end()
	if err != nil {
		t.Fatal(err)
	}
	nc := func(n, l string, c int64) probe.NoiseCount { return probe.NoiseCount{Name: n, Label: l, Count: c} }
	want := map[int]probe.NoiseCPUCounts{
		0: {
			Interrupts: &probe.NoiseCounts{Total: 4117, Sources: []probe.NoiseCount{
				nc("LOC", "Local timer interrupts", 3845), nc("CAL", "Function call interrupts", 93),
				nc("TLB", "TLB shootdowns", 93), nc("RES", "Rescheduling interrupts", 86)}},
			Softirqs: &probe.NoiseCounts{Total: 172, Sources: []probe.NoiseCount{nc("RCU", "", 102), nc("TIMER", "", 45), nc("SCHED", "", 25)}},
		},
		1: {
			Interrupts: &probe.NoiseCounts{Total: 2018, Sources: []probe.NoiseCount{
				nc("LOC", "Local timer interrupts", 1858), nc("36", "virtio1-req.0", 90), nc("RES", "Rescheduling interrupts", 53),
				nc("CAL", "Function call interrupts", 7), nc("TLB", "TLB shootdowns", 7), nc("42", "virtio3-tx", 2), nc("31", "virtio0-stats", 1)}},
			Softirqs: &probe.NoiseCounts{Total: 266, Sources: []probe.NoiseCount{nc("RCU", "", 124), nc("BLOCK", "", 90), nc("TIMER", "", 30), nc("SCHED", "", 22)}},
		},
	}
	if got.Method != runMethod {
		t.Errorf("method %q", got.Method)
	}
	for cpu, w := range want {
		g := got.PerCPU[cpu]
		for _, k := range []struct {
			name      string
			got, want *probe.NoiseCounts
		}{{"interrupts", g.Interrupts, w.Interrupts}, {"softirqs", g.Softirqs, w.Softirqs}, {"DPCs", g.DPCs, w.DPCs}} {
			if !reflect.DeepEqual(k.got, k.want) {
				t.Errorf("CPU %d %s:\n got %+v\nwant %+v", cpu, k.name, k.got, k.want)
			}
		}
	}
	if len(got.PerCPU) != 2 {
		t.Errorf("%d CPUs, want 2", len(got.PerCPU))
	}
}

// A counter file that vanishes or turns to garbage between the readings
// is an error naming it, never empty counts.
func TestNoiseCountersBadSecondReading(t *testing.T) {
	root := testutil.TempDir(t)
	putProc(t, root, "before")
	end, err := NoiseCounters(root)()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proc", "softirqs"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := end(); err == nil {
		t.Fatalf("got %+v, want an error", got)
	}
	if _, err := NoiseCounters(filepath.Join(root, "none"))(); err == nil {
		t.Fatal("no /proc: want an error")
	}
}
