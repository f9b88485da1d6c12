package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A virtio NIC: its device link points at the virtio device, whose
// parent PCI device holds the MSI interrupts.
func TestQueueIRQsThroughDeviceLink(t *testing.T) {
	root := linuxTree(t, map[string]string{
		"sys/class/net/eth0/device":                          "",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/37":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/39":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/virtio2/vendor": "0x1af4\n",
		"link:sys/class/net/eth0/device":                     "../../../devices/pci0000:00/0000:00:03.0/virtio2",
	})
	irqs := queueIRQs(root, "eth0")
	var got []string
	for _, i := range irqs {
		got = append(got, i.N+" "+i.Action+" "+i.Allowed+" "+i.Delivered)
	}
	if strings.Join(got, "; ") != "38 virtio2-input.0 0-1 1; 39 virtio2-output.0 0-1 0" {
		t.Errorf("queue IRQs %q", got)
	}
	if s := find(t, Audit(linuxEnv(root), "linux"), "irq-affinity", "eth0"); s.Rule != "irq-default" || s.Value != "38:cpu1 39:cpu0" {
		t.Errorf("%+v", s)
	}
}

// This machine's NICs: every queue interrupt found is one /proc/irq
// knows.
func TestQueueIRQsLive(t *testing.T) {
	for _, ifc := range physicalNICs("/") {
		for _, irq := range queueIRQs("/", ifc) {
			if _, err := os.Stat(filepath.Join("/proc/irq", irq.N)); err != nil || irq.Allowed == "" {
				t.Errorf("%s: irq %+v: %v", ifc, irq, err)
			}
		}
	}
}
