package knob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The Linux knobs read over copies of real machines' /sys and /proc
// (testdata/real-sys, see PROVENANCE): the files node_exporter's and
// procfs's fixture archives hold, unchanged, their links kept. A real
// sysfs is made of links: cpuN/cpufreq is a link to ../cpufreq/policyN
// since the cpufreq policy directories (procfs's tree), and the NUMA
// nodes' cpuN entries link to the CPUs. Each golden file is the reading
// of every knob over its tree, checked by hand against the files (the
// PROVENANCE note says what each value rests on).
func TestRealSysGolden(t *testing.T) {
	for _, tree := range []string{"node_exporter", "procfs"} {
		t.Run(tree, func(t *testing.T) {
			root, err := filepath.Abs(filepath.Join("testdata/real-sys", tree))
			if err != nil {
				t.Fatal(err)
			}
			l, err := RunList(context.Background(), ListOptions{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(realSysText(l), root, "ROOT")
			testutil.Golden(t, filepath.Join("testdata/real-sys", tree+".golden"), got,
				os.Getenv("LATLAB_UPDATE_REALSYS") != "", "LATLAB_UPDATE_REALSYS=1")
		})
	}
}

// realSysText is a reading as lines: knob, then each item's target,
// value and meaning, its warnings, the notes, or the error.
func realSysText(l *List) string {
	var b strings.Builder
	for _, e := range l.Knobs {
		fmt.Fprintf(&b, "%s\n", e.Name)
		if e.Error != "" {
			fmt.Fprintf(&b, "  error: %s\n", e.Error)
			continue
		}
		if e.Reading == nil {
			continue
		}
		for _, it := range e.Reading.Items {
			fmt.Fprintf(&b, "  [%s] %s: %s\n", it.Target, it.Value, it.Meaning)
			for _, w := range it.Warnings {
				fmt.Fprintf(&b, "    warning: %s\n", w)
			}
		}
		for _, n := range e.Reading.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	return b.String()
}

// The readings that follow a link inside the tree, each checked against
// the files by hand: without following cpu0/cpufreq -> ../cpufreq/policy0
// the governor of CPU 0 is an error, and without following a link that
// names a directory /sys/class/net lists no interface.
func TestRealSysLinksInsideTheTree(t *testing.T) {
	for _, c := range []struct {
		tree, knob, target, value, meaning string
	}{
		// procfs: sys/devices/system/cpu/cpu0/cpufreq -> ../cpufreq/policy0,
		// whose scaling_governor reads "powersave", scaling_driver "intel_pstate";
		// cpu1/cpufreq is a directory reading the same.
		{"procfs", "cpu-governor", "cpu 0-1", "powersave", "intel_pstate picks"},
		// node_exporter: four CPUs, each its own directory, powersave.
		{"node_exporter", "cpu-governor", "cpu 0-3", "powersave", "intel_pstate picks"},
	} {
		t.Run(c.tree+" "+c.knob, func(t *testing.T) {
			root, _ := filepath.Abs(filepath.Join("testdata/real-sys", c.tree))
			r, err := RunGet(context.Background(), GetOptions{Knob: c.knob, Root: root})
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			for _, it := range r.Items {
				if it.Target == c.target {
					if it.Value != c.value || !strings.Contains(it.Meaning, c.meaning) {
						t.Errorf("%s: %q (%s), want %q (%s)", c.target, it.Value, it.Meaning, c.value, c.meaning)
					}
					return
				}
			}
			t.Errorf("no item %q: %+v", c.target, r.Items)
		})
	}
}

// /sys/class/net/IF is a link to the device's directory on every real
// machine. node_exporter's tree has ens10f0's eight rx queues (each
// rps_cpus a 256-CPU mask of eight comma-separated 32-bit groups, all
// zero) under its PCI device but no class/net link to it: the test makes
// the link a real /sys has and reads rps through it.
func TestRealSysNetLink(t *testing.T) {
	const dev = "sys/devices/pci0000:40/0000:40:01.3/0000:45:00.0/net/ens10f0"
	// kept outside sys/ in testdata: a Windows checkout cannot hold the
	// colons of the PCI path
	src, _ := filepath.Abs("testdata/real-sys/node_exporter/ens10f0")
	root := t.TempDir()
	for q := range 8 {
		rx := fmt.Sprintf("queues/rx-%d/rps_cpus", q)
		b, err := os.ReadFile(filepath.Join(src, rx))
		if err != nil {
			t.Fatal(err)
		}
		mkdir(t, filepath.Dir(filepath.Join(root, dev, rx)))
		if err := os.WriteFile(filepath.Join(root, dev, rx), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(t, filepath.Join(root, "sys/class/net"))
	symlink(t, "../../devices/pci0000:40/0000:40:01.3/0000:45:00.0/net/ens10f0", filepath.Join(root, "sys/class/net/ens10f0"))
	r, err := RunGet(context.Background(), GetOptions{Knob: "rps", Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 8 {
		t.Fatalf("%d items, want ens10f0's 8 rx queues: %+v", len(r.Items), r.Items)
	}
	for q, it := range r.Items {
		if want := fmt.Sprintf("ens10f0 rx-%d", q); it.Target != want || it.Value != "00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000" || !strings.HasPrefix(it.Meaning, "off") {
			t.Errorf("item %d: %q %q (%s), want %s, the zero mask, off", q, it.Target, it.Value, it.Meaning, want)
		}
	}
}
