package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/irq"
)

// The totals table counts PDH Interrupts/sec as interrupts, as the plot
// does: its "all interrupts" row is that counter, not the DPCs.
func TestIRQTotalPDHInterrupts(t *testing.T) {
	iv := &irq.Interval{StartNs: 0, EndNs: 2e9, CPUs: []int{0, 1}, Rows: []irq.Row{
		{Source: "pdh", Name: "Interrupts/sec", Label: "interrupts", Unit: irq.UnitCount, PerCPU: irq.Values{500, 600}, Total: 1100},
		{Source: "pdh", Name: "DPCs Queued/sec", Label: "DPCs queued", Unit: irq.UnitCount, Role: irq.RoleDPC, PerCPU: irq.Values{70, 80}, Total: 150}}}
	var b bytes.Buffer
	IRQTotal(&b, iv, false)
	var all string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "all interrupts") {
			all = l
		}
	}
	if f := strings.Fields(all); len(f) != 6 || f[2] != "500" || f[3] != "600" || f[4] != "1100" || f[5] != "550" {
		t.Fatalf("all interrupts row %q in:\n%s", all, b.String())
	}
}

func TestIRQPlotGroups(t *testing.T) {
	iv := &irq.Interval{StartNs: 0, EndNs: 2e9, CPUs: []int{0, 1}, Rows: []irq.Row{
		{Source: "pdh", Name: "Interrupts/sec", Unit: irq.UnitCount, PerCPU: irq.Values{500, 600}, Total: 1100},
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: irq.UnitCount, Role: irq.RoleDPC, PerCPU: irq.Values{70, 80}, Total: 150}}}
	b, err := IRQPlot(iv, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "DPCs queued", "all interrupts", "per-CPU activity over 2s"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plot lacks %q", want)
		}
	}
}

func TestNetInfoShowsChip(t *testing.T) {
	n := &irq.NetInfo{Interfaces: []irq.Iface{{Name: "eth0", Driver: "virtio_net", Device: "virtio2", RxQueues: 1, TxQueues: 1,
		IRQs: []irq.IRQInfo{{IRQ: 38, Actions: []string{"virtio2-input.0"}, Chip: "PCI-MSIX-0000:00:03.0 1-edge", Affinity: []int{0, 1}, Effective: []int{1}}}}}}
	var b bytes.Buffer
	NetInfo(&b, n)
	if want := "IRQ 38 virtio2-input.0 (PCI-MSIX-0000:00:03.0 1-edge): allowed CPUs 0-1, delivered to CPU 1"; !strings.Contains(b.String(), want) {
		t.Fatalf("missing %q in:\n%s", want, b.String())
	}
}

// A reading line names the work per CPU: network on Linux, DPCs on
// Windows.
func TestIRQLine(t *testing.T) {
	for _, c := range []struct {
		name string
		iv   *irq.Interval
		want string
	}{
		{"linux", &irq.Interval{CPUs: []int{0, 1}, Rows: []irq.Row{
			{Source: "softirqs", Name: "NET_RX", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{3, 4}, Total: 7},
			{Source: "interrupts", Name: "38", Role: irq.RoleNet, Unit: irq.UnitCount, PerCPU: irq.Values{1, 0}, Total: 1}}},
			"[    1.5s] network IRQs + NET_RX/NET_TX per CPU: cpu0 4  cpu1 4\n"},
		{"windows", &irq.Interval{CPUs: []int{0, 2}, Rows: []irq.Row{
			{Source: "pdh", Name: "DPCs Queued/sec", Role: irq.RoleDPC, Unit: irq.UnitCount, PerCPU: irq.Values{2.5, 1}, Total: 3.5}}},
			"[    1.5s] DPCs queued per CPU: cpu0 2.5  cpu2 1\n"},
	} {
		var b bytes.Buffer
		IRQLine(&b, 1500e6, c.iv)
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}
