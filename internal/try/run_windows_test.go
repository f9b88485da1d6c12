package try

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

var prioValue = backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}

// try win32-priority-separation 0x28 against the real registry (Wine's in
// CI): each 0x28 block runs with 0x28 stored, every other block and the
// end with the original, and the journal holds one reverted entry per
// 0x28 block. Under Wine this proves the registry path, not Windows
// scheduling: the verdict is not asserted.
func TestTryPrioritySeparationRegistry(t *testing.T) {
	reg := backend.Registry{}
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
			want = backend.DWORD(0x28)
		}
		if err != nil || !backend.Same(v, want) || v.Type != want.Type {
			t.Errorf("block %d of %s: the registry holds %s %s (%v), want %s %s", e.Block.Index, e.Arm, v.Type, v, err, want.Type, want)
		}
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := reg.Read(prioValue); err != nil || !backend.Same(v, orig) || v.Type != orig.Type {
		t.Fatalf("after the run the registry holds %s %s (%v), not the original %s %s", v.Type, v, err, orig.Type, orig)
	}
	if len(res.Runs) != 6 || !res.Restore.Restored {
		t.Fatalf("%d blocks, restore %+v", len(res.Runs), res.Restore)
	}
	j, err := journal.Read(state)
	if err != nil {
		t.Fatal(err)
	}
	// One set of entries per 0x28 block: the value, and the key when it
	// was absent (Wine's registry has no PriorityControl key).
	sets := map[int]bool{}
	for _, e := range j.Entries {
		sets[e.Set] = true
		if e.State != journal.StateReverted || (e.Loc == prioValue && !backend.Same(e.New, backend.DWORD(0x28))) {
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
	if res != nil || !errors.As(err, &ue) || badinput.Is(err) {
		t.Errorf("result %v, error %v: want the watch's UnavailableError before any block", res, err)
	}
}

// rssEnv is a registry in memory with one network adapter, as --root
// gives the Linux knobs a tree: nothing of the machine is read or written.
func rssEnv() (*knob.Env, *knobtest.Mem, string) {
	m := knobtest.NewMem()
	key := knob.NetClassKey + `\0007`
	m.Set(key, "DriverDesc", backend.SZ("Intel(R) Ethernet Controller I225-V"))
	m.Set(key, "NetCfgInstanceId", backend.SZ("{5A1C2B3D-0000-4000-8000-00000000A1B2}"))
	m.Set(key, "*RSS", backend.SZ("1"))
	m.Set(key, "*NumRssQueues", backend.SZ("2"))
	env := &knob.Env{Backends: map[string]backend.Backend{backend.BackendRegistry: m}, Privileged: func() error { return nil }}
	return env, m, key
}

// recorder is a fake PowerShell: it answers the alias lookup and the
// status reads (Disconnected once after each restart, then Up) and
// records every command line.
type recorder struct {
	cmds    []string
	pending int
	reg     *knobtest.Mem
	key     string
	values  []string // *NumRssQueues at each restart
}

func (r *recorder) run(_ context.Context, argv []string) (string, error) {
	script := argv[len(argv)-1]
	r.cmds = append(r.cmds, script)
	switch {
	case len(r.cmds) == 1 && strings.HasSuffix(script, "$a[0].Status"): // the lookup
		return "Up\r\n", nil
	case strings.HasSuffix(script, "Restart-NetAdapter -Confirm:$false"):
		v, _ := r.reg.Read(backend.Loc{Backend: backend.BackendRegistry, Path: r.key, Name: "*NumRssQueues"})
		r.values = append(r.values, v.String())
		r.pending = 1
		return "", nil
	case strings.HasSuffix(script, "$a[0].Status"):
		if r.pending > 0 {
			r.pending--
			return "Disconnected\r\n", nil
		}
		return "Up\r\n", nil
	}
	return "", errors.New("unexpected command " + script)
}

// try rss with --restart-adapter: the adapter is restarted after each
// change and each restore, each restart waits for the link, and the
// commands are exactly these, in this order.
func TestTryRestartAdapterCommands(t *testing.T) {
	fakeWatch(t)
	old := linkPoll
	linkPoll = 0
	t.Cleanup(func() { linkPoll = old })
	env, reg, key := rssEnv()
	rec := &recorder{reg: reg, key: key}
	state := testutil.TempDir(t)
	o := Options{Knob: "rss", Values: []string{"*NumRssQueues=4"}, Sel: knob.Selector{Adapter: "7"}, Env: env, StateDir: state,
		Blocks: 2, BlockDuration: 10 * time.Millisecond, Settle: 0, Seed: 3, RestartAdapter: true, Runner: rec.run,
		Probe: Probe{Kind: ProbeDPCISR}}
	plan, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Restart == nil || plan.Restart.Planned != 4 || !strings.Contains(strings.Join(plan.Writes, "\n"), `network adapter "Intel(R) Ethernet Controller I225-V": restarted (Restart-NetAdapter) after each change and each restore, 4 restarts`) {
		t.Fatalf("plan: restart %+v, writes %q", plan.Restart, plan.Writes)
	}
	if len(rec.cmds) != 0 {
		t.Fatalf("the plan ran %q", rec.cmds)
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// Every command finds the adapter by its GUID with -eq in one
	// pipeline: no alias is read back through the console code page.
	find := `$a = @(Get-NetAdapter -IncludeHidden | Where-Object { $_.InterfaceGuid -eq '{5A1C2B3D-0000-4000-8000-00000000A1B2}' }); ` +
		`if ($a.Count -ne 1) { throw ([string]$a.Count + ' adapters have the interface GUID ' + '{5A1C2B3D-0000-4000-8000-00000000A1B2}') }; `
	status, restart := find+"$a[0].Status", find+"$a | Restart-NetAdapter -Confirm:$false"
	want := []string{status}
	var values []string
	for _, a := range res.Order {
		if a == 0 {
			continue
		}
		for _, v := range []string{"4", "2"} { // after the change, after the restore
			want = append(want, restart, status, status)
			values = append(values, v)
		}
	}
	if strings.Join(rec.cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(rec.cmds, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(rec.values, ",") != strings.Join(values, ",") {
		t.Errorf("*NumRssQueues at the restarts %v, want %v: each restart follows its write", rec.values, values)
	}
	if res.Restart.Lookup != "powershell.exe -NoProfile -NonInteractive -Command "+status || res.Restart.Restart != "powershell.exe -NoProfile -NonInteractive -Command "+restart {
		t.Errorf("planned commands %q, %q", res.Restart.Lookup, res.Restart.Restart)
	}
	if res.Restart.Done != 4 || !res.Restore.Restored {
		t.Errorf("restart %+v, restore %+v", res.Restart, res.Restore)
	}
	if v, _ := reg.Read(backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: "*NumRssQueues"}); v.String() != "2" {
		t.Errorf("after the run *NumRssQueues is %s, want the original 2", v)
	}
}

// An interface GUID that is not a GUID (a quote of any kind PowerShell
// honours, a wildcard) is refused before any command is built.
func TestTryRestartAdapterBadGUID(t *testing.T) {
	for _, id := range []string{"", "{5A1C2B3D-0000-4000-8000-00000000A1B2}'; Remove-Item x; '", "{5A1C2B3D-0000-4000-8000-00000000A1B\u2019}", "*"} {
		env, reg, key := rssEnv()
		reg.Set(key, "NetCfgInstanceId", backend.SZ(id))
		o := Options{Knob: "rss", Values: []string{"*NumRssQueues=4"}, Sel: knob.Selector{Adapter: "7"}, Env: env, StateDir: testutil.TempDir(t),
			Blocks: 2, BlockDuration: 10 * time.Millisecond, Seed: 3, RestartAdapter: true, Probe: Probe{Kind: ProbeDPCISR}}
		if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "no interface GUID") {
			t.Errorf("NetCfgInstanceId %q: %v", id, err)
		}
	}
}

// Without --restart-adapter the knob is refused and the refusal names the
// flag; under Wine the restart cannot run: the run stops before anything
// is written, with an error that is not bad input.
func TestTryRestartAdapterRefusals(t *testing.T) {
	fakeWatch(t)
	env, reg, key := rssEnv()
	o := Options{Knob: "rss", Values: []string{"*NumRssQueues=4"}, Sel: knob.Selector{Adapter: "7"}, Env: env, StateDir: testutil.TempDir(t),
		Blocks: 2, BlockDuration: 10 * time.Millisecond, Settle: 0, Seed: 3, Probe: Probe{Kind: ProbeDPCISR}}
	if _, err := Plan(o); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "add --restart-adapter") {
		t.Errorf("without the flag: %v", err)
	}
	if !etw.UnderWine() {
		return
	}
	o.RestartAdapter = true
	res, err := Run(context.Background(), o)
	if res != nil || err == nil || badinput.Is(err) || !strings.Contains(err.Error(), "Restart-NetAdapter") || !strings.Contains(err.Error(), "Wine has none") {
		t.Errorf("under Wine: %v, %v", res, err)
	}
	if v, _ := reg.Read(backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: "*NumRssQueues"}); v.String() != "2" {
		t.Errorf("*NumRssQueues is %s: the run changed it", v)
	}
}

// The noise probe spins on the CPU given in each block, the timer
// request held for the value's blocks as for any probe; what the CPU
// counted is the machine's business, the blocks' runtime is not.
func TestTryNoiseProbeTimerResolution(t *testing.T) {
	o := Options{Knob: "timer-resolution", Values: []string{"1ms"}, Blocks: 2, BlockDuration: 50 * time.Millisecond, Settle: 0, Seed: 1,
		Probe: Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{0}}}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.By != ByRate || len(res.Runs) != 4 || !res.Restore.Restored {
		t.Fatalf("%+v", res)
	}
	for _, b := range res.Runs {
		// The runtime is the block's window at most, however late the
		// loop's last read.
		if !b.Complete || b.Noise == nil || b.Noise.RuntimeNs <= 0 || b.Noise.RuntimeNs > o.BlockDuration.Nanoseconds() ||
			b.Noise.NoiseNs > b.Noise.RuntimeNs || (b.Arm == 1) != (b.GrantedNs > 0) {
			t.Errorf("block %d of arm %d: complete %v, %+v, granted %d", b.Index, b.Arm, b.Complete, b.Noise, b.GrantedNs)
		}
	}
}
