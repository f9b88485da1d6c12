package irq

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A sysfs/procfs tree laid out as the kernel does: a virtio NIC whose
// interrupts are named after the virtio device, a multi-queue PCI NIC named
// after the interface, and lo.
func TestReadNetInfoFixtureTree(t *testing.T) {
	root := testutil.TempDir(t)
	b, err := os.ReadFile("testdata/interrupts-kvm-2cpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	extra := " 90:          5          0   PCI-MSI 524288-edge      enp3s0-TxRx-0\n 91:          0          7   PCI-MSI 524289-edge      enp3s0-TxRx-1\n"
	write(t, filepath.Join(root, "proc/interrupts"), string(b)+extra)
	pci := filepath.Join(root, "sys/devices/pci0000:00/0000:00:03.0")
	write(t, filepath.Join(pci, "virtio2/uevent"), "DRIVER=virtio_net\n")
	for _, n := range []string{"37", "38", "39"} {
		write(t, filepath.Join(pci, "msi_irqs", n), "msix\n")
	}
	mq := filepath.Join(root, "sys/devices/pci0000:00/0000:03:00.0")
	write(t, filepath.Join(mq, "uevent"), "DRIVER=ixgbe\n")
	net := filepath.Join(root, "sys/class/net")
	write(t, filepath.Join(net, "eth0/queues/rx-0/rps_cpus"), "0\n")
	write(t, filepath.Join(net, "eth0/queues/tx-0/xps_cpus"), "3\n")
	write(t, filepath.Join(net, "enp3s0/queues/rx-0/rps_cpus"), "00000000,00000002\n")
	write(t, filepath.Join(net, "enp3s0/queues/rx-1/rps_cpus"), "0\n")
	write(t, filepath.Join(net, "lo/queues/rx-0/rps_cpus"), "0\n")
	if err := os.Symlink(filepath.Join(pci, "virtio2"), filepath.Join(net, "eth0/device")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mq, filepath.Join(net, "enp3s0/device")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "proc/irq/38/smp_affinity_list"), "0-1\n")
	write(t, filepath.Join(root, "proc/irq/38/effective_affinity_list"), "1\n")
	write(t, filepath.Join(root, "proc/irq/91/smp_affinity_list"), "1\n")

	n := ReadNetInfo(root, false)
	eth0, enp, lo := n.Iface("eth0"), n.Iface("enp3s0"), n.Iface("lo")
	if eth0 == nil || enp == nil || lo == nil {
		t.Fatalf("interfaces %+v", n.Interfaces)
	}
	if !lo.Virtual || len(lo.IRQs) != 0 {
		t.Fatalf("lo: %+v", lo)
	}
	if eth0.Driver != "virtio_net" || eth0.Device != "virtio2" || eth0.RxQueues != 1 || eth0.TxQueues != 1 {
		t.Fatalf("eth0: %+v", eth0)
	}
	var irqs []int
	for _, q := range eth0.IRQs {
		irqs = append(irqs, q.IRQ)
	}
	if !reflect.DeepEqual(irqs, []int{37, 38, 39}) {
		t.Fatalf("eth0 IRQs %v", irqs)
	}
	in := eth0.IRQs[1]
	if in.Queue != "input.0" || in.Chip != "PCI-MSIX-0000:00:03.0 1-edge" || !reflect.DeepEqual(in.Affinity, []int{0, 1}) || !reflect.DeepEqual(in.Effective, []int{1}) {
		t.Fatalf("IRQ 38: %+v", in)
	}
	if !reflect.DeepEqual(eth0.Queues[1].SteerCPUs, []int{0, 1}) || len(eth0.Queues[0].SteerCPUs) != 0 {
		t.Fatalf("eth0 queues %+v", eth0.Queues)
	}
	if enp.Driver != "ixgbe" || enp.RxQueues != 2 || len(enp.IRQs) != 2 || enp.IRQs[1].Queue != "TxRx-1" || !reflect.DeepEqual(enp.IRQs[1].Affinity, []int{1}) {
		t.Fatalf("enp3s0: %+v", enp)
	}
	if !reflect.DeepEqual(enp.Queues[0].SteerCPUs, []int{1}) {
		t.Fatalf("enp3s0 RPS %+v", enp.Queues)
	}
	if set := n.IRQSet(""); !set[38] || !set[91] || set[36] {
		t.Fatalf("IRQ set %v", set)
	}

	// A watcher on the tree: a root other than / is a fixture, so no
	// ethtool ioctl is tried; Iface limits the network role to that
	// interface's interrupts.
	sb, err := os.ReadFile("testdata/softirqs-kvm-2cpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "proc/softirqs"), string(sb))
	for iface, want := range map[string][]string{"": {"37", "38", "39", "90", "91"}, "enp3s0": {"90", "91"}, "lo": nil} {
		w, err := NewWatcher(WatchOptions{Root: root, Iface: iface})
		if err != nil {
			t.Fatal(err)
		}
		if e := w.Network().Iface("enp3s0"); e == nil || e.RSS != nil {
			t.Fatalf("fixture root: enp3s0 %+v, want no ethtool reading", e)
		}
		iv, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range iv.Rows {
			if r.Source == "interrupts" && r.Role == RoleNet {
				got = append(got, r.Name)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Iface %q: network interrupts %v, want %v", iface, got, want)
		}
		if _, role := iv.NetWork(); role != RoleNet { // NET_RX/NET_TX softirqs in every case
			t.Errorf("Iface %q: role %q", iface, role)
		}
		w.Close()
	}
}

// The watcher on this machine's /proc produces consistent intervals.
func TestWatcherOnThisMachine(t *testing.T) {
	w, err := NewWatcher(WatchOptions{Root: "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	iv, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.CPUs) == 0 || len(iv.Rows) == 0 || iv.EndNs < iv.StartNs {
		t.Fatalf("interval %+v", iv)
	}
	for _, r := range iv.Rows {
		if len(r.PerCPU) != len(iv.CPUs) {
			t.Fatalf("row %s: %d values for %d CPUs", r.Name, len(r.PerCPU), len(iv.CPUs))
		}
	}
}
