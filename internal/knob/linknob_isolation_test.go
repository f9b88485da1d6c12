package knob

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// A command line as GRUB boots a tuned cpu-partitioning machine with
// isolated_cores=2-3, init's arguments after "--".
const partitionedCmdline = "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=0f3a ro quiet skew_tick=1 nohz=on nohz_full=2-3 rcu_nocbs=2-3 tuned.non_isolcpus=00000003 intel_pstate=disable nosoftlockup -- isolcpus=9\n"

func isolationEnv(t *testing.T, files map[string]string) (*Env, string) {
	t.Helper()
	root := linuxTree(t)
	testutil.WriteTree(t, root, files)
	return &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}, root
}

func TestIsolationGet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		value string
		want  IsolationDetail
	}{
		{"none", map[string]string{"proc/cmdline": "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n", "sys/devices/system/cpu/isolated": "\n", "sys/devices/system/cpu/nohz_full": "(null)\n"},
			"none", IsolationDetail{Params: map[string]string{}, NohzFullFile: true}},
		{"partitioned", map[string]string{"proc/cmdline": partitionedCmdline, "sys/devices/system/cpu/isolated": "\n", "sys/devices/system/cpu/nohz_full": "2-3\n"},
			"nohz_full=2-3 rcu_nocbs=2-3 nohz=on skew_tick=1",
			IsolationDetail{Params: map[string]string{"nohz_full": "2-3", "rcu_nocbs": "2-3", "nohz": "on", "skew_tick": "1"}, NohzFull: "2-3", NohzFullFile: true}},
		{"realtime", map[string]string{"proc/cmdline": "ro isolcpus=managed_irq,domain,2-3 irqaffinity=0-1\n", "sys/devices/system/cpu/isolated": "2-3\n"},
			"isolcpus=managed_irq,domain,2-3 irqaffinity=0-1",
			IsolationDetail{Params: map[string]string{"isolcpus": "managed_irq,domain,2-3", "irqaffinity": "0-1"}, IsolFlags: []string{"managed_irq", "domain"}, IsolCPUs: "2-3", Isolated: "2-3"}},
		{"bare isolcpus", map[string]string{"proc/cmdline": "isolcpus=1,3-4\n"},
			"isolcpus=1,3-4", IsolationDetail{Params: map[string]string{"isolcpus": "1,3-4"}, IsolFlags: []string{"domain"}, IsolCPUs: "1,3-4"}},
	} {
		env, _ := isolationEnv(t, tc.files)
		it := get(t, env, isolationName, Selector{}).Items[0]
		d := it.Detail.(IsolationDetail)
		if it.Value != tc.value || it.Loc != nil || it.Raw != nil {
			t.Errorf("%s: value %q (loc %v), want %q and no stored value", tc.name, it.Value, it.Loc, tc.value)
		}
		if strings.Join(d.IsolFlags, ",") != strings.Join(tc.want.IsolFlags, ",") || d.IsolCPUs != tc.want.IsolCPUs || d.Isolated != tc.want.Isolated ||
			d.NohzFull != tc.want.NohzFull || d.NohzFullFile != tc.want.NohzFullFile || len(d.Params) != len(tc.want.Params) {
			t.Errorf("%s: %+v, want %+v", tc.name, d, tc.want)
		}
		for k, v := range tc.want.Params {
			if d.Params[k] != v {
				t.Errorf("%s: %s=%q, want %q", tc.name, k, d.Params[k], v)
			}
		}
	}
	// No /proc/cmdline (a bare fixture tree): a reading that says so.
	env, _ := isolationEnv(t, nil)
	if it := get(t, env, isolationName, Selector{}).Items[0]; it.Value != "unknown" || !strings.Contains(it.Meaning, "does not exist") {
		t.Errorf("without /proc/cmdline: %+v", it)
	}
}

// A plan never writes: it is the boot loader's steps, for the boot
// loader found, with the command line edited in place.
func TestIsolationPlan(t *testing.T) {
	grub := "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"console=ttyS0 isolcpus=1 nohz_full=1\"\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		value string
		steps int
		line  string // the first step's line
	}{
		{"grub", map[string]string{"proc/cmdline": "ro\n", "etc/default/grub": grub}, "2-3", 3,
			`GRUB_CMDLINE_LINUX="console=ttyS0 isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3"`},
		{"grub none", map[string]string{"proc/cmdline": "ro isolcpus=1\n", "etc/default/grub": grub}, "none", 3, `GRUB_CMDLINE_LINUX="console=ttyS0"`},
		{"systemd-boot", map[string]string{"proc/cmdline": "ro\n", "etc/kernel/cmdline": "root=/dev/sda2 rw\n"}, "3", 3,
			"root=/dev/sda2 rw isolcpus=managed_irq,domain,3 nohz_full=3 rcu_nocbs=3"},
		{"other", map[string]string{"proc/cmdline": "ro\n"}, "1-2", 2, "isolcpus=managed_irq,domain,1-2 nohz_full=1-2 rcu_nocbs=1-2"},
		{"already", map[string]string{"proc/cmdline": "ro isolcpus=managed_irq,domain,2 nohz_full=2 rcu_nocbs=2\n"}, "2", 0, ""},
		{"already none", map[string]string{"proc/cmdline": "ro\n"}, "none", 0, ""},
	} {
		env, root := isolationEnv(t, tc.files)
		before := snapshotTree(t, root)
		p, err := plan(env, isolationName, Selector{}, tc.value)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(p.Changes) != 0 || len(p.Manual) != tc.steps {
			t.Fatalf("%s: %d changes, %d steps %+v; want none and %d", tc.name, len(p.Changes), len(p.Manual), p.Manual, tc.steps)
		}
		if tc.steps > 0 && p.Manual[0].Line != tc.line {
			t.Errorf("%s: line %q, want %q", tc.name, p.Manual[0].Line, tc.line)
		}
		if tc.steps > 0 && !strings.HasPrefix(p.Manual[len(p.Manual)-1].Do, "reboot") {
			t.Errorf("%s: the last step is not the reboot: %+v", tc.name, p.Manual)
		}
		after := snapshotTree(t, root)
		for f, c := range before {
			if after[f] != c {
				t.Errorf("%s: the plan changed %s", tc.name, f)
			}
		}
	}
	if k := (isolation{}); k.Experiment().Pending == "" {
		t.Error("isolation needs a reboot: try must refuse it")
	}
}

func FuzzIsolationCmdline(f *testing.F) {
	f.Add(partitionedCmdline)
	f.Add("isolcpus=nohz,domain,managed_irq,1-3,5 -- x")
	f.Fuzz(func(t *testing.T, s string) {
		d := IsolationDetail{Params: cmdlineParams(s)}
		if v, ok := d.Params["isolcpus"]; ok {
			d.IsolFlags, d.IsolCPUs = splitIsolcpus(v)
		}
		_ = isolationMeaning(d)
		_ = withIsolation(s, isolationLine("1"))
	})
}
