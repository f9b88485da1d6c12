package knob

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The per-CPU knobs read this machine's /sys without an error, whatever
// it offers: a VM without cpufreq reads as a note, not a failure.
func TestRealCPUReads(t *testing.T) {
	env := NewEnv("/")
	for _, name := range []string{cpuGovernorName, energyPreferenceName, cpuIdleStatesName} {
		r := get(t, env, name, Selector{})
		if len(r.Items) == 0 && len(r.Notes) == 0 {
			t.Errorf("%s: no items and no note saying why", name)
		}
		for _, it := range r.Items {
			if it.Meaning == "" || strings.Contains(it.Meaning, "unknown") || strings.Contains(it.Meaning, "unreadable") {
				t.Errorf("%s %s: %q", name, it.Target, it.Meaning)
			}
		}
	}
	// The states agree with the kernel's own files.
	states, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cpuidle/state*/name")
	r := get(t, env, cpuIdleStatesName, Selector{CPU: "0"})
	if len(r.Items) != len(states) {
		t.Fatalf("%d states of CPU 0, /sys has %d", len(r.Items), len(states))
	}
	for _, it := range r.Items {
		d := it.Detail.(IdleStateDetail)
		b, _ := os.ReadFile(filepath.Join("/sys/devices/system/cpu/cpu0/cpuidle", "state"+strconv.Itoa(d.State), "name"))
		if strings.TrimSpace(string(b)) != d.Name {
			t.Errorf("state%d: %q, /sys says %q", d.State, d.Name, b)
		}
	}
}

// TestCPUKnobsRoundTrip sets each per-CPU knob, twice for some, and
// reverts: the tree is as it was, byte for byte, also with a crash after
// any write. Linux only: elsewhere a Linux knob is decoded, never set
// (lookupNative), and under Wine the matrix's 48 fresh trees took 22 s
// of file operations; the journal's crash handling on Windows is
// TestCrashAtEveryWriteWindowsKnobs's.
func TestCPUKnobsRoundTrip(t *testing.T) {
	steps := []setStep{
		{energyPreferenceName, Selector{}, "balance_power"},
		{energyPreferenceName, Selector{CPU: "2-3"}, "epb=0"},
		{cpuGovernorName, Selector{}, "performance"},
		{cpuGovernorName, Selector{CPU: "1"}, "powersave"},
		{cpuIdleStatesName, Selector{}, "10us"},
		{cpuIdleStatesName, Selector{CPU: "3"}, "all"},
	}
	crashEverywhere(t, steps, func(t *testing.T) (*Env, func() map[string]string) {
		env, root := cpuEnv(t, cpuFiles(), nil)
		return env, func() map[string]string { return snapshotTree(t, root) }
	})
}
