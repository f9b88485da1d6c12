package knob_test

import (
	"maps"
	"runtime"
	"testing"
)

const (
	eth0Dev = "sys/class/net/eth0/device/"
	eth0Rx0 = "sys/class/net/eth0/queues/rx-0/rps_cpus"
)

// virtioNIC is a 2-CPU KVM guest's network as sysfs and procfs show it:
// eth0, a virtio NIC whose device lists its MSI-X interrupts (37 the
// configuration one, 38 and 39 its queues), and lo. (sysfs has device as
// a link into /sys/devices; a directory keeps the tree usable where
// symlinks are not.) changes replace files ("" removes one).
func virtioNIC(changes map[string]string) map[string]string {
	f := map[string]string{
		"sys/devices/system/cpu/online":           "0-1\n",
		eth0Dev + "msi_irqs/37":                   "msix\n",
		eth0Dev + "msi_irqs/38":                   "msix\n",
		eth0Dev + "msi_irqs/39":                   "msix\n",
		eth0Rx0:                                   "0\n",
		"sys/class/net/eth0/queues/tx-0/xps_cpus": "0\n",
		"sys/class/net/lo/queues/rx-0/rps_cpus":   "0\n",
		"proc/interrupts": "           CPU0       CPU1       \n" +
			" 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n" +
			" 38:          0      31583 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n" +
			" 39:      25379          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n" +
			"LOC:    2549581    2446616   Local timer interrupts\n",
		"proc/irq/37/smp_affinity_list":       "0-1\n",
		"proc/irq/37/effective_affinity_list": "0\n",
		"proc/irq/38/smp_affinity_list":       "0-1\n",
		"proc/irq/38/effective_affinity_list": "1\n",
		"proc/irq/39/smp_affinity_list":       "0-1\n",
		"proc/irq/39/effective_affinity_list": "0\n",
	}
	maps.Copy(f, changes)
	return f
}

// noDevice removes eth0's device: no interface is physical.
var noDevice = map[string]string{eth0Dev + "msi_irqs/37": "", eth0Dev + "msi_irqs/38": "", eth0Dev + "msi_irqs/39": ""}

// linuxNICs skips a test that needs the check-up's map of network
// interfaces, which only the Linux build reads from /sys
// (irq.ReadNetInfo).
func linuxNICs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("network interfaces are mapped from /sys on Linux only")
	}
}
