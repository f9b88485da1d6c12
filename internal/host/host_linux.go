package host

import (
	"strings"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/rootfs"
)

func collect() Facts { return collectFrom("/") }

// collectFrom reads the facts from a root directory, so tests can point it
// at a fixture tree.
func collectFrom(root string) Facts {
	var f Facts
	if b, err := rootfs.Open(root, "etc/os-release"); err == nil {
		f.OSVersion = parseOSRelease(b)
		b.Close()
	}
	if b, err := rootfs.Open(root, "proc/cpuinfo"); err == nil {
		f.CPUModel, f.Hypervisor = parseCPUInfo(b)
		b.Close()
	}
	var u unix.Utsname
	if root == "/" && unix.Uname(&u) == nil {
		f.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	cs := "unknown"
	if b, err := rootfs.ReadFile(root, "sys/devices/system/clocksource/clocksource0/current_clocksource"); err == nil {
		cs = strings.TrimSpace(string(b))
	}
	f.ClockSource = clock.Source() + " over " + cs
	return f
}
