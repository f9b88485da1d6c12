package try

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

const csFile = "sys/devices/system/clocksource/clocksource0/current_clocksource"

// tree is a --root fixture with the system knobs the tests switch.
func tree(t *testing.T) string {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		csFile: "tsc\n",
		"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet acpi_pm\n",
		"proc/sys/net/ipv4/tcp_recovery":                                    "1\n",
	})
	return root
}

func treeOptions(root, state string, values ...string) Options {
	return Options{Knob: "clocksource", Values: values, Root: root, StateDir: state, Blocks: 3,
		BlockDuration: 20 * time.Millisecond, Settle: 0, Seed: 7, Command: "latlab try clocksource",
		Probe: Probe{Kind: ProbeSleep, Sleep: probe.SleepOptions{Duration: time.Millisecond, Method: probe.SleepMethods()[0], Thread: probe.Thread{CPU: -1}}}}
}

func read(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A dry run plans and changes nothing: no journal, no state directory.
func TestTryPlanChangesNothing(t *testing.T) {
	root := tree(t)
	state := filepath.Join(testutil.TempDir(t), "state")
	res, err := Plan(treeOptions(root, state, "hpet", "acpi_pm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); err == nil {
		t.Fatal("planning created the state directory")
	}
	if read(t, root, csFile) != "tsc\n" || len(res.Arms) != 3 || res.Arms[0].Current != "tsc" || len(res.Order) != 9 {
		t.Fatalf("plan: %+v", res)
	}
	if c := res.Arms[1].Changes; len(c) != 1 || c[0].From != "tsc" || c[0].To != "hpet" || !strings.HasSuffix(c[0].Where, csFile) {
		t.Errorf("hpet writes %+v", c)
	}
	if !slices.Equal(res.Order, Order(3, 3, 7)) {
		t.Errorf("order %v is not seed 7's", res.Order)
	}
	var named bool
	for _, w := range res.Writes {
		named = named || strings.Contains(w, filepath.Join(state, journal.File))
	}
	if !named {
		t.Errorf("the plan does not name the journal it writes: %q", res.Writes)
	}
	for _, c := range []struct {
		values []string
		want   string
	}{
		{[]string{"tsc"}, "clocksource already holds tsc: it is the baseline already"},
		{[]string{"hpet", "hpet"}, "value hpet is given twice"},
		{[]string{"kvm"}, `clocksource "kvm" is not available here`},
	} {
		_, err := Plan(treeOptions(root, state, c.values...))
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want bad input %q", c.values, err, c.want)
		}
	}
}

// A run on a --root tree applies each value through the journal before its
// block, puts the original back after it, runs the blocks in the planned
// order, and leaves every entry reverted and the record finished.
func TestTryRunRestoresAndJournals(t *testing.T) {
	root := tree(t)
	state := testutil.TempDir(t)
	var seen []string
	o := treeOptions(root, state, "hpet")
	want := map[string]string{"current": "tsc\n", "hpet": "hpet\n"}
	o.Progress = func(e Event) {
		if !e.Done {
			// While a block measures, the file holds its arm's value.
			if got := read(t, root, csFile); got != want[e.Arm] {
				t.Errorf("block %d of %s: clocksource %q", e.Block.Index, e.Arm, got)
			}
			return
		}
		seen = append(seen, e.Arm)
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, root, csFile) != "tsc\n" {
		t.Fatalf("clocksource left at %q", read(t, root, csFile))
	}
	if len(res.Runs) != 6 || res.Interrupted || res.Stopped != "" || !res.Restore.Restored {
		t.Fatalf("run: %d blocks, interrupted %v, stopped %q, restore %+v", len(res.Runs), res.Interrupted, res.Stopped, res.Restore)
	}
	var arms []string
	for i, b := range res.Runs {
		if b.Arm != res.Order[i] || !b.Complete || b.Count == 0 {
			t.Errorf("block %d: %+v", i, b)
		}
		arms = append(arms, res.Arms[b.Arm].Label)
		if (b.Arm == 1) != (len(b.Journal) == 1) {
			t.Errorf("block %d of %s: journal entries %v", i, res.Arms[b.Arm].Label, b.Journal)
		}
	}
	if !slices.Equal(seen, arms) {
		t.Errorf("progress %v, want %v", seen, arms)
	}
	j, err := journal.Read(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Entries) != 3 {
		t.Errorf("%d journal entries, want one per hpet block", len(j.Entries))
	}
	for _, e := range j.Entries {
		if e.State != journal.StateReverted || e.Original.String() != "tsc" || e.New.String() != "hpet" {
			t.Errorf("entry %+v", e)
		}
	}
	b, err := os.ReadFile(filepath.Join(state, journal.ExperimentFile))
	var rec Record
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.State != StateFinished || rec.FirstEntry != 1 || rec.Knob != "clocksource" {
		t.Errorf("record %s (%v)", b, err)
	}
	if res.Arms[1].Verdict == nil || res.Arms[1].Verdict.Outcome != TooFew {
		t.Errorf("three rounds: verdict %+v, want too few", res.Arms[1].Verdict)
	}
}

// Ctrl-C stops the current block, restores, and the result says so; the
// interrupted block is kept but left out of the statistics.
func TestTryInterruptRestores(t *testing.T) {
	root := tree(t)
	state := testutil.TempDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := treeOptions(root, state, "hpet")
	o.BlockDuration = time.Minute
	for Order(2, 3, o.Seed)[0] != 1 {
		o.Seed++ // a run that starts with hpet
	}
	var during string
	o.Progress = func(e Event) {
		if !e.Done {
			// The first block measures: Ctrl-C soon. When exactly does
			// not matter; a minute is long enough that it lands inside.
			during = read(t, root, csFile)
			time.AfterFunc(50*time.Millisecond, cancel)
		}
	}
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, root, csFile) != "tsc\n" {
		t.Fatalf("clocksource left at %q", read(t, root, csFile))
	}
	if during != "hpet\n" || !res.Interrupted || len(res.Runs) != 1 || res.Runs[0].Complete || res.Runs[0].Note == "" || !strings.Contains(res.Stopped, "interrupted after 0 of 6 blocks") {
		t.Fatalf("during the block %q; interrupted %v, %d blocks (%+v), stopped %q", during, res.Interrupted, len(res.Runs), res.Runs, res.Stopped)
	}
	if res.Arms[1].Complete != 0 || res.Arms[1].Summary != nil || res.Arms[1].Verdict.Outcome != TooFew {
		t.Errorf("the interrupted block counted: %+v", res.Arms[1])
	}
	j, err := journal.Read(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry %d still open", e.ID)
		}
	}
}

// --probe udp measures each block with paced UDP probes to an echo
// server (latlab net serve's, on loopback here).
func TestTryUDPProbe(t *testing.T) {
	s, err := netload.Listen(netload.ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: -1, SinkPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	echo, _, _ := s.Addrs()
	root := tree(t)
	o := treeOptions(root, testutil.TempDir(t), "hpet")
	o.Blocks = 2
	o.BlockDuration = 200 * time.Millisecond
	o.Probe = Probe{Kind: ProbeUDP, UDP: netload.UDPOptions{To: echo, RatePPS: 500, Size: 64, DSCP: -1}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// How many round trips a block gets depends on how this shared machine
	// schedules the test: any at all shows the probe measured the block.
	for _, b := range res.Runs {
		if !b.Complete || b.Count < 1 {
			t.Errorf("block %d: complete %v, %d round trips", b.Index, b.Complete, b.Count)
		}
	}
	if res.Quantity != "UDP round-trip time" || res.By != "p50" || read(t, root, csFile) != "tsc\n" {
		t.Errorf("quantity %q by %s, clocksource %q", res.Quantity, res.By, read(t, root, csFile))
	}
}

// --probe wake measures each block with periodic wake-ups; its verdict is
// on the tail (p99) unless told.
func TestTryWakeProbe(t *testing.T) {
	root := tree(t)
	o := treeOptions(root, testutil.TempDir(t), "hpet")
	o.Blocks = 2
	o.BlockDuration = 200 * time.Millisecond
	o.Probe = Probe{Kind: ProbeWake, Wake: probe.WakeOptions{Interval: time.Millisecond, CPUs: []int{-1}}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// A starved thread wakes fewer times than planned (a loaded test run
	// saw 3 in 50 ms): any wake-up shows the probe measured the block.
	for _, b := range res.Runs {
		if !b.Complete || b.Count < 1 {
			t.Errorf("block %d: complete %v, %d wake-ups", b.Index, b.Complete, b.Count)
		}
	}
	if res.Quantity != "wake-up latency" || res.By != "p99" || res.meta.intervalNs != 1e6 {
		t.Errorf("quantity %q by %s interval %d", res.Quantity, res.By, res.meta.intervalNs)
	}
}

// A noise block whose thread first ran after the block's end measured
// nothing: it is left out with a note, and the experiment goes on.
func TestTryNoiseBlockUnrun(t *testing.T) {
	root := tree(t)
	n := 0
	old := measure
	t.Cleanup(func() { measure = old })
	measure = func(ctx context.Context, p Probe, d, res time.Duration, calibrate bool) (measured, error) {
		n++
		if n == 1 {
			return measured{unrun: true}, nil
		}
		return measured{samples: []int64{2000, 3000}, noise: []NoiseBlock{{RuntimeNs: d.Nanoseconds(), Count: 2, NoiseNs: 5000, Kept: 2}}}, nil
	}
	o := treeOptions(root, testutil.TempDir(t), "hpet")
	o.Blocks = 2
	o.Probe = Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{0}}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	complete := 0
	for _, b := range res.Runs {
		if b.Complete {
			complete++
			continue
		}
		if b.Noise != nil || !strings.Contains(b.Note, "measured nothing") {
			t.Errorf("block %d: %+v, note %q", b.Index, b.Noise, b.Note)
		}
	}
	if complete != len(res.Runs)-1 {
		t.Errorf("%d of %d blocks complete, want all but the first", complete, len(res.Runs))
	}
}

// fakeProbe stands in for the probe: what it measures depends on the
// clocksource file of root (hpet 30 µs faster than the rest), and during
// can change the tree as someone else would.
func fakeProbe(t *testing.T, root string, during func(block int)) {
	n := 0
	old := measure
	t.Cleanup(func() { measure = old })
	measure = func(ctx context.Context, p Probe, d, res time.Duration, calibrate bool) (measured, error) {
		base := int64(1_100_000)
		if read(t, root, csFile) == "hpet\n" {
			base -= 30_000
		}
		var m measured
		for i := int64(0); i < 50; i++ {
			m.samples = append(m.samples, base+(i*7919)%10_000)
		}
		if during != nil {
			during(n)
		}
		n++
		return m, nil
	}
}

func write(t *testing.T, root, p, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --keep best leaves a value that was significantly better in place,
// journaled (knob revert undoes it), and the experiment finished: the
// next knob set does not call it unfinished.
func TestTryKeepBest(t *testing.T) {
	root := tree(t)
	state := testutil.TempDir(t)
	fakeProbe(t, root, nil)
	o := treeOptions(root, state, "hpet", "acpi_pm")
	o.Blocks, o.Keep = 8, KeepBest
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Arms[1].Verdict.Outcome != Better || res.Arms[2].Verdict.Outcome != NoDifference {
		t.Fatalf("verdicts %s / %s", res.Arms[1].Verdict.Text, res.Arms[2].Verdict.Text)
	}
	if read(t, root, csFile) != "hpet\n" || res.Restore.Kept != "hpet" || res.Restore.Restored || len(res.Restore.Entries) != 1 ||
		!strings.Contains(res.Restore.Text, "kept clocksource hpet: it was significantly better") || !strings.Contains(res.Restore.Undo, "latlab knob revert clocksource --root ") {
		t.Fatalf("clocksource %q, restore %+v", read(t, root, csFile), res.Restore)
	}
	j, err := journal.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if r, open, _ := Unfinished(j); r != nil {
		t.Errorf("a finished experiment that kept its best value is called unfinished: %+v %v", r, open)
	}
	if _, err := knob.Revert(knob.NewEnv(root), j, knob.MatchKnob("clocksource", ""), false); err != nil || read(t, root, csFile) != "tsc\n" {
		t.Errorf("knob revert: %v, clocksource %q", err, read(t, root, csFile))
	}
	j.Close()
	// Without a better value nothing is kept.
	o.Values = []string{"acpi_pm"}
	res, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, root, csFile) != "tsc\n" || !res.Restore.Restored || !strings.Contains(res.Restore.Text, "no value was significantly better") {
		t.Errorf("%v, clocksource %q, restore %+v", err, read(t, root, csFile), res.Restore)
	}
}

// Someone else changing the setting stops the experiment: before a block
// (the baseline is no longer the original) or during one of latlab's
// (the revert would overwrite their value: it is left, and named).
func TestTryForeignChangeStops(t *testing.T) {
	root := tree(t)
	state := testutil.TempDir(t)
	o := treeOptions(root, state, "hpet")
	for Order(2, 3, o.Seed)[0] != 0 {
		o.Seed++ // the baseline first
	}
	fakeProbe(t, root, func(n int) {
		if n == 0 {
			write(t, root, csFile, "acpi_pm\n")
		}
	})
	res, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "changed during the experiment (now acpi_pm, was tsc") || len(res.Runs) != 2 || !strings.Contains(res.Stopped, "changed during") {
		t.Fatalf("%v; %d blocks, stopped %q", err, len(res.Runs), res.Stopped)
	}
	if read(t, root, csFile) != "acpi_pm\n" || !res.Restore.Restored {
		t.Errorf("clocksource %q, restore %+v", read(t, root, csFile), res.Restore)
	}

	write(t, root, csFile, "tsc\n")
	state = testutil.TempDir(t)
	o = treeOptions(root, state, "hpet")
	for Order(2, 3, o.Seed)[0] != 1 {
		o.Seed++ // hpet first
	}
	fakeProbe(t, root, func(n int) {
		if n == 0 {
			write(t, root, csFile, "acpi_pm\n")
		}
	})
	res, err = Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "changed by someone else") || res.Restore.Restored || !strings.Contains(err.Error(), "latlab knob revert --all --root") {
		t.Fatalf("%v; restore %+v", err, res.Restore)
	}
	if read(t, root, csFile) != "acpi_pm\n" {
		t.Errorf("someone else's value was overwritten: %q", read(t, root, csFile))
	}
	j, err := journal.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if r, open, _ := Unfinished(j); r == nil || len(open) != 1 {
		t.Errorf("the change left open is not named: %+v %v", r, open)
	}
}

// A value whose plan is steps latlab does not take itself (a boot
// parameter) is refused as such, not as the baseline: preemption on a
// PREEMPT_DYNAMIC kernel whose debugfs is not mounted.
func TestTryRefusesManualSteps(t *testing.T) {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{"proc/sys/kernel/version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n"})
	o := treeOptions(root, testutil.TempDir(t), "full")
	o.Knob, o.Command = "preemption", "latlab try preemption"
	_, err := Plan(o)
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "preemption full is a change latlab does not make itself") || strings.Contains(err.Error(), "baseline") {
		t.Errorf("%v", err)
	}
}

// The noise probe measures each block with latlab noise's loop on the
// CPU given; the verdict is by rate unless --by says otherwise, and
// --by rate is the noise probe's alone.
func TestTryNoiseProbe(t *testing.T) {
	root := tree(t)
	o := treeOptions(root, testutil.TempDir(t), "hpet")
	o.Blocks = 2
	o.BlockDuration = 50 * time.Millisecond
	o.Probe = Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{0}}}
	plan, err := Plan(o)
	if err != nil || plan.By != ByRate || plan.NoiseCPU == nil || *plan.NoiseCPU != 0 || plan.NoiseThresholdNs != 1000 {
		t.Fatalf("plan by %v: %v", plan, err)
	}
	by := o
	by.By, by.BySet = stats.Quantile(99), true
	if p, err := Plan(by); err != nil || p.By != "p99" {
		t.Errorf("--by p99: %v %v", p, err)
	}
	sleep := treeOptions(root, testutil.TempDir(t), "hpet")
	sleep.ByRate = true
	if _, err := Plan(sleep); !badinput.Is(err) || !strings.Contains(err.Error(), "--by rate is the noise probe's") {
		t.Errorf("--by rate for sleep: %v", err)
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// Whether the CPU was interrupted at all is the machine's business:
	// any runtime shows the probe measured the block.
	// The runtime is the block's window at most, however late the loop's
	// last read.
	for _, b := range res.Runs {
		if !b.Complete || b.Noise == nil || b.Noise.RuntimeNs <= 0 || b.Noise.RuntimeNs > o.BlockDuration.Nanoseconds() ||
			b.Noise.NoiseNs > b.Noise.RuntimeNs || b.Noise.CPU != 0 || int64(b.Count) != b.Noise.Kept {
			t.Errorf("block %d: complete %v, %+v", b.Index, b.Complete, b.Noise)
		}
	}
	if v := res.Arms[1].Verdict; v == nil || v.By != ByRate || v.Outcome != TooFew || res.meta.method != probe.NoiseMethod {
		t.Errorf("verdict %+v, method %q", v, res.meta.method)
	}
	if read(t, root, csFile) != "tsc\n" {
		t.Error("the original is not back")
	}
}

// Over two CPUs the noise probe spins a thread on each in every block:
// each block keeps the counts of both, in the order given, and each
// value a verdict per CPU under one that sums them up.
func TestTryNoiseProbeCPUs(t *testing.T) {
	if sched.NumCPU() < 2 {
		t.Skip("one CPU")
	}
	root := tree(t)
	o := treeOptions(root, testutil.TempDir(t), "hpet")
	o.Blocks = 2
	o.BlockDuration = 50 * time.Millisecond
	o.Probe = Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{1, 0}}}
	plan, err := Plan(o)
	if err != nil || plan.By != ByRate || !slices.Equal(plan.NoiseCPUs, []int{1, 0}) || plan.NoiseCPU != nil {
		t.Fatalf("plan %+v: %v", plan, err)
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Runs {
		var kept int64
		for i, n := range b.NoiseCPUs {
			kept += n.Kept
			if n.CPU != o.Probe.Noise.CPUs[i] || n.RuntimeNs <= 0 {
				t.Errorf("block %d, CPU %d: %+v", b.Index, o.Probe.Noise.CPUs[i], n)
			}
		}
		if !b.Complete || b.Noise != nil || len(b.NoiseCPUs) != 2 || int64(b.Count) != kept {
			t.Errorf("block %d: complete %v, %d samples, %+v", b.Index, b.Complete, b.Count, b.NoiseCPUs)
		}
	}
	v := res.Arms[1].Verdict
	if v == nil || v.By != ByRate || v.Outcome != TooFew || len(v.NoiseCPUs) != 2 || v.NoiseCPUs[0].CPU != 1 || v.NoiseCPUs[1].CPU != 0 ||
		len(res.Arms[0].NoiseCPUs) != 2 || !strings.Contains(v.Text, "no verdict on any of 2 CPUs") {
		t.Errorf("verdict %+v", v)
	}
	if read(t, root, csFile) != "tsc\n" {
		t.Error("the original is not back")
	}
}
