package knob

import (
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/knob/backend"
)

// The knobs judged per network interface (irq-affinity, rps, coalescing)
// gather their check-up cases over the physical interfaces that /sys
// describes, as irq.ReadNetInfo maps them.

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

// physicalIfaces are the physical network interfaces of env's root.
func physicalIfaces(env *Env) []string {
	return physicalNICs(netInfo(filesRoot(env)))
}

func filesRoot(env *Env) string {
	if fb, ok := env.Backends[backend.BackendFile].(backend.Files); ok {
		return fb.Root
	}
	return ""
}

// queueIRQs are an interface's interrupts that serve its queues: those
// irq.ReadNetInfo maps to the device, without the configuration and link
// interrupts.
func queueIRQs(ni *irq.NetInfo, ifc string, online int) QueueGroup {
	f := ni.Iface(ifc)
	if f == nil {
		return nil
	}
	var out QueueGroup
	for _, q := range f.IRQs {
		action := ""
		if len(q.Actions) > 0 {
			action = q.Actions[0]
		}
		if strings.HasSuffix(action, "config") || action == ifc {
			continue
		}
		n := Instance{Name: strconv.Itoa(q.IRQ), Allowed: cpuset.FormatList(q.Affinity), Online: online}
		if len(q.Effective) > 0 {
			n.Delivered = cpuset.FormatList(q.Effective)
		}
		out = append(out, n)
	}
	return out
}

// onlineCount is the number of online CPUs, 0 when unknown.
func onlineCount(env *Env) int {
	s, _, err := readText(env, fileLoc("sys/devices/system/cpu/online"))
	if err != nil {
		return 0
	}
	c, err := cpuset.ParseList(s)
	if err != nil {
		return 0
	}
	return len(c)
}
