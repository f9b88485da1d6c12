package doctor

import (
	"strings"
	"testing"
)

// A virtio NIC as sysfs has it: its device link points at the virtio
// device, whose parent PCI function holds the MSI interrupts.
func TestQueueIRQsThroughDeviceLink(t *testing.T) {
	root := linuxTree(t, map[string]string{
		"sys/class/net/eth0/device":                          "",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/37":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/39":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/virtio2/uevent": "DRIVER=virtio_net\n",
		"link:sys/class/net/eth0/device":                     "../../../devices/pci0000:00/0000:00:03.0/virtio2",
	})
	var got []string
	for _, i := range queueIRQs(netInfo(root), "eth0") {
		got = append(got, i.N+" "+i.Allowed+" "+i.Delivered)
	}
	if strings.Join(got, "; ") != "38 0-1 1; 39 0-1 0" {
		t.Errorf("queue IRQs %q", got)
	}
	if s := find(t, Audit(linuxEnv(root), "linux"), "irq-affinity", "eth0"); s.Rule != "irq-default" || s.Value != "38:cpu1 39:cpu0" {
		t.Errorf("%+v", s)
	}
}
