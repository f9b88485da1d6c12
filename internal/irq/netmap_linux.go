package irq

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
)

// ReadNetInfo maps each network device under <root>/sys/class/net to its
// queues, interrupts and their CPUs. A device's interrupts are found three
// ways, as drivers name them differently: handler names that start with
// the interface name (eth0-TxRx-3), the bus device's name (virtio2-input.0
// for a virtio NIC), or the PCI function's msi_irqs. live allows ethtool
// ioctls (RSS table, channels, coalescing) on this machine's devices.
func ReadNetInfo(root string, live bool) *NetInfo {
	n := &NetInfo{}
	classDir := filepath.Join(root, "sys", "class", "net")
	ents, err := os.ReadDir(classDir)
	if err != nil {
		n.Notes = append(n.Notes, "no network devices: "+err.Error())
		return n
	}
	intr, _ := ReadInterrupts(root)
	for _, e := range ents {
		name := e.Name()
		dir := filepath.Join(classDir, name)
		f := Iface{Name: name}
		devLink := filepath.Join(dir, "device")
		if target, err := os.Readlink(devLink); err == nil {
			f.Device = filepath.Base(target)
		} else if st, err := os.Stat(devLink); err == nil && st.IsDir() {
			f.Device = name // a fixture tree with a plain directory
		} else {
			f.Virtual = true
		}
		if !f.Virtual {
			f.Driver = ueventValue(filepath.Join(devLink, "uevent"), "DRIVER")
		}
		qents, _ := os.ReadDir(filepath.Join(dir, "queues"))
		for _, q := range qents {
			qn := q.Name()
			var file string
			switch {
			case strings.HasPrefix(qn, "rx-"):
				f.RxQueues++
				file = "rps_cpus"
			case strings.HasPrefix(qn, "tx-"):
				f.TxQueues++
				file = "xps_cpus"
			default:
				continue
			}
			queue := Queue{Name: qn, SteerCPUs: []int{}}
			if b, err := os.ReadFile(filepath.Join(dir, "queues", qn, file)); err == nil {
				if cpus, err := cpuset.ParseMask(string(b)); err == nil {
					queue.SteerCPUs = cpus
				}
			}
			f.Queues = append(f.Queues, queue)
		}
		sort.Slice(f.Queues, func(i, j int) bool { return queueLess(f.Queues[i].Name, f.Queues[j].Name) })
		if !f.Virtual && intr != nil {
			f.IRQs = deviceIRQs(root, devLink, name, f.Device, intr)
		}
		if live && !f.Virtual {
			f.RSS = readRSS(name)
		}
		n.Interfaces = append(n.Interfaces, f)
	}
	return n
}

func queueLess(a, b string) bool {
	pa, na, _ := strings.Cut(a, "-")
	pb, nb, _ := strings.Cut(b, "-")
	if pa != pb {
		return pa < pb
	}
	x, _ := strconv.Atoi(na)
	y, _ := strconv.Atoi(nb)
	return x < y
}

func ueventValue(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			return v
		}
	}
	return ""
}

func deviceIRQs(root, devLink, ifname, device string, intr *Counters) []IRQInfo {
	msi := map[int]bool{}
	// The PCI function's MSI vectors: device/msi_irqs for a PCI NIC,
	// device/../msi_irqs for a virtio NIC (the virtio device sits below its
	// PCI function). The path is not cleaned: ".." must follow the link.
	for _, p := range []string{devLink + "/msi_irqs", devLink + "/../msi_irqs"} {
		ents, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if v, err := strconv.Atoi(e.Name()); err == nil {
				msi[v] = true
			}
		}
		break
	}
	var out []IRQInfo
	for _, r := range intr.Rows {
		if r.Kind != KindIRQ {
			continue
		}
		num, _ := strconv.Atoi(r.Name)
		match := msi[num]
		for _, a := range r.Actions {
			if a == ifname || strings.HasPrefix(a, ifname+"-") || (device != "" && strings.HasPrefix(a, device+"-")) {
				match = true
			}
		}
		if !match {
			continue
		}
		info := IRQInfo{IRQ: num, Actions: r.Actions, Chip: r.Chip, Affinity: []int{}}
		if len(r.Actions) > 0 {
			_, info.Queue = SplitQueue(r.Actions[0])
		}
		irqDir := filepath.Join(root, "proc", "irq", r.Name)
		if b, err := os.ReadFile(filepath.Join(irqDir, "smp_affinity_list")); err == nil {
			info.Affinity, _ = cpuset.ParseList(string(b))
		}
		if b, err := os.ReadFile(filepath.Join(irqDir, "effective_affinity_list")); err == nil {
			info.Effective, _ = cpuset.ParseList(string(b))
		}
		out = append(out, info)
	}
	return out
}
