package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/try"
)

// The command of the issue end to end against Wine's registry: latlab try
// win32-priority-separation 0x28 --probe sleep. Wine's scheduler is not
// Windows': the verdict is not asserted, only that the run completes,
// restores the value and writes its document.
func TestTryPrioritySeparationWine(t *testing.T) {
	reg := backend.Registry{}
	loc := backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}
	orig, err := reg.Read(loc)
	if err != nil {
		t.Fatal(err)
	}
	state := testutil.TempDir(t)
	code, out, errs := runCLI(t, "try", "win32-priority-separation", "0x28", "--probe", "sleep", "--blocks", "2", "--block-duration", "100ms",
		"--settle", "0", "--state-dir", state, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	r, err := try.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 4 || r.Scope != try.ScopeSystem || !r.Restore.Restored || !strings.Contains(r.Arms[1].Changes[len(r.Arms[1].Changes)-1].To, "REG_DWORD") {
		t.Errorf("%d blocks, scope %s, restore %+v, changes %+v", len(r.Runs), r.Scope, r.Restore, r.Arms[1].Changes)
	}
	if v, err := reg.Read(loc); err != nil || !backend.Same(v, orig) {
		t.Errorf("after try the registry holds %s (%v), not %s", v, err, orig)
	}
}

// Knobs that take effect only after a reboot are refused with the two
// runs that measure them.
func TestTryRefusesRebootKnobWindows(t *testing.T) {
	code, _, errs := runCLI(t, "try", "global-timer-resolution-requests", "1")
	want := "latlab: global-timer-resolution-requests cannot be tried live: the kernel reads it at boot: it takes effect after a reboot; measure it in two runs: latlab sleep -o before.json; latlab knob set global-timer-resolution-requests 1; reboot; latlab sleep -o after.json; latlab compare before.json after.json\n"
	if code != 2 || errs != want {
		t.Errorf("exit %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "try", "rss", "*NumRssQueues=4", "--adapter", "7", "--probe", "udp", "--to", "192.0.2.1:7")
	testutil.CheckBadExit(t, "rss", code, errs, "rss takes effect only when the network adapter restarts: add --restart-adapter")
	if !strings.Contains(errs, "latlab net udp --to 192.0.2.1:7 -o before.json") {
		t.Errorf("rss: %q lacks the two runs", errs)
	}
}

// Under Wine the kernel trace of the dpcisr probe cannot start: the
// watch's own one line, exit 3, before any block (after the plan's
// warnings).
func TestTryDPCISRUnderWine(t *testing.T) {
	if !testutil.UnderWine() {
		t.Skip("not Wine: a real kernel trace is the CI job's, not a unit test's")
	}
	code, out, errs := runCLI(t, "try", "timer-resolution", "1ms", "--probe", "dpcisr", "--blocks", "2", "--block-duration", "10ms")
	// Before it: the warnings of the plan (too few blocks, another probe).
	if code != 3 || out != "" || strings.Count(errs, "latlab: ") != 1 || !strings.Contains(errs, "latlab: tracing unavailable: Wine does not implement") ||
		!strings.Contains(errs, "warning: 2 blocks per arm cannot give a verdict") {
		t.Errorf("exit %d %q %q", code, out, errs)
	}
	// --by must be a quantile of the buckets.
	code, _, errs = runCLI(t, "try", "timer-resolution", "1ms", "--probe", "dpcisr", "--by", "mean")
	testutil.CheckBadExit(t, "--by mean", code, errs, "invalid --by mean for --probe dpcisr")
}
