package doctor

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
)

// againstRoot is a machine with the kernel's defaults where latlab reads
// them, and a kernel command line with one of the profile's parameters.
func againstRoot(t *testing.T) string {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/vm/swappiness":                          "60\n",
		"proc/sys/vm/stat_interval":                       "1\n",
		"proc/sys/kernel/nmi_watchdog":                    "0\n",
		"proc/sys/kernel/timer_migration":                 "1\n",
		"proc/sys/kernel/numa_balancing":                  "0\n",
		"proc/sys/kernel/sched_rt_runtime_us":             "950000\n",
		"proc/sys/kernel/sched_rt_period_us":              "1000000\n",
		"proc/sys/net/core/busy_poll":                     "0\n",
		"proc/sys/net/core/busy_read":                     "0\n",
		"sys/kernel/mm/transparent_hugepage/enabled":      "always [madvise] never\n",
		"sys/kernel/mm/transparent_hugepage/defrag":       "always defer defer+madvise [madvise] never\n",
		"sys/kernel/mm/ksm/run":                           "0\n",
		"sys/devices/system/cpu/online":                   "0-1\n",
		"proc/cmdline":                                    "ro quiet skew_tick=1\n",
		"proc/swaps":                                      "Filename\tType\tSize\tUsed\tPriority\n",
		"sys/devices/system/node/online":                  "0\n",
		"proc/sys/kernel/version":                         "#1 SMP\n",
		"sys/devices/system/cpu/cpu0/cpuidle/state0/name": "POLL\n",
	})
	return root
}

func TestCompareAgainst(t *testing.T) {
	root := againstRoot(t)
	env := knob.NewEnv(root)
	settings := Audit(env, "linux")
	cmdline := Cmdline(root)
	item := func(a *Against, k string) AgainstItem {
		t.Helper()
		for _, it := range a.Items {
			if it.Knob == k {
				return it
			}
		}
		t.Fatalf("against %s: no %s in %+v", a.Profile, k, a.Items)
		return AgainstItem{}
	}
	a, err := CompareAgainst(env, "linux", settings, "latency-performance", cmdline)
	if err != nil {
		t.Fatal(err)
	}
	if it := item(a, "swappiness"); it.State != Differs || it.Command != "latlab knob set swappiness 10" || it.Current != "60" {
		t.Errorf("swappiness %+v", it)
	}
	for _, it := range a.Items {
		if it.Reference.Profile != "latency-performance" {
			t.Errorf("latency-performance includes nothing, yet %+v", it)
		}
	}

	// realtime includes network-latency, which includes
	// latency-performance: their values count, the nearest winning.
	a, err = CompareAgainst(env, "linux", settings, "realtime", cmdline)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Profiles, " ") != "realtime network-latency latency-performance" {
		t.Errorf("chain %v", a.Profiles)
	}
	for k, want := range map[string]string{
		"rt-throttling":         "latlab knob set rt-throttling -- -1",
		"stat-interval":         "latlab knob set stat-interval 10",
		"timer-migration":       "latlab knob set timer-migration 0",
		"swappiness":            "latlab knob set swappiness 10",
		"transparent-hugepages": "latlab knob set transparent-hugepages never",
		"busy-poll":             "latlab knob set busy-poll 50",
	} {
		if it := item(a, k); it.State != Differs || it.Command != want {
			t.Errorf("%s: %+v, want %q", k, it, want)
		}
	}
	if it := item(a, "nmi-watchdog"); it.State != Same {
		t.Errorf("nmi-watchdog is 0 as realtime sets it: %+v", it)
	}
	if it := item(a, "irqbalance"); it.State != NotCompare || !strings.Contains(it.Note, "give the profile's tuned.conf path") {
		t.Errorf("irqbalance's banned_cpus come from a variable: %+v", it)
	}
	// The boot parameters: network-latency's skew_tick=1 is there,
	// realtime's own fixed ones are not.
	n := 0
	for _, it := range a.Items {
		if it.Knob == "isolation" {
			n++
			switch it.Reference.Profile {
			case "network-latency":
				if it.State != Same {
					t.Errorf("skew_tick=1 is on the command line: %+v", it)
				}
			case "realtime":
				if it.State != Differs || !strings.Contains(it.Note, "intel_pstate=disable nosoftlockup tsc=reliable") || it.Command != "" {
					t.Errorf("realtime's boot parameters: %+v", it)
				}
			}
		}
	}
	if n != 2 {
		t.Errorf("%d isolation items, want network-latency's and realtime's", n)
	}
	if a.Differ != countState(a, Differs) {
		t.Errorf("differ %d", a.Differ)
	}

	_, err = CompareAgainst(env, "linux", settings, "latency-performace", cmdline)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "latency-performance, network-latency, postgresql, powersave, realtime") {
		t.Errorf("unknown profile: %v", err)
	}
}

func countState(a *Against, st string) int {
	n := 0
	for _, it := range a.Items {
		if it.State == st {
			n++
		}
	}
	return n
}

// Every profile the catalogue cites has its include in tunedIncludes, and
// that is what tuned's own profile says ([main] include=).
func TestTunedIncludes(t *testing.T) {
	for _, p := range CitedProfiles() {
		if _, ok := tunedIncludes[p]; !ok {
			t.Errorf("%s is cited but has no entry in tunedIncludes", p)
		}
	}
	dir := os.Getenv("LATLAB_TUNED_PROFILES")
	if dir == "" {
		dir = "/usr/lib/tuned"
	}
	if _, err := os.Stat(filepath.Join(dir, "latency-performance", "tuned.conf")); err != nil {
		if testutil.Required() {
			t.Fatal("tuned's profiles are required (LATLAB_REQUIRE_ALL=1): set LATLAB_TUNED_PROFILES")
		}
		t.Skip("tuned's profiles not found; scripts/test unpacks them")
	}
	for p, want := range tunedIncludes {
		f, err := os.Open(filepath.Join(dir, p, "tuned.conf"))
		if err != nil {
			t.Fatal(err)
		}
		got, sec := "", ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(l, "[") {
				sec = l
			}
			if k, v, ok := strings.Cut(l, "="); ok && sec == "[main]" && strings.TrimSpace(k) == "include" {
				got = strings.TrimSpace(v)
			}
		}
		f.Close()
		if got != want {
			t.Errorf("%s includes %q, tunedIncludes says %q", p, got, want)
		}
	}
}
