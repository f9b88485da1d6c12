package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// The audit reads /proc and /sys under --root: a machine with RACK off
// gets a suspicious verdict with its evidence, and the step to undo it.
func TestDoctorRoot(t *testing.T) {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/net/ipv4/tcp_recovery": "0\n",
		"proc/sys/net/ipv4/tcp_dsack":    "1\n",
		"proc/self/timerslack_ns":        "50000\n",
		"proc/cmdline":                   "ro quiet\n",
		"proc/sys/kernel/version":        "#1 SMP Tue Jan 9 2024\n",
		"sys/devices/system/cpu/online":  "0-1\n",
		"sys/devices/system/clocksource/clocksource0/current_clocksource":   "tsc\n",
		"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet\n",
	})
	code, out, errs := runCLI(t, "--root", root, "doctor", "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"\n  suspicious tcp-recovery: 0\n             RACK off: 3-duplicate-ACK loss detection\n             evidence: 0x1 rack RACK loss detection",
		"\n  default    tcp-dsack: 1\n",
		"\n  default    clocksource: tsc\n",
		"latlab knob set tcp-recovery 1\n",
		// Under --root no service is asked: irqbalance is not available.
		"\n  unknown    irqbalance: not available\n",
		"\n  default    isolation: none\n",
		"\n  default    preemption: none or voluntary\n",
		// Nor the real NICs: coalescing is not available either.
		"\n  unknown    coalescing: not available\n",
		// The timer's files are the tree's (this machine has no hpet
		// here), and a note says what is the tree's and what is not.
		"(available: tsc hpet)",
		"\nnote: under --root ",
		"settings: 24 read, none altered: 1 suspicious, 0 changed, 21 default, 2 unknown",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// doctor --against lists what differs from a tuned profile with the
// commands that make it the profile's; an unknown profile is bad input
// that lists the profiles.
func TestDoctorAgainst(t *testing.T) {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/vm/swappiness":        "60\n",
		"proc/cmdline":                  "ro quiet\n",
		"sys/devices/system/cpu/online": "0-1\n",
	})
	code, out, errs := runCLI(t, "--root", root, "doctor", "--against", "network-latency")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"against tuned 2.20.0 network-latency (with latency-performance): ",
		"\n  differs      swappiness: 60; the profile sets [sysctl] vm.swappiness=10\n               (latency-performance)\n               latlab knob set swappiness 10\n",
		"add skew_tick=1 to the kernel command line"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, "doctor", "--against", "latency")
	testutil.CheckBadExit(t, "unknown profile", code, errs, `unknown profile "latency"`)
	if out != "" || !strings.Contains(errs, "latency-performance, network-latency") {
		t.Errorf("unknown profile: stdout %q, stderr %q lacks the profiles", out, errs)
	}
}

// --against --json: a doctor document with the comparison, every item.
func TestDoctorAgainstJSON(t *testing.T) {
	code, out, errs := runCLI(t, "doctor", "--against", "realtime", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	r := payload(t, doc, doctor.Kind)
	if r.Against == nil || r.Against.Profile != "realtime" || len(r.Against.Items) < 8 || r.Wake != nil {
		t.Errorf("against %+v, wake %v", r.Against, r.Wake)
	}
}
