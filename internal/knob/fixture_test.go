package knob

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/testutil"
)

// linuxTree builds a temporary tree shaped like /proc and /sys with the
// files the Linux knobs read and write, as a real kernel prints them.
func linuxTree(t testing.TB) string {
	t.Helper()
	root := testutil.TempDir(t)
	files := map[string]string{
		"proc/sys/net/ipv4/tcp_recovery":                                    "1\n",
		"proc/sys/net/ipv4/tcp_dsack":                                       "1\n",
		"proc/4242/timerslack_ns":                                           "50000\n",
		"proc/4242/stat":                                                    "4242 (game (x) srv) S 1 4242 4242 0 -1 4194560 1529 0 0 0 12 3 0 0 20 0 4 0 98765 10000000 900 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		"proc/self/timerslack_ns":                                           "50000\n",
		"proc/irq/24/smp_affinity_list":                                     "0-3\n",
		"proc/irq/24/effective_affinity_list":                               "2\n",
		"proc/irq/25/smp_affinity_list":                                     "0-3\n",
		"proc/irq/default_smp_affinity":                                     "f\n",
		"sys/devices/system/cpu/online":                                     "0-3\n",
		"sys/devices/system/clocksource/clocksource0/current_clocksource":   "tsc\n",
		"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet acpi_pm \n",
		"sys/class/net/eth0/queues/rx-0/rps_cpus":                           "0\n",
		"sys/class/net/eth0/queues/rx-1/rps_cpus":                           "0\n",
		"sys/class/net/eth0/queues/tx-0/xps_cpus":                           "0\n",
		"sys/class/net/lo/queues/rx-0/rps_cpus":                             "0\n",
	}
	testutil.WriteTree(t, root, files)
	return root
}

// snapshotTree reads every file of a tree.
func snapshotTree(t testing.TB, root string) map[string]string {
	t.Helper()
	return testutil.SnapshotTree(t, root)
}

// windowsRegistry fills an in-memory registry like a Windows 11 machine
// with an Intel I225-V (RSS keywords partly declared) and a Realtek NIC.
func windowsRegistry() *knobtest.Mem {
	m := knobtest.NewMem()
	m.Set(prioKey, "Win32PrioritySeparation", backend.DWORD(2))
	m.CreateKey(`HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`)
	m.Set(`HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`, "SystemResponsiveness", backend.DWORD(20))
	m.CreateKey(`HKLM\SOFTWARE\Policies\Microsoft\Windows`)
	m.CreateKey(`HKLM\SYSTEM\CurrentControlSet\Services\Tcpip`)

	i225 := NetClassKey + `\0007`
	m.Set(i225, "DriverDesc", backend.SZ("Intel(R) Ethernet Controller (3) I225-V"))
	m.Set(i225, "NetCfgInstanceId", backend.SZ("{5B1D2A3C-0000-4000-8000-0123456789AB}"))
	m.Set(i225, "*RSS", backend.SZ("1"))
	m.Set(i225, "*NumRssQueues", backend.SZ("4"))
	m.Set(i225, "*InterruptModeration", backend.SZ("1"))
	m.Set(i225, "ITR", backend.SZ("125"))
	m.Set(i225+`\Ndi`, "Service", backend.SZ("e2fexpress"))
	// The enums as the e2f INFs (I225) declare them: ITR levels are
	// driver codes (Medium 125 here, 950 on e1r/e1d), with no Adaptive.
	ndiEnum := func(kw, desc string, opts map[string]string) {
		k := i225 + `\Ndi\Params\` + kw
		m.Set(k, "ParamDesc", backend.SZ(desc))
		m.Set(k, "type", backend.SZ("enum"))
		for v, d := range opts {
			m.Set(k+`\Enum`, v, backend.SZ(d))
		}
	}
	ndiEnum("*RSS", "Receive Side Scaling", map[string]string{"0": "Disabled", "1": "Enabled"})
	ndiEnum("*NumRssQueues", "Maximum Number of RSS Queues", map[string]string{"1": "1 Queue", "2": "2 Queues", "4": "4 Queues"})
	ndiEnum("*InterruptModeration", "Interrupt Moderation", map[string]string{"0": "Disabled", "1": "Enabled"})
	ndiEnum("ITR", "Interrupt Moderation Rate", map[string]string{"0": "Off", "32": "Minimal", "64": "Low", "125": "Medium", "250": "High", "500": "Extreme"})
	rtk := NetClassKey + `\0001`
	m.Set(rtk, "DriverDesc", backend.SZ("Realtek PCIe GbE Family Controller"))
	m.Set(rtk, "*RSS", backend.SZ("1"))
	m.Set(rtk, "*RSSProfile", backend.SZ("4"))
	m.Set(rtk, "*RssBaseProcNumber", backend.SZ("0"))
	m.Set(rtk, "*MaxRssProcessors", backend.SZ("4"))
	m.Set(rtk, "*NumaNodeId", backend.SZ("65535"))
	m.Set(rtk, "*RssBaseProcGroup", backend.SZ("0"))
	m.Set(rtk, "*RssMaxProcNumber", backend.SZ("63"))
	m.Set(rtk, "*RssMaxProcGroup", backend.SZ("0"))
	m.Set(rtk, "*NumRssQueues", backend.SZ("2"))
	m.CreateKey(NetClassKey + `\Properties`)
	wan := NetClassKey + `\0002`
	m.Set(wan, "DriverDesc", backend.SZ("WAN Miniport (IP)"))

	cfg := graphicsConfigKey + `\SIMULATED_8086_1234_00000000_00020000_0^A1B2C3\00\00`
	m.Set(cfg, "Scaling", backend.DWORD(4))
	m.Set(graphicsConfigKey+`\SIMULATED_8086_1234_00000000_00020000_0^A1B2C3\00`, "Scaling", backend.DWORD(3))
	return m
}

// testEnv is an Env over the in-memory registry and BCD store, on a
// Windows 11 client, with a file backend rooted in an empty directory:
// the Linux knobs find none of their files there. Tests that read or
// write those files take testEnvTree, whose root holds linuxTree; most
// tests touch no file of it, and writing it for each of them was wasted.
func testEnv(t testing.TB) (*Env, *knobtest.Mem, *knobtest.Mem, string) {
	return envAt(testutil.TempDir(t))
}

// testEnvTree is testEnv with the Linux files of linuxTree.
func testEnvTree(t testing.TB) (*Env, *knobtest.Mem, *knobtest.Mem, string) {
	return envAt(linuxTree(t))
}

func envAt(root string) (*Env, *knobtest.Mem, *knobtest.Mem, string) {
	reg := windowsRegistry()
	bcd := knobtest.NewMem()
	env := &Env{
		Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}, backend.BackendRegistry: reg, backend.BackendBCD: bcd},
		Build:    22631,
		TickMs:   15.625,
	}
	return env, reg, bcd, root
}
