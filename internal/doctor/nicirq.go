package doctor

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/irq"
)

// nicIRQ is one queue interrupt of a network interface.
type nicIRQ struct {
	N         string
	Allowed   string // smp_affinity_list
	Delivered string // effective_affinity_list
}

// physicalNICs are the interfaces backed by a device (not lo, bridges,
// ifb, veth), in the order sysfs lists them.
func physicalNICs(ni *irq.NetInfo) []string {
	var out []string
	if ni == nil {
		return nil
	}
	for _, f := range ni.Interfaces {
		if !f.Virtual {
			out = append(out, f.Name)
		}
	}
	return out
}

// queueIRQs are an interface's interrupts that serve its queues: those
// irq.ReadNetInfo maps to the device, without the configuration and link
// interrupts.
func queueIRQs(ni *irq.NetInfo, ifc string) []nicIRQ {
	f := ni.Iface(ifc)
	if f == nil {
		return nil
	}
	var out []nicIRQ
	for _, q := range f.IRQs {
		action := ""
		if len(q.Actions) > 0 {
			action = q.Actions[0]
		}
		if strings.HasSuffix(action, "config") || action == ifc {
			continue
		}
		n := nicIRQ{N: strconv.Itoa(q.IRQ), Allowed: cpuset.FormatList(q.Affinity)}
		if len(q.Effective) > 0 {
			n.Delivered = cpuset.FormatList(q.Effective)
		}
		out = append(out, n)
	}
	return out
}

// maxSysfsRead bounds a read of one /proc or /sys file.
const maxSysfsRead = 64 << 10

// onlineCount is the number of online CPUs, 0 when unknown.
func onlineCount(root string) int {
	f, err := os.Open(filepath.Join(root, "sys", "devices", "system", "cpu", "online"))
	if err != nil {
		return 0
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSysfsRead))
	if err != nil {
		return 0
	}
	c, err := cpuset.ParseList(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return len(c)
}
