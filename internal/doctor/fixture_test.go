package doctor

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/testutil"
)

// linuxFiles is a machine with default settings as /proc and /sys show
// it: two CPUs, one NIC whose device lists its MSI interrupts (a config
// interrupt and two queues), lo. (sysfs has device as a link into
// /sys/devices; a directory here keeps the tree usable where symlinks
// are not, and nicirq_linux_test covers the links.)
func linuxFiles() map[string]string {
	return map[string]string{
		"proc/sys/net/ipv4/tcp_recovery":                                    "1\n",
		"proc/sys/net/ipv4/tcp_dsack":                                       "1\n",
		"proc/self/timerslack_ns":                                           "50000\n",
		"proc/cmdline":                                                      "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=0f3a ro quiet\n",
		"sys/devices/system/cpu/online":                                     "0-1\n",
		"sys/devices/system/cpu/isolated":                                   "\n",
		"proc/sys/kernel/version":                                           "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n",
		"sys/devices/system/clocksource/clocksource0/current_clocksource":   "tsc\n",
		"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc kvm-clock \n",
		"sys/class/net/eth0/device/msi_irqs/37":                             "msix\n",
		"sys/class/net/eth0/device/msi_irqs/38":                             "msix\n",
		"sys/class/net/eth0/device/msi_irqs/39":                             "msix\n",
		"sys/class/net/eth0/queues/rx-0/rps_cpus":                           "0\n",
		"sys/class/net/eth0/queues/tx-0/xps_cpus":                           "0\n",
		"sys/class/net/lo/queues/rx-0/rps_cpus":                             "0\n",
		"proc/interrupts": "           CPU0       CPU1       \n" +
			" 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n" +
			" 38:          0      31583 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n" +
			" 39:      25379          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n" +
			"LOC:    2549581    2446616   Local timer interrupts\n",
		"proc/irq/37/smp_affinity_list":       "0-1\n",
		"proc/irq/37/effective_affinity_list": "0\n",
		"proc/irq/38/smp_affinity_list":       "0-1\n",
		"proc/irq/38/effective_affinity_list": "1\n",
		"proc/irq/39/smp_affinity_list":       "0-1\n",
		"proc/irq/39/effective_affinity_list": "0\n",
	}
}

// linuxTree writes the default tree with changes under a temporary root:
// a "" value deletes a file or a directory; "link:PATH" makes PATH a
// symlink.
func linuxTree(t testing.TB, changes map[string]string) string {
	t.Helper()
	root := testutil.TempDir(t)
	files := linuxFiles()
	links := map[string]string{}
	for p, c := range changes {
		if l, ok := strings.CutPrefix(p, "link:"); ok {
			links[l] = c
			if c == "" {
				delete(links, l)
			}
			continue
		}
		if c == "" {
			for f := range files {
				if f == p || strings.HasPrefix(f, p+"/") {
					delete(files, f)
				}
			}
		} else {
			files[p] = c
		}
	}
	testutil.WriteTree(t, root, files)
	for p, target := range links {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), full); err != nil {
			t.Fatal(err)
		}
	}
	// The PM QoS device as the kernel reads it out: a native-endian s32.
	dma := make([]byte, 4)
	binary.NativeEndian.PutUint32(dma, 2_000_000_000)
	os.MkdirAll(filepath.Join(root, "dev"), 0o755)
	os.WriteFile(filepath.Join(root, "dev", "cpu_dma_latency"), dma, 0o600)
	return root
}

// linuxEnv reads a fixture tree as the Linux knobs do under --root, with
// an interface whose driver reports adaptive rx coalescing.
func linuxEnv(root string) *knob.Env {
	var c backend.Coalesce
	c[0], c[1], c[9] = 8, 0, 1 // rx-usecs 8, adaptive-rx on
	// systemd as a Debian machine has it: irqbalance installed, running.
	sys := knobtest.NewSystemctl(map[string]backend.ServiceState{"irqbalance.service": {Active: "active", Enabled: "enabled"}})
	return &knob.Env{Backends: map[string]backend.Backend{
		backend.BackendFile:    backend.Files{Root: root},
		backend.BackendEthtool: fakeEthtool{c.Value()},
		backend.BackendService: sys.Backend(),
	}}
}

// withLatlabSet applies a knob change through latlab's journal in the
// root's state directory, as latlab knob set --root does on Linux.
func withLatlabSet(name string, sel knob.Selector, value string) func(t *testing.T, env *knob.Env) {
	return func(t *testing.T, env *knob.Env) {
		k, err := knob.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := k.Plan(env, sel, value)
		if err != nil {
			t.Fatal(err)
		}
		// The journal where a Linux latlab keeps it under the root, on
		// any OS the test runs on.
		j, err := journal.Open(env.Backends[backend.BackendFile].(backend.Files).Root + "/var/lib/latlab")
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if err := knob.Apply(env, j, p); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeEthtool answers every coalescing read with one value.
type fakeEthtool struct{ v backend.Value }

func (f fakeEthtool) Read(backend.Loc) (backend.Value, error) { return f.v, nil }
func (fakeEthtool) Write(backend.Loc, backend.Value) error    { return errors.New("read-only fake") }
func (fakeEthtool) CheckWrite(backend.Loc) error              { return errors.New("read-only fake") }

const (
	prioKey     = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`
	kernelKey   = `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`
	profileKey  = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`
	graphicsKey = `HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers\Configuration`
	// A display configuration id as Windows writes it: monitor vendor and
	// product, then the EDID serial number (made up here).
	displayID  = `GSM5B7F3000ABCD_20_07E4_3C^9F0AD09F66E4D6E05C6EBA36C2DA59D3`
	adapterKey = knob.NetClassKey + `\0007`
)

// ndiEnum declares an enum keyword in an adapter's Ndi\Params.
func ndiEnum(set func(path, name string, v backend.Value), key, kw, def string, opts map[string]string) {
	p := key + `\Ndi\Params\` + kw
	set(p, "type", backend.SZ("enum"))
	set(p, "default", backend.SZ(def))
	for v, n := range opts {
		set(p+`\Enum`, v, backend.SZ(n))
	}
}

// windowsValues fills a registry with a Windows 11 client at its
// defaults: one Intel I210 adapter whose INF stored its defaults, one
// display configuration, no QoS policy.
func windowsValues(set func(path, name string, v backend.Value), createKey func(path string)) {
	set(prioKey, "Win32PrioritySeparation", backend.DWORD(2))
	createKey(kernelKey)
	set(profileKey, "SystemResponsiveness", backend.DWORD(20))
	set(graphicsKey+`\`+displayID+`\00\00`, "Scaling", backend.DWORD(4))
	set(adapterKey, "DriverDesc", backend.SZ("Intel(R) Ethernet Controller I210"))
	set(adapterKey, "NetCfgInstanceId", backend.SZ("{5D2B1A11-2C33-4F4B-9A66-0123456789AB}"))
	set(adapterKey+`\Ndi`, "Service", backend.SZ("e1rexpress"))
	set(adapterKey, "*RSS", backend.SZ("1"))
	set(adapterKey, "*NumRssQueues", backend.SZ("2"))
	set(adapterKey, "*InterruptModeration", backend.SZ("1"))
	set(adapterKey, "ITR", backend.SZ("65535"))
	ndiEnum(set, adapterKey, "*RSS", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
	ndiEnum(set, adapterKey, "*NumRssQueues", "2", map[string]string{"1": "1 Queue", "2": "2 Queues", "4": "4 Queues"})
	ndiEnum(set, adapterKey, "*InterruptModeration", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
	ndiEnum(set, adapterKey, "ITR", "65535", map[string]string{"65535": "Adaptive", "3600": "Extreme", "2000": "High", "950": "Medium", "400": "Low", "200": "Minimal", "0": "Off"})
}

// windowsEnv is a Windows machine of the given build over an in-memory
// registry and BCD store.
func windowsEnv(build uint32, server bool) (*knob.Env, *knobtest.Mem, *knobtest.Mem) {
	reg, bcd := knobtest.NewMem(), knobtest.NewMem()
	windowsValues(reg.Set, reg.CreateKey)
	env := &knob.Env{
		Backends: map[string]backend.Backend{backend.BackendRegistry: reg, backend.BackendBCD: bcd},
		Build:    build, Server: server, TickMs: 15.625,
		Privileged: func() error { return nil },
	}
	return env, reg, bcd
}

// find returns the audited setting of a knob (and target, when given).
func find(t *testing.T, ss []Setting, name, target string) Setting {
	t.Helper()
	for _, s := range ss {
		if s.Knob == name && (target == "" || s.Target == target) {
			return s
		}
	}
	t.Fatalf("no setting %s %s in %+v", name, target, ss)
	return Setting{}
}

// noWrite fails the test on any write or write check.
type noWrite struct {
	b backend.Backend
	t *testing.T
}

func (n noWrite) Read(l backend.Loc) (backend.Value, error) { return n.b.Read(l) }
func (n noWrite) Write(l backend.Loc, v backend.Value) error {
	n.t.Errorf("the audit wrote %s", l)
	return errors.New("no writes")
}
func (n noWrite) CheckWrite(l backend.Loc) error {
	n.t.Errorf("the audit checked a write of %s", l)
	return errors.New("no writes")
}
func (n noWrite) List(p string) ([]string, []string, error) { return n.b.(backend.Lister).List(p) }

// snapshot is every file of a tree with its content.
func snapshot(t *testing.T, root string) string {
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(p + "=" + string(c) + "\n")
		}
		return nil
	})
	return b.String()
}

func knobAbsent() backend.Value { return backend.Absent }
