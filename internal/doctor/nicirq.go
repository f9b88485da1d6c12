package doctor

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
)

// The Linux network interfaces and their interrupts, read from sysfs and
// procfs under a root directory (the machine's, or a fixture tree).

// maxSysfsRead bounds a read of one /proc or /sys file.
const maxSysfsRead = 64 << 10

func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSysfsRead))
	return strings.TrimSpace(string(b)), err
}

// physicalNICs lists the interfaces under sys/class/net that have a
// device link, sorted.
func physicalNICs(root string) []string {
	ents, err := os.ReadDir(filepath.Join(root, "sys", "class", "net"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(root, "sys", "class", "net", e.Name(), "device")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// nicIRQ is one interrupt of a network interface.
type nicIRQ struct {
	N         string
	Action    string // the handler name, e.g. virtio2-input.0, eth0-TxRx-0
	Allowed   string // smp_affinity_list
	Delivered string // effective_affinity_list
}

// queueIRQs returns the MSI interrupts of an interface's device that
// serve its queues: the device's msi_irqs, or its parent's for devices on
// a bus of their own (virtio), without the configuration and link
// interrupts.
func queueIRQs(root, ifc string) []nicIRQ {
	dev := filepath.Join(root, "sys", "class", "net", ifc, "device")
	nums := listDir(filepath.Join(dev, "msi_irqs"))
	if len(nums) == 0 {
		if real, err := filepath.EvalSymlinks(dev); err == nil {
			nums = listDir(filepath.Join(filepath.Dir(real), "msi_irqs"))
		}
	}
	slices.SortFunc(nums, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	var out []nicIRQ
	for _, n := range nums {
		if _, err := strconv.Atoi(n); err != nil {
			continue
		}
		dir := filepath.Join(root, "proc", "irq", n)
		irq := nicIRQ{N: n}
		for _, e := range listDirEntries(dir) {
			if e.IsDir() {
				irq.Action = e.Name()
			}
		}
		if strings.HasSuffix(irq.Action, "config") || irq.Action == ifc {
			continue
		}
		irq.Allowed, _ = readSmall(filepath.Join(dir, "smp_affinity_list"))
		irq.Delivered, _ = readSmall(filepath.Join(dir, "effective_affinity_list"))
		if irq.Allowed == "" && irq.Delivered == "" {
			continue
		}
		out = append(out, irq)
	}
	return out
}

func listDir(path string) []string {
	var out []string
	for _, e := range listDirEntries(path) {
		out = append(out, e.Name())
	}
	return out
}

func listDirEntries(path string) []os.DirEntry {
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	return ents
}

// onlineCount is the number of online CPUs, 0 when unknown.
func onlineCount(root string) int {
	s, err := readSmall(filepath.Join(root, "sys", "devices", "system", "cpu", "online"))
	if err != nil {
		return 0
	}
	c, err := cpuset.ParseList(s)
	if err != nil {
		return 0
	}
	return len(c)
}

// cpuCount is the number of CPUs in a list such as 0-3,8 (0 when it
// does not parse).
func cpuCount(list string) int {
	c, err := cpuset.ParseList(list)
	if err != nil {
		return 0
	}
	return len(c)
}
