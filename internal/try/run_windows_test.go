package try

import (
	"context"
	"testing"
	"time"

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
