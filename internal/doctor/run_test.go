package doctor

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
)

// tiny are probe sizes that keep a test fast: they check the check-up's
// plumbing, not the machine.
func tiny(o Options) Options {
	o.SleepSamples, o.SleepGap = 3, 0
	o.WakeDuration, o.WakeInterval = 5*time.Millisecond, time.Millisecond
	o.ExtraDuration, o.CauseDuration = 3*time.Millisecond, 30*time.Millisecond
	return o
}

// The check-up of this machine: its own knobs, read live, and probes.
func TestRunLive(t *testing.T) {
	r, err := Run(context.Background(), tiny(ForProfile(Standard)))
	if err != nil {
		t.Fatal(err)
	}
	if r.OS != knob.HostOS || r.Sleep == nil || r.Wake == nil || r.Overhead == nil {
		t.Fatalf("result %+v", r)
	}
	// The sleep probe takes its 3 samples however busy the machine is;
	// how many wake-ups 5 ms give depends on it (other packages' tests
	// run beside this one), so the wake probe is held to its own count.
	if len(r.Sleep.Samples) != 3 || r.Sleep.Summary.Count != 3 || len(r.Wake.Samples) != int(r.Wake.Summary.Count) {
		t.Errorf("samples: sleep %d of %d, wake %d of %d", len(r.Sleep.Samples), r.Sleep.Summary.Count, len(r.Wake.Samples), r.Wake.Summary.Count)
	}
	if !strings.Contains(r.Wake.What, fmt.Sprintf("a 1ms periodic wake-up, %d times", len(r.Wake.Samples))) || r.Wake.Band == "" || r.Sleep.Verdict == "" {
		t.Errorf("wake %q band %q, sleep verdict %q", r.Wake.What, r.Wake.Band, r.Sleep.Verdict)
	}
	if len(r.Timer.Facts) < 3 {
		t.Errorf("timer facts %+v", r.Timer)
	}
	seen := map[string]bool{}
	for _, s := range r.Settings {
		seen[s.Knob] = true
		if s.Verdict == "" || s.Reason == "" || s.Rule == "" || s.Rule == "no-rule" {
			t.Errorf("setting %+v", s)
		}
	}
	for _, k := range knob.Native() {
		if !seen[k.Name()] {
			t.Errorf("knob %s not audited", k.Name())
		}
	}
	if n := len(r.Next); n == 0 || n > MaxSteps {
		t.Errorf("%d next steps", n)
	}
	c := r.Counts
	if c.Default+c.Changed+c.Suspicious+c.Unknown != len(r.Settings) {
		t.Errorf("counts %+v of %d settings", c, len(r.Settings))
	}
	// A cause, or one line saying how to get one; and the verdict.
	if r.Cause == nil || (r.Cause.Missing == "") == (r.Cause.Text == "") || r.Verdict.Text == "" || r.Verdict.Band != r.Wake.Band {
		t.Errorf("cause %+v, verdict %+v", r.Cause, r.Verdict)
	}
}

// Thorough adds a realtime probe where allowed (or a note why not) and a
// probe with a thread on each CPU.
func TestRunThorough(t *testing.T) {
	r, err := Run(context.Background(), tiny(ForProfile(Thorough)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Extra {
		names = append(names, p.Name)
	}
	joined := strings.Join(names, " ") + " " + strings.Join(r.Notes, " ")
	if !strings.Contains(joined, "wake-realtime") && !strings.Contains(joined, "no realtime wake probe") {
		t.Errorf("no realtime probe and no note: %q", joined)
	}
	for _, p := range r.Extra {
		if p.Name == "wake-per-cpu" && len(p.Threads) != numCPU() && numCPU() > 1 {
			t.Errorf("per-CPU probe with %d threads on %d CPUs", len(p.Threads), numCPU())
		}
	}
	for _, s := range r.Next {
		if s.Command == "latlab doctor --thorough" {
			t.Errorf("a thorough check-up suggests itself")
		}
	}
}

// The profiles: quick stays within about 4 s, standard is the check-up
// as it was, thorough about a minute.
func TestProfiles(t *testing.T) {
	for _, c := range []struct {
		p        Profile
		min, max time.Duration
	}{{Quick, time.Second, 4 * time.Second}, {Standard, 3 * time.Second, 6 * time.Second}, {Thorough, 45 * time.Second, 75 * time.Second}} {
		o := ForProfile(c.p)
		// Sleeps at Windows' default 15.625 ms tick, the slowest case.
		budget := time.Duration(o.SleepSamples)*(16*time.Millisecond+o.SleepGap) + o.WakeDuration
		if o.Realtime {
			budget += o.ExtraDuration
		}
		if o.PerCPU {
			budget += o.ExtraDuration
		}
		if budget < c.min || budget > c.max {
			t.Errorf("%s: about %s, want %s-%s", c.p, budget, c.min, c.max)
		}
	}
	if p, err := ParseProfile("fast"); err == nil {
		t.Errorf("ParseProfile(fast) = %s", p)
	}
}

// The audit reads only: the fixture tree is byte for byte the same after.
func TestAuditWritesNothing(t *testing.T) {
	root := linuxTree(t, nil)
	before := snapshot(t, root)
	ss := Audit(linuxEnv(root), "linux")
	if s := find(t, ss, "irq-affinity", ""); runtime.GOOS == "linux" && s.Rule != "irq-default" {
		t.Errorf("irq-affinity read as %+v", s)
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("the tree changed")
	}
	wenv, reg, _ := windowsEnv(22631, false)
	regBefore := reg.Snapshot()
	wenv.Backends[backend.BackendRegistry] = noWrite{reg, t}
	Audit(wenv, "windows")
	if len(reg.Snapshot()) != len(regBefore) {
		t.Errorf("the registry changed")
	}
}
