package cli

import (
	"path/filepath"
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
		// /proc/sys/kernel is in the tree: a setting missing there is the
		// kernel's lack. The tree has no /sys/kernel/mm, /proc/sys/vm or
		// /proc/sys/net/core: what it would hold is not judged.
		"\n  default    nmi-watchdog: absent\n             kernel.nmi_watchdog does not exist: this kernel has no lockup\n",
		"\n  unknown    ksm: absent\n             not in this tree: /sys/kernel/mm is missing too, so the tree does\n",
		"\n  unknown    swappiness: absent\n             not in this tree: /proc/sys/vm is missing too, so the tree does not\n",
		"settings: 24 read, none altered: 1 suspicious, 0 changed, 15 default, 8 unknown",
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

// doctor --against a tuned.conf path, a profile's directory, or active:
// the file read, merged with what it includes, the page heading naming
// the file and the profiles; what cannot be read is bad input, one line,
// before the audit.
func TestDoctorAgainstFile(t *testing.T) {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/vm/swappiness":        "60\n",
		"proc/cmdline":                  "ro quiet\n",
		"sys/devices/system/cpu/online": "0-1\n",
		"etc/tuned/active_profile":      "mine\n",
		"etc/tuned/mine/tuned.conf":     "[main]\ninclude=latency-performance\n[sysctl]\nvm.swappiness=7 # mine\nvm.dirty_ratio=5\n",
	})
	conf := filepath.Join(root, "etc/tuned/mine/tuned.conf")
	for _, spec := range []string{conf, filepath.Dir(conf), "active"} {
		code, out, errs := runCLI(t, "--root", root, "doctor", "--against", spec)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", spec, code, errs)
		}
		for _, want := range []string{"against tuned profile mine\n", "merging mine <-\n  latency-performance: 1 of the 4 settings latlab audits differ\n",
			"\n  differs      swappiness: 60; the profile sets [sysctl] vm.swappiness=7\n               latlab knob set swappiness 7\n",
			"latency-performance: read from latlab's references (tuned 2.20.0)",
			"not audited by latlab (1): [sysctl] vm.dirty_ratio"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", spec, want, out)
			}
		}
	}
	for _, c := range []struct{ spec, want string }{
		{filepath.Join(root, "nothere.conf"), "nothere.conf: not found; give a tuned.conf, a profile's directory holding one"},
		{filepath.Join(root, "proc"), "a directory with no tuned.conf"},
		{filepath.Join(root, "proc/cmdline"), `is not a tuned.conf as tuned reads it: line 1 ("ro quiet"): a key before any [section]`},
	} {
		code, out, errs := runCLI(t, "--root", root, "doctor", "--against", c.spec)
		testutil.CheckBadExit(t, c.spec, code, errs, c.want)
		if out != "" {
			t.Errorf("%s: stdout %q", c.spec, out)
		}
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
