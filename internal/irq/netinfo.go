package irq

// NetInfo describes the network devices: queues, their interrupts and the
// CPUs those may run on, and RSS settings where readable.
type NetInfo struct {
	Interfaces []Iface  `json:"interfaces"`
	Notes      []string `json:"notes,omitempty"`
}

// Iface is one network device.
type Iface struct {
	Name    string `json:"name"`
	Driver  string `json:"driver,omitempty"`
	Device  string `json:"device,omitempty"` // bus device: "virtio2", "0000:03:00.0"
	Virtual bool   `json:"virtual"`          // no hardware device (lo, veth, bridge ...)
	// RxQueues and TxQueues count the kernel's queues (sysfs queues/rx-N).
	RxQueues int       `json:"rx_queues"`
	TxQueues int       `json:"tx_queues"`
	Queues   []Queue   `json:"queues,omitempty"`
	IRQs     []IRQInfo `json:"irqs,omitempty"`
	RSS      *RSS      `json:"rss,omitempty"`
}

// Queue is one kernel queue and the CPUs software steering sends it to.
type Queue struct {
	Name string `json:"name"` // rx-0, tx-3
	// CPUs of rps_cpus (rx) or xps_cpus (tx); empty = steering off.
	SteerCPUs []int `json:"steer_cpus"`
}

// IRQInfo is one interrupt of a device.
type IRQInfo struct {
	IRQ     int      `json:"irq"`
	Actions []string `json:"actions"`
	Queue   string   `json:"queue,omitempty"`
	// Chip is the controller and trigger from /proc/interrupts, e.g.
	// "PCI-MSIX-0000:00:03.0 1-edge": an MSI/MSI-X vector per queue can be
	// steered on its own, a shared legacy line (IO-APIC) cannot.
	Chip string `json:"chip,omitempty"`
	// Affinity: smp_affinity_list, the CPUs allowed; Effective:
	// effective_affinity_list, the CPU(s) the interrupt is delivered to.
	Affinity  []int `json:"affinity"`
	Effective []int `json:"effective,omitempty"`
}

// RSS is receive-side scaling as the driver reports it.
type RSS struct {
	Source string `json:"source"` // "ethtool" or "registry"
	// Linux (ethtool): channel counts, the indirection table (hash bucket
	// -> rx queue) and interrupt coalescing.
	Channels   map[string]uint32 `json:"channels,omitempty"`
	IndirTable []uint32          `json:"indirection_table,omitempty"`
	Coalesce   map[string]uint32 `json:"coalesce,omitempty"`
	// Windows (registry, as Get-NetAdapterRss shows): *RSS, *NumRssQueues,
	// *RssBaseProcNumber, *MaxRssProcessors, *RSSProfile ...
	Settings map[string]string `json:"settings,omitempty"`
	Errors   []string          `json:"errors,omitempty"`
}

// IRQSet returns the interrupt numbers of the named interface, or of all
// hardware interfaces when name is "".
func (n *NetInfo) IRQSet(name string) map[int]bool {
	set := map[int]bool{}
	if n == nil {
		return set
	}
	for _, f := range n.Interfaces {
		if name != "" && f.Name != name {
			continue
		}
		for _, q := range f.IRQs {
			set[q.IRQ] = true
		}
	}
	return set
}

// Iface returns the named interface, or nil.
func (n *NetInfo) Iface(name string) *Iface {
	if n == nil {
		return nil
	}
	for i := range n.Interfaces {
		if n.Interfaces[i].Name == name {
			return &n.Interfaces[i]
		}
	}
	return nil
}
