package doctor

import "testing"

// A virtio NIC as sysfs has it: its device link points at the virtio
// device, whose parent PCI function holds the MSI interrupts; the
// configuration interrupt (37) is left out.
func TestQueueIRQsThroughDeviceLink(t *testing.T) {
	root := linuxTree(t, map[string]string{
		"sys/class/net/eth0/device":                          "",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/37":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/msi_irqs/39":    "msix\n",
		"sys/devices/pci0000:00/0000:00:03.0/virtio2/uevent": "DRIVER=virtio_net\n",
		"link:sys/class/net/eth0/device":                     "../../../devices/pci0000:00/0000:00:03.0/virtio2",
	})
	if s := find(t, Audit(linuxEnv(root), "linux"), "irq-affinity", "eth0"); s.Rule != "irq-default" || s.Value != "38:cpu1 39:cpu0" {
		t.Errorf("%+v", s)
	}
}
