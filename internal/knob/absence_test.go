package knob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// TestAbsenceTellsTreeFromKernel reads and plans each knob of a setting
// file a kernel may lack over three trees: the file there; the file
// missing while the directory every kernel has above it (its anchor) is
// there, a kernel without the feature; both missing, a partial copy that
// does not show it (procfs's fixture tree has no /sys/kernel/mm). Only
// the second may say the kernel lacks it.
func TestAbsenceTellsTreeFromKernel(t *testing.T) {
	for _, c := range []struct {
		knob   string
		files  map[string]string // the setting's files, as a kernel prints them
		anchor string            // a directory every kernel has above them
		value  string            // a value to plan
		// fails, when set, is what the error the reading of a file the
		// kernel lacks is says: no item, and a plan writes without looking
		// (tcp-recovery, tcp-dsack) or has no such file (timer-slack).
		fails string
	}{
		{knob: "ksm", files: map[string]string{"sys/kernel/mm/ksm/run": "0\n"}, anchor: "sys/kernel/mm", value: "2"},
		{knob: "transparent-hugepages", files: map[string]string{
			"sys/kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
			"sys/kernel/mm/transparent_hugepage/defrag":  "always defer defer+madvise [madvise] never\n"}, anchor: "sys/kernel/mm", value: "never"},
		{knob: "swappiness", files: map[string]string{"proc/sys/vm/swappiness": "60\n"}, anchor: "proc/sys/vm", value: "10"},
		{knob: "stat-interval", files: map[string]string{"proc/sys/vm/stat_interval": "1\n"}, anchor: "proc/sys/vm", value: "10"},
		{knob: "numa-balancing", files: map[string]string{"proc/sys/kernel/numa_balancing": "1\n"}, anchor: "proc/sys/kernel", value: "0"},
		{knob: "sched-autogroup", files: map[string]string{"proc/sys/kernel/sched_autogroup_enabled": "1\n"}, anchor: "proc/sys/kernel", value: "0"},
		{knob: "timer-migration", files: map[string]string{"proc/sys/kernel/timer_migration": "1\n"}, anchor: "proc/sys/kernel", value: "0"},
		{knob: "rt-throttling", files: map[string]string{
			"proc/sys/kernel/sched_rt_runtime_us": "950000\n",
			"proc/sys/kernel/sched_rt_period_us":  "1000000\n"}, anchor: "proc/sys/kernel", value: "off"},
		{knob: "nmi-watchdog", files: map[string]string{"proc/sys/kernel/nmi_watchdog": "1\n"}, anchor: "proc/sys/kernel", value: "nmi-off"},
		{knob: "busy-poll", files: map[string]string{
			"proc/sys/net/core/busy_poll": "0\n",
			"proc/sys/net/core/busy_read": "0\n"}, anchor: "proc/sys/net/core", value: "50"},
		{knob: "tcp-recovery", files: map[string]string{"proc/sys/net/ipv4/tcp_recovery": "1\n"}, anchor: "proc/sys/net/ipv4", fails: "does not exist on this kernel"},
		{knob: "tcp-dsack", files: map[string]string{"proc/sys/net/ipv4/tcp_dsack": "1\n"}, anchor: "proc/sys/net/ipv4", fails: "does not exist on this kernel"},
		{knob: "clocksource", files: map[string]string{
			"sys/devices/system/clocksource/clocksource0/current_clocksource":   "tsc\n",
			"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet\n"}, anchor: "sys/devices/system/clocksource", fails: "does not exist on this kernel"},
		{knob: "timer-slack", files: map[string]string{"proc/self/timerslack_ns": "50000\n"}, anchor: "proc/self", fails: "does not exist: this kernel does not expose timer slack"},
	} {
		k, err := Lookup(c.knob)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range []struct {
			name          string
			files, anchor bool
			// says is what the reading (or its error) and the plan's
			// refusal say; lacks marks the kernel's lack; notShown is
			// the items' NotShown.
			says, notShown string
			lacks          bool
		}{
			{name: "present", files: true, anchor: true},
			{name: "kernel lacks", anchor: true, says: "this kernel has no ", lacks: true},
			{name: "tree does not show", says: "not in this tree: /" + c.anchor + " is missing too, so the tree does not say whether the kernel has ", notShown: "/" + c.anchor},
		} {
			what := c.knob + ", " + tr.name
			root := testutil.TempDir(t)
			if tr.files {
				testutil.WriteTree(t, root, c.files)
			}
			if tr.anchor {
				if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(c.anchor)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			env := &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}
			r, err := k.Get(env, Selector{})
			switch {
			case c.fails != "" && tr.says != "":
				want := tr.says
				if tr.lacks {
					want = c.fails
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: reading %+v, %v; want an error saying %q", what, r, err, want)
				}
			case err != nil:
				t.Errorf("%s: %v", what, err)
			default:
				for _, it := range r.Items {
					if absent := it.Value == "absent"; absent != (tr.says != "") || it.NotShown != tr.notShown {
						t.Errorf("%s: item %s reads %q, not shown %q; want not shown %q", what, it.Target, it.Value, it.NotShown, tr.notShown)
					}
					if tr.says != "" && !strings.Contains(it.Meaning, tr.says) {
						t.Errorf("%s: item %s means %q, want it to say %q", what, it.Target, it.Meaning, tr.says)
					}
				}
			}
			if c.fails != "" || tr.says == "" {
				continue
			}
			// The check-up's cases carry what the item says.
			for _, cs := range Cases(env, k) {
				if cs.NotShown != tr.notShown {
					t.Errorf("%s: case %s not shown %q, want %q", what, cs.Target, cs.NotShown, tr.notShown)
				}
			}
			// Nothing can be set where the file is not; the refusal says
			// why, as the reading does.
			if p, err := k.Plan(env, Selector{}, c.value); err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), tr.says) {
				t.Errorf("%s: plan %s: %+v, %v; want a refusal saying %q", what, c.value, p, err, tr.says)
			}
		}
	}
}

// TestAbsenceOnTheHost: on the machine's own root, a missing anchor is a
// file system not mounted where latlab reads it (or hidden), not a tree.
func TestAbsenceOnTheHost(t *testing.T) {
	a := absence{lacks: ksmLacks, missing: "/sys/kernel/mm", host: true}
	if got, want := a.why(""), "not shown: /sys/kernel/mm is missing too, so this system does not say whether the kernel has kernel samepage merging (CONFIG_KSM)"; got != want {
		t.Errorf("why = %q, want %q", got, want)
	}
	a.missing = ""
	if got, want := a.why("vm.x"), "vm.x does not exist: this kernel has no kernel samepage merging (CONFIG_KSM)"; got != want {
		t.Errorf("why = %q, want %q", got, want)
	}
}

// TestAnchorOf: each setting file's anchor is the nearest directory every
// kernel has; a file under none is anchored at its file system's top.
func TestAnchorOf(t *testing.T) {
	for p, want := range map[string]string{
		"sys/kernel/mm/ksm/run":                         "sys/kernel/mm",
		"sys/kernel/mm/transparent_hugepage/enabled":    "sys/kernel/mm",
		"proc/sys/vm/swappiness":                        "proc/sys/vm",
		"proc/sys/kernel/nmi_watchdog":                  "proc/sys/kernel",
		"proc/sys/net/core/busy_poll":                   "proc/sys/net/core",
		"proc/sys/net/ipv4/tcp_recovery":                "proc/sys/net/ipv4",
		"sys/devices/system/cpu/nohz_full":              "sys/devices/system/cpu",
		"proc/sys/fs/file-max":                          "proc",
		"/sys/kernel/mm/ksm/run":                        "sys/kernel/mm",
		"sys/kernel/mmx/run":                            "sys",
		"sys/devices/system/clocksource/clocksource0/x": "sys/devices/system/clocksource",
	} {
		if got := anchorOf(fileLoc(p)); got != want {
			t.Errorf("anchorOf(%s) = %s, want %s", p, got, want)
		}
	}
}
