package try

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

var prioValue = knob.Loc{Backend: knob.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}

// try win32-priority-separation 0x28 against the real registry (Wine's in
// CI): each 0x28 block runs with 0x28 stored, every other block and the
// end with the original, and the journal holds one reverted entry per
// 0x28 block. Under Wine this proves the registry path, not Windows
// scheduling: the verdict is not asserted.
func TestTryPrioritySeparationRegistry(t *testing.T) {
	reg := knob.Registry{}
	orig, err := reg.Read(prioValue)
	if err != nil {
		t.Fatal(err)
	}
	state := testutil.TempDir(t)
	o := Options{Knob: "win32-priority-separation", Values: []string{"0x28"}, StateDir: state, Blocks: 3,
		BlockDuration: 50 * time.Millisecond, Settle: 0, Seed: 11, Command: "latlab try win32-priority-separation 0x28",
		Probe: Probe{Kind: ProbeSleep, Sleep: probe.SleepOptions{Duration: time.Millisecond, Method: "sleep", Thread: probe.Thread{CPU: -1}}}}
	o.Progress = func(e Event) {
		if e.Done {
			return
		}
		v, err := reg.Read(prioValue)
		want := orig
		if e.Arm == "0x28" {
			want = knob.DWORD(0x28)
		}
		if err != nil || !knob.Same(v, want) || v.Type != want.Type {
			t.Errorf("block %d of %s: the registry holds %s %s (%v), want %s %s", e.Block.Index, e.Arm, v.Type, v, err, want.Type, want)
		}
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := reg.Read(prioValue); err != nil || !knob.Same(v, orig) || v.Type != orig.Type {
		t.Fatalf("after the run the registry holds %s %s (%v), not the original %s %s", v.Type, v, err, orig.Type, orig)
	}
	if len(res.Runs) != 6 || !res.Restore.Restored {
		t.Fatalf("%d blocks, restore %+v", len(res.Runs), res.Restore)
	}
	j, err := knob.ReadJournal(state)
	if err != nil {
		t.Fatal(err)
	}
	// One set of entries per 0x28 block: the value, and the key when it
	// was absent (Wine's registry has no PriorityControl key).
	sets := map[int]bool{}
	for _, e := range j.Entries {
		sets[e.Set] = true
		if e.State != knob.StateReverted || (e.Loc == prioValue && !knob.Same(e.New, knob.DWORD(0x28))) {
			t.Errorf("entry %+v", e)
		}
	}
	if len(sets) != 3 {
		t.Errorf("%d sets of journal entries, want one per 0x28 block", len(sets))
	}
}

// The timer resolution request is held by latlab's own process for each
// block of its arm and released after it.
func TestTryTimerResolutionProcess(t *testing.T) {
	o := Options{Knob: "timer-resolution", Values: []string{"1ms"}, Blocks: 2, BlockDuration: 50 * time.Millisecond, Settle: 0, Seed: 1,
		Probe: Probe{Kind: ProbeSleep, Sleep: probe.SleepOptions{Duration: time.Millisecond, Method: "waitable", Thread: probe.Thread{CPU: -1}}}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scope != ScopeProcess || len(res.Runs) != 4 || !res.Restore.Restored || res.Arms[0].RequestNs != 0 || res.Arms[1].RequestNs != 1e6 {
		t.Fatalf("%+v", res)
	}
	for _, b := range res.Runs {
		if (b.Arm == 1) != (b.GrantedNs > 0) || !b.Complete {
			t.Errorf("block %d of arm %d: granted %d, complete %v", b.Index, b.Arm, b.GrantedNs, b.Complete)
		}
	}
}

// fakeWatch puts a watch in place that reports the same DPCs for every
// block (it stands in for a kernel trace, which Wine does not have).
func fakeWatch(t *testing.T) {
	oldW, oldC := watch, checkWatch
	t.Cleanup(func() { watch, checkWatch = oldW, oldC })
	checkWatch = func(context.Context) error { return nil }
	watch = func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
		c := map[int]int64{3: 200, 4: 100, 5: 40, 6: 10}
		return dpcReport(map[string]map[int]int64{"ndis.sys": c, "storport.sys": {1: 40}}, map[string]int64{"ndis.sys": 900, "storport.sys": 50}), nil
	}
}

// The dpcisr probe through a whole run: every block keeps its watch's
// report and the verdict comes from the pooled reports and the blocks.
func TestTryDPCISRProbeRun(t *testing.T) {
	fakeWatch(t)
	o := Options{Knob: "timer-resolution", Values: []string{"1ms"}, Blocks: 2, BlockDuration: 10 * time.Millisecond, Settle: 0, Seed: 1,
		Probe: Probe{Kind: ProbeDPCISR}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || res.Module != "ndis.sys" || res.By != "p99" || res.Quantity != "DPC execution time" {
		t.Fatalf("%d blocks, module %q, by %s, quantity %s", len(res.Runs), res.Module, res.By, res.Quantity)
	}
	for _, b := range res.Runs {
		if b.DPCISR == nil || !b.Complete || b.Count != 350 || b.Stat == 0 {
			t.Errorf("block %d: report %v, complete %v, %d DPCs, p99 %v", b.Index, b.DPCISR != nil, b.Complete, b.Count, b.Stat)
		}
	}
	if v := res.Arms[1].Verdict; v == nil || v.DPCISR == nil || v.Outcome != TooFew {
		t.Errorf("verdict %+v: want the comparison and too few rounds for a verdict", v)
	}
}

// Under Wine the kernel trace cannot start: the run stops before any
// block with the watch's own error.
func TestTryDPCISRUnderWine(t *testing.T) {
	if !etw.UnderWine() {
		t.Skip("not Wine")
	}
	o := Options{Knob: "timer-resolution", Values: []string{"1ms"}, Blocks: 2, BlockDuration: 10 * time.Millisecond, Settle: 0, Seed: 1,
		Probe: Probe{Kind: ProbeDPCISR}}
	res, err := Run(context.Background(), o)
	var ue *etw.UnavailableError
	if res != nil || !errors.As(err, &ue) || IsInput(err) {
		t.Errorf("result %v, error %v: want the watch's UnavailableError before any block", res, err)
	}
}
